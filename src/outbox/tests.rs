//! Store and lease rules on a real SQLite file in a temp dir: sequence allocation, dedupe,
//! claims and lease tokens, expiry, hard failures to failed, recovery, retry, drop, purge.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::json;

use super::lease::{Head, Nack};
use super::*;

fn origin() -> Origin {
    Origin {
        device: "lap".into(),
        host: "lap.local".into(),
    }
}

fn open(dir: &tempfile::TempDir) -> Outbox {
    Outbox::open(
        &dir.path().join("edge/outbox.sqlite3"),
        OpenOptions::default(),
    )
    .unwrap()
}

fn put(o: &mut Outbox, tool: &str, n: i64) -> Enqueued {
    o.enqueue(
        &origin(),
        NewOp {
            tool,
            payload: &json!({"n": n}),
            dedupe_key: None,
        },
    )
    .unwrap()
}

fn nack(hard: bool) -> Nack {
    Nack {
        hard,
        unconfirmed: false,
        retry_at: 0,
        error: json!({"message": "no"}),
    }
}

#[test]
fn the_file_is_private_and_versioned() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    put(&mut o, "mempalace_kg_add", 1);
    for suffix in ["", "-wal", "-shm"] {
        let p = store::sidecar(o.path(), suffix);
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", p.display());
    }
    let dmode = std::fs::metadata(o.path().parent().unwrap())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(dmode, 0o700);
    let v: i64 = o
        .conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(v, schema::SCHEMA_VERSION);
    let mode: String = o
        .conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(o.integrity_check().unwrap(), "ok");
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let o = open(&dir);
    o.conn.pragma_update(None, "user_version", 99).unwrap();
    let path = o.path().to_path_buf();
    drop(o);
    let e = Outbox::open(&path, OpenOptions::default()).err().unwrap();
    assert!(e.message.contains("99"), "{}", e.message);
}

#[test]
fn local_seq_is_per_device_and_survives_purge() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    assert_eq!(put(&mut o, "mempalace_kg_add", 1).local_seq, 1);
    assert_eq!(put(&mut o, "mempalace_kg_add", 2).local_seq, 2);
    let other = Origin {
        device: "desk".into(),
        host: "desk".into(),
    };
    let e = o
        .enqueue(
            &other,
            NewOp {
                tool: "mempalace_kg_add",
                payload: &json!({}),
                dedupe_key: None,
            },
        )
        .unwrap();
    assert_eq!(e.local_seq, 1);
    // Drain and purge everything: the counter does not go back.
    let t = util::lease_token();
    while let Some(op) = o.claim(&t, util::now_ms(), i64::MAX, 60_000).unwrap() {
        o.ack(&op, &t, "applied", None).unwrap();
    }
    assert_eq!(o.purge(Duration::ZERO).unwrap(), 3);
    assert_eq!(put(&mut o, "mempalace_kg_add", 3).local_seq, 3);
}

#[test]
fn refusals() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let mut try_put = |tool: &str, payload| {
        o.enqueue(
            &origin(),
            NewOp {
                tool,
                payload: &payload,
                dedupe_key: None,
            },
        )
        .unwrap_err()
        .exit()
        .code()
    };
    assert_eq!(try_put("mempalace_sync", json!({})), 4);
    assert_eq!(try_put("mempalace_mine", json!({"source": "/x"})), 4);
    assert_eq!(
        try_put("mempalace_delete_drawer", json!({"drawer_id": "d"})),
        4
    );
    assert_eq!(try_put("mempalace_search", json!({"query": "q"})), 2);
    assert_eq!(
        try_put("mempalace_kg_add", json!(["not", "an", "object"])),
        2
    );
    assert_eq!(try_put("kg_add", json!({})), 2);
}

#[test]
fn dedupe_key_admits_one_active_op() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let p = json!({"wing": "w"});
    let op = |k| NewOp {
        tool: "mempalace_add_drawer",
        payload: &p,
        dedupe_key: Some(k),
    };
    let a = o.enqueue(&origin(), op("k1")).unwrap();
    let b = o.enqueue(&origin(), op("k1")).unwrap();
    assert!(!a.deduped && b.deduped);
    assert_eq!(a.op_id, b.op_id);
    // The deduped enqueue used no sequence number.
    let c = o.enqueue(&origin(), op("k2")).unwrap();
    assert_eq!(c.local_seq, a.local_seq + 1);
    // Once settled, the key is free again.
    let t = util::lease_token();
    let head = o
        .claim(&t, util::now_ms(), i64::MAX, 60_000)
        .unwrap()
        .unwrap();
    o.ack(&head, &t, "applied", None).unwrap();
    assert!(!o.enqueue(&origin(), op("k1")).unwrap().deduped);
}

