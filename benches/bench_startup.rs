//! Start-up cost of the `mpt` binary, side by side with the floor (`/bin/true`, a process that
//! does nothing) in one run. Usage: cargo bench --bench bench_startup

use std::process::{Command, Stdio};
use std::time::Instant;

const RUNS: usize = 300;

fn time(program: &str, args: &[&str]) -> Vec<f64> {
    let mut ms: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            let ok = Command::new(program)
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap()
                .success();
            assert!(ok, "{program} {args:?} failed");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    ms
}

fn main() {
    let mpt = std::env::args()
        .filter(|a| a != "--bench")
        .nth(1)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_mpt").to_string());
    let floor = time("/bin/true", &[]);
    println!(
        "{:<34} {:>9} {:>9} {:>12}",
        "command", "p50 ms", "p95 ms", "p50 / floor"
    );
    let p = |v: &[f64], q: f64| v[((v.len() as f64 - 1.0) * q) as usize];
    println!(
        "{:<34} {:>9.2} {:>9.2} {:>12}",
        "/bin/true (process floor)",
        p(&floor, 0.5),
        p(&floor, 0.95),
        "1.00x"
    );
    for (label, args) in [
        ("mpt --version", vec!["--version"]),
        ("mpt completions bash", vec!["completions", "bash"]),
        ("mpt --json config", vec!["--json", "config"]),
    ] {
        let v = time(&mpt, &args);
        println!(
            "{:<34} {:>9.2} {:>9.2} {:>11.2}x",
            label,
            p(&v, 0.5),
            p(&v, 0.95),
            p(&v, 0.5) / p(&floor, 0.5)
        );
    }
}
