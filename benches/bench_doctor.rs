//! `mpt doctor` timings side by side in one run: `--offline` against the process floor
//! (`/bin/true`), and a full local doctor against the child's own handshake (spawn to tools/list).
//! Needs the testbed: `cargo bench --bench bench_doctor` (the testbed is provisioned by `tests/testbed/provision.sh`).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use mpt_base::config::McpKnobs;
use mpt_mcp::stdio::{ChildSpec, StdioClient, StdioOptions};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn run(program: &Path, args: &[&str], env: &[(String, String)]) -> f64 {
    let t = Instant::now();
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd.status().unwrap();
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let tb = common::testbed();
    let bin = tb.join("venv-mempalace-3.11.0/bin");
    let mpt = std::path::PathBuf::from(env!("CARGO_BIN_EXE_mpt"));
    let tmp = std::env::temp_dir().join(format!("mpt-bench-doctor-{}", std::process::id()));
    let home = common::model_home(&tmp, &tb);
    let palace = tmp.join("local/palace");
    let env: Vec<(String, String)> = vec![
        ("HOME".into(), home.display().to_string()),
        ("PATH".into(), format!("{}:/usr/bin:/bin", bin.display())),
        ("MEMPALACE_HUB_FORWARD".into(), "0".into()),
        ("MEMPALACE_PALACE_PATH".into(), palace.display().to_string()),
    ];
    run(
        &mpt,
        &[
            "call",
            "--palace",
            palace.to_str().unwrap(),
            "add_drawer",
            r#"{"wing":"w","room":"r","content":"bench"}"#,
        ],
        &env,
    );

    let floor = median(
        (0..100)
            .map(|_| run(Path::new("/bin/true"), &[], &env))
            .collect(),
    );
    let offline = median(
        (0..100)
            .map(|_| run(&mpt, &["doctor", "--offline"], &env))
            .collect(),
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    let handshake = median(
        (0..5)
            .map(|_| {
                rt.block_on(async {
                    let spec = ChildSpec {
                        program: bin.join("mempalace-mcp"),
                        args: vec!["--palace".into(), palace.clone().into_os_string()],
                        env: env.iter().map(|(k, v)| (k.into(), v.into())).collect(),
                        clear_env: true,
                        named_by: None,
                    };
                    let t = Instant::now();
                    let c = StdioClient::new(spec, StdioOptions::new(McpKnobs::default(), false));
                    c.connect().await.unwrap();
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    c.shutdown().await;
                    ms
                })
            })
            .collect(),
    );
    let full = median((0..5).map(|_| run(&mpt, &["doctor"], &env)).collect());
    std::fs::remove_dir_all(&tmp).unwrap();
    println!(
        "{:<46} {:>10} {:>10} {:>8}",
        "what", "median ms", "baseline", "ratio"
    );
    println!(
        "{:<46} {:>10.2} {:>10.2} {:>7.2}x",
        "mpt doctor --offline vs /bin/true",
        offline,
        floor,
        offline / floor
    );
    println!(
        "{:<46} {:>10.1} {:>10.1} {:>7.2}x",
        "mpt doctor (local child) vs child handshake",
        full,
        handshake,
        full / handshake
    );
}
