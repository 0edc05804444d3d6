//! The outbox's last flush error: a stop before any send is recorded on the op the flush set out
//! to send, without an attempt counted; a flush that gets through clears it; v3 files gain it.

use serde_json::json;

use super::*;

#[test]
fn a_stop_before_sending_marks_the_next_sendable_op_and_the_outbox() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let first = put(&mut o, "mempalace_kg_add", 1);
    put(&mut o, "mempalace_kg_add", 2);
    assert!(o.last_flush_error().unwrap().is_none());
    let err =
        json!({"kind": "auth", "message": "answered 401 Unauthorized", "hint": "set the token"});
    let noted = o.note_stop(Stop::Refused, &err).unwrap();
    assert_eq!(noted.as_deref(), Some(first.op_id.as_str()));
    let op = o.find(&first.op_id).unwrap();
    assert_eq!((op.state, op.attempts, op.sends), (OpState::Queued, 0, 0));
    assert_eq!(op.error, Some(err.clone()));
    let last = o.last_flush_error().unwrap().expect("recorded");
    assert!(last.refused());
    assert_eq!(
        (last.stop.as_str(), last.hint()),
        ("refused", Some("set the token"))
    );
    o.record_flush_end(Stop::Drained, None).unwrap();
    assert!(o.last_flush_error().unwrap().is_none(), "it got through");
    assert_eq!(o.last_flush().unwrap().unwrap().stop, "drained");
}

#[test]
fn a_version_3_outbox_gains_the_flush_state_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = reopened_after(&dir, "DROP TABLE flush_state; PRAGMA user_version = 3;");
    o.record_flush_end(Stop::Unavailable, Some(&json!({"kind": "unavailable"})))
        .unwrap();
    assert_eq!(
        o.last_flush_error().unwrap().unwrap().kind(),
        Some("unavailable")
    );
    assert_eq!(user_version(&o), schema::SCHEMA_VERSION);
}
