//! `BENCH_HOPS=<a hop-trace build's mpt>`: where a `kg_stats` call's microseconds go, hop by hop,
//! through the edge and through the physical floor (minimal relays), in the same rounds.
//!
//! One blocking harness (`harness`) drives every side, interleaved: the child directly, the
//! hop-trace edge (shim + owner), the same edge `--standalone`, the normal build's edge (what the
//! trace itself costs), the floor relays (`relay`: the same hops, plain blocking threads; two hops
//! as the shim + owner, one as `--standalone`) and two ping-pongs with an echo process (over
//! pipes, over a Unix socket: one wake-up each way), each side's CPU and context switches per call
//! beside it (`cpu`). Each call's stamps are joined with the harness's by time (calls are serial),
//! then every segment between two stamps is a row: time inside a process (read to write) or on a
//! wire (write in one process to the read's return in the next: the wake-up).

mod cpu;
mod harness;
pub mod node;
pub mod relay;
mod sides;

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use mpt_base::hop_trace::Hop;

use harness::Call;
pub use sides::{env_with, runtime_dir};
use sides::{one, sides};

/// What the hop rounds need from the bench's bed.
pub struct HopBed<'a> {
    pub env: &'a [(String, String)],
    pub child: &'a Path,
    pub palace: &'a str,
    pub tmp: &'a Path,
    /// A `--features hop-trace` build's mpt.
    pub traced_mpt: PathBuf,
    /// This tree's normal build.
    pub plain_mpt: PathBuf,
    /// A fresh HOME of its own (its own edge owner), by name.
    pub home: &'a dyn Fn(&str) -> String,
}

const TOOL: &str = "mempalace_kg_stats";

/// The owner a shim started (its child process), if it runs.
pub fn child_of(pid: u32) -> Option<u32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|c| {
            c.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok())
                .collect::<Vec<_>>()
        })
        .next()
}

/// Whether `pid` is an edge owner (`mpt edge --owner`), not some other child.
fn is_owner(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == b"--owner"))
}

