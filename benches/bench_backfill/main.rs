//! Backfill's bench, side by side in one run: an N-drawer local palace queued by `mpt outbox
//! backfill --yes`, sent by `mpt outbox flush`, vs the same drawers added directly, one at a time.

// Usage: cargo bench --bench bench_backfill -- [--n N] [--rounds R]
// [--concurrent]. N drawers (default 10,000); R rounds (default 1), each with two fresh empty
// primaries, the flush and the direct side alternating which goes first, or with --concurrent
// running at once (one core each: MemPalace's add_drawer is single-threaded CPU), so both see the
// same load and a 10,000-drawer round takes half the wall time. The local palace is setup, built once
// per N through one `mempalace-mcp` session and cached under target/bench-cache/. MPT_TESTBED
// names the testbed (default target/testbed); BENCH_VERBOSE=1 prints each round.

#[path = "../common/mod.rs"]
mod common;
mod drawers;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::{Primary, client, median};
use drawers::{Drawer, RECIPE, drawers};
use mpt_base::config::McpKnobs;
use mpt_mcp::stdio::{ChildSpec, StdioClient, StdioOptions};
use mpt_mcp::{Deadline, McpClient};
use serde_json::{Value, json};

fn main() {
    let (n, rounds, concurrent) = args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let testbed = common::testbed();
    let mpt = std::path::PathBuf::from(env!("CARGO_BIN_EXE_mpt"));
    assert!(
        mpt.exists(),
        "{} is missing: run `cargo build --release` first",
        mpt.display()
    );
    let drawers = drawers(n);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let cached = rt.block_on(cached_palace(root, &testbed, &drawers));
    let load_before = loadavg();
    let (mut enq, mut flushed, mut direct_rates, mut ratios) = (vec![], vec![], vec![], vec![]);
    let (mut cpu_flushed, mut cpu_direct, mut cpu_own) = (vec![], vec![], vec![]);
    for round in 0..rounds {
        let tmp = tempfile::tempdir().unwrap();
        let bed = Bed::new(tmp.path(), &testbed, &mpt);
        let local = tmp.path().join("local/palace");
        copy_dir(&cached, &local);
        let flush_primary = Primary::start(&tmp.path().join("flush-primary"));
        let direct_primary = Primary::start(&tmp.path().join("direct-primary"));
        // Both primaries load their embedder before the clock runs: neither side pays for it.
        for p in [&flush_primary, &direct_primary] {
            rt.block_on(warm_up(&p.url()));
        }
        let a = bed.backfill(&local, &flush_primary.url(), n);
        // Wall time, and the CPU each side cost: the primary's (and the flush's own), which the
        // shared machine's load does not inflate the way it does wall time.
        let flush = || {
            let (cpu, own) = (flush_primary.cpu_seconds(), children_cpu());
            let wall = bed.flush(&flush_primary.url(), n);
            (
                wall,
                flush_primary.cpu_seconds() - cpu,
                children_cpu() - own,
            )
        };
        let direct = || {
            let cpu = direct_primary.cpu_seconds();
            let wall = rt.block_on(add_directly(&direct_primary.url(), &drawers));
            (wall, direct_primary.cpu_seconds() - cpu)
        };
        let ((f, f_cpu, own_cpu), (d, d_cpu)) = if concurrent {
            std::thread::scope(|s| {
                let f = s.spawn(flush);
                let d = direct();
                (f.join().unwrap(), d)
            })
        } else if round % 2 == 0 {
            let f = flush();
            (f, direct())
        } else {
            let d = direct();
            (flush(), d)
        };
        for p in [&flush_primary, &direct_primary] {
            assert_eq!(rt.block_on(drawer_count(&p.url())), n + 1, "{}", p.url());
        }
        let (a, f, d) = (n as f64 / a, n as f64 / f, n as f64 / d);
        let per = |cpu: f64| cpu * 1e3 / n as f64;
        if std::env::var_os("BENCH_VERBOSE").is_some() {
            eprintln!(
                "round {round}: backfill {a:.1}/s, flush {f:.1}/s, direct {d:.1}/s, {:.2}x; \
                 primary CPU/record flush {:.1} ms, direct {:.1} ms; mpt flush {:.2} ms; load {}",
                f / d,
                per(f_cpu),
                per(d_cpu),
                per(own_cpu),
                loadavg()
            );
        }
        enq.push(a);
        flushed.push(f);
        direct_rates.push(d);
        ratios.push(f / d);
        cpu_flushed.push(per(f_cpu));
        cpu_direct.push(per(d_cpu));
        cpu_own.push(per(own_cpu));
    }
    let (a, f, d, r) = (
        median(enq),
        median(flushed),
        median(direct_rates),
        median(ratios),
    );
    let (cf, cd, co) = (median(cpu_flushed), median(cpu_direct), median(cpu_own));
    println!(
        "{:<52} {:>12} {:>28} {:>7} {:>8}",
        "what", "figure", "baseline", "ratio", "bar"
    );
    println!(
        "{:<52} {:>10.1}/s {:>28} {:>7} {:>8}",
        format!("backfill --yes, {n} drawers (read, plan, enqueue)"),
        a,
        "",
        "",
        ""
    );
    println!(
        "{:<52} {:>10.1}/s {:>17} {:>8.1}/s {:>6.2}x {:>8}",
        format!("flush of the {n} backfilled drawers"),
        f,
        "direct, serial",
        d,
        r,
        ">= 0.9x"
    );
    println!(
        "{:<52} {:>9.1} ms {:>17} {:>6.1} ms {:>6.2}x",
        "primary CPU per record, flushed",
        cf,
        "direct",
        cd,
        cf / cd
    );
    println!(
        "{:<52} {:>9.2} ms {:>17} {:>6.1} ms {:>6.2}x",
        "the flush's own CPU per record (mpt)",
        co,
        "primary, direct",
        cd,
        co / cd
    );
    let how = if concurrent {
        "the two sides at once"
    } else {
        "the two sides in turn"
    };
    println!(
        "(records/s; medians of {rounds} round(s), the ratio the median of per-round ratios; \
         each primary fresh and empty; {how}; load average {load_before} before, {} after)",
        loadavg()
    );
}

