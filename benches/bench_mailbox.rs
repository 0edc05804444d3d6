//! Derivation bench: 10,000 synthetic events, 50 runs, median and p95 in ms (bar <= 50 ms).
//! Reports only; run with `cargo bench --bench bench_mailbox`.

use std::time::Instant;

use std::path::Path;

use mpt::mailbox::{Fs, StdFs, derive, parse_events};
use mpt_base::time::format_iso_utc;
use serde_json::{Value, json};

const ME: &str = "pi@laptop";
const EVENTS: usize = 10_000;
const RUNS: usize = 50;
const NOW: i64 = 1_790_100_769;

/// Small deterministic LCG so every run of the bench sees the same log.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn event(i: usize, seq: usize, kind: &str, from: &str, to: &str, status: &str) -> Value {
    let ms = 1_795_990_813_000u64 + i as u64 * 7;
    let created = 1_790_000_000 + i as i64 * 3;
    json!({
        "id": format!("evt_20260922T181249_{i:012x}"),
        "seq": seq,
        "origin_replica": "rep_49341879be104ab48296c1e07a6e1106",
        "origin_seq": i,
        "hlc": format!("{ms:013}-{:06x}-rep_49341879be104ab48296c1e07a6e1106", i % 4),
        "type": kind,
        "stream": "project/mpt",
        "room": "delegation",
        "topic": null,
        "from_agent": from,
        "to_agent": to,
        "correlation_id": null,
        "branch": null,
        "base_commit": null,
        "status": status,
        "artifact_ids": [],
        "body": format!("Please look at item {i}\nDetails follow on later lines."),
        "created_at": format!("2026-09-21T{:02}:{:02}:{:02}Z", (created / 3600) % 24, (created / 60) % 60, created % 60),
        "metadata": {}
    })
}

fn build() -> Vec<Value> {
    // Half the dormant-declaring asks wait on the real /etc/hostname mtime (dormant), the
    // other half on a stale baseline (live), so both arms of the predicate run.
    let hostname = StdFs
        .mtime_secs(Path::new("/etc/hostname"))
        .map(format_iso_utc)
        .unwrap_or_else(|_| "2026-09-22T18:12:49Z".to_owned());
    let agents = [
        "oc@box",
        "pi@tor-ms22",
        "cc@ci",
        "pi@emb-7kj4vr4g",
        "oc@laptop",
    ];
    let terminal = ["applied", "superseded", "failed", "blocked"];
    let mut rng = Rng(0x5eed);
    let mut asks: Vec<(String, Option<String>)> = Vec::new();
    let mut out = Vec::with_capacity(EVENTS);
    for i in 0..EVENTS {
        // Mesh reordering: local arrival seq is mostly in order, sometimes shuffled locally.
        let seq = if rng.below(10) == 0 { i + 3 } else { i + 1 };
        let roll = rng.below(100);
        let other = agents[rng.below(agents.len() as u64) as usize];
        let v = if roll < 30 || asks.is_empty() {
            // An ask to me, a third of them on a shared correlation, some dormant.
            let mut e = event(i, seq, "task.request", other, ME, "open");
            let corr = (rng.below(3) == 0).then(|| format!("task_thread_{}", rng.below(400)));
            if let Some(c) = &corr {
                e["correlation_id"] = c.clone().into();
            }
            if rng.below(100) == 0 {
                let baseline = if rng.below(2) == 0 {
                    hostname.as_str()
                } else {
                    "2026-09-22T18:12:49Z"
                };
                e["metadata"]["dormant_unless"] = json!([
                    {"kind": "file_mtime", "path": "/etc/hostname", "baseline": baseline}
                ]);
            }
            asks.push((e["id"].as_str().unwrap().to_owned(), corr));
            e
        } else if roll < 55 {
            // My reply to an earlier ask: mostly a terminal ack, sometimes only a claim.
            let (target, corr) = asks[rng.below(asks.len() as u64) as usize].clone();
            let status = if rng.below(5) == 0 {
                "claimed"
            } else {
                terminal[rng.below(4) as usize]
            };
            let mut e = event(i, seq, "event.ack", ME, other, status);
            e["metadata"]["ack_of"] = target.clone().into();
            e["correlation_id"] = corr.unwrap_or(target).into();
            e
        } else if roll < 75 {
            event(i, seq, "status.note", other, "*", "open")
        } else if roll < 95 {
            let to = agents[rng.below(agents.len() as u64) as usize];
            event(i, seq, "task.request", other, to, "open")
        } else {
            event(i, seq, "task.request", ME, other, "open")
        };
        out.push(v);
    }
    // Pages arrive in no particular order.
    for i in (1..out.len()).rev() {
        out.swap(i, rng.below(i as u64 + 1) as usize);
    }
    out
}

/// Sorts `times` and returns (median, p95).
fn stats(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    let median = (times[(n - 1) / 2] + times[n / 2]) / 2.0;
    let p95 = times[(n * 95).div_ceil(100) - 1];
    (median, p95)
}

fn main() {
    let events = build();
    let mut times = Vec::with_capacity(RUNS);
    let mut last = None;
    for _ in 0..RUNS {
        let t = Instant::now();
        let d = derive(&events, &mpt::mailbox::Me::one(ME), NOW, &StdFs);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        last = Some(d);
    }
    let (median, p95) = stats(&mut times);
    let mut parse_times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t = Instant::now();
        let n = parse_events(&events).events.len();
        parse_times.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(n, EVENTS);
    }
    let (parse_median, _) = stats(&mut parse_times);
    let d = last.expect("at least one run");
    println!(
        "events={} candidates={} answered={} owed={} dormant={} broadcasts={}",
        d.stats.events,
        d.stats.candidates,
        d.stats.answered,
        d.owed.len(),
        d.dormant.len(),
        d.stats.broadcasts
    );
    println!(
        "derive over {EVENTS} events, {RUNS} runs: median {median:.2} ms, p95 {p95:.2} ms, min {:.2} ms, max {:.2} ms (bar <= 50 ms)",
        times[0],
        times[RUNS - 1]
    );
    println!("  of which parsing the events: median {parse_median:.2} ms");
}