/// The stamps `pids` dumped under `prefix` (each waited for: a process dumps as it exits),
/// merged and sorted, a list per hop.
fn stamps(prefix: &Path, pids: &[u32]) -> Vec<Vec<u64>> {
    let mut all: Vec<Vec<u64>> = Hop::ALL.iter().map(|_| Vec::new()).collect();
    for pid in pids {
        let file = PathBuf::from(format!("{}.{pid}", prefix.display()));
        let t = Instant::now();
        let bytes = loop {
            if let Ok(b) = std::fs::read(&file) {
                break b;
            }
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "no trace from pid {pid} at {} (a hop-trace build?)",
                file.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let got = mpt_base::hop_trace::decode(&bytes).expect("a whole trace");
        for (a, b) in all.iter_mut().zip(got) {
            a.extend(b);
        }
    }
    for a in &mut all {
        a.sort_unstable();
    }
    all
}

/// One call's points, in the order it passed them: the harness's send, every hop this side
/// stamps (the first stamp of it after the point before), the harness's receipt. `None` when a
/// hop the side stamps is missing from the call's window.
fn points(call: &Call, hops: &[(Hop, &Vec<u64>)]) -> Option<Vec<(Point, u64)>> {
    let mut out = vec![(Point::Start, call.start)];
    let mut at = call.start;
    for (hop, ts) in hops {
        let i = ts.partition_point(|t| *t < at);
        let t = *ts.get(i).filter(|t| **t <= call.got)?;
        out.push((Point::Hop(*hop), t));
        at = t;
    }
    out.push((Point::Got, call.got));
    Some(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Point {
    Start,
    Hop(Hop),
    Got,
}

/// What happens between two points, as a row of the table. A wire's time is the write's
/// syscall, the wake-up of the reader blocked on it and the read's return; a process's is what
/// it does between reading a line and writing it.
fn segment(a: Point, b: Point) -> String {
    use Point::{Got, Hop as At, Start};
    use mpt_base::hop_trace::Hop::*;
    let s = match (a, b) {
        (Start, At(ShimReadHarness)) => "wire harness -> shim (pipe)",
        (At(ShimReadHarness), At(ShimSendsOwner)) => "shim: track the request",
        (At(ShimSendsOwner), At(OwnerReadShim)) => "wire shim -> owner (Unix socket)",
        (Start, At(OwnerReadShim)) => "wire harness -> owner (pipe)",
        (At(OwnerReadShim), At(OwnerCallsChild)) => "owner: parse, route",
        (At(OwnerCallsChild), At(OwnerSendsChild)) => "owner: to the child's stdin",
        (At(OwnerReadShim), At(OwnerSendsChild)) => "owner: parse, route, to the stdin",
        (At(OwnerSendsChild), At(OwnerReadChild)) => "child: pipe in, MemPalace, pipe out",
        (Start, Got) => "child: pipe in, MemPalace, pipe out",
        (At(OwnerReadChild), At(OwnerReplied)) => "owner: parse the reply, wake the request",
        (At(OwnerReplied), At(OwnerSendsShim)) => "owner: the reply serialised",
        (At(OwnerSendsShim), At(ShimReadOwner)) => "wire owner -> shim (Unix socket)",
        (At(OwnerSendsShim), Got) => "wire owner -> harness (tokio stdout, pipe)",
        (At(ShimReadOwner), At(ShimSendsHarness)) => "shim: settle, scrub",
        (At(ShimSendsHarness), Got) => "wire shim -> harness (pipe)",
        (a, b) => return format!("{a:?} -> {b:?}"),
    };
    s.to_string()
}

/// Each segment's name and its microseconds, call by call.
type Rows = Vec<(String, Vec<f64>)>;

/// Per segment (in a call's order) the microseconds of every joined call; and how many calls
/// could not be joined.
fn breakdown(side: &Measured) -> (Rows, usize) {
    let stamped: Vec<(Hop, &Vec<u64>)> = match &side.hops {
        Some(h) => Hop::ALL
            .iter()
            .zip(h)
            .filter(|(_, ts)| !ts.is_empty())
            .map(|(hop, ts)| (*hop, ts))
            .collect(),
        None => Vec::new(),
    };
    let mut rows: Rows = Vec::new();
    let mut missed = 0;
    for call in &side.calls {
        let Some(p) = points(call, &stamped) else {
            missed += 1;
            continue;
        };
        for (i, w) in p.windows(2).enumerate() {
            let us = (w[1].1 - w[0].1) as f64 / 1e3;
            if rows.len() <= i {
                rows.push((segment(w[0].0, w[1].0), Vec::new()));
            }
            rows[i].1.push(us);
        }
    }
    (rows, missed)
}

fn pct(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() as f64 - 1.0) * q) as usize]
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn totals(side: &Measured) -> Vec<f64> {
    side.calls
        .iter()
        .map(|c| (c.got - c.start) as f64 / 1e3)
        .collect()
}

/// The hop rounds: `n` calls a side a round, `rounds` rounds, the sides' order rotated.
pub fn run(bed: &HopBed, n: usize, rounds: usize) {
    let load_before = crate::common::loadavg();
    let mut sides = sides(bed);
    for s in &mut sides {
        if !s.echo {
            s.peer.handshake();
        }
        for _ in 0..20 {
            one(s);
        }
        let helpers: Vec<u32> = s.helpers.iter().map(Child::id).collect();
        s.procs = Some(cpu::procs(s.peer.child.id(), &helpers));
    }
    let k = sides.len();
    for r in 0..rounds {
        for i in 0..k {
            let s = &mut sides[(i + r) % k];
            s.calls.reserve(n);
            let procs = s.procs.take().unwrap();
            let (relay, child) = (cpu::ran_ns(&procs.relay), cpu::ran_ns(&procs.child));
            let (busy, _) = cpu::machine_ticks();
            let switched = cpu::switches(&procs.relay);
            for _ in 0..n {
                let c = one(s);
                s.calls.push(c);
            }
            s.spent.relay_ns += cpu::ran_ns(&procs.relay) - relay;
            s.spent.child_ns += cpu::ran_ns(&procs.child) - child;
            s.spent.machine_busy_ticks += cpu::machine_ticks().0 - busy;
            let now = cpu::switches(&procs.relay);
            s.spent.relay_switches.0 += now.0 - switched.0;
            s.spent.relay_switches.1 += now.1 - switched.1;
            s.procs = Some(procs);
        }
        if std::env::var_os("BENCH_VERBOSE").is_some() {
            eprintln!("round {r}: load {}", crate::common::loadavg());
        }
    }
    let load_after = crate::common::loadavg();
    // Each traced side's processes: the peer, and the owner it started or its back relay.
    // (An edge owner outlives its last shim by its grace and the child's stop: it is asked for
    // its stamps now, with SIGUSR2, rather than waited for.)
    let mut traced = Vec::new();
    for s in sides.iter_mut() {
        let pid = s.peer.child.id();
        let mut pids = vec![pid];
        if s.trace.is_some()
            && s.helpers.is_empty()
            && let Some(owner) = child_of(pid).filter(|c| is_owner(*c))
        {
            // SAFETY: kill(2) on the owner this bench's shim started; a hop-trace build dumps.
            unsafe { libc::kill(owner as i32, libc::SIGUSR2) };
            pids.push(owner);
        }
        pids.extend(s.helpers.iter().map(Child::id));
        traced.push(pids);
    }
    let mut results = Vec::new();
    for (s, pids) in sides.into_iter().zip(traced) {
        s.peer.finish();
        for mut h in s.helpers {
            let _ = h.wait();
        }
        results.push(Measured {
            label: s.label,
            echo: s.echo,
            spent: s.spent,
            hops: s.trace.as_ref().map(|t| stamps(t, &pids)),
            calls: s.calls,
        });
    }
    print(&results, n, rounds, &load_before, &load_after);
}

/// A side once its processes ended: its calls, and the stamps its processes dumped.
struct Measured {
    label: &'static str,
    echo: bool,
    spent: cpu::Spent,
    calls: Vec<Call>,
    hops: Option<Vec<Vec<u64>>>,
}

fn print(results: &[Measured], n: usize, rounds: usize, load_before: &str, load_after: &str) {
    println!(
        "hop breakdown of {TOOL}: load average {load_before} before, {load_after} after ({rounds} rounds of {n} calls a side, interleaved)"
    );
    let shown: Vec<(&Measured, Rows, usize)> = results
        .iter()
        .filter(|s| s.hops.is_some() || s.label == "child directly")
        .map(|s| {
            let (rows, missed) = breakdown(s);
            (s, rows, missed)
        })
        .collect();
    // The rows: every segment any side has, in a call's order (the edge's, the longest, first).
    let mut order: Vec<String> = Vec::new();
    let mut by_len: Vec<_> = shown.iter().collect();
    by_len.sort_by_key(|(_, rows, _)| std::cmp::Reverse(rows.len()));
    for (_, rows, _) in by_len {
        for (name, _) in rows {
            if !order.contains(name) {
                order.push(name.clone());
            }
        }
    }
    for (what, f) in [
        ("p50", (|v: &[f64]| pct(v, 0.5)) as fn(&[f64]) -> f64),
        ("p99", |v: &[f64]| pct(v, 0.99)),
        ("mean", mean),
    ] {
        print!("{:<46}", format!("segment (us, {what})"));
        for (s, _, _) in &shown {
            print!(" {:>16}", short(s.label));
        }
        println!();
        for name in &order {
            print!("{name:<46}");
            for (_, rows, _) in &shown {
                match rows.iter().find(|(r, _)| r == name) {
                    Some((_, v)) => print!(" {:>16.1}", f(v)),
                    None => print!(" {:>16}", "-"),
                }
            }
            println!();
        }
        print!("{:<46}", "whole call (harness write to reply read)");
        for (s, _, _) in &shown {
            print!(" {:>16.1}", f(&totals(s)));
        }
        println!();
    }
    for (s, _, missed) in &shown {
        if *missed > 0 {
            println!(
                "{}: {missed} calls not joined (a stamp outside its window)",
                s.label
            );
        }
    }
    let base = pct(&totals(&results[0]), 0.5);
    // CPU per call: the relay's processes (the edge's, the floor's), the child's, and the
    // machine's busy time while the side ran (every other job included: rough).
    let tick_us = 1e6 / clock_ticks_per_second();
    println!(
        "{:<46} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9} {:>9}",
        "whole call (us)", "p50", "p99", "mean", "added p50", "p99/p50", "relay cpu", "child cpu"
    );
    for s in results {
        let t = totals(s);
        let added = if s.echo {
            String::from("-")
        } else {
            format!("{:+.1}", pct(&t, 0.5) - base)
        };
        let calls = s.calls.len().max(1) as f64;
        println!(
            "{:<46} {:>9.1} {:>9.1} {:>9.1} {:>10} {:>9.2} {:>9.1} {:>9.1}   switches {:.2} + {:.2} preempted, machine busy {:.0} us/call",
            s.label,
            pct(&t, 0.5),
            pct(&t, 0.99),
            mean(&t),
            added,
            pct(&t, 0.99) / pct(&t, 0.5),
            s.spent.relay_ns as f64 / 1e3 / calls,
            s.spent.child_ns as f64 / 1e3 / calls,
            s.spent.relay_switches.0 as f64 / calls,
            s.spent.relay_switches.1 as f64 / calls,
            s.spent.machine_busy_ticks as f64 * tick_us / calls,
        );
    }
}

fn clock_ticks_per_second() -> f64 {
    // SAFETY: sysconf(3) with a valid name.
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) as f64 }
}

/// A side's name for a column.
fn short(label: &str) -> &str {
    match label {
        "child directly" => "direct",
        "mpt edge (hop-trace build)" => "edge",
        "mpt edge --standalone (hop-trace)" => "standalone",
        "floor relay (blocking threads)" => "floor relay",
        "floor relay, one hop" => "floor 1 hop",
        other => other,
    }
}
