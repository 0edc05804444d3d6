//! Store rules on a real SQLite file in a temp dir: privacy, schema version, sequence
//! allocation, refusals, dedupe, batches, find, purge. Claims and leases: `lease.rs`.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::{Value, json};

use super::lease::Nack;
use super::order::Head;
use super::*;

mod backfill;
mod last_error;
mod lease;
mod refs;

fn origin() -> Origin {
    Origin {
        device: "lap".into(),
        host: "lap.local".into(),
        inbox: Some("/srv/inbox/lap".into()),
    }
}

fn open(dir: &tempfile::TempDir) -> Outbox {
    Outbox::open(
        &dir.path().join("edge/outbox.sqlite3"),
        OpenOptions::default(),
    )
    .unwrap()
}

/// A current outbox file taken back to an older schema by `sql` (dropping what later versions
/// add, setting `user_version`), then opened again: upgraded in place.
fn reopened_after(dir: &tempfile::TempDir, sql: &str) -> Outbox {
    let path = dir.path().join("edge/outbox.sqlite3");
    drop(open(dir));
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(sql)
        .unwrap();
    Outbox::open(&path, OpenOptions::default()).unwrap()
}

fn user_version(o: &Outbox) -> i64 {
    o.conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

fn put(o: &mut Outbox, tool: &str, n: i64) -> Enqueued {
    o.enqueue(
        &origin(),
        NewOp {
            tool,
            payload: &json!({"n": n}),
            dedupe_key: None,
            local_reply: None,
            maybe_applied: false,
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
        inbox: None,
    };
    let e = o
        .enqueue(
            &other,
            NewOp {
                tool: "mempalace_kg_add",
                payload: &json!({}),
                dedupe_key: None,
                local_reply: None,
                maybe_applied: false,
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
                local_reply: None,
                maybe_applied: false,
            },
        )
        .unwrap_err()
        .exit()
        .code()
    };
    assert_eq!(try_put("mempalace_sync", json!({})), 4);
    assert_eq!(try_put("mempalace_mine", json!({"source": "/x"})), 4);
    // The feed's mine is admitted only in convos mode, of a source under the device's inbox.
    for not_ours in [
        json!({"source": "/srv/inbox/lap", "mode": "projects"}),
        json!({"source": "/srv/inbox/lap"}),
        json!({"source": "/srv/inbox/laptop", "mode": "convos"}),
        json!({"source": "/srv/inbox/lap/../desk", "mode": "convos"}),
        json!({"source": "/srv", "mode": "convos"}),
        json!({"mode": "convos"}),
    ] {
        assert_eq!(try_put("mempalace_mine", not_ours.clone()), 4, "{not_ours}");
    }
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

fn mine(p: &Value) -> NewOp<'_> {
    NewOp {
        tool: "mempalace_mine",
        payload: p,
        dedupe_key: None,
        local_reply: None,
        maybe_applied: false,
    }
}

#[test]
fn the_feed_mine_of_the_devices_inbox_is_admitted_and_other_devices_mines_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    for source in ["/srv/inbox/lap", "/srv/inbox/lap/", "/srv/inbox/lap/s1.md"] {
        let p = json!({"source": source, "mode": "convos", "wing": "wing_conversations"});
        o.enqueue(&origin(), mine(&p)).unwrap();
    }
    // opencode's inbox beside pi's is this device's too; a look-alike beside it is not.
    for source in [
        "/srv/inbox/lap+opencode",
        "/srv/inbox/lap+opencode/ses_1.md",
    ] {
        let p = json!({"source": source, "mode": "convos", "wing": "wing_opencode"});
        o.enqueue(&origin(), mine(&p)).unwrap();
    }
    for source in [
        "/srv/inbox/lap+other",
        "/srv/inbox/lap-opencode",
        "/srv/inbox/laptop",
    ] {
        let p = json!({"source": source, "mode": "convos"});
        assert_eq!(
            o.enqueue(&origin(), mine(&p)).unwrap_err().exit().code(),
            4,
            "{source}"
        );
    }
    // Without an inbox (an origin that names none), no mine at all.
    let p = json!({"source": "/srv/inbox/lap", "mode": "convos"});
    let no_inbox = Origin {
        inbox: None,
        ..origin()
    };
    assert_eq!(o.enqueue(&no_inbox, mine(&p)).unwrap_err().exit().code(), 4);
    assert!(mpt_palace::catalog::runs_apart("mempalace_mine"));
    assert!(!mpt_palace::catalog::runs_apart("mempalace_add_drawer"));
}

#[test]
fn a_queued_mine_runs_apart_and_never_holds_back_the_writes_behind_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let p = json!({"source": "/srv/inbox/lap", "mode": "convos"});
    let mine = NewOp {
        dedupe_key: Some("feed-mine:/srv/inbox/lap"),
        ..mine(&p)
    };
    let first = o.enqueue(&origin(), mine).unwrap();
    assert!(
        o.enqueue(&origin(), mine).unwrap().deduped,
        "one active mine per inbox"
    );
    put(&mut o, "mempalace_add_drawer", 1);
    let now = crate::util::now_ms();
    let b = o.backlog(now, i64::MAX).unwrap();
    assert_eq!((b.sendable, b.held_back), (1, 0));
    let w = o.claim_window("t", now, i64::MAX, 60_000, 32, &[]).unwrap();
    let tools: Vec<&str> = w.iter().map(|op| op.tool_name.as_str()).collect();
    assert_eq!(
        tools,
        ["mempalace_add_drawer"],
        "the flusher never claims the mine"
    );
    let lane = o.apart_open().unwrap();
    assert_eq!(lane.len(), 1);
    assert_eq!(lane[0].op_id, first.op_id);
    assert!(crate::apart::due(&lane[0], now, true));
    // A failed mine stays visible in its lane and blocks nothing.
    o.conn
        .execute(
            "UPDATE ops SET state = 'failed' WHERE tool_name = 'mempalace_mine'",
            [],
        )
        .unwrap();
    put(&mut o, "mempalace_add_drawer", 2);
    let b = o.backlog(crate::util::now_ms(), i64::MAX).unwrap();
    assert!(b.failed.is_empty());
    assert_eq!(b.held_back, 0);
    assert!(!crate::apart::due(&o.apart_open().unwrap()[0], now, true));
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
        local_reply: None,
        maybe_applied: false,
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
fn a_batch_is_one_transaction_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let (a, b) = (json!({"n": 1}), json!({"n": 2}));
    let ops = [
        NewOp {
            tool: "mempalace_kg_add",
            payload: &a,
            dedupe_key: Some("k"),
            local_reply: None,
            maybe_applied: false,
        },
        NewOp {
            tool: "mempalace_kg_add",
            payload: &b,
            dedupe_key: Some("k"),
            local_reply: None,
            maybe_applied: false,
        },
        NewOp {
            tool: "mempalace_kg_add",
            payload: &b,
            dedupe_key: None,
            local_reply: None,
            maybe_applied: false,
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
            local_reply: None,
            maybe_applied: false,
        },
        NewOp {
            tool: "mempalace_sync",
            payload: &a,
            dedupe_key: None,
            local_reply: None,
            maybe_applied: false,
        },
    ];
    assert_eq!(
        o.enqueue_batch(&origin(), &bad).unwrap_err().exit().code(),
        4
    );
    assert_eq!(put(&mut o, "mempalace_kg_add", 9).local_seq, 3);
}
