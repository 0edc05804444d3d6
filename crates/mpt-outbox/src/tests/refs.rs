//! References between ops on a real SQLite file: an op that references an id another op minted
//! waits for it, is sent with the primary's id, and is held back (alone) when that op fails.

use super::*;
use crate::lease::Ack;
use serde_json::Value;

fn op_with(o: &mut Outbox, tool: &str, payload: Value, reply: Option<Value>) -> Enqueued {
    o.enqueue(
        &origin(),
        NewOp {
            tool,
            payload: &payload,
            dedupe_key: None,
            local_reply: reply.as_ref(),
            maybe_applied: false,
        },
    )
    .unwrap()
}

fn claim_all(o: &mut Outbox, t: &str) -> Vec<Op> {
    o.claim_window(t, util::now_ms(), util::now_ms(), 60_000, 32, &[])
        .unwrap()
}

#[test]
fn a_reference_waits_for_its_op_and_is_sent_with_the_primary_id() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let art = op_with(
        &mut o,
        "mempalace_artifact_put",
        json!({"kind": "note", "content": "c", "created_by": "a"}),
        Some(json!({"success": true, "artifact": {"id": "art_local"}})),
    );
    let ask = op_with(
        &mut o,
        "mempalace_event_append",
        json!({"type": "ask", "stream": "s", "room": "r", "from_agent": "a", "artifact_ids": ["art_local"]}),
        Some(json!({"success": true, "event": {"id": "evt_local"}})),
    );
    let ack = op_with(
        &mut o,
        "mempalace_event_ack",
        json!({"event_id": "evt_local", "from_agent": "b"}),
        None,
    );
    op_with(
        &mut o,
        "mempalace_diary_write",
        json!({"agent_name": "a", "entry": "e"}),
        None,
    );
    let t = util::lease_token();
    let w = claim_all(&mut o, &t);
    let ids: Vec<&str> = w.iter().map(|op| op.op_id.as_str()).collect();
    assert_eq!(
        ids.len(),
        2,
        "the artifact and the diary entry; the ask and ack wait"
    );
    assert_eq!(ids[0], art.op_id);
    let waiting = o.find(&ask.op_id).unwrap();
    let waits = o.waits(&waiting).unwrap();
    assert_eq!(waits.len(), 1);
    assert_eq!(
        (
            waits[0].local_id.as_str(),
            waits[0].op_id.as_str(),
            waits[0].state
        ),
        ("art_local", art.op_id.as_str(), OpState::Leased)
    );
    // The artifact lands with the primary's id: the ask is claimable, rewritten.
    let landed = Ack::new(&w[0], "applied", Some("art_primary")).with_landed(Some(
        json!({"success": true, "artifact": {"id": "art_primary"}}),
    ));
    o.release(&w[1..], &t).unwrap();
    let w = o
        .claim_window(&t, util::now_ms(), util::now_ms(), 60_000, 32, &[landed])
        .unwrap();
    assert_eq!(w[0].op_id, ask.op_id);
    let sent = o.resolve_refs(w[0].clone()).unwrap();
    assert_eq!(sent.payload["artifact_ids"], json!(["art_primary"]));
    assert_eq!(
        o.primary_id("art_local").unwrap().as_deref(),
        Some("art_primary")
    );
    assert!(
        w.iter().all(|op| op.op_id != ack.op_id),
        "the ack waits for the ask"
    );
    let done = Ack::new(&w[0], "applied", None).with_landed(Some(
        json!({"success": true, "event": {"id": "evt_primary"}}),
    ));
    o.release(&w[1..], &t).unwrap();
    let w = o
        .claim_window(&t, util::now_ms(), util::now_ms(), 60_000, 32, &[done])
        .unwrap();
    let ack_op = w.iter().find(|op| op.op_id == ack.op_id).unwrap().clone();
    assert_eq!(
        o.resolve_refs(ack_op).unwrap().payload["event_id"],
        "evt_primary"
    );
}

#[test]
fn a_failed_op_holds_back_only_what_references_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let art = op_with(
        &mut o,
        "mempalace_artifact_put",
        json!({"kind": "bogus", "content": "c", "created_by": "a"}),
        Some(json!({"artifact": {"id": "art_x"}})),
    );
    op_with(
        &mut o,
        "mempalace_event_append",
        json!({"type": "ask", "stream": "s", "room": "r", "from_agent": "a", "artifact_ids": ["art_x"]}),
        None,
    );
    let t = util::lease_token();
    for _ in 0..MAX_ATTEMPTS {
        let w = claim_all(&mut o, &t);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].op_id, art.op_id);
        o.nack(&w[0], &t, &nack(true)).unwrap();
    }
    op_with(
        &mut o,
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "x"}),
        None,
    );
    let w = claim_all(&mut o, &t);
    assert_eq!(
        w.iter().map(|op| op.tool_name.as_str()).collect::<Vec<_>>(),
        ["mempalace_add_drawer"]
    );
    let b = o.backlog(util::now_ms(), util::now_ms()).unwrap();
    assert_eq!((b.failed.len(), b.held_back, b.sendable), (1, 1, 0));
    // Dropped, the reference can never resolve: the ask is sent as it is (the primary decides).
    let failed = o.find(&art.op_id).unwrap();
    o.drop_op(&failed, Some("bad kind")).unwrap();
    let w = claim_all(&mut o, &t);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].payload["artifact_ids"], json!(["art_x"]));
}

#[test]
fn a_version_1_outbox_is_upgraded_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.sqlite3");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE ops (id INTEGER PRIMARY KEY, op_id TEXT NOT NULL UNIQUE, local_seq INTEGER NOT NULL,
              origin_device TEXT NOT NULL, origin_host TEXT NOT NULL, tool_name TEXT NOT NULL, payload_json TEXT NOT NULL,
              dedupe_key TEXT, state TEXT NOT NULL DEFAULT 'queued', attempts INTEGER NOT NULL DEFAULT 0,
              sends INTEGER NOT NULL DEFAULT 0, inflight INTEGER NOT NULL DEFAULT 0, unconfirmed INTEGER NOT NULL DEFAULT 0,
              next_attempt_at INTEGER NOT NULL DEFAULT 0, lease_token TEXT, lease_expires_at INTEGER, first_sent_at INTEGER,
              created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, flushed_at INTEGER, outcome TEXT, primary_ref TEXT,
              error_json TEXT) STRICT;
             CREATE TABLE seqs (origin_device TEXT PRIMARY KEY, last INTEGER NOT NULL) STRICT;
             CREATE TABLE audit (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, action TEXT NOT NULL, op_id TEXT,
              detail_json TEXT NOT NULL) STRICT;
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let mut o = Outbox::open(&path, OpenOptions::default()).unwrap();
    op_with(
        &mut o,
        "mempalace_artifact_put",
        json!({"kind": "note", "content": "c", "created_by": "a"}),
        Some(json!({"artifact": {"id": "art_v1"}})),
    );
    let v: i64 = o
        .conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(v, schema::SCHEMA_VERSION);
}
