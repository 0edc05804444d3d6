//! The backfill ledger: written with the ops in one transaction, consulted on every run, kept
//! when the ops are purged; a version 2 outbox gains it in place.

use serde_json::json;

use super::super::backfill::{Kind, Ledgered, Record};
use super::*;

fn record(n: usize) -> Record {
    Record {
        kind: Kind::Drawer,
        key: format!("bf:drawer:d{n}"),
        local_id: format!("d{n}"),
        tool: "mempalace_add_drawer",
        payload: json!({"wing": "w", "room": "r", "content": format!("c{n}")}),
        local_reply: None,
        filed_at: None,
    }
}

#[test]
fn a_record_in_the_ledger_is_never_enqueued_again_even_after_its_op_is_purged() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let first: Vec<Record> = (0..3).map(record).collect();
    assert_eq!(o.enqueue_backfill(&origin(), &first, false).unwrap(), 3);
    assert_eq!(o.backfill_open().unwrap(), 3);
    // Every op done and purged: the dedupe key would admit them again, the ledger does not.
    o.conn
        .execute("UPDATE ops SET state = 'done', flushed_at = 0", [])
        .unwrap();
    o.purge(Duration::ZERO).unwrap();
    assert_eq!(o.backfill_open().unwrap(), 0);
    let again: Vec<Record> = (0..5).map(record).collect();
    assert_eq!(
        o.enqueue_backfill(&origin(), &again, false).unwrap(),
        2,
        "only d3 and d4 are new"
    );
    let keys: Vec<&str> = again.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(o.backfilled(&keys).unwrap().len(), 5);
}

#[test]
fn a_dropped_record_is_told_apart_even_once_purged_and_queued_again_only_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    assert_eq!(
        o.enqueue_backfill(&origin(), &[record(1), record(2)], false)
            .unwrap(),
        2
    );
    let ops = o.list(&[OpState::Queued], 10, false).unwrap();
    o.drop_op(&ops[0], Some("test")).unwrap();
    let keys = ["bf:drawer:d1", "bf:drawer:d2"];
    let seen = o.backfilled(&keys).unwrap();
    assert_eq!(seen["bf:drawer:d1"], Ledgered::Dropped);
    assert_eq!(seen["bf:drawer:d2"], Ledgered::Enqueued);
    // Purged: the op is gone, the audit trail remembers the drop.
    o.purge(Duration::ZERO).unwrap();
    assert_eq!(
        o.backfilled(&keys).unwrap()["bf:drawer:d1"],
        Ledgered::Dropped
    );
    assert_eq!(
        o.enqueue_backfill(&origin(), &[record(1), record(2)], false)
            .unwrap(),
        0,
        "a drop is never undone silently"
    );
    assert_eq!(
        o.enqueue_backfill(&origin(), &[record(1), record(2)], true)
            .unwrap(),
        1
    );
    assert_eq!(
        o.backfilled(&keys).unwrap()["bf:drawer:d1"],
        Ledgered::Enqueued
    );
    assert_eq!(o.backfill_open().unwrap(), 2);
}

#[test]
fn a_version_2_outbox_gains_the_ledger_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = reopened_after(
        &dir,
        "DROP TABLE backfill; DROP TABLE flush_state; PRAGMA user_version = 2;",
    );
    assert_eq!(
        o.enqueue_backfill(&origin(), &[record(1)], false).unwrap(),
        1
    );
    assert_eq!(user_version(&o), schema::SCHEMA_VERSION);
}
