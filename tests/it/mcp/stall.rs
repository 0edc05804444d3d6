//! Stall protection and self-heal with a child that stops answering on demand: the error within
//! the deadline, the child killed, respawned on the next call, the budget reset by a success, and
//! after the cap the client stays down with a clear message.

use std::path::Path;
use std::time::{Duration, Instant};

use mpt_base::config::McpKnobs;
use mpt_mcp::stdio::{ChildSpec, StdioClient, StdioOptions};
use mpt_mcp::{CallError, Deadline, McpClient};
use serde_json::json;

use crate::support::{fixture, pid_alive, wait_for};

const DEADLINE_MS: u64 = 600;

fn fake(log: &Path, extra: &[(&str, &str)], knobs: McpKnobs, grace: Duration) -> McpClient {
    let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = vec![
        ("PATH".into(), "/usr/bin:/bin".into()),
        ("FAKE_SPAWN_LOG".into(), log.as_os_str().to_owned()),
    ];
    env.extend(extra.iter().map(|(k, v)| ((*k).into(), (*v).into())));
    let spec = ChildSpec {
        program: "python3".into(),
        args: vec![fixture("stall_child.py").into_os_string()],
        env,
        clear_env: true,
        named_by: None,
    };
    let mut opts = StdioOptions::new(knobs, false);
    opts.kill_grace = grace;
    McpClient::Local(StdioClient::new(spec, opts))
}

fn knobs(max_respawns: u32) -> McpKnobs {
    McpKnobs {
        timeout: Some(Duration::from_millis(DEADLINE_MS)),
        init_timeout: Some(Duration::from_millis(5000)),
        max_respawns,
        respawn_backoff: Duration::from_millis(50),
    }
}

fn spawned(log: &Path) -> Vec<u32> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.parse().ok())
        .collect()
}

async fn echo(c: &McpClient) -> Result<serde_json::Value, CallError> {
    c.call_tool("echo", json!({"n": 1}), Deadline::Default)
        .await
        .map(|r| r.payload)
}

async fn stall(c: &McpClient) -> (CallError, Duration) {
    let t = Instant::now();
    let e = c
        .call_tool("stall", json!({}), Deadline::Default)
        .await
        .unwrap_err();
    (e, t.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stall_is_killed_respawned_and_capped() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spawns");
    let c = fake(&log, &[], knobs(2), Duration::from_millis(500));

    assert_eq!(echo(&c).await.unwrap()["success"], true);
    let first = spawned(&log);
    assert_eq!(first.len(), 1);

    // The stall: an error within the deadline (+ a margin), and the child is gone.
    let (e, took) = stall(&c).await;
    assert!(
        matches!(e, CallError::Timeout { ms, .. } if ms == DEADLINE_MS),
        "{e:?}"
    );
    assert!(took >= Duration::from_millis(DEADLINE_MS), "{took:?}");
    assert!(
        took < Duration::from_millis(DEADLINE_MS + 1500),
        "the error came late: {took:?}"
    );
    assert!(
        wait_for(5.0, || !pid_alive(first[0])),
        "the stalled child was not killed"
    );

    // The next call respawns and works; that success resets the budget...
    assert_eq!(echo(&c).await.unwrap()["success"], true);
    assert_eq!(spawned(&log).len(), 2);

    // ...so two more respawns are allowed (2 stalls after the one on the live child), then down.
    for _ in 0..3 {
        let (e, _) = stall(&c).await;
        assert!(matches!(e, CallError::Timeout { .. }), "{e:?}");
    }
    assert_eq!(spawned(&log).len(), 4, "two respawns after the reset");
    let e = echo(&c).await.unwrap_err();
    match &e {
        CallError::Down { respawns, .. } => assert_eq!(*respawns, 2),
        other => panic!("expected Down, got {other:?}"),
    }
    let msg = mpt_base::error::MptError::from(e);
    assert!(msg.message.contains("stays down"), "{}", msg.message);
    assert!(msg.hint.unwrap().contains("MEMPALACE_MCP_MAX_RESPAWNS"));
    assert_eq!(spawned(&log).len(), 4, "no spawn once down");
    assert!(
        wait_for(5.0, || spawned(&log).iter().all(|p| !pid_alive(*p))),
        "every child stopped"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ignored_escalates_to_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spawns");
    let c = fake(
        &log,
        &[("FAKE_IGNORE_TERM", "1")],
        knobs(1),
        Duration::from_millis(300),
    );
    echo(&c).await.unwrap();
    let pid = spawned(&log)[0];
    let (e, _) = stall(&c).await;
    assert!(matches!(e, CallError::Timeout { .. }));
    assert!(
        wait_for(5.0, || !pid_alive(pid)),
        "SIGKILL followed the ignored SIGTERM"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_per_call_deadline_overrides_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spawns");
    let c = fake(&log, &[], knobs(1), Duration::from_millis(300));
    echo(&c).await.unwrap();
    let t = Instant::now();
    let e = c
        .call_tool(
            "stall",
            json!({}),
            Deadline::After(Duration::from_millis(1500)),
        )
        .await
        .unwrap_err();
    assert!(matches!(e, CallError::Timeout { ms: 1500, .. }), "{e:?}");
    assert!(
        t.elapsed() >= Duration::from_millis(1500),
        "the longer per-call deadline was honoured, not the 600 ms default"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_handshake_times_out_and_zero_respawns_fails_fast() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spawns");
    let mut k = knobs(0);
    k.init_timeout = Some(Duration::from_millis(400));
    let c = fake(
        &log,
        &[("FAKE_MODE", "stall-init")],
        k,
        Duration::from_millis(300),
    );
    let e = c.connect().await.unwrap_err();
    match &e {
        CallError::Timeout { what, ms } => {
            assert_eq!(*ms, 400);
            assert!(what.contains("MEMPALACE_MCP_INIT_TIMEOUT_MS"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    let pid = spawned(&log)[0];
    assert!(wait_for(5.0, || !pid_alive(pid)));
    // MEMPALACE_MCP_MAX_RESPAWNS=0: the old fail-fast latch, no second start.
    assert!(matches!(
        c.connect().await.unwrap_err(),
        CallError::Down { .. }
    ));
    assert_eq!(spawned(&log).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_child_that_exits_is_respawned_on_the_next_call() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("spawns");
    let c = fake(&log, &[], knobs(2), Duration::from_millis(300));
    echo(&c).await.unwrap();
    let e = c
        .call_tool("exit", json!({}), Deadline::Default)
        .await
        .unwrap_err();
    assert!(
        matches!(&e, CallError::ChildExited { reason, .. } if reason.contains('3')),
        "{e:?}"
    );
    assert_eq!(echo(&c).await.unwrap()["success"], true);
    assert_eq!(spawned(&log).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_binary_fails_at_once_without_respawns() {
    let spec = ChildSpec {
        program: "/nonexistent/mempalace-mcp".into(),
        args: vec![],
        env: vec![],
        clear_env: true,
        named_by: None,
    };
    let c = McpClient::Local(StdioClient::new(spec, StdioOptions::new(knobs(2), false)));
    // Waiting cannot make a program appear: no backoff, no respawn, and the same error again.
    for _ in 0..2 {
        let e = c.connect().await.unwrap_err();
        assert!(
            matches!(&e, CallError::NoProgram { reason, .. } if reason == "there is no such file"),
            "{e:?}"
        );
        assert!(!e.is_transient());
        let m = mpt_base::error::MptError::from(e);
        assert_eq!(m.exit().code(), 1, "{}", m.message);
        assert!(
            m.message.contains("/nonexistent/mempalace-mcp"),
            "{}",
            m.message
        );
    }
}
