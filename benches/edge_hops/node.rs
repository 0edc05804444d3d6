//! `BENCH_NODE=1`: the edge as a Node harness sees it. pi and opencode are Node processes (one
//! event loop on epoll); `node_harness.mjs` drives every side from one, interleaved.
//!
//! Sides: the child directly, this build's edge (shim + owner), the same `--standalone`, and
//! `BENCH_BASELINE_MPT`'s edge when set, each edge in a HOME and a runtime folder of its own (its
//! own owner). Prints p50 / p99 per side and what each adds over the direct call.

use std::path::Path;
use std::process::Command;

use super::{HopBed, env_with, pct, runtime_dir};

const SCRIPT: &str = include_str!("node_harness.mjs");

pub fn run(bed: &HopBed, baseline: Option<&Path>, n: usize, rounds: usize) {
    let no_hub = ("MEMPALACE_HUB_FORWARD", "0".to_string());
    let side = |label: &str, program: &Path, args: Vec<&str>, name: Option<&str>| {
        let mut extra = vec![no_hub.clone()];
        if let Some(name) = name {
            extra.push(("HOME", (bed.home)(name)));
            extra.push(("XDG_RUNTIME_DIR", runtime_dir(bed, name)));
        }
        let env: serde_json::Map<String, serde_json::Value> = env_with(bed.env, &extra)
            .into_iter()
            .map(|(k, v)| (k, v.into()))
            .collect();
        serde_json::json!({"label": label, "program": program, "args": args, "env": env})
    };
    let palace = bed.palace;
    let mut sides = vec![
        side("child directly", bed.child, vec!["--palace", palace], None),
        side(
            "mpt edge (shim + owner)",
            &bed.plain_mpt,
            vec!["edge", "--palace", palace],
            Some("node-edge"),
        ),
        side(
            "mpt edge --standalone",
            &bed.plain_mpt,
            vec!["edge", "--standalone", "--palace", palace],
            Some("node-standalone"),
        ),
    ];
    if let Some(b) = baseline {
        sides.push(side(
            "BENCH_BASELINE_MPT's edge",
            b,
            vec!["edge", "--palace", palace],
            Some("node-baseline"),
        ));
    }
    let labels: Vec<String> = sides
        .iter()
        .map(|s| s["label"].as_str().unwrap().to_string())
        .collect();
    let cfg = serde_json::json!({"sides": sides, "n": n, "rounds": rounds, "warm": 20});
    let cfg_path = bed.tmp.join("node-harness.json");
    let script = bed.tmp.join("node_harness.mjs");
    std::fs::write(&cfg_path, cfg.to_string()).unwrap();
    std::fs::write(&script, SCRIPT).unwrap();
    let load_before = crate::common::loadavg();
    let out = Command::new("node")
        .arg(&script)
        .arg(&cfg_path)
        .output()
        .expect("node on PATH (the testbed's harnesses need it too)");
    assert!(
        out.status.success(),
        "node harness: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let load_after = crate::common::loadavg();
    let times: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&out.stdout).unwrap();
    let of = |label: &str| -> Vec<f64> {
        times[label]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() / 1e3)
            .collect()
    };
    println!(
        "kg_stats from a Node harness (node {}), {rounds} interleaved rounds of {n} calls a side; load {load_before} -> {load_after}",
        String::from_utf8_lossy(
            &Command::new("node")
                .arg("--version")
                .output()
                .unwrap()
                .stdout
        )
        .trim()
    );
    let direct = of(&labels[0]);
    let (d50, d99) = (pct(&direct, 0.5), pct(&direct, 0.99));
    println!(
        "  {:<30} {:>8} {:>8} {:>10} {:>8}",
        "side (ms)", "p50", "p99", "added p50", "p99/p50"
    );
    for label in &labels {
        let v = of(label);
        let (p50, p99) = (pct(&v, 0.5), pct(&v, 0.99));
        println!(
            "  {label:<30} {p50:>8.3} {p99:>8.3} {:>+10.3} {:>8.2}",
            p50 - d50,
            p99 / p50
        );
    }
    println!("  (the direct call's p99 {d99:.3} ms)");
}
