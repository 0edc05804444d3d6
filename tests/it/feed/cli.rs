//! `mpt feed prepare` as scripts see it: the one-line contract, nothing to export, disabled and
//! remote-without-target said out loud, malformed input, the quiet period by trigger.

use std::fs;
use std::time::{Duration, SystemTime};

use crate::support::feed::*;
use crate::support::{TestEnv, json, stderr, stdout};

/// `mpt` with the feed's state under the test's own XDG_STATE_HOME.
pub fn feed(env: &TestEnv, args: &[&str], extra: &[(&str, &str)]) -> std::process::Output {
    let state = env.path("state").display().to_string();
    let mut all: Vec<(&str, &str)> = vec![("XDG_STATE_HOME", state.as_str())];
    all.extend_from_slice(extra);
    env.mpt(args, &all)
}

/// `mpt feed prepare --reason R --sessions S` plus `more` (e.g. `--json`, `--out DIR`).
pub fn prepare(
    env: &TestEnv,
    sessions: &std::path::Path,
    reason: &str,
    more: &[&str],
    extra: &[(&str, &str)],
) -> std::process::Output {
    let mut args = vec![
        "feed",
        "prepare",
        "--reason",
        reason,
        "--sessions",
        sessions.to_str().unwrap(),
    ];
    args.extend_from_slice(more);
    feed(env, &args, extra)
}

pub fn sessions_copy(env: &TestEnv) -> std::path::PathBuf {
    let s = env.path("sessions");
    copy_tree(&std::path::Path::new(FIXTURES).join("sessions"), &s);
    s
}

#[test]
fn prepare_prints_exactly_the_mine_source_line_and_keeps_state_outside() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let o = prepare(&env, &s, "settled", &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let src = mine_source(&o);
    assert_eq!(
        src,
        env.path("state/mpt/feed/staged"),
        "the default staging folder"
    );
    let names: Vec<String> = contents(&src).into_keys().collect();
    let mut want: Vec<String> = EXPORTED.iter().map(|id| format!("{id}.md")).collect();
    want.sort();
    assert_eq!(names, want, "only transcripts: no state, lock or temp file");
    for id in EXPORTED {
        assert_eq!(
            fs::read_to_string(src.join(format!("{id}.md"))).unwrap(),
            expected(id)
        );
    }
    assert!(env.path("state/mpt/feed/state.json").is_file());
    assert!(env.path("state/mpt/feed/prepare.lock").is_file());
    let err = stderr(&o);
    assert!(
        err.contains("6 exported") && err.contains("too_few_chars 1"),
        "{err}"
    );

    let j = json(&prepare(&env, &s, "settled", &["--json"], &[]));
    assert_eq!(j["schema"], "mpt.feed.prepare/v1");
    assert_eq!(j["mine_source"], src.to_str().unwrap());
    assert_eq!(
        (j["exported"].as_u64(), j["unchanged"].as_u64()),
        (Some(0), Some(6))
    );
    assert_eq!(j["skipped"]["subagent"], 1);
    assert_eq!(j["wing"], "wing_conversations");
    assert_eq!(j["bytes_read"], 0, "a no-change run reads no session");

    // --out elsewhere: its state and lock still live in the feed home, keyed by the folder.
    let out = env.path("elsewhere/staged");
    let o = prepare(
        &env,
        &s,
        "manual",
        &[
            "--json",
            "--out",
            out.to_str().unwrap(),
            "--wing",
            "wing_pi",
        ],
        &[],
    );
    let j = json(&o);
    assert_eq!(j["mine_source"], out.to_str().unwrap());
    assert_eq!(j["wing"], "wing_pi");
    assert!(
        j["state_file"]
            .as_str()
            .unwrap()
            .starts_with(env.path("state/mpt/feed/state-").to_str().unwrap())
    );
    assert_eq!(contents(&out).len(), 6);
}