#[test]
fn claims_follow_queue_order_and_need_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    put(&mut o, "mempalace_kg_add", 1);
    put(&mut o, "mempalace_kg_invalidate", 2);
    let t = util::lease_token();
    let now = util::now_ms();
    let first = o.claim(&t, now, i64::MAX, 60_000).unwrap().unwrap();
    assert_eq!(first.local_seq, 1);
    assert_eq!(first.state, OpState::Leased);
    // The head is leased: the op behind it is not claimable (order is kept).
    assert!(
        o.claim(&util::lease_token(), now, i64::MAX, 60_000)
            .unwrap()
            .is_none()
    );
    assert!(matches!(o.head_status(now).unwrap(), Head::Leased(_)));
    // A wrong token can neither ack nor nack.
    assert_eq!(
        o.ack(&first, "not-the-token", "applied", None)
            .unwrap_err()
            .exit()
            .code(),
        6
    );
    assert!(o.nack(&first, "not-the-token", &nack(true)).is_err());
    o.ack(&first, &t, "applied", Some("t_1")).unwrap();
    let second = o.claim(&t, now, i64::MAX, 60_000).unwrap().unwrap();
    assert_eq!(second.local_seq, 2);
    let done = o.find(&first.op_id[..8]).unwrap();
    assert_eq!(
        (done.state, done.primary_ref.as_deref()),
        (OpState::Done, Some("t_1"))
    );
}

#[test]
fn an_expired_lease_is_reclaimed_and_marked_unconfirmed() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    put(&mut o, "mempalace_diary_write", 1);
    let now = util::now_ms();
    let dead = util::lease_token();
    let op = o.claim(&dead, now, i64::MAX, 1_000).unwrap().unwrap();
    assert!(!op.unconfirmed, "never sent before");
    // Before expiry nobody else gets it; after, a new claimer does, and must check first.
    assert!(
        o.claim(&util::lease_token(), now + 500, i64::MAX, 1_000)
            .unwrap()
            .is_none()
    );
    let t = util::lease_token();
    let again = o.claim(&t, now + 1_001, i64::MAX, 1_000).unwrap().unwrap();
    assert_eq!(again.id, op.id);
    assert!(again.unconfirmed, "the dead claimer may have sent it");
    assert_eq!(again.sends, 2);
    // The dead claimer's late ack is refused.
    assert!(o.ack(&op, &dead, "applied", None).is_err());
    o.ack(&again, &t, "verified_present", None).unwrap();
}

#[test]
fn recover_leases_returns_a_dead_flushers_ops() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    put(&mut o, "mempalace_event_append", 1);
    let op = o
        .claim(&util::lease_token(), util::now_ms(), i64::MAX, 3_600_000)
        .unwrap()
        .unwrap();
    let lock = FlushLock::try_acquire(o.path()).unwrap().unwrap();
    assert_eq!(o.recover_leases(&lock).unwrap(), 1);
    let back = o.find(&op.op_id).unwrap();
    assert_eq!(back.state, OpState::Queued);
    assert!(back.unconfirmed);
    // Only one holder of the flush lock at a time.
    assert!(FlushLock::try_acquire(o.path()).unwrap().is_none());
    assert_eq!(
        FlushLock::holder(o.path()).unwrap(),
        Some(std::process::id())
    );
    drop(lock);
    assert!(FlushLock::try_acquire(o.path()).unwrap().is_some());
}

#[test]
fn three_hard_failures_fail_the_op_and_block_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    put(&mut o, "mempalace_event_append", 1);
    put(&mut o, "mempalace_kg_add", 2);
    let t = util::lease_token();
    for expect in [OpState::Queued, OpState::Queued, OpState::Failed] {
        let op = o
            .claim(&t, util::now_ms(), i64::MAX, 60_000)
            .unwrap()
            .unwrap();
        assert_eq!(op.local_seq, 1);
        assert_eq!(o.nack(&op, &t, &nack(true)).unwrap(), expect);
    }
    // A transient failure never counts: shown by the attempts staying at 3 after a retry cycle.
    assert!(
        o.claim(&t, util::now_ms(), i64::MAX, 60_000)
            .unwrap()
            .is_none(),
        "blocked"
    );
    let failed = o.failed().unwrap();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].attempts, MAX_ATTEMPTS);
    assert!(matches!(
        o.head_status(util::now_ms()).unwrap(),
        Head::Failed(_)
    ));
    // retry unblocks with a fresh budget; drop (recorded) unblocks for good.
    assert!(o.retry(&failed[0]).unwrap());
    let op = o
        .claim(&t, util::now_ms(), i64::MAX, 60_000)
        .unwrap()
        .unwrap();
    assert_eq!((op.local_seq, op.attempts), (1, 0));
    o.nack(
        &op,
        &t,
        &Nack {
            hard: false,
            unconfirmed: false,
            retry_at: util::now_ms() + 60_000,
            error: json!({}),
        },
    )
    .unwrap();
    // Backoff is honoured only when asked.
    assert!(
        o.claim(&t, util::now_ms(), util::now_ms(), 60_000)
            .unwrap()
            .is_none()
    );
    let op = o
        .claim(&t, util::now_ms(), i64::MAX, 60_000)
        .unwrap()
        .unwrap();
    o.nack(&op, &t, &nack(false)).unwrap();
    let op = o.find(&op.op_id).unwrap();
    assert_eq!(op.attempts, 0);
    o.drop_op(&op, Some("bad payload")).unwrap();
    let next = o
        .claim(&t, util::now_ms(), i64::MAX, 60_000)
        .unwrap()
        .unwrap();
    assert_eq!(next.local_seq, 2);
    let trail = o.audit_trail(Some(&op.op_id)).unwrap();
    let actions: Vec<_> = trail
        .iter()
        .map(|a| a["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(actions, ["retry", "drop"]);
    assert_eq!(trail[1]["detail"]["reason"], "bad payload");
    assert_eq!(o.summary().unwrap().count(OpState::Dropped), 1);
}

#[test]
fn purge_keeps_open_ops() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    for n in 0..4 {
        put(&mut o, "mempalace_kg_add", n);
    }
    let t = util::lease_token();
    let a = o
        .claim(&t, util::now_ms(), i64::MAX, 60_000)
        .unwrap()
        .unwrap();
    o.ack(&a, &t, "applied", None).unwrap();
    assert_eq!(o.purge(Duration::from_secs(3600)).unwrap(), 0, "too recent");
    assert_eq!(o.purge(Duration::ZERO).unwrap(), 1);
    assert_eq!(o.open_count().unwrap(), 3);
    assert_eq!(o.audit_trail(None).unwrap().len(), 1);
}

