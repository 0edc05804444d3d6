//! `mpt runbook`, step kg-location, against graphs the real server built: a split (blocked), a
//! stranded graph moved, verified, proven through the link, undone; refused under a live writer.
//! Submodules: `files` (deployment files and harness wiring), `serve` (Phase 1), `gateway`
//! (Phase 4).

pub mod files;
mod gateway;
mod serve;

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use mpt_mcp::{Deadline, McpClient};
use mpt_palace::kg;
use serde_json::{Value, json};

use crate::support::{TestEnv, json, stdout, venv_bin, wait_for};

/// `mpt --json runbook ARGS…`: (exit code, document).
pub fn runbook(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> (i32, Value) {
    let mut all = vec!["--json", "runbook"];
    all.extend_from_slice(args);
    let o = env.mpt(&all, vars);
    (o.status.code().unwrap(), json(&o))
}

/// One step of a `mpt.runbook/v1` document.
pub fn step<'a>(doc: &'a Value, id: &str) -> &'a Value {
    assert_eq!(doc["schema"], "mpt.runbook/v1", "{doc}");
    doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step {id} in {doc}"))
}

pub fn state(s: &Value) -> &str {
    s["state"].as_str().unwrap()
}

/// A `mempalace-mcp` started WITHOUT `--palace`, as an older extension starts it: the palace from
/// MEMPALACE_PALACE_PATH, the knowledge graph at ~/.mempalace (the landmine).
fn bare_child(env: &TestEnv, palace: &Path) -> McpClient {
    env.bare_child(palace)
}

async fn kg_add(c: &McpClient, s: &str, p: &str, o: &str) {
    let r = c
        .call_tool(
            "mempalace_kg_add",
            json!({"subject": s, "predicate": p, "object": o}),
            Deadline::Default,
        )
        .await
        .unwrap();
    assert_eq!(r.payload["success"], true, "{}", r.payload);
}

fn home_kg(env: &TestEnv) -> PathBuf {
    env.home().join(".mempalace/knowledge_graph.sqlite3")
}

fn triples(p: &Path) -> u64 {
    kg::stats(p).unwrap().map_or(0, |s| s.triples)
}

fn sidecar(p: &Path, s: &str) -> PathBuf {
    PathBuf::from(format!("{}{s}", p.display()))
}