#[test]
fn nothing_to_export_is_exit_0_and_no_line() {
    let env = TestEnv::new();
    let s = env.path("sessions");
    let trivial = std::path::Path::new(FIXTURES)
        .join("sessions/--home-u-pi-demo--/2026-05-11T00-00-00-000Z_66666666-0000-4000-8000-000000000001.jsonl");
    fs::create_dir_all(&s).unwrap();
    fs::copy(&trivial, s.join("t.jsonl")).unwrap();
    set_mtime(
        &s.join("t.jsonl"),
        SystemTime::now() - Duration::from_secs(3600),
    );
    let o = prepare(&env, &s, "shutdown", &[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "no MINE_SOURCE line");
    assert!(stderr(&o).contains("no MINE_SOURCE"), "{}", stderr(&o));
    let j = json(&prepare(&env, &s, "shutdown", &["--json"], &[]));
    assert_eq!(j["mine_source"], serde_json::Value::Null);
    assert_eq!(j["skipped_total"], 1);

    // No pi on this machine at all: the same contract.
    let o = feed(&env, &["feed", "prepare", "--reason", "shutdown"], &[]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
    assert!(
        stderr(&o).contains("no pi sessions folder"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn disabled_and_remote_without_a_target_do_nothing_and_say_why() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let args = [
        "feed",
        "prepare",
        "--reason",
        "shutdown",
        "--sessions",
        s.to_str().unwrap(),
    ];
    let o = feed(&env, &args, &[("MEMPALACE_FEED", "0")]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
    assert!(
        stderr(&o).contains("disabled by MEMPALACE_FEED=0"),
        "{}",
        stderr(&o)
    );
    assert!(
        !env.path("state/mpt/feed/staged").exists(),
        "nothing staged"
    );

    let remote = [("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp")];
    let o = feed(&env, &args, &remote);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
    let err = stderr(&o);
    assert!(
        err.contains("warning")
            && err.contains("feeding skipped")
            && err.contains("MEMPALACE_PI_SSH_TARGET"),
        "{err}"
    );
    let mut jargs = vec!["--json"];
    jargs.extend_from_slice(&args);
    let j = json(&feed(&env, &jargs, &remote));
    assert_eq!(
        (j["active"].as_bool(), j["mine_source"].is_null()),
        (Some(false), true)
    );
    assert!(
        j["note"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_PI_SSH_TARGET")
    );
    let m = feed(
        &env,
        &["--json", "feed", "mine", "--sessions", s.to_str().unwrap()],
        &remote,
    );
    assert_eq!(m.status.code(), Some(0), "{}", stderr(&m));
    assert_eq!(json(&m)["mine"], serde_json::Value::Null);
    assert!(
        !env.path("state/mpt/feed/staged").exists(),
        "nothing staged for a primary that cannot read it"
    );
}

#[test]
fn malformed_flags_and_env_are_exit_2() {
    let env = TestEnv::new();
    for (args, extra) in [
        (vec!["feed", "prepare", "--reason", "not a token"], vec![]),
        (
            vec!["feed", "prepare", "--reason", "settled", "--wing", "../etc"],
            vec![],
        ),
        (vec!["feed", "prepare"], vec![]),
        (
            vec!["feed", "prepare", "--reason", "x"],
            vec![("MEMPALACE_FEED", "sometimes")],
        ),
        (
            vec!["feed", "prepare", "--reason", "x"],
            vec![("MEMPALACE_FEED_PREPARE_TIMEOUT_MS", "soon")],
        ),
        (
            vec!["feed", "mine"],
            vec![("MEMPALACE_FEED_MINE_TIMEOUT_MS", "5m")],
        ),
        (
            vec!["feed", "prepare", "--reason", "x"],
            vec![("PI_CODING_AGENT_SESSION_DIR", "rel/dir")],
        ),
        (
            vec!["feed", "prepare", "--reason", "x"],
            vec![
                ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
                ("MEMPALACE_PI_SSH_TARGET", "-oProxyCommand=evil"),
            ],
        ),
        (
            vec!["feed", "prepare", "--reason", "x"],
            vec![
                ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
                ("MEMPALACE_PI_SSH_TARGET", "h"),
                ("MEMPALACE_PI_SSH_CONFIG", "/nonexistent/ssh_config"),
            ],
        ),
    ] {
        let o = feed(&env, &args, &extra);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?} {extra:?}: {}",
            stderr(&o)
        );
        assert_eq!(stdout(&o), "", "no MINE_SOURCE on a usage error");
    }
    let mut a = vec!["--json", "feed", "prepare", "--reason", "x"];
    a.extend(["--wing", "_bad"]);
    let j = json(&feed(&env, &a, &[]));
    assert_eq!(
        (j["schema"].as_str(), j["kind"].as_str()),
        (Some("mpt.error/v1"), Some("usage"))
    );
}

#[test]
fn the_quiet_period_yields_only_to_triggers_that_end_the_session() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let live = {
        let f = |id: &str| {
            walk(&s)
                .into_iter()
                .find(|p| p.to_string_lossy().ends_with(&format!("_{id}.jsonl")))
                .unwrap()
        };
        f(DEMO)
    };
    let now = SystemTime::now();
    let run = |reason: &str| {
        set_mtime(&live, now);
        let out = env.path(&format!("out-{reason}"));
        json(&prepare(
            &env,
            &s,
            reason,
            &["--json", "--out", out.to_str().unwrap()],
            &[],
        ))
    };
    for reason in ["settled", "compact", "reload", "manual"] {
        let j = run(reason);
        assert_eq!(
            j["skipped"]["still_writing"], 1,
            "{reason} waits for a live session"
        );
        assert_eq!(j["exported"], 5, "{reason}");
    }
    for reason in ["shutdown", "new", "resume", "fork"] {
        let j = run(reason);
        assert!(
            j["skipped"].get("still_writing").is_none(),
            "{reason} ends the session: {j}"
        );
        assert_eq!(j["exported"], 6, "{reason}");
    }
    let j = json(&feed(
        &env,
        &[
            "--json",
            "feed",
            "prepare",
            "--reason",
            "settled",
            "--quiet-period-ms",
            "0",
            "--sessions",
            s.to_str().unwrap(),
            "--out",
            env.path("q0").to_str().unwrap(),
        ],
        &[],
    ));
    assert_eq!(j["exported"], 6, "the quiet period is a flag");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
