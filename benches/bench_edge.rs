//! The edge's cost, side by side in one run, on a real MemPalace: calls made directly to the child
//! vs through `mpt edge` (shared owner, and `--standalone`), MemPalace's own hub proxy as the peer,
//! KG reads through the edge vs the primary directly, merged search vs the slower side alone.
//! `cargo bench --bench bench_edge`
//! (needs the testbed). BENCH_N calls a side a round (400), BENCH_ROUNDS interleaved rounds (3),
//! BENCH_QUICK=1 the kg_stats and status rows only, BENCH_BASELINE_MPT=<another build's mpt> adds
//! its edge to the rounds, BENCH_STRACE=<k> counts each edge's syscalls over k more calls
//! (`strace -f -c` on the shim and the owner), BENCH_VERBOSE=1 prints the load after each round.
//! BENCH_HOPS=<a `--features hop-trace` build's mpt> runs the hop breakdown instead (`edge_hops`):
//! each hop's microseconds through the edge beside the floor relay's and two ping-pongs'.
//! BENCH_NODE=1 drives the kg_stats rounds from a Node harness instead (`edge_hops::node`: Node's
//! one event loop, as pi's and opencode's), BENCH_BASELINE_MPT's edge among the sides.

mod common;
mod edge_hops;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mpt_base::config::McpKnobs;
use mpt_mcp::http::{HttpClient, HttpOptions};
use mpt_mcp::stdio::{ChildSpec, StdioClient, StdioOptions};
use mpt_mcp::{Deadline, McpClient};
use serde_json::{Value, json};

struct Bed {
    tmp: PathBuf,
    bin: PathBuf,
    mpt: PathBuf,
    env: Vec<(String, String)>,
}

impl Bed {
    fn client(&self, program: &Path, args: &[&str], extra: &[(&str, &str)]) -> McpClient {
        let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> =
            self.env.iter().map(|(k, v)| (k.into(), v.into())).collect();
        env.extend(extra.iter().map(|(k, v)| ((*k).into(), (*v).into())));
        McpClient::Local(StdioClient::new(
            ChildSpec {
                program: program.to_path_buf(),
                args: args.iter().map(Into::into).collect(),
                env,
                clear_env: true,
                named_by: None,
            },
            StdioOptions::new(McpKnobs::default(), false),
        ))
    }
}

fn pct(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() as f64 - 1.0) * q) as usize]
}

async fn sample(c: &McpClient, tool: &str, args: Value, n: usize) -> (f64, f64) {
    for _ in 0..5 {
        c.call_tool(tool, args.clone(), Deadline::Default)
            .await
            .unwrap();
    }
    let mut ms: Vec<f64> = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        c.call_tool(tool, args.clone(), Deadline::Default)
            .await
            .unwrap();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    (pct(&mut ms, 0.5), pct(&mut ms, 0.95))
}