#[test]
fn find_takes_a_unique_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let e = put(&mut o, "mempalace_kg_add", 1);
    assert_eq!(o.find(&e.op_id[..6].to_uppercase()).unwrap().op_id, e.op_id);
    assert_eq!(o.find("xyz1").unwrap_err().exit().code(), 2);
    assert_eq!(o.find("ab").unwrap_err().exit().code(), 2);
}

#[test]
fn a_window_stops_before_a_second_write_to_one_fact_and_at_a_failed_op() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let kg = |o: &mut Outbox, tool: &str, s: &str| {
        o.enqueue(
            &origin(),
            NewOp {
                tool,
                payload: &json!({"subject": s, "predicate": "Uses", "object": "x"}),
                dedupe_key: None,
            },
        )
        .unwrap()
    };
    kg(&mut o, "mempalace_kg_add", "a");
    kg(&mut o, "mempalace_kg_add", "b");
    put(&mut o, "mempalace_event_append", 3);
    kg(&mut o, "mempalace_kg_invalidate", " A ");
    put(&mut o, "mempalace_event_append", 5);
    let t = util::lease_token();
    let now = util::now_ms();
    let w = o.claim_window(&t, now, i64::MAX, 60_000, 32, &[]).unwrap();
    let seqs: Vec<i64> = w.iter().map(|op| op.local_seq).collect();
    assert_eq!(
        seqs,
        [1, 2, 3],
        "the invalidate of fact a waits for the next window"
    );
    assert!(w.iter().all(|op| op.state == OpState::Leased));
    // Unsent ops go back as they were (not unconfirmed); sent ones are acked.
    o.ack(&w[0], &t, "applied", None).unwrap();
    o.release(&w[1..], &t).unwrap();
    let back = o.find(&w[1].op_id).unwrap();
    assert_eq!((back.state, back.unconfirmed), (OpState::Queued, false));
    let w = o.claim_window(&t, now, i64::MAX, 60_000, 32, &[]).unwrap();
    assert_eq!(
        w.iter().map(|op| op.local_seq).collect::<Vec<_>>(),
        [2, 3, 4, 5]
    );
    // A failed op ends the window (and heads it: nothing claimed).
    for op in &w[1..] {
        o.release(std::slice::from_ref(op), &t).unwrap();
    }
    o.nack(
        &w[0],
        &t,
        &Nack {
            hard: true,
            unconfirmed: false,
            retry_at: 0,
            error: json!({}),
        },
    )
    .unwrap();
    o.conn
        .execute("UPDATE ops SET state = 'failed' WHERE local_seq = 2", [])
        .unwrap();
    assert!(
        o.claim_window(&t, now, i64::MAX, 60_000, 32, &[])
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_batch_is_one_transaction_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let (a, b) = (json!({"n": 1}), json!({"n": 2}));
    let ops = [
        NewOp {
            tool: "mempalace_kg_add",
            payload: &a,
            dedupe_key: Some("k"),
        },
        NewOp {
            tool: "mempalace_kg_add",
            payload: &b,
            dedupe_key: Some("k"),
        },
        NewOp {
            tool: "mempalace_kg_add",
            payload: &b,
            dedupe_key: None,
        },
    ];
    let done = o.enqueue_batch(&origin(), &ops).unwrap();
    assert_eq!(
        done.iter()
            .map(|e| (e.local_seq, e.deduped))
            .collect::<Vec<_>>(),
        [(1, false), (1, true), (2, false)]
    );
    // One refused op refuses the batch: nothing written, no sequence number used.
    let bad = [
        NewOp {
            tool: "mempalace_kg_add",
            payload: &a,
            dedupe_key: None,
        },
        NewOp {
            tool: "mempalace_sync",
            payload: &a,
            dedupe_key: None,
        },
    ];
    assert_eq!(
        o.enqueue_batch(&origin(), &bad).unwrap_err().exit().code(),
        4
    );
    assert_eq!(put(&mut o, "mempalace_kg_add", 9).local_seq, 3);
}
