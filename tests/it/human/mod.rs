//! Human output, snapshot-tested (`insta`): doctor, runbook, outbox, mailbox and edge status as a
//! user reads them, with temp paths, ports, pids, ids and times filtered so the snapshots hold.

mod fleet;
mod local;
mod truth;

use std::process::Output;

use crate::support::{TestEnv, stderr, stdout, testbed};

/// Filters that make one run's output comparable to the next: the test's temp dir and the
/// testbed, loopback ports, pids, the owner's socket, times, ages and generated ids (in this
/// order: the event id's hex tail is not an op id).
pub fn settings(env: &TestEnv) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    // Every human-output snapshot in one folder, whichever test file takes it.
    s.set_snapshot_path(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/it/human/snapshots"
    ));
    s.set_omit_expression(true);
    let literal = |p: &std::path::Path| regex_escape(&p.display().to_string());
    s.add_filter(&literal(env.dir.path()), "[TMP]");
    s.add_filter(&literal(&testbed()), "[TESTBED]");
    s.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]");
    s.add_filter(r"\bpid \d+", "pid [PID]");
    s.add_filter(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?",
        "[TIME]",
    );
    s.add_filter(r"/\S+/[0-9a-f]{16}\.sock\b", "[SOCKET]");
    s.add_filter(r"\bevt_\d{8}T\d{6}_[0-9a-f]{12}\b", "evt_[ID]");
    s.add_filter(r"\b[0-9a-f]{12}\b", "[OP]");
    s.add_filter(r"\b\d+(\.\d+)? ?(ms|s|m|h|d)\b", "[AGE]");
    s.add_filter(
        r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        "[UUID]",
    );
    s
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

/// What a user sees: the exit code, then stdout, then stderr when there is any.
pub fn shown(o: &Output) -> String {
    let mut s = format!("exit {}\n{}", o.status.code().unwrap_or(-1), stdout(o));
    let err = stderr(o);
    if !err.is_empty() {
        s.push_str("--- stderr\n");
        s.push_str(&err);
    }
    s
}
