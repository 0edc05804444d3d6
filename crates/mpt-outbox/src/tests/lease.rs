//! Claims and lease tokens on a real SQLite file: queue order, expiry and reclaim, recovery
//! under the flush lock, hard failures to failed (retry and drop unblock), windows.

use super::*;

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
fn three_hard_failures_fail_the_op_and_hold_back_nothing_unrelated() {
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
    // The failed op holds back nothing that does not depend on it: the kg_add goes ahead.
    let unrelated = o
        .claim(&t, util::now_ms(), i64::MAX, 60_000)
        .unwrap()
        .unwrap();
    assert_eq!(unrelated.local_seq, 2);
    o.release(std::slice::from_ref(&unrelated), &t).unwrap();
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
    // Backoff is honoured only when asked; the op behind it does not wait for it.
    let behind = o
        .claim(&t, util::now_ms(), util::now_ms(), 60_000)
        .unwrap()
        .unwrap();
    assert_eq!(behind.local_seq, 2);
    o.release(std::slice::from_ref(&behind), &t).unwrap();
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
    let actions: Vec<_> = trail.iter().map(|a| a.action.clone()).collect();
    assert_eq!(actions, ["retry", "drop"]);
    assert_eq!(trail[1].detail["reason"], "bad payload");
    assert_eq!(o.summary().unwrap().count(OpState::Dropped), 1);
}

#[test]
fn a_window_passes_over_a_second_write_to_one_fact_and_a_failed_op_holds_back_its_fact() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open(&dir);
    let kg = |o: &mut Outbox, tool: &str, s: &str| {
        o.enqueue(
            &origin(),
            NewOp {
                tool,
                payload: &json!({"subject": s, "predicate": "Uses", "object": "x"}),
                dedupe_key: None,
                local_reply: None,
                maybe_applied: false,
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
        [1, 2, 3, 5],
        "the invalidate of fact a waits for the next window; what follows it does not"
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
    // A failed add holds back the later writes to its fact, and nothing else.
    for op in &w[1..] {
        o.release(std::slice::from_ref(op), &t).unwrap();
    }
    o.ack(&w[0], &t, "applied", None).unwrap();
    kg(&mut o, "mempalace_kg_add", "c");
    kg(&mut o, "mempalace_kg_invalidate", "c");
    put(&mut o, "mempalace_diary_write", 8);
    let w = o.claim_window(&t, now, i64::MAX, 60_000, 1, &[]).unwrap();
    assert_eq!(w[0].local_seq, 3);
    o.ack(&w[0], &t, "applied", None).unwrap();
    let w = o.claim_window(&t, now, i64::MAX, 60_000, 1, &[]).unwrap();
    assert_eq!(w[0].local_seq, 4);
    o.ack(&w[0], &t, "applied", None).unwrap();
    let w = o.claim_window(&t, now, i64::MAX, 60_000, 1, &[]).unwrap();
    assert_eq!(w[0].local_seq, 5);
    o.ack(&w[0], &t, "applied", None).unwrap();
    let w = o.claim_window(&t, now, i64::MAX, 60_000, 1, &[]).unwrap();
    assert_eq!(w[0].local_seq, 6, "the add of fact c");
    o.conn
        .execute(
            "UPDATE ops SET state = 'failed', lease_token = NULL WHERE local_seq = 6",
            [],
        )
        .unwrap();
    let w = o.claim_window(&t, now, i64::MAX, 60_000, 32, &[]).unwrap();
    assert_eq!(
        w.iter().map(|op| op.local_seq).collect::<Vec<_>>(),
        [8],
        "the invalidate of c waits for its failed add; the diary entry goes"
    );
    let b = o.backlog(now, now).unwrap();
    assert_eq!((b.failed.len(), b.held_back), (1, 1));
}