fn args() -> (usize, usize, bool) {
    let (mut n, mut rounds, mut concurrent) = (10_000, 1, false);
    let mut it = std::env::args().filter(|a| a != "--bench").skip(1);
    while let Some(a) = it.next() {
        let slot = match a.as_str() {
            "--n" => &mut n,
            "--rounds" => &mut rounds,
            "--concurrent" => {
                concurrent = true;
                continue;
            }
            other => {
                panic!("unknown argument '{other}': use --n N, --rounds R and --concurrent")
            }
        };
        let v = it.next().unwrap_or_default();
        *slot = v
            .parse()
            .ok()
            .filter(|x| *x > 0)
            .unwrap_or_else(|| panic!("{a} '{v}' is not a positive number"));
    }
    (n, rounds, concurrent)
}

/// The env every MemPalace and `mpt` process of a round sees: a private HOME with the
/// testbed's model cache, the testbed's venv first on PATH.
struct Bed {
    mpt: PathBuf,
    env: Vec<(String, String)>,
    outbox: PathBuf,
}

impl Bed {
    fn new(tmp: &Path, testbed: &Path, mpt: &Path) -> Bed {
        let home = common::model_home(tmp, testbed);
        let bin = testbed.join("venv-mempalace-3.11.0/bin");
        Bed {
            mpt: mpt.to_path_buf(),
            env: vec![
                ("HOME".into(), home.display().to_string()),
                ("PATH".into(), format!("{}:/usr/bin:/bin", bin.display())),
                ("HF_HUB_OFFLINE".into(), "1".into()),
                ("MEMPALACE_MCP_IDLE_HOURS".into(), "0".into()),
                ("MEMPALACE_MCP_WRITER_WAIT_SECONDS".into(), "0".into()),
            ],
            outbox: tmp.join("outbox.sqlite3"),
        }
    }

