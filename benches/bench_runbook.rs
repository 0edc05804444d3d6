//! `mpt runbook` (all twelve steps) timed side by side with `mpt doctor --offline` and the process
//! floor (`/bin/true`), on a HOME holding a stranded 1,000-triple graph and a compose file.
//! `cargo bench --bench bench_runbook`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn run(program: &Path, args: &[&str], env: &[(String, String)], cwd: &Path) -> f64 {
    let t = Instant::now();
    Command::new(program)
        .env_clear()
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let mpt = std::path::PathBuf::from(env!("CARGO_BIN_EXE_mpt"));
    let tmp = std::env::temp_dir().join(format!("mpt-bench-runbook-{}", std::process::id()));
    let home = tmp.join("home");
    std::fs::create_dir_all(home.join(".mempalace")).unwrap();
    let kg = rusqlite::Connection::open(home.join(".mempalace/knowledge_graph.sqlite3")).unwrap();
    kg.execute_batch(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE entities(id TEXT PRIMARY KEY, name TEXT, type TEXT, properties TEXT, created_at TEXT);
         CREATE TABLE triples(id TEXT PRIMARY KEY, subject TEXT, predicate TEXT, object TEXT, valid_from TEXT, valid_to TEXT, confidence REAL, source_closet TEXT, source_file TEXT, source_drawer_id TEXT, adapter_name TEXT, extracted_at TEXT);",
    )
    .unwrap();
    for i in 0..1000 {
        kg.execute(
            "INSERT INTO triples(id, subject, predicate, object) VALUES (?1, 'a', 'knows', ?2)",
            (format!("t{i}"), format!("e{i}")),
        )
        .unwrap();
    }
    drop(kg);
    std::fs::write(
        tmp.join("docker-compose.yml"),
        "services:\n  palace:\n    command: mempalace serve --host 172.17.0.1 --port 8765\n    environment:\n      MEMPALACE_MCP_HTTP_TOKEN: ${MEMPALACE_MCP_HTTP_TOKEN}\n",
    )
    .unwrap();
    let env: Vec<(String, String)> = vec![
        ("HOME".into(), home.display().to_string()),
        ("PATH".into(), "/usr/bin:/bin".into()),
    ];
    let (mut floor, mut doctor, mut runbook) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..100 {
        floor.push(run(Path::new("/bin/true"), &[], &env, &tmp));
        doctor.push(run(&mpt, &["doctor", "--offline"], &env, &tmp));
        runbook.push(run(&mpt, &["runbook"], &env, &tmp));
    }
    std::fs::remove_dir_all(&tmp).unwrap();
    let (floor, doctor, runbook) = (median(floor), median(doctor), median(runbook));
    println!(
        "{:<40} {:>10} {:>10} {:>8}",
        "what", "median ms", "baseline", "ratio"
    );
    for (what, ms, base) in [
        ("mpt runbook vs /bin/true", runbook, floor),
        ("mpt runbook vs mpt doctor --offline", runbook, doctor),
    ] {
        println!("{what:<40} {ms:>10.2} {base:>10.2} {:>7.2}x", ms / base);
    }
}
