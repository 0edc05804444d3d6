//! Feed test support: a private copy of tests/fixtures/feed/sessions (all files an hour old),
//! prepare runners, and readers for staged and expected transcripts.

use mpt_feed::{PrepareOptions, PrepareReport, Reason, SkipReason, prepare};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/feed");
pub const DEMO: &str = "11111111-2222-4333-8444-555555555555";
pub const BRANCH: &str = "22222222-3333-4444-8555-666666666666";
pub const PARENT: &str = "44444444-4444-4444-8444-444444444444";
pub const FORK: &str = "55555555-5555-4555-8555-555555555555";
pub const V4: &str = "0197a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
pub const EXPORTED: [&str; 6] = [
    V4,
    DEMO,
    BRANCH,
    PARENT,
    FORK,
    "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
];

pub struct Fixture {
    pub _tmp: tempfile::TempDir,
    pub sessions: PathBuf,
    pub stage: PathBuf,
    pub state: PathBuf,
}

/// A private copy of the fixture sessions, every file last modified an hour ago.
pub fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let sessions = tmp.path().join("sessions");
    copy_tree(&Path::new(FIXTURES).join("sessions"), &sessions);
    Fixture {
        stage: tmp.path().join("out/staged"),
        state: tmp.path().join("out/feed-state.json"),
        sessions,
        _tmp: tmp,
    }
}

pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            fs::copy(e.path(), &dst).unwrap();
            set_mtime(&dst, SystemTime::now() - Duration::from_secs(3600));
        }
    }
}

pub fn set_mtime(p: &Path, t: SystemTime) {
    fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

pub fn session_file(e: &Fixture, id: &str) -> PathBuf {
    let mut stack = vec![e.sessions.clone()];
    while let Some(d) = stack.pop() {
        for f in fs::read_dir(d).unwrap() {
            let p = f.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(&format!("_{id}.jsonl"))
                && !p.to_string_lossy().contains("subagents")
            {
                return p;
            }
        }
    }
    panic!("no fixture for {id}");
}

pub fn opts(e: &Fixture, reason: Reason, with_state: bool) -> PrepareOptions {
    let mut o = PrepareOptions::new(&e.sessions, &e.stage, reason);
    o.state_file = with_state.then(|| e.state.clone());
    o.fsync = false;
    o
}

pub fn run(e: &Fixture, reason: Reason, with_state: bool) -> PrepareReport {
    prepare(&opts(e, reason, with_state)).unwrap()
}

pub fn expected(id: &str) -> String {
    fs::read_to_string(Path::new(FIXTURES).join(format!("expected/{id}.md"))).unwrap()
}

pub fn staged(e: &Fixture, id: &str) -> String {
    fs::read_to_string(e.stage.join(format!("{id}.md"))).unwrap()
}

pub fn listing(dir: &Path) -> BTreeMap<String, SystemTime> {
    fs::read_dir(dir)
        .unwrap()
        .map(|f| {
            let f = f.unwrap();
            (
                f.file_name().to_string_lossy().into_owned(),
                f.metadata().unwrap().modified().unwrap(),
            )
        })
        .collect()
}

pub fn skipped(r: &PrepareReport) -> Vec<(SkipReason, usize)> {
    r.skipped.iter().map(|(k, v)| (*k, *v)).collect()
}

/// `n` synthetic pi sessions of about `kib` KiB each under `dir` (an hour old), for runs that must
/// last long enough to be interrupted. Each passes the gate.
pub fn synthetic_sessions(dir: &Path, n: usize, kib: usize) {
    let para = "The cache handler returns an error because the retry budget is spent; we should \
                refactor the config loader so the session test passes and p99 latency drops. ";
    for i in 0..n {
        let d = dir.join(format!("--home-u-project-{}--", i % 7));
        fs::create_dir_all(&d).unwrap();
        let id = format!("{i:08x}-0000-4000-8000-000000000000");
        let mut s = format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-05-08T02:00:00.000Z\",\"cwd\":\"/home/u/p\"}}\n"
        );
        let (mut k, mut parent) = (0usize, "null".to_string());
        while s.len() < kib * 1024 {
            for role in ["user", "assistant"] {
                k += 1;
                let text = format!("{role} turn {k} of session {i}: {}", para.repeat(1 + k % 9));
                let body = if role == "user" {
                    format!(
                        "{{\"role\":\"user\",\"content\":{}}}",
                        serde_json::to_string(&text).unwrap()
                    )
                } else {
                    format!(
                        "{{\"role\":\"assistant\",\"content\":[{{\"type\":\"thinking\",\"thinking\":{}}},{{\"type\":\"text\",\"text\":{}}}],\"stopReason\":\"stop\"}}",
                        serde_json::to_string(&para.repeat(6)).unwrap(),
                        serde_json::to_string(&text).unwrap()
                    )
                };
                s.push_str(&format!(
                    "{{\"type\":\"message\",\"id\":\"e{k}\",\"parentId\":{parent},\"timestamp\":\"2026-05-08T02:00:01.000Z\",\"message\":{body}}}\n"
                ));
                parent = format!("\"e{k}\"");
            }
        }
        let p = d.join(format!("2026-05-08T02-00-00-000Z_{id}.jsonl"));
        fs::write(&p, s).unwrap();
        set_mtime(&p, SystemTime::now() - Duration::from_secs(3600));
    }
}

/// The path from `mpt feed prepare`'s one stdout line, asserting the line contract.
pub fn mine_source(o: &std::process::Output) -> PathBuf {
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .strip_suffix('\n')
        .filter(|l| !l.contains('\n'))
        .unwrap_or_else(|| panic!("stdout is not exactly one line: {out:?}"));
    PathBuf::from(
        line.strip_prefix("MINE_SOURCE=")
            .unwrap_or_else(|| panic!("not a MINE_SOURCE line: {line:?}")),
    )
}

/// Files in a folder and their bytes, by name.
pub fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|f| {
            let f = f.unwrap();
            (
                f.file_name().to_string_lossy().into_owned(),
                fs::read(f.path()).unwrap(),
            )
        })
        .collect()
}

/// The testbed's `mempalace` CLI with the test's private environment.
pub fn mempalace(env: &crate::support::TestEnv, args: &[&str]) -> std::process::Output {
    env.command(crate::support::venv_bin("mempalace"))
        .args(args)
        .output()
        .unwrap()
}

/// tests/fixtures/feed/palace_inspect.py on `palace`: its JSON answer.
pub fn inspect(env: &crate::support::TestEnv, palace: &Path, args: &[&str]) -> serde_json::Value {
    let mut cmd = std::process::Command::new(crate::support::venv_bin("python"));
    cmd.env_clear()
        .arg(Path::new(FIXTURES).join("palace_inspect.py"))
        .arg(args[0])
        .arg(palace)
        .args(&args[1..]);
    for (k, v) in env.mempalace_env() {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "inspect {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Holds the pinned shape `tests/fixtures/<fixture>` (every record kind and key a feed bench
/// synthesises) to `real`, a real harness file's shape: each pinned kind and key is in it.
pub fn assert_pinned_shape_holds(
    real: &BTreeMap<String, std::collections::BTreeSet<String>>,
    fixture: &str,
) {
    let pinned: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(super::fixture(fixture)).unwrap()).unwrap();
    for (kind, keys) in pinned["shapes"].as_object().unwrap() {
        let seen = real.get(kind);
        for k in keys.as_array().unwrap() {
            assert!(
                seen.is_some_and(|s| s.contains(k.as_str().unwrap())),
                "{kind}.{k}: {fixture} is no longer the real harness's shape: {real:?}"
            );
        }
    }
}
