//! The outbox's ordinary life against a real primary: mixed ops land once and in order (and a
//! replay of everything lands nothing twice), the token stays out of the file, refusals, a
//! failed op blocks until dropped or retried, purge.

use serde_json::{Value, json};

use super::*;
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, json, stdout};

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
        done.iter()
            .all(|o| o.state == mpt::outbox::OpState::Done
                && o.outcome.as_deref() == Some("applied")),
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

#[test]
fn the_token_never_enters_the_outbox_and_the_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let token = "tok-3f9a1c7e5b2d4f60-secret";
    let env = TestEnv::new();
    let p = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some(token),
            ..Default::default()
        },
    );
    let url = p.url();
    let with_token = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_REMOTE_TOKEN", token),
    ];
    for i in 0..5 {
        let args = json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi", "body": format!("n{i}")}).to_string();
        let o = env.mpt(&["outbox", "enqueue", "event_append", &args], &with_token);
        assert!(o.status.success());
    }
    // A payload carrying the token is refused before it is written.
    let leak =
        json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi", "body": token})
            .to_string();
    let o = env.mpt(
        &["--json", "outbox", "enqueue", "event_append", &leak],
        &with_token,
    );
    assert_eq!(o.status.code(), Some(4));
    // A wrong token: refused (exit 4), nothing counted against the ops.
    let wrong = env.mpt(
        &["--json", "outbox", "flush"],
        &[
            ("MEMPALACE_REMOTE_URL", url.as_str()),
            ("MEMPALACE_REMOTE_TOKEN", "wrong"),
        ],
    );
    assert_eq!(wrong.status.code(), Some(4), "{}", stdout(&wrong));
    assert_eq!(json(&wrong)["result"], "refused");
    let o = env.mpt(&["--json", "outbox", "flush"], &with_token);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(json(&o)["settled"], 5);
    assert!(!stdout(&o).contains(token));
    let path = outbox_path(&env);
    for suffix in ["", "-wal", "-shm", ".flush.lock"] {
        let f = mpt::outbox::store::sidecar(&path, suffix);
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        assert!(
            !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
            "the token is in {}",
            f.display()
        );
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", f.display());
    }
}

