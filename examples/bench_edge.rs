//! The edge's cost, side by side in one run, on a real MemPalace: calls made directly to the child
//! vs through `mpt edge` (shared owner, and `--standalone`), MemPalace's own hub proxy as the peer,
//! KG reads through the edge vs the primary directly, merged search vs the slower side alone.
//! `tests/testbed/provision.sh && cargo build --release && cargo run --release --example bench_edge`

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mpt::config::McpKnobs;
use mpt::mcp::http::{HttpClient, HttpOptions};
use mpt::mcp::stdio::{ChildSpec, StdioClient, StdioOptions};
use mpt::mcp::{Deadline, McpClient};
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

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tb = common::testbed();
    let tmp = std::env::temp_dir().join(format!("mpt-bench-edge-{}", std::process::id()));
    let home = common::model_home(&tmp, &tb);
    let bed = Bed {
        bin: tb.join("venv-mempalace-3.11.0/bin"),
        mpt: root.join("target/release/mpt"),
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
    let n = 400;
    rt.block_on(async {
        let child = bed.mempalace_mcp();
        let direct = bed.client(&child, &["--palace", &lp], &[("MEMPALACE_HUB_FORWARD", "0")]);
        for i in 0..20 {
            direct.call_tool("mempalace_add_drawer", json!({"wing": "w", "room": "r", "content": format!("local drawer {i} about the outbox and the edge")}), Deadline::Default).await.unwrap();
        }
        direct.call_tool("mempalace_kg_add", json!({"subject": "a", "predicate": "b", "object": "c"}), Deadline::Default).await.unwrap();
        let d_kg = sample(&direct, "mempalace_kg_stats", json!({}), n).await;
        let d_status = sample(&direct, "mempalace_status", json!({}), n / 4).await;
        direct.shutdown().await;

        let edge = bed.client(&bed.mpt, &["edge", "--palace", &lp], &[("MEMPALACE_HUB_FORWARD", "0")]);
        let e_kg = sample(&edge, "mempalace_kg_stats", json!({}), n).await;
        let e_status = sample(&edge, "mempalace_status", json!({}), n / 4).await;
        edge.shutdown().await;
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let standalone = bed.client(&bed.mpt, &["edge", "--standalone", "--palace", &lp], &[("MEMPALACE_HUB_FORWARD", "0")]);
        let s_kg = sample(&standalone, "mempalace_kg_stats", json!({}), n).await;
        standalone.shutdown().await;

        // MemPalace's own stdio -> HTTP hub proxy on the same palace.
        let (hub, _) = serve(&bed, &local, None);
        let via_hub = bed.client(&child, &["--palace", &lp], &[]);
        let h_kg = sample(&via_hub, "mempalace_kg_stats", json!({}), n).await;
        let h_status = sample(&via_hub, "mempalace_status", json!({}), n / 4).await;
        via_hub.shutdown().await;
        stop(hub);

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
        let local_alone = bed.client(&pinned, &["--palace", &lp], &[("MEMPALACE_HUB_FORWARD", "0")]);
        let l_search = sample(&local_alone, "mempalace_search", q.clone(), n / 4).await;
        local_alone.shutdown().await;
        let fleet = bed.client(&bed.mpt, &["edge", "--palace", &lp, "--child", pinned.to_str().unwrap()], &[("MEMPALACE_HUB_FORWARD", "0"), ("MEMPALACE_REMOTE_URL", &url)]);
        let f_kg = sample(&fleet, "mempalace_kg_stats", json!({}), n / 2).await;
        let r = fleet.call_tool("mempalace_search", q.clone(), Deadline::Default).await.unwrap();
        assert!(r.payload.get("merged").is_some(), "the search was merged: {}", r.payload);
        let f_search = sample(&fleet, "mempalace_search", q.clone(), n / 4).await;
        fleet.shutdown().await;
        stop(prim);

        println!("{:<58} {:>8} {:>8} {:>9} {:>8}", "call (ms)", "p50", "p95", "added", "ratio");
        row("kg_stats, child directly (baseline)", d_kg, d_kg);
        row("kg_stats, through mpt edge (shim + owner)", e_kg, d_kg);
        row("kg_stats, through mpt edge --standalone", s_kg, d_kg);
        row("kg_stats, through MemPalace's hub proxy (the peer)", h_kg, d_kg);
        row("status, child directly (baseline)", d_status, d_status);
        row("status, through mpt edge", e_status, d_status);
        row("status, through MemPalace's hub proxy", h_status, d_status);
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
