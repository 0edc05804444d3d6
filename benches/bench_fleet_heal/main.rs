//! The fleet healing from a black hole, side by side in one run: 3 devices, each a real `mpt edge`
//! (shim, owner, `mempalace-mcp` child) behind its own link, queue 32 writes while the link is a
//! black hole that keeps every connection it took hung; the figure is heal → every outbox empty.

// Usage: cargo bench --bench bench_fleet_heal
// BENCH_MPT: the mpt under test (default the mpt `cargo bench` builds); BENCH_BASELINE_MPT: another one to
// run the same rounds with (e.g. main's build), each capped at BENCH_CAP_S (default 420 s);
// BENCH_ROUNDS (default 3; the baseline's BENCH_BASELINE_ROUNDS, default 1: a stalled round takes
// minutes); MPT_TESTBED names the testbed; BENCH_VERBOSE=1 prints each round.

#[path = "../common/mod.rs"]
mod common;
mod device;
#[allow(dead_code)]
#[path = "../../tests/it/support/link.rs"]
mod link;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Primary, median};
use device::Device;
use link::{Link, Mode};
use serde_json::json;

const DEVICES: usize = 3;
const OPS: usize = 32;
/// How long the black hole lasts after the last write was queued (the edges notice it meanwhile).
const OUTAGE: Duration = Duration::from_secs(10);

fn main() {
    let env = |k: &str| std::env::var_os(k).map(PathBuf::from);
    let under_test =
        env("BENCH_MPT").unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_BIN_EXE_mpt")));
    let baseline = env("BENCH_BASELINE_MPT");
    let cap = Duration::from_secs(
        std::env::var("BENCH_CAP_S")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(420),
    );
    let count = |k: &str, default: usize| {
        std::env::var(k)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (rounds, baseline_rounds) = (count("BENCH_ROUNDS", 3), count("BENCH_BASELINE_ROUNDS", 1));
    let tmp = tempfile::tempdir().unwrap();
    let links: Vec<Link> = (0..DEVICES).map(|_| Link::bind()).collect();
    let hosts = links.iter().map(Link::host).collect::<Vec<_>>().join(",");
    let primary = Primary::start_with(
        &tmp.path().join("primary"),
        &[("MEMPALACE_MCP_EXTRA_ALLOWED_HOSTS", hosts)],
    );
    for l in &links {
        l.set_upstream(primary.port());
    }
    let mut links = Some(links);
    let mut figures = |label: &str, mpt: &Path, rounds: usize| -> Vec<Option<f64>> {
        (0..rounds)
            .map(|r| {
                let dir = tmp.path().join(format!("{label}{r}"));
                let (t, back) = heal(
                    mpt,
                    &dir,
                    links.take().unwrap(),
                    &format!("{label}{r}"),
                    cap,
                );
                links = Some(back);
                if std::env::var_os("BENCH_VERBOSE").is_some() {
                    eprintln!("{label} round {r}: {t:?}");
                }
                t.map(|d| d.as_secs_f64())
            })
            .collect()
    };
    let ours = figures("t", &under_test, rounds);
    let base = baseline.map(|b| figures("b", &b, baseline_rounds));
    let show = |v: &[Option<f64>]| {
        v.iter()
            .map(|t| t.map_or(format!("> {} s", cap.as_secs()), |t| format!("{t:.2} s")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    // A round that hit the cap counts as the cap (the ratio is then a lower bound).
    let mid =
        |v: &[Option<f64>]| median(v.iter().map(|t| t.unwrap_or(cap.as_secs_f64())).collect());
    println!(
        "{DEVICES} devices x {OPS} queued ops, {} s black hole that keeps its connections: heal to converged",
        OUTAGE.as_secs()
    );
    println!(
        "  this tree ({}): median {:.2} s  [{}]  goal <= 5 s",
        under_test.display(),
        mid(&ours),
        show(&ours)
    );
    if let Some(b) = &base {
        println!(
            "  baseline ({}): median {:.2} s  [{}]",
            std::env::var("BENCH_BASELINE_MPT").unwrap(),
            mid(b),
            show(b)
        );
        println!("  ratio this / baseline: {:.3}x", mid(&ours) / mid(b));
    } else {
        println!("  (no baseline: set BENCH_BASELINE_MPT to another build of mpt, e.g. main's)");
    }
}

/// One round: the devices start with their links passing, the links become a black hole that
/// keeps its connections, each device queues `OPS` writes (its flusher goes for the primary and
/// is held), the outage lasts `OUTAGE`, then every link heals at once. Heal → every outbox empty,
/// or `None` past `cap`. The links are handed back for the next round.
fn heal(
    mpt: &Path,
    dir: &Path,
    links: Vec<Link>,
    tag: &str,
    cap: Duration,
) -> (Option<Duration>, Vec<Link>) {
    let mut devices: Vec<Device> = links
        .into_iter()
        .enumerate()
        .map(|(i, link)| {
            link.set(Mode::Pass);
            Device::start(mpt, &dir.join(format!("dev{i}")), &format!("dev{i}"), link)
        })
        .collect();
    for d in &devices {
        d.link.set(Mode::Freeze);
    }
    let frozen_before: Vec<usize> = devices
        .iter()
        .map(|d| d.link.accepted(Mode::Freeze))
        .collect();
    for d in &mut devices {
        let subject = format!("svc_{tag}_{}", d.name);
        for i in 0..OPS {
            d.call(
                "mempalace_kg_add",
                json!({"subject": subject, "predicate": "runs_on", "object": format!("host_{i}")}),
            );
        }
    }
    // Each flusher has gone for the primary and is held by the black hole.
    let held = Instant::now();
    while devices
        .iter()
        .zip(&frozen_before)
        .any(|(d, before)| d.link.accepted(Mode::Freeze) <= *before || d.open_ops() != OPS as i64)
    {
        assert!(
            held.elapsed() < Duration::from_secs(120),
            "the flushers never tried the primary"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(OUTAGE);
    for d in &devices {
        d.link.set(Mode::Pass);
    }
    let healed = Instant::now();
    let converged = loop {
        if devices.iter().all(|d| d.open_ops() == 0) {
            break Some(healed.elapsed());
        }
        if healed.elapsed() > cap {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (converged, devices.into_iter().map(Device::stop).collect())
}
