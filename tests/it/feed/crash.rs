//! Concurrency and crashes: a second prepare is turned away at once (exit 6) while the first
//! completes, or with `--wait` runs once it does; kill -9 mid-export leaves no partial transcript;
//! the prepare deadline is exit 7.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use super::cli::{feed, prepare};
use crate::support::feed::*;
use crate::support::{TestEnv, json, stderr, wait_for};

/// Enough JSONL that a debug-build prepare runs for a good fraction of a second or more.
fn big_sessions(env: &TestEnv) -> PathBuf {
    let s = env.path("sessions");
    synthetic_sessions(&s, 160, 256);
    s
}

fn spawn_prepare(env: &TestEnv, sessions: &Path, out: &Path) -> Child {
    let mut cmd = env.mpt_command(&["feed", "prepare", "--reason", "shutdown", "--sessions"]);
    cmd.arg(sessions)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.env("XDG_STATE_HOME", env.path("state"));
    cmd.spawn().unwrap()
}

/// The lock file for `out` (from a `--json` run into it).
fn lock_of(env: &TestEnv, sessions: &Path, out: &Path) -> PathBuf {
    let j = json(&feed(
        env,
        &[
            "--json",
            "feed",
            "prepare",
            "--reason",
            "x",
            "--min-user-turns",
            "100000",
            "--sessions",
            sessions.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    ));
    PathBuf::from(j["lock_file"].as_str().unwrap())
}

fn held(lock: &Path) -> bool {
    mpt_base::lock::holder(lock).is_ok_and(|h| h.is_some())
}

#[test]
fn two_concurrent_prepares_one_is_busy_at_once_the_other_completes() {
    let env = TestEnv::new();
    let s = big_sessions(&env);
    let out = env.path("staged");
    let lock = lock_of(&env, &s, &out);
    let mut first = spawn_prepare(&env, &s, &out);
    assert!(
        wait_for(20.0, || held(&lock) || first.try_wait().unwrap().is_some()) && held(&lock),
        "the first prepare holds the lock while it runs"
    );
    let second = prepare(
        &env,
        &s,
        "settled",
        &["--json", "--out", out.to_str().unwrap()],
        &[],
    );
    // Exit 6 is the proof it did not wait: a waiter would have taken the lock and staged.
    assert_eq!(second.status.code(), Some(6), "{}", stderr(&second));
    let e = json(&second);
    assert_eq!(e["kind"], "busy");
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains(&format!("pid {}", first.id())) && msg.contains("feed prepare"),
        "{msg}"
    );
    let o = first.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(mine_source(&o), out);
    assert_eq!(contents(&out).len(), 160);
}

#[test]
fn kill_9_mid_export_leaves_no_partial_transcript() {
    let env = TestEnv::new();
    let s = big_sessions(&env);
    let reference = env.path("reference");
    let o = prepare(
        &env,
        &s,
        "shutdown",
        &["--out", reference.to_str().unwrap()],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let want = contents(&reference);
    assert_eq!(want.len(), 160);

    let out = env.path("staged");
    let mut mid_run = 0;
    for delay_ms in [30u64, 80, 150, 250, 400, 600, 900] {
        let _ = std::fs::remove_dir_all(&out);
        let mut child = spawn_prepare(&env, &s, &out);
        std::thread::sleep(Duration::from_millis(delay_ms));
        let running = child.try_wait().unwrap().is_none();
        // SAFETY: SIGKILL to the child this test spawned, by its pid.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGKILL);
        }
        let _ = child.wait();
        let Ok(got) = std::fs::read_dir(&out).map(|_| contents(&out)) else {
            continue;
        };
        if running && got.keys().filter(|n| n.ends_with(".md")).count() < want.len() {
            mid_run += 1;
        }
        for (name, bytes) in &got {
            if name.starts_with('.') && name.ends_with(".tmp") {
                continue; // an in-flight temp: never read by the miner, removed by the next run
            }
            assert_eq!(
                Some(bytes),
                want.get(name),
                "{name} after kill -9 at {delay_ms} ms is whole"
            );
        }
    }
    assert!(
        mid_run >= 2,
        "at least two kills landed mid-export ({mid_run})"
    );
    let o = prepare(&env, &s, "shutdown", &["--out", out.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        contents(&out),
        want,
        "the next run completes the folder and removes abandoned temps"
    );
}

#[test]
fn the_prepare_deadline_is_exit_7_and_stages_nothing_partial() {
    let env = TestEnv::new();
    let s = big_sessions(&env);
    let out = env.path("staged");
    let o = prepare(
        &env,
        &s,
        "shutdown",
        &["--json", "--out", out.to_str().unwrap()],
        &[("MEMPALACE_FEED_PREPARE_TIMEOUT_MS", "100")],
    );
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    let e = json(&o);
    assert_eq!(e["kind"], "timeout");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_FEED_PREPARE_TIMEOUT_MS=100")
    );
    let reference = env.path("reference");
    let full = prepare(
        &env,
        &s,
        "shutdown",
        &["--out", reference.to_str().unwrap()],
        &[],
    );
    assert_eq!(full.status.code(), Some(0), "{}", stderr(&full));
    let want = contents(&reference);
    let got = contents(&out);
    assert!(got.len() < want.len(), "the deadline cut the run short");
    for (name, bytes) in &got {
        if !(name.starts_with('.') && name.ends_with(".tmp")) {
            assert_eq!(Some(bytes), want.get(name), "{name} is whole");
        }
    }
}

#[test]
fn a_mine_with_wait_takes_the_lock_once_the_running_feed_lets_go() {
    let env = TestEnv::new();
    let s = env.path("sessions");
    synthetic_sessions(&s, 4, 8);
    let out = env.path("staged");
    let lock = lock_of(&env, &s, &out);
    let mine = |wait: &str| {
        let mut cmd = env.mpt_command(&["--json", "feed", "mine", "--harness", "pi", "--reason"]);
        cmd.args([
            "shutdown",
            "--min-user-turns",
            "100000",
            "--wait",
            wait,
            "--sessions",
        ])
        .arg(&s)
        .arg("--out")
        .arg(&out)
        .env("XDG_STATE_HOME", env.path("state"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        cmd.spawn().unwrap()
    };

    // Held past the wait: busy, saying it waited.
    let holder = mpt_base::lock::acquire(&lock, "the test's holder").unwrap();
    let o = mine("1").wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    let msg = json(&o)["message"].as_str().unwrap().to_string();
    assert!(
        msg.contains("still after 1 s") && msg.contains("the test's holder"),
        "{msg}"
    );

    // Let go within the wait: the waiting mine takes the lock and runs.
    let mut waiting = mine("60");
    assert!(
        !wait_for(1.5, || waiting.try_wait().unwrap().is_some()),
        "it waits while the lock is held"
    );
    drop(holder);
    let o = waiting.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!held(&lock), "and lets go of it");
}
