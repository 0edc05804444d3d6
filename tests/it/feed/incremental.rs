//! Repeated `feed::prepare` runs: the state fast path, the quiet period,
//! grown and completed sessions, forks, re-staging and temp cleanup.

use crate::support::feed::*;
use mpt_feed::{Outcome, Reason, SkipReason, prepare};
use std::fs;
use std::time::{Duration, SystemTime};

#[test]
fn no_change_rerun_is_decided_from_state_and_touches_nothing() {
    let e = fixture();
    run(&e, Reason::Settled, true);
    let before = listing(&e.stage);
    let state_before = fs::read(&e.state).unwrap();
    let r = run(&e, Reason::Settled, true);
    assert_eq!((r.exported, r.unchanged, r.skipped_total), (0, 6, 6));
    assert_eq!(
        r.decided_from_state, 11,
        "all but the subagent file (skipped by path)"
    );
    assert_eq!((r.bytes_read, r.bytes_written), (0, 0));
    assert_eq!(listing(&e.stage), before, "same files, same mtimes");
    assert_eq!(
        fs::read(&e.state).unwrap(),
        state_before,
        "state not rewritten"
    );
    let state: serde_json::Value = serde_json::from_slice(&state_before).unwrap();
    assert_eq!(state["sessions"].as_object().unwrap().len(), 11);
    assert!(
        r.sessions
            .iter()
            .all(|s| s.from_state || s.outcome == Outcome::Skipped(SkipReason::Subagent))
    );

    // Without a state file the verdicts are the same; files are compared, still not rewritten.
    let r = run(&e, Reason::Settled, false);
    assert_eq!(
        (
            r.exported,
            r.unchanged,
            r.decided_from_state,
            r.bytes_written
        ),
        (0, 6, 0, 0)
    );
    assert_eq!(listing(&e.stage), before);
}

#[test]
fn quiet_period_skips_live_sessions_unless_shutdown() {
    let e = fixture();
    let f = session_file(&e, DEMO);
    set_mtime(&f, SystemTime::now() - Duration::from_secs(20));
    let r = run(&e, Reason::Settled, true);
    assert_eq!(r.skipped.get(&SkipReason::StillWriting), Some(&1));
    assert_eq!(r.exported, 5);
    assert!(!e.stage.join(format!("{DEMO}.md")).exists());
    // Not cached: the next run re-examines it, and shutdown exports it at once.
    let r = run(&e, Reason::Shutdown, true);
    assert_eq!((r.exported, r.unchanged), (1, 5));
    let mut o = opts(&e, Reason::Manual, true);
    o.gate.quiet_period = Duration::from_secs(5);
    assert_eq!(prepare(&o).unwrap().unchanged, 6);
}

#[test]
fn a_grown_session_is_rewritten_and_nothing_else() {
    let e = fixture();
    run(&e, Reason::Settled, true);
    let before = listing(&e.stage);
    let f = session_file(&e, BRANCH);
    let mut text = fs::read_to_string(&f).unwrap();
    text.push_str(r#"{"type":"message","id":"u6","parentId":"a5","timestamp":"t","message":{"role":"user","content":"One more: where should the cache live, per client or global?"}}"#);
    text.push('\n');
    text.push_str(r#"{"type":"message","id":"a6","parentId":"u6","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"Per client, so tests and tenants stay isolated."}],"stopReason":"stop"}}"#);
    text.push('\n');
    fs::write(&f, text).unwrap();
    set_mtime(&f, SystemTime::now() - Duration::from_secs(600));
    let r = run(&e, Reason::Settled, true);
    assert_eq!((r.exported, r.unchanged, r.decided_from_state), (1, 5, 10));
    let want = expected(BRANCH)
        + "\n> One more: where should the cache live, per client or global?\nPer client, so tests and tenants stay isolated.\n";
    assert_eq!(staged(&e, BRANCH), want);
    let after = listing(&e.stage);
    for (name, mtime) in &before {
        if !name.starts_with(BRANCH) {
            assert_eq!(after[name], *mtime, "{name} untouched");
        }
    }
}

#[test]
fn a_completed_truncated_line_becomes_an_exchange() {
    let e = fixture();
    run(&e, Reason::Shutdown, true);
    let f = session_file(&e, V4);
    let mut text = fs::read_to_string(&f).unwrap();
    text.push_str("iting, now complete\"}}\r\n");
    text.push_str(r#"{"type":"message","id":"a5","parentId":"u5","message":{"role":"assistant","content":[{"type":"text","text":"Now it is complete."}]}}"#);
    text.push_str("\r\n");
    fs::write(&f, text).unwrap();
    let r = run(&e, Reason::Shutdown, true);
    assert_eq!(r.exported, 1);
    let want = expected(V4)
        + "\n> TRUNCATED-LINE this was cut mid-writing, now complete\nNow it is complete.\n";
    assert_eq!(staged(&e, V4), want);
}

#[test]
fn a_fork_keeps_copied_entries_only_while_its_parent_is_not_exported() {
    let e = fixture();
    run(&e, Reason::Shutdown, true);
    assert_eq!(staged(&e, FORK), expected(FORK));
    // The parent goes away: the fork's export now carries the copied exchanges itself.
    fs::remove_file(session_file(&e, PARENT)).unwrap();
    let r = run(&e, Reason::Shutdown, true);
    assert_eq!((r.sessions_seen, r.exported, r.unchanged), (11, 1, 4));
    let parent = expected(PARENT);
    let first_two: Vec<&str> = parent.split("\n\n").take(2).collect();
    assert_eq!(
        staged(&e, FORK),
        format!("{}\n\n{}", first_two.join("\n\n"), expected(FORK))
    );
}

#[test]
fn a_deleted_staged_file_is_restaged_and_stale_temps_are_removed() {
    let e = fixture();
    run(&e, Reason::Shutdown, true);
    fs::remove_file(e.stage.join(format!("{DEMO}.md"))).unwrap();
    let stale = e.stage.join(format!(".{DEMO}.md.999-0.tmp"));
    fs::write(&stale, b"> partial").unwrap();
    set_mtime(&stale, SystemTime::now() - Duration::from_secs(3600));
    let fresh = e.stage.join(".other.md.998-0.tmp");
    fs::write(&fresh, b"> in flight").unwrap();
    let r = run(&e, Reason::Shutdown, true);
    assert_eq!((r.exported, r.unchanged, r.stale_temps_removed), (1, 5, 1));
    assert_eq!(staged(&e, DEMO), expected(DEMO));
    assert!(!stale.exists() && fresh.exists());
}