    /// Runs `mpt --json <args>` against `url`; returns its document and wall time in seconds.
    fn mpt(&self, url: &str, args: &[&str]) -> (Value, f64) {
        let t = Instant::now();
        let out = Command::new(&self.mpt)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("MEMPALACE_REMOTE_URL", url)
            .env("MPT_OUTBOX", &self.outbox)
            .arg("--json")
            .args(args)
            .output()
            .unwrap();
        let secs = t.elapsed().as_secs_f64();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "mpt {args:?}: {e}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert!(out.status.success(), "mpt {args:?}: {doc:#}");
        (doc, secs)
    }

    fn backfill(&self, palace: &Path, url: &str, n: usize) -> f64 {
        let palace = palace.to_str().unwrap();
        let (doc, secs) = self.mpt(url, &["outbox", "backfill", "--palace", palace, "--yes"]);
        assert_eq!(doc["enqueued"], n, "{doc:#}");
        secs
    }

    fn flush(&self, url: &str, n: usize) -> f64 {
        let (doc, secs) = self.mpt(url, &["outbox", "flush"]);
        assert_eq!(
            (&doc["result"], &doc["applied"], &doc["remaining"]),
            (&json!("drained"), &json!(n), &json!(0)),
            "{doc:#}"
        );
        secs
    }
}

/// The baseline: the same drawers added to a primary one `add_drawer` call at a time over one
/// MCP HTTP session (handshake included, as the flush's is); seconds.
async fn add_directly(url: &str, drawers: &[Drawer]) -> f64 {
    let c = client(url);
    let t = Instant::now();
    c.connect().await.unwrap();
    let verbose = std::env::var_os("BENCH_VERBOSE").is_some();
    add_each(&c, drawers, |n| {
        if verbose && n % 1000 == 0 {
            eprintln!("direct: {n} drawers, {:.0} s", t.elapsed().as_secs_f64());
        }
    })
    .await;
    t.elapsed().as_secs_f64()
}

/// Adds each drawer with its own `add_drawer` call, each a new drawer (`done(i)` after each).
async fn add_each(c: &McpClient, drawers: &[Drawer], mut done: impl FnMut(usize)) {
    for (i, d) in drawers.iter().enumerate() {
        let r = c
            .call_tool("mempalace_add_drawer", d.args(), Deadline::Default)
            .await
            .unwrap();
        assert!(
            r.payload["success"] == true && r.payload.get("reason").is_none(),
            "{}",
            r.payload
        );
        done(i + 1);
    }
}

/// One drawer in a wing of its own: the embedder loaded, the collection made.
async fn warm_up(url: &str) {
    let c = client(url);
    c.connect().await.unwrap();
    let args = json!({"wing": "warmup", "room": "bench", "content": "The embedder is loaded.", "added_by": "bench"});
    let r = c
        .call_tool("mempalace_add_drawer", args, Deadline::Default)
        .await
        .unwrap();
    assert_eq!(r.payload["success"], true, "{}", r.payload);
}

/// Drawers in the palace behind `url`, over every wing.
async fn drawer_count(url: &str) -> usize {
    let c = client(url);
    c.connect().await.unwrap();
    count(&c).await
}

async fn count(c: &McpClient) -> usize {
    let r = c
        .call_tool("mempalace_list_wings", json!({}), Deadline::Default)
        .await
        .unwrap();
    r.payload["wings"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, v)| v.as_u64().unwrap_or(0) as usize)
        .sum()
}

/// The local palace of `drawers`, built once (setup, not measured) through one long-lived
/// `mempalace-mcp` session and kept under target/bench-cache/.
async fn cached_palace(root: &Path, testbed: &Path, drawers: &[Drawer]) -> PathBuf {
    let dir = root.join(format!(
        "target/bench-cache/backfill-{RECIPE}-{}",
        drawers.len()
    ));
    let palace = dir.join("palace");
    if dir.join(".complete").exists() {
        return palace;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let bed = Bed::new(tmp.path(), testbed, Path::new("mpt"));
    let child = McpClient::Local(StdioClient::new(
        ChildSpec {
            program: testbed.join("venv-mempalace-3.11.0/bin/mempalace-mcp"),
            args: vec!["--palace".into(), palace.clone().into()],
            env: bed.env.iter().map(|(k, v)| (k.into(), v.into())).collect(),
            clear_env: true,
            named_by: None,
        },
        StdioOptions::new(McpKnobs::default(), false),
    ));
    let t = Instant::now();
    child.connect().await.unwrap();
    add_each(&child, drawers, |n| {
        if n % 1000 == 0 {
            eprintln!(
                "setup: {n} drawers in the local palace, {:.0} s",
                t.elapsed().as_secs_f64()
            );
        }
    })
    .await;
    assert_eq!(count(&child).await, drawers.len());
    child.shutdown().await;
    eprintln!(
        "setup: the local palace of {} drawers built in {:.0} s ({:.1}/s), cached in {}",
        drawers.len(),
        t.elapsed().as_secs_f64(),
        drawers.len() as f64 / t.elapsed().as_secs_f64(),
        dir.display()
    );
    std::fs::write(dir.join(".complete"), b"").unwrap();
    palace
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    let ok = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -a {} {}", from.display(), to.display());
}

/// CPU seconds of this process's waited-for children (the `mpt` runs and their own children).
fn children_cpu() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(u.ru_utime) + secs(u.ru_stime)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}