/// `mempalace serve` on `palace`, pinned to `cpu` when given (the primary as another machine).
/// The child is handed to the caller, who stops it with `stop`.
#[allow(clippy::zombie_processes)]
fn serve(bed: &Bed, palace: &Path, cpu: Option<&str>) -> (Child, String) {
    let mut cmd = match cpu {
        Some(c) => {
            let mut t = Command::new("taskset");
            t.args(["-c", c]).arg(bed.bin.join("mempalace"));
            t
        }
        None => Command::new(bed.bin.join("mempalace")),
    };
    cmd.env_clear()
        .envs(bed.env.iter().map(|(k, v)| (k, v)))
        .args(["serve", "--palace"])
        .arg(palace)
        .args(["--host", "127.0.0.1", "--port", "0"]);
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let root = bed.tmp.join("home/.mempalace/server");
    let t = Instant::now();
    loop {
        for e in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            if let Ok(text) = std::fs::read_to_string(e.path().join("serverinfo.json"))
                && let Ok(v) = serde_json::from_str::<Value>(&text)
                && v["palace_path"].as_str() == Some(palace.to_str().unwrap())
                && let Some(port) = v["port"].as_u64().filter(|p| *p > 0)
                && std::net::TcpStream::connect(("127.0.0.1", port as u16)).is_ok()
            {
                std::thread::sleep(Duration::from_millis(300));
                return (child, format!("http://127.0.0.1:{port}/mcp"));
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "serve did not come up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn stop(mut c: Child) {
    unsafe {
        libc::kill(c.id() as i32, libc::SIGTERM);
    }
    let _ = c.wait();
}

fn row(label: &str, (p50, p95): (f64, f64), base: (f64, f64)) {
    println!(
        "{label:<58} {p50:>8.3} {p95:>8.3} {:>+9.3} {:>7.2}x",
        p50 - base.0,
        p50 / base.0
    );
}

/// One side of the interleaved kg_stats rounds: its label and client, and every sample it took.
struct Side {
    label: String,
    client: McpClient,
    ms: Vec<f64>,
    /// Each round's p50.
    rounds: Vec<f64>,
}

fn new_side(label: &str, client: McpClient) -> Side {
    Side {
        label: label.into(),
        client,
        ms: Vec::new(),
        rounds: Vec::new(),
    }
}

async fn warm(c: &McpClient) {
    for _ in 0..20 {
        c.call_tool("mempalace_kg_stats", json!({}), Deadline::Default)
            .await
            .unwrap();
    }
}

/// `rounds` rounds of `n` calls a side, the sides' order rotated each round, so that a change in
/// the machine's load lands on every side alike.
async fn interleaved(sides: &mut [Side], n: usize, rounds: usize) {
    for s in sides.iter() {
        warm(&s.client).await;
    }
    let k = sides.len();
    for r in 0..rounds {
        for i in 0..k {
            let s = &mut sides[(i + r) % k];
            let mut block = Vec::with_capacity(n);
            for _ in 0..n {
                let t = Instant::now();
                s.client
                    .call_tool("mempalace_kg_stats", json!({}), Deadline::Default)
                    .await
                    .unwrap();
                block.push(t.elapsed().as_secs_f64() * 1e3);
            }
            s.ms.extend_from_slice(&block);
            s.rounds.push(pct(&mut block, 0.5));
        }
        if std::env::var_os("BENCH_VERBOSE").is_some() {
            eprintln!("round {r}: load {}", common::loadavg());
        }
    }
}

/// The shim's pid (the edge client's child) and its owner's (the shim's child).
async fn edge_pids(c: &McpClient) -> Option<(u32, u32)> {
    let McpClient::Local(s) = c else { return None };
    let shim = s.pid().await?;
    let owner = edge_hops::child_of(shim)?;
    Some((shim, owner))
}

/// `strace -f -c` attached to `pid` (every thread) while `k` kg_stats calls run: the syscalls
/// per call, and the five most frequent with theirs.
async fn syscalls_per_call(c: &McpClient, pids: &[u32], k: usize) -> Vec<(f64, String)> {
    use std::io::BufRead;
    let dir = std::env::temp_dir().join(format!("mpt-bench-edge-strace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut tracers = Vec::new();
    for pid in pids {
        let out = dir.join(format!("{pid}.txt"));
        let mut t = Command::new("strace")
            .args(["-f", "-c", "-o"])
            .arg(&out)
            .args(["-p", &pid.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("strace (apt-get install strace)");
        // Attached once it says so (one line per process, naming its threads).
        let mut err = std::io::BufReader::new(t.stderr.take().unwrap());
        let mut line = String::new();
        while err.read_line(&mut line).unwrap() > 0 && !line.contains("attached") {
            line.clear();
        }
        std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        tracers.push((t, out));
    }
    for _ in 0..k {
        c.call_tool("mempalace_kg_stats", json!({}), Deadline::Default)
            .await
            .unwrap();
    }
    let mut per = Vec::new();
    for (t, out) in tracers {
        unsafe {
            libc::kill(t.id() as i32, libc::SIGINT);
        }
        let mut t = t;
        let _ = t.wait();
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let rows: Vec<(u64, String)> = text
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let calls = f.get(3)?.parse::<u64>().ok()?;
                Some((calls, f.last()?.to_string()))
            })
            .collect();
        let total = rows.iter().find(|r| r.1 == "total").map_or(0, |r| r.0);
        let mut top: Vec<_> = rows.iter().filter(|r| r.1 != "total").collect();
        top.sort_by_key(|r| std::cmp::Reverse(r.0));
        let top = top
            .iter()
            .take(5)
            .map(|(n, name)| format!("{name} {:.1}", *n as f64 / k as f64))
            .collect::<Vec<_>>()
            .join(", ");
        per.push((total as f64 / k as f64, top));
    }
    let _ = std::fs::remove_dir_all(&dir);
    per
}

/// The private runtime folder beside `home`: an owner's socket is found by the palace's key in
/// `$XDG_RUNTIME_DIR/mpt` (else `/tmp/mpt-<uid>`), not by HOME, so an edge side needs both for
/// an owner of its own.
fn runtime_of(home: &str) -> String {
    let dir = Path::new(home).with_file_name("run");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    dir.display().to_string()
}

/// A HOME of its own (the model cache linked): with `runtime_of` beside it, an edge there has
/// its own owner on the palace.
fn another_home(tmp: &Path, tb: &Path, name: &str) -> String {
    common::model_home(&tmp.join(name), tb)
        .display()
        .to_string()
}

/// Drawers and a triple on the local palace, through the child directly.
async fn seed(direct: &McpClient) {
    for i in 0..20 {
        direct.call_tool("mempalace_add_drawer", json!({"wing": "w", "room": "r", "content": format!("local drawer {i} about the outbox and the edge")}), Deadline::Default).await.unwrap();
    }
    direct
        .call_tool(
            "mempalace_kg_add",
            json!({"subject": "a", "predicate": "b", "object": "c"}),
            Deadline::Default,
        )
        .await
        .unwrap();
}

fn main() {
    // Re-run as one of the floor's relays (`edge_hops::relay`).
    if edge_hops::relay::run_if_asked() {
        return;
    }
    let tb = common::testbed();
    let tmp = std::env::temp_dir().join(format!("mpt-bench-edge-{}", std::process::id()));
    let home = common::model_home(&tmp, &tb);
    let bed = Bed {
        bin: tb.join("venv-mempalace-3.11.0/bin"),
        mpt: std::path::PathBuf::from(env!("CARGO_BIN_EXE_mpt")),
        env: vec![
            ("HOME".into(), home.display().to_string()),
            (
                "PATH".into(),
                format!(
                    "{}:/usr/bin:/bin",
                    tb.join("venv-mempalace-3.11.0/bin").display()
                ),
            ),
            ("MEMPALACE_MCP_IDLE_HOURS".into(), "0".into()),
            ("MEMPALACE_MCP_WRITER_WAIT_SECONDS".into(), "0".into()),
            ("MPT_EDGE_GRACE_MS".into(), "500".into()),
        ],
        tmp: tmp.clone(),
    };
    let local = tmp.join("local/palace");
    let primary = tmp.join("primary/palace");
    let lp = local.to_str().unwrap().to_string();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let n = common::env_count("BENCH_N", 400);
    let rounds = common::env_count("BENCH_ROUNDS", 3);
    let traced = common::env_count("BENCH_STRACE", 0);
    let baseline_mpt = std::env::var_os("BENCH_BASELINE_MPT").map(PathBuf::from);
    let quick = std::env::var_os("BENCH_QUICK").is_some();
    let traced_mpt = std::env::var_os("BENCH_HOPS").map(PathBuf::from);
    if traced_mpt.is_some() || std::env::var_os("BENCH_NODE").is_some() {
        let child = bed.mempalace_mcp();
        rt.block_on(async {
            let direct = bed.client(
                &child,
                &["--palace", &lp],
                &[("MEMPALACE_HUB_FORWARD", "0")],
            );
            seed(&direct).await;
            direct.shutdown().await;
        });
        let home = |name: &str| another_home(&tmp, &tb, name);
        let hop_bed = edge_hops::HopBed {
            env: &bed.env,
            child: &child,
            palace: &lp,
            tmp: &tmp,
            traced_mpt: traced_mpt.clone().unwrap_or_else(|| bed.mpt.clone()),
            plain_mpt: bed.mpt.clone(),
            home: &home,
        };
        match traced_mpt {
            Some(_) => edge_hops::run(&hop_bed, n, rounds),
            None => edge_hops::node::run(&hop_bed, baseline_mpt.as_deref(), n, rounds),
        }
        let _ = std::fs::remove_dir_all(&tmp);
        return;
    }
    let load_before = common::loadavg();
    rt.block_on(async {
        let child = bed.mempalace_mcp();
        let no_hub = ("MEMPALACE_HUB_FORWARD", "0");
        let direct = bed.client(&child, &["--palace", &lp], &[no_hub]);
        seed(&direct).await;
        let d_status = sample(&direct, "mempalace_status", json!({}), n / 4).await;
        let edge = bed.client(&bed.mpt, &["edge", "--palace", &lp], &[no_hub]);
        let e_status = sample(&edge, "mempalace_status", json!({}), n / 4).await;
        // `serve` does not start while another process holds the palace's writer.
        direct.shutdown().await;
        edge.shutdown().await;

        // Every kg_stats side alive at once, each edge in a HOME of its own (its own owner on the
        // palace: `--standalone` takes the owner lock, and a shim of another build would be served
        // by this build's owner otherwise), MemPalace's hub among them.
        let (hub, _) = serve(&bed, &local, None);
        let direct = bed.client(&child, &["--palace", &lp], &[no_hub]);
        let edge_home = another_home(&tmp, &tb, "edge");
        let edge = bed.client(&bed.mpt, &["edge", "--palace", &lp], &[no_hub, ("HOME", &edge_home), ("XDG_RUNTIME_DIR", &runtime_of(&edge_home))]);
        let via_hub = bed.client(&child, &["--palace", &lp], &[]);
        let standalone_home = another_home(&tmp, &tb, "standalone");
        let standalone = bed.client(&bed.mpt, &["edge", "--standalone", "--palace", &lp], &[no_hub, ("HOME", &standalone_home), ("XDG_RUNTIME_DIR", &runtime_of(&standalone_home))]);
        let mut sides = vec![
            new_side("kg_stats, child directly (baseline)", direct),
            new_side("kg_stats, through mpt edge (shim + owner)", edge),
            new_side("kg_stats, through mpt edge --standalone", standalone),
            new_side("kg_stats, through MemPalace's hub proxy (the peer)", via_hub),
        ];
        let base_home = another_home(&tmp, &tb, "baseline");
        if let Some(b) = &baseline_mpt {
            let c = bed.client(b, &["edge", "--palace", &lp], &[no_hub, ("HOME", &base_home), ("XDG_RUNTIME_DIR", &runtime_of(&base_home))]);
            sides.push(new_side("kg_stats, through BENCH_BASELINE_MPT's edge (shim + owner)", c));
        }
        interleaved(&mut sides, n, rounds).await;
        let load_after = common::loadavg();
        let mut traces = Vec::new();
        if traced > 0 {
            for i in [1, 4].into_iter().filter(|i| *i < sides.len()) {
                if let Some((shim, owner)) = edge_pids(&sides[i].client).await {
                    let per = syscalls_per_call(&sides[i].client, &[shim, owner], traced).await;
                    traces.push((sides[i].label.clone(), per));
                }
            }
        }
        for s in &sides {
            s.client.shutdown().await;
        }
        stop(hub);

        println!("load average {load_before} before, {load_after} after the kg_stats rounds ({rounds} rounds of {n} calls a side, interleaved)");
        println!("{:<62} {:>8} {:>8} {:>9} {:>8}  per round p50", "call (ms)", "p50", "p99", "added", "ratio");
        let base = {
            let d = &mut sides[0].ms;
            pct(d, 0.5)
        };
        for s in &mut sides {
            let (p50, p99) = (pct(&mut s.ms, 0.5), pct(&mut s.ms, 0.99));
            let per: Vec<String> = s.rounds.iter().map(|r| format!("{r:.3}")).collect();
            println!("{:<62} {p50:>8.3} {p99:>8.3} {:>+9.3} {:>7.2}x  {}", s.label, p50 - base, p50 / base, per.join(" "));
        }
        for (label, per) in &traces {
            let what = ["shim", "owner"];
            for (w, (total, top)) in what.iter().zip(per) {
                println!("syscalls per call, {w} of {label:?}: {total:.1} ({top})");
            }
        }
        row("status, child directly (baseline)", d_status, d_status);
        row("status, through mpt edge", e_status, d_status);
        if quick {
            return;
        }

        // A primary on its own palace, pinned to core 1, and every local child pinned to core 0:
        // on a 2-core box that is how the primary behaves as another machine (both searches are
        // CPU-bound embeddings; unpinned they would contend for the same cores).
        let pinned = bed.tmp.join("pinned-mempalace-mcp");
        std::fs::write(&pinned, format!("#!/bin/sh\nexec taskset -c 0 {} \"$@\"\n", child.display())).unwrap();
        std::fs::set_permissions(&pinned, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let (prim, url) = serve(&bed, &primary, Some("1"));
        let p = McpClient::Remote(HttpClient::new(HttpOptions { url: url.clone(), token: None, ca_file: None, timeout: None, init_timeout: None, connect_timeout: Duration::from_secs(5) }).unwrap());
        for i in 0..20 {
            p.call_tool("mempalace_add_drawer", json!({"wing": "w", "room": "r", "content": format!("primary drawer {i} about the outbox and the fleet")}), Deadline::Default).await.unwrap();
        }
        let p_kg = sample(&p, "mempalace_kg_stats", json!({}), n / 2).await;
        let q = json!({"query": "how does the outbox behave", "limit": 5});
        let p_search = sample(&p, "mempalace_search", q.clone(), n / 4).await;
        let local_alone = bed.client(&pinned, &["--palace", &lp], &[no_hub]);
        let l_search = sample(&local_alone, "mempalace_search", q.clone(), n / 4).await;
        local_alone.shutdown().await;
        // Its own HOME: the edge above may still be lingering in the first one.
        let fleet_home = another_home(&tmp, &tb, "fleet");
        let fleet = bed.client(&bed.mpt, &["edge", "--palace", &lp, "--child", pinned.to_str().unwrap()], &[no_hub, ("MEMPALACE_REMOTE_URL", &url), ("HOME", &fleet_home), ("XDG_RUNTIME_DIR", &runtime_of(&fleet_home))]);
        let f_kg = sample(&fleet, "mempalace_kg_stats", json!({}), n / 2).await;
        let r = fleet.call_tool("mempalace_search", q.clone(), Deadline::Default).await.unwrap();
        assert!(r.payload.get("merged").is_some(), "the search was merged: {}", r.payload);
        let f_search = sample(&fleet, "mempalace_search", q.clone(), n / 4).await;
        fleet.shutdown().await;
        stop(prim);

        row("kg_stats, primary directly over HTTP (baseline)", p_kg, p_kg);
        row("kg_stats, through the edge with the primary (primary-first)", f_kg, p_kg);
        let slower = if l_search.0 > p_search.0 { l_search } else { p_search };
        row("search, local child alone (core 0)", l_search, slower);
        row("search, primary alone (core 1)", p_search, slower);
        row("search, merged through the edge vs the slower alone", f_search, slower);
    });
    let _ = std::fs::remove_dir_all(&tmp);
}

impl Bed {
    fn mempalace_mcp(&self) -> PathBuf {
        self.bin.join("mempalace-mcp")
    }
}
