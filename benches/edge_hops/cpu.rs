//! The CPU a side of the hop rounds spends per call: its relay processes' and its MemPalace
//! child's (each thread's `sum_exec_runtime` from `/proc/<pid>/task/*/schedstat`, in ns: exact,
//! unlike the clock ticks of `/proc/<pid>/stat`), and the whole machine's busy time while the
//! side ran (`/proc/stat`: every other job on the machine included, so only a rough figure).

/// A side's processes: its relay's (the edge, the floor's relays) and the child's.
pub struct Procs {
    pub relay: Vec<u32>,
    pub child: Vec<u32>,
}

/// Every process under `pid` (itself included), by walking `/proc/<pid>/task/*/children`.
fn tree(pid: u32) -> Vec<u32> {
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() {
        let p = out[i];
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) {
            for t in tasks.flatten() {
                if let Ok(c) = std::fs::read_to_string(t.path().join("children")) {
                    out.extend(c.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
                }
            }
        }
        i += 1;
    }
    out
}

/// The processes of the side whose peer is `pid` (and its `helpers`): `mpt` and the bench's own
/// relays are the relay, the rest (MemPalace's Python) the child.
pub fn procs(pid: u32, helpers: &[u32]) -> Procs {
    let mut all = tree(pid);
    for h in helpers {
        all.extend(tree(*h));
    }
    let (relay, child) = all.into_iter().partition(|p| {
        let comm = std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
        // `comm` is the binary's name cut to 15 bytes: `mpt`, `mpt-hop-trace`, `mpt-main-...`.
        comm.trim() == "bench_edge" || comm.starts_with("mpt")
    });
    Procs { relay, child }
}

/// `/proc/<pid>/task/<tid>/<file>` of every thread of `pids`, read.
fn per_thread<'a>(pids: &'a [u32], file: &'a str) -> impl Iterator<Item = String> + 'a {
    pids.iter()
        .flat_map(|p| {
            std::fs::read_dir(format!("/proc/{p}/task"))
                .into_iter()
                .flatten()
        })
        .flatten()
        .filter_map(move |t| std::fs::read_to_string(t.path().join(file)).ok())
}

/// The CPU time (ns) every thread of `pids` has run so far.
pub fn ran_ns(pids: &[u32]) -> u64 {
    per_thread(pids, "schedstat")
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// The context switches every thread of `pids` made so far: voluntary (it slept: each a
/// wake-up later) and not (it was preempted), from `/proc/<pid>/task/*/status`.
pub fn switches(pids: &[u32]) -> (u64, u64) {
    let mut out = (0, 0);
    for status in per_thread(pids, "status") {
        for line in status.lines() {
            let n = |l: &str| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<u64>().ok())
            };
            if line.starts_with("voluntary_ctxt_switches") {
                out.0 += n(line).unwrap_or(0);
            } else if line.starts_with("nonvoluntary_ctxt_switches") {
                out.1 += n(line).unwrap_or(0);
            }
        }
    }
    out
}

/// The machine's busy and total time so far, in clock ticks (every CPU, `/proc/stat`).
pub fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let Some(line) = stat.lines().next() else {
        return (0, 0);
    };
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let total: u64 = v.iter().sum();
    // idle and iowait are the 4th and 5th.
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

/// What a side spent over its rounds.
#[derive(Default, Clone, Copy)]
pub struct Spent {
    pub relay_ns: u64,
    pub child_ns: u64,
    /// The relay's context switches: voluntary, not.
    pub relay_switches: (u64, u64),
    /// The machine's busy ticks while this side ran (other jobs included).
    pub machine_busy_ticks: u64,
}