/// Size, mtime and bytes of every file under `dir` (symlinks as their target text).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, i64, i64, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.is_dir() {
            out.extend(snapshot(&p));
            continue;
        }
        let bytes = if m.file_type().is_symlink() {
            std::fs::read_link(&p)
                .unwrap()
                .display()
                .to_string()
                .into_bytes()
        } else {
            std::fs::read(&p).unwrap()
        };
        out.insert(p, (m.len(), m.mtime(), m.mtime_nsec(), bytes));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kg_split_by_the_real_server_is_blocked_with_both_counts() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let (code, doc) = runbook(&env, &["phase0", "--palace", p], &[]);
    assert_eq!(state(step(&doc, "kg-location")), "not_applicable", "{doc}");
    assert_eq!(code, 0, "nothing applicable is open: {doc}");

    let bare = bare_child(&env, &palace);
    kg_add(&bare, "alice", "owns", "laptop").await;
    bare.shutdown().await;
    let (code, doc) = runbook(&env, &["phase0", "--palace", p], &[]);
    let s = step(&doc, "kg-location");
    assert_eq!((code, state(s)), (3, "to_do"), "stranded: {s}");
    assert!(s["apply"].as_str().unwrap().contains("leave a link"), "{s}");

    // A --palace process (serve, mpt) files a fact palace-local: two graphs now.
    env.call_local(
        &palace,
        "kg_add",
        r#"{"subject":"bob","predicate":"owns","object":"desktop"}"#,
    );
    let (code, doc) = runbook(&env, &["phase0", "--palace", p], &[]);
    let s = step(&doc, "kg-location");
    assert_eq!((code, state(s)), (3, "blocked"), "{s}");
    assert!(
        s["summary"]
            .as_str()
            .unwrap()
            .contains("1 triples palace-local and 1 under HOME"),
        "{s}"
    );
    assert!(s["manual"].as_str().unwrap().contains("decide"), "{s}");
    assert_eq!(doc["summary"]["blocked"], 1);

    let before = snapshot(&env.home().join(".mempalace"));
    let o = env.mpt(
        &[
            "--json",
            "runbook",
            "apply",
            "kg-location",
            "--yes",
            "--palace",
            p,
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
    let e = json(&o);
    assert_eq!(e["kind"], "refused");
    assert!(e["message"].as_str().unwrap().contains("blocked"), "{e}");
    assert_eq!(
        snapshot(&env.home().join(".mempalace")),
        before,
        "merging is never attempted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranded_kg_moved_verified_proven_through_the_link_and_undone() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let bare = bare_child(&env, &palace);
    kg_add(&bare, "alice", "owns", "laptop").await;
    kg_add(&bare, "alice", "maintains", "mpt").await;
    bare.shutdown().await;
    let (home, local) = (home_kg(&env), palace.join("knowledge_graph.sqlite3"));
    assert!(
        sidecar(&home, "-wal").exists(),
        "the server left its facts in the -wal"
    );
    assert_eq!(triples(&home), 2);

    // A legacy hallways file MemPalace 3.11 ignores (it reads the one beside the palace).
    let legacy = env.home().join(".mempalace/hallways.json");
    let hallways = palace.parent().unwrap().join("hallways.json");
    std::fs::write(&legacy, r#"{"hallways": []}"#).unwrap();

    // The dry run: the plan with byte sizes, and not one byte or mtime changed.
    let before = (snapshot(&env.home()), snapshot(palace.parent().unwrap()));
    let o = env.mpt(
        &["--json", "runbook", "apply", "kg-location", "--palace", p],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let dry = json(&o);
    assert_eq!(
        (dry["schema"].as_str(), dry["dry_run"].as_bool()),
        (Some("mpt.runbook.apply/v1"), Some(true))
    );
    let mv = &dry["changes"][0];
    assert_eq!(mv["action"], "move");
    assert_eq!(mv["bytes"], std::fs::metadata(&home).unwrap().len());
    assert!(
        dry["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["action"] == "link")
    );
    assert!(dry["backup"].is_null() && dry["undo"].is_null());
    assert_eq!(
        (snapshot(&env.home()), snapshot(palace.parent().unwrap())),
        before,
        "a dry run changes nothing"
    );

    // Applied: backup kept, moved, linked, counts read back equal.
    let o = env.mpt(
        &[
            "--json",
            "runbook",
            "apply",
            "kg-location",
            "--yes",
            "--palace",
            p,
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let done = json(&o);
    let v = &done["verification"];
    assert_eq!(v["ok"], true, "{done}");
    assert_eq!(
        (v["triples_before"].as_u64(), v["triples_after"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(done["state_after"], "done");
    let backup = PathBuf::from(done["backup"].as_str().unwrap());
    assert!(backup.starts_with(env.home().join(".mempalace/backups")));
    assert_eq!(triples(&backup.join("home-knowledge_graph.sqlite3")), 2);
    assert!(backup.join("manifest.json").is_file());
    assert_eq!(
        std::fs::read_link(&home).unwrap(),
        local.canonicalize().unwrap()
    );
    assert!(!sidecar(&home, "-wal").exists() && !sidecar(&home, "-shm").exists());
    assert_eq!(triples(&local), 2);
    assert!(
        hallways.is_file() && !legacy.exists(),
        "hallways moved where 3.11 reads them"
    );
    let (code, doc) = runbook(&env, &["phase0", "--palace", p], &[]);
    assert_eq!(state(step(&doc, "kg-location")), "done", "{doc}");
    assert_eq!(code, 0, "{doc}");

    // The proof: a real mempalace-mcp WITHOUT --palace writes into the moved file, and SQLite
    // keeps -wal/-shm beside the real file, not beside the link.
    let bare = bare_child(&env, &palace);
    kg_add(&bare, "carol", "reviews", "runbook").await;
    let pid = match &bare {
        McpClient::Local(c) => c.pid().await.unwrap(),
        _ => unreachable!(),
    };
    assert!(
        sidecar(&local, "-wal").exists(),
        "-wal beside the real file"
    );
    assert!(
        std::fs::symlink_metadata(sidecar(&home, "-wal")).is_err()
            && std::fs::symlink_metadata(sidecar(&home, "-shm")).is_err(),
        "nothing beside the link"
    );
    let open: Vec<PathBuf> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_link(e.path()).ok())
        .collect();
    let real = local.canonicalize().unwrap();
    assert!(
        open.contains(&real),
        "the child opened the real file: {open:?}"
    );
    assert!(open.contains(&sidecar(&real, "-wal")), "{open:?}");
    bare.shutdown().await;
    assert_eq!(triples(&local), 3, "the bare child's fact is palace-local");

    // The printed undo, run as printed: the graph (with the fact written since) back at HOME.
    let undo = done["undo"].as_str().unwrap();
    let o = std::process::Command::new("sh")
        .args(["-c", undo])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{undo}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        !std::fs::symlink_metadata(&home)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(!local.exists());
    assert_eq!(triples(&home), 3, "nothing lost by the round trip");
    assert!(legacy.is_file() && !hallways.exists());
    let (_, doc) = runbook(&env, &["phase0", "--palace", p], &[]);
    assert_eq!(
        state(step(&doc, "kg-location")),
        "to_do",
        "back as it was: {doc}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_refused_while_a_real_mempalace_mcp_holds_the_palace() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let bare = bare_child(&env, &palace);
    kg_add(&bare, "alice", "owns", "laptop").await;
    bare.shutdown().await;

    // A live child on the palace that has written: it holds the writer lease.
    let mut child = env.spawn(&venv_bin("mempalace-mcp"), &["--palace", p], &[]);
    let stdin = child.0.stdin.as_mut().unwrap();
    for msg in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "mempalace_add_drawer", "arguments": {"wing": "w", "room": "r", "content": "held while the runbook runs"}}}),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    stdin.flush().unwrap();
    let paths = mpt_palace::PalacePaths::resolve(
        &mpt_base::config::Env::from_pairs([("HOME", env.home().display().to_string())]),
        Some(&palace),
    )
    .unwrap();
    let held = wait_for(60.0, || {
        mpt_palace::files::lease_holder(&paths.writer_lease)
            .ok()
            .flatten()
            .is_some_and(|l| l.held)
    });
    assert!(held, "the child holds the writer lease after its write");

    let before = snapshot(&env.home().join(".mempalace"));
    for args in [
        vec!["--json", "runbook", "apply", "kg-location", "--palace", p],
        vec![
            "--json",
            "runbook",
            "apply",
            "kg-location",
            "--yes",
            "--palace",
            p,
        ],
    ] {
        let o = env.mpt(&args, &[]);
        assert_eq!(o.status.code(), Some(4), "{}", stdout(&o));
        let e = json(&o);
        assert_eq!(e["kind"], "refused", "{e}");
        let holders = e["detail"]["holders"].as_array().unwrap();
        assert!(
            holders.iter().any(|h| h["pid"] == child.pid()),
            "the child is named: {e}"
        );
        assert!(
            e["message"].as_str().unwrap().contains("writer lease"),
            "{e}"
        );
    }
    let after = snapshot(&env.home().join(".mempalace"));
    let kg_files = |s: &BTreeMap<PathBuf, (u64, i64, i64, Vec<u8>)>| {
        s.iter()
            .filter(|(p, _)| p.to_string_lossy().contains("knowledge_graph"))
            .map(|(p, v)| (p.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        kg_files(&after),
        kg_files(&before),
        "nothing moved under a live writer"
    );

    drop(child);
    let o = env.mpt(
        &[
            "--json",
            "runbook",
            "apply",
            "kg-location",
            "--yes",
            "--palace",
            p,
        ],
        &[],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "the writer gone, it applies: {}",
        stdout(&o)
    );
    assert_eq!(json(&o)["verification"]["ok"], true);
}
