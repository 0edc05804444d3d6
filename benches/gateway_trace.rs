//! Where a request's microseconds go inside `mpt gateway serve`: a hop-trace build's dump (and
//! its `.cpu` beside it) cut into requests, each segment's p50, p90 and mean, wall and thread CPU.

// Usage: cargo build --release --features hop-trace --bin mpt, then run the gateway with
// MPT_HOP_TRACE=<prefix> (and MPT_HOP_TRACE_CPU=1 for the CPU columns), e.g. through
// bench_gateway (it passes both to its gateways), then:
//   cargo bench --bench gateway_trace -- <prefix>.<pid> [--skip N] [--take N]
// Requests are cut at each `GwAccepted` stamp: right for serial requests (the bench's latency
// part), not for concurrent ones. A segment runs from one stamp a request passed to the next it
// passed; "between requests" from the response's record to the next accept (the wall time there
// is the client's; its CPU is the runtime's own work between requests). --skip drops the first
// N requests (warm-up), --take keeps the N after them (bench_gateway's latency part: its 20
// devices writing at once come after it).

mod common;

use common::pct;
use mpt_base::hop_trace::Hop;

/// One stamp: CLOCK_MONOTONIC and, when dumped, the thread's CPU time, in ns.
type Stamp = (u64, Option<u64>);

fn load(path: &str) -> Vec<Vec<Stamp>> {
    let wall = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let wall = mpt_base::hop_trace::decode(&wall).unwrap_or_else(|| panic!("{path}: not a dump"));
    let cpu = std::fs::read(format!("{path}.cpu"))
        .ok()
        .and_then(|b| mpt_base::hop_trace::decode(&b));
    wall.into_iter()
        .enumerate()
        .map(|(h, ts)| {
            let mut v: Vec<Stamp> = ts
                .iter()
                .enumerate()
                .map(|(i, t)| (*t, cpu.as_ref().and_then(|c| c[h].get(i).copied())))
                .collect();
            v.sort_unstable();
            v
        })
        .collect()
}

fn short(h: Hop) -> String {
    format!("{h:?}").trim_start_matches("Gw").to_string()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// A segment's samples: wall and CPU microseconds.
#[derive(Default)]
struct Row {
    name: String,
    wall: Vec<f64>,
    cpu: Vec<f64>,
}

fn main() {
    let args: Vec<String> = std::env::args()
        .filter(|a| a != "--bench")
        .skip(1)
        .collect();
    let (mut skip, mut take) = (0, usize::MAX);
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--skip" {
            skip = it.next().and_then(|n| n.parse().ok()).expect("--skip N");
        } else if a == "--take" {
            take = it.next().and_then(|n| n.parse().ok()).expect("--take N");
        } else {
            files.push(a.clone());
        }
    }
    assert!(
        !files.is_empty(),
        "usage: gateway_trace <dump> [--skip N] [--take N]"
    );
    for f in files {
        summarise(&f, skip, take);
    }
}

fn summarise(path: &str, skip: usize, take: usize) {
    let stamps = load(path);
    let gw: Vec<(Hop, &Vec<Stamp>)> = Hop::ALL
        .iter()
        .zip(&stamps)
        .filter(|(h, _)| format!("{h:?}").starts_with("Gw"))
        .map(|(h, s)| (*h, s))
        .collect();
    let accepts = &stamps[Hop::GwAccepted as usize];
    let mut rows: Vec<Row> = Vec::new();
    let mut whole = Row {
        name: "accept to response record (whole)".into(),
        ..Row::default()
    };
    let mut requests = 0;
    for (i, a) in accepts.iter().enumerate().skip(skip).take(take) {
        let end = accepts.get(i + 1).map_or(u64::MAX, |n| n.0);
        // The first stamp of each hop inside this request's window, in the order passed.
        let mut pts: Vec<(Hop, Stamp)> = gw
            .iter()
            .filter_map(|(h, ts)| {
                let j = ts.partition_point(|t| t.0 < a.0);
                ts.get(j).filter(|t| t.0 < end).map(|t| (*h, *t))
            })
            .collect();
        pts.sort_by_key(|(_, t)| t.0);
        let Some(last) = pts.last().copied() else {
            continue;
        };
        requests += 1;
        let mut push = |name: String, x: Stamp, y: Stamp| {
            let row = match rows.iter_mut().position(|r| r.name == name) {
                Some(k) => &mut rows[k],
                None => {
                    rows.push(Row {
                        name,
                        ..Row::default()
                    });
                    rows.last_mut().unwrap()
                }
            };
            row.wall.push((y.0 - x.0) as f64 / 1e3);
            if let (Some(cx), Some(cy)) = (x.1, y.1) {
                row.cpu.push(cy.saturating_sub(cx) as f64 / 1e3);
            }
        };
        for w in pts.windows(2) {
            push(
                format!("{} -> {}", short(w[0].0), short(w[1].0)),
                w[0].1,
                w[1].1,
            );
        }
        if let Some(next) = accepts.get(i + 1) {
            push("between requests".into(), last.1, *next);
        }
        whole.wall.push((last.1.0 - a.0) as f64 / 1e3);
        if let (Some(cx), Some(cy)) = (a.1, last.1.1) {
            whole.cpu.push(cy.saturating_sub(cx) as f64 / 1e3);
        }
    }
    println!("{path}: {requests} requests (the first {skip} skipped), microseconds");
    println!(
        "{:<40} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "segment", "n", "wall p50", "p90", "mean", "CPU p50", "p90", "mean"
    );
    for r in rows.iter().chain(std::iter::once(&whole)) {
        println!(
            "{:<40} {:>7} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
            r.name,
            r.wall.len(),
            pct(&r.wall, 0.5),
            pct(&r.wall, 0.9),
            mean(&r.wall),
            pct(&r.cpu, 0.5),
            pct(&r.cpu, 0.9),
            mean(&r.cpu)
        );
    }
}
