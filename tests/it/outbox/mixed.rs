//! Mixed ops against a real primary: each lands once and in local_seq order, and a replay of
//! every op with its ack lost lands nothing twice (each replay check, on the real server).

use serde_json::{Value, json};

use super::*;
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv};

/// Thirteen ops, one of each kind the edge replicates; the ack targets `target` (an event id).
fn mixed_ops(target: &str) -> Vec<(&'static str, Value)> {
    let long = "an entry longer than one chunk: ".repeat(40); // ~1,300 chars: two chunks.
    vec![
        (
            "add_drawer",
            json!({"wing": "proj", "room": "decisions", "content": "the outbox uses sqlite in WAL mode"}),
        ),
        (
            "kg_add",
            json!({"subject": "mpt", "predicate": "uses", "object": "sqlite"}),
        ),
        (
            "event_append",
            json!({"type": "status.note", "stream": "project/mpt", "room": "status", "from_agent": "pi@lap", "body": "first"}),
        ),
        (
            "diary_write",
            json!({"agent_name": "pi", "entry": format!("HOST:lap| {long}"), "topic": "work"}),
        ),
        (
            "kg_invalidate",
            json!({"subject": "mpt", "predicate": "uses", "object": "sqlite", "ended": "2026-11-01"}),
        ),
        (
            "event_append",
            json!({"type": "status.note", "stream": "project/mpt", "room": "status", "from_agent": "pi@lap", "body": "second", "metadata": {"k": 1}}),
        ),
        (
            "kg_add",
            json!({"subject": "mpt", "predicate": "stored", "object": "ops", "valid_from": "2026-01-01", "valid_to": "2026-06-01"}),
        ),
        (
            "task_create",
            json!({"project": "mpt", "from_agent": "pi@lap", "to_agent": "worker", "goal": "flush the outbox", "branch": "outbox", "base_commit": "6a30d40", "done": "tests pass"}),
        ),
        (
            "patch_submit",
            json!({"content": "--- a\n+++ b\n", "from_agent": "pi@lap", "stream": "project/mpt"}),
        ),
        (
            "artifact_put",
            json!({"kind": "note", "content": "an artifact", "created_by": "pi@lap"}),
        ),
        (
            "checkpoint",
            json!({"items": [{"wing": "proj", "room": "notes", "content": "checkpoint item about leases"}], "diary": {"agent_name": "pi", "entry": "checkpoint diary entry"}}),
        ),
        (
            "event_ack",
            json!({"event_id": target, "from_agent": "pi@lap", "status": "claimed", "body": "on it"}),
        ),
        (
            "add_drawer",
            json!({"wing": "proj", "room": "decisions", "content": "flush drains in local_seq order"}),
        ),
    ]
}

#[test]
fn mixed_ops_land_once_in_order_and_a_full_replay_lands_nothing_twice() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let target = call(
        &url,
        "event_append",
        json!({"type": "task.request", "stream": "project/mpt", "room": "delegation", "from_agent": "lead", "to_agent": "pi@lap"}),
    );
    let target = target["event"]["id"].as_str().unwrap().to_string();
    let ops = mixed_ops(&target);
    let ids: Vec<String> = ops.iter().map(|(t, a)| enqueue(&env, &url, t, a)).collect();

    let (code, r) = flush(&env, &url, &[]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(
        (
            r["result"].as_str(),
            r["settled"].as_u64(),
            r["sent"].as_u64()
        ),
        (Some("drained"), Some(13), Some(13)),
        "{r}"
    );

    let check_once = |when: &str| {
        for ((tool, args), id) in ops.iter().zip(&ids) {
            if *tool == "artifact_put" || *tool == "kg_invalidate" {
                continue; // artifacts are not listable; the invalidate is checked with its fact below
            }
            assert_eq!(
                effect_count(&url, tool, args, id),
                1,
                "{when}: {tool} {args}"
            );
        }
        // kg_add then kg_invalidate of the same fact: one triple, ended.
        let facts = call(
            &url,
            "kg_query",
            json!({"entity": "mpt", "direction": "outgoing"}),
        );
        let uses: Vec<&Value> = facts["facts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["predicate"] == "uses")
            .collect();
        assert_eq!(uses.len(), 1, "{when}: {facts}");
        assert_eq!(
            uses[0]["valid_to"], "2026-11-01",
            "{when}: invalidated after it was added"
        );
        assert_eq!(uses[0]["current"], false);
    };
    check_once("first flush");

    // Order: the events our ops wrote are in the primary's log in local_seq order.
    let st = store(&env);
    let done = st.list(&[], 100, false).unwrap();
    let seqs: Vec<i64> = done.iter().map(|o| o.local_seq).collect();
    assert_eq!(seqs, (1..=13).collect::<Vec<_>>());
    assert!(
        done.iter().all(
            |o| o.state == mpt_outbox::OpState::Done && o.outcome.as_deref() == Some("applied")
        ),
        "{done:?}"
    );
    let log: Vec<String> = events(&url, json!({}))
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    let positions: Vec<usize> = done
        .iter()
        .filter(|o| {
            o.primary_ref
                .as_deref()
                .is_some_and(|r| r.starts_with("evt_"))
        })
        .map(|o| {
            log.iter()
                .position(|id| Some(id.as_str()) == o.primary_ref.as_deref())
                .unwrap()
        })
        .collect();
    assert_eq!(
        positions.len(),
        5,
        "2 event_append, task, patch, ack: {done:?}"
    );
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "events in local_seq order: {positions:?}"
    );
    // The op key travelled in metadata, alongside the caller's own.
    let second = events(&url, json!({"type": "status.note"}));
    assert_eq!(second[1]["metadata"], json!({"k": 1, "mpt_op_id": ids[5]}));

    // Nothing left: a second flush sends nothing.
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!((code, r["sent"].as_u64()), (0, Some(0)), "{r}");

    // Every ack lost: each op back in the queue as if its send went unanswered. The replay
    // checks (or the server's own dedupe) must find every effect and add none. Not the KG pair
    // (the server's open-triple guard is per open fact: an add replayed after its invalidate
    // re-opens it, which is why a flush makes each ack durable before the next send) and not
    // the artifact (nothing can list artifacts; README "Outbox").
    let db = rusqlite::Connection::open(outbox_path(&env)).unwrap();
    let n = db
        .execute(
            "UPDATE ops SET state = 'queued', unconfirmed = 1, outcome = NULL
              WHERE tool_name NOT IN ('mempalace_kg_invalidate', 'mempalace_artifact_put')
                AND NOT (tool_name = 'mempalace_kg_add' AND payload_json NOT LIKE '%valid_to%')",
            [],
        )
        .unwrap();
    assert_eq!(n, 10);
    drop(db);
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!(code, 0, "{r}");
    // Found by a check: 2 event_append, diary, historical kg_add, task, patch, ack; the two
    // drawers are deduped by the server; the checkpoint's diary is found and its item deduped.
    assert_eq!(r["verified_present"], 7, "{r}");
    assert_eq!(r["already_there"], 2, "{r}");
    assert_eq!(
        r["sent"], 3,
        "only the drawers and the checkpoint's item went again: {r}"
    );
    check_once("after replaying every op");
}