#[test]
fn refusals_and_usage_errors() {
    let env = TestEnv::new();
    let url = "http://127.0.0.1:9/mcp"; // nothing listens on the discard port
    for tool in [
        "sync",
        "mine",
        "delete_drawer",
        "mempalace_delete_by_source",
        "reconnect",
    ] {
        let o = mpt(&env, url, &["--json", "outbox", "enqueue", tool, "{}"]);
        assert_eq!(o.status.code(), Some(4), "{tool}");
        assert_eq!(json(&o)["kind"], "refused");
    }
    let o = mpt(
        &env,
        url,
        &["--json", "outbox", "enqueue", "search", r#"{"query":"q"}"#],
    );
    assert_eq!(o.status.code(), Some(2));
    let o = mpt(
        &env,
        url,
        &["--json", "outbox", "enqueue", "kg_add", "{not json"],
    );
    assert_eq!(o.status.code(), Some(2));
    // Reading commands do not create an outbox.
    let o = mpt(&env, url, &["--json", "outbox"]);
    assert_eq!(json(&o)["exists"], false);
    assert!(!outbox_path(&env).exists());
    // An unreachable primary: exit 7, the op stays queued with no attempt counted.
    let id = enqueue(
        &env,
        url,
        "kg_add",
        &json!({"subject": "a", "predicate": "b", "object": "c"}),
    );
    let (code, r) = flush(&env, url, &[]);
    assert_eq!(
        (code, r["result"].as_str()),
        (7, Some("unavailable")),
        "{r}"
    );
    let op = store(&env).find(&id).unwrap();
    assert_eq!((op.state.as_str(), op.attempts), ("queued", 0));
    // No primary configured at all: a usage error.
    let o = env.mpt(&["--json", "outbox", "flush"], &[]);
    assert_eq!(o.status.code(), Some(2));
    let summary = json(&mpt(&env, url, &["--json", "outbox"]));
    assert_eq!(summary["schema"], "mpt.outbox.summary/v1");
    assert_eq!(summary["counts"]["queued"], 1);
    assert_eq!(summary["primary"], url);
    assert_eq!(summary["device"], DEVICE);
}

#[test]
fn a_failed_op_blocks_the_queue_until_dropped() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let good1 = enqueue(
        &env,
        &url,
        "kg_add",
        &json!({"subject": "q", "predicate": "is", "object": "first"}),
    );
    // Valid for the schema, refused by the server: status 'done' is not a status.
    let bad = enqueue(
        &env,
        &url,
        "event_append",
        &json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi", "status": "done"}),
    );
    let good2 = enqueue(
        &env,
        &url,
        "kg_add",
        &json!({"subject": "q", "predicate": "is", "object": "second"}),
    );
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!(code, 3, "{r}");
    assert_eq!(r["result"], "blocked");
    assert_eq!(r["failed"], json!([bad]));
    assert_eq!(r["blocked_by"]["op_id"], bad.as_str());
    assert_eq!(r["blocked_by"]["attempts"], 3);
    assert!(
        r["blocked_by"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not one of"),
        "{r}"
    );
    let st = store(&env);
    assert_eq!(st.find(&good1).unwrap().state.as_str(), "done");
    assert_eq!(
        st.find(&good2).unwrap().state.as_str(),
        "queued",
        "nothing behind a failed op is sent"
    );
    // Still blocked: exit 3 at once, nothing sent.
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!((code, r["sent"].as_u64()), (3, Some(0)));
    assert_eq!(
        json(&mpt(&env, &url, &["--json", "outbox"]))["blocked"],
        true
    );
    // drop needs --yes, then is recorded.
    let o = mpt(&env, &url, &["--json", "outbox", "drop", &bad[..10]]);
    assert_eq!(o.status.code(), Some(2));
    let o = mpt(
        &env,
        &url,
        &[
            "--json",
            "outbox",
            "drop",
            &bad[..10],
            "--yes",
            "--reason",
            "bad status",
        ],
    );
    assert!(o.status.success());
    assert_eq!(json(&o)["op"]["state"], "dropped");
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!((code, r["settled"].as_u64()), (0, Some(1)), "{r}");
    assert_eq!(
        effect_count(
            &url,
            "kg_add",
            &json!({"subject": "q", "predicate": "is", "object": "second"}),
            &good2
        ),
        1
    );
    let shown = json(&mpt(&env, &url, &["--json", "outbox", "show", &bad]));
    assert_eq!(shown["audit"][0]["action"], "drop");
    assert_eq!(shown["audit"][0]["detail"]["reason"], "bad status");
    let dropped = json(&mpt(
        &env,
        &url,
        &["--json", "outbox", "list", "--state", "dropped"],
    ));
    assert_eq!(dropped["ops"][0]["op_id"], bad.as_str());
    // Purge removes the settled ops, keeps the audit.
    let o = mpt(
        &env,
        &url,
        &["--json", "outbox", "purge", "--older-than", "0s"],
    );
    assert_eq!(json(&o)["deleted"], 3);
    assert_eq!(store(&env).audit_trail(None).unwrap().len(), 2);
}

#[test]
fn a_failed_op_is_retried_once_the_cause_is_fixed() {
    let env = TestEnv::new();
    let palace = env.palace("primary");
    let mut p = Primary::start(
        &env,
        &palace,
        PrimaryOpts {
            read_only: true,
            ..Default::default()
        },
    );
    let url = p.url();
    let args = json!({"subject": "retry", "predicate": "works", "object": "yes"});
    let id = enqueue(&env, &url, "kg_add", &args);
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!(
        code, 3,
        "a read-only primary refuses the write (-32003): {r}"
    );
    assert_eq!(store(&env).find(&id).unwrap().attempts, 3);
    p.stop();
    let _p = Primary::start(
        &env,
        &palace,
        PrimaryOpts {
            port: Some(p.port),
            ..Default::default()
        },
    );
    let o = mpt(&env, &url, &["--json", "outbox", "retry", "--failed"]);
    assert_eq!(json(&o)["retried"], json!([id]));
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(effect_count(&url, "kg_add", &args, &id), 1);
}
