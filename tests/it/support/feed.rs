//! Feed test support: a private copy of tests/fixtures/feed/sessions (all files an hour old),
//! prepare runners, and readers for staged and expected transcripts.

use mpt::feed::{PrepareOptions, PrepareReport, Reason, SkipReason, prepare};
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
