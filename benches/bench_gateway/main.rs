//! The gateway's cost, side by side in one run, on a real `mempalace serve`: `kg_stats` p50/p99
//! added by `mpt gateway`, by nginx as a reverse proxy holding a bearer map, and by a bare hyper
//! proxy (the floor of the gateway's parts, `floor.rs`), a new connection per request for all;
//! twenty devices writing at once through the gateway vs direct, and `search` by a device whose
//! reads are filtered beside an unrestricted one (`search.rs`).

// Usage: cargo bench --bench bench_gateway
// Needs the testbed (tests/testbed/provision.sh) and nginx: Debian's, installed here when missing
// (tests/testbed/debian.sh: apt-get as root or through sudo; never by CI or the tests).
// MPT_TESTBED names the testbed; BENCH_N (default 2000) the latency samples per side;
// BENCH_RUNS (default 5) the write runs; BENCH_VERBOSE=1 prints each block; BENCH_BASELINE_MPT
// names another build's `mpt` whose gateway joins the latency run (before/after a change);
// BENCH_PART=search runs only the search part (no nginx), BENCH_SEARCH_N (default 300) its samples;
// BENCH_PART=nosearch all but it; BENCH_PART=eras only the two MCP eras side by side (`eras.rs`).

#[path = "../common/mod.rs"]
mod common;
mod eras;
mod floor;
mod lean;
mod percall;
mod search;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use common::{Primary, env_count, loadavg, median, pct};
use serde_json::{Value, json};

const UPSTREAM: &str = "bench-upstream-token-held-by-the-fronts-only";
const DEVICES: usize = 20;
const OPS_PER_DEVICE: usize = 25;
const BLOCK: usize = 100;

/// One front: where it listens, the bearer a device sends it, and the Host it expects.
#[derive(Clone)]
struct Side {
    name: &'static str,
    port: u16,
    bearer: String,
}

/// A `POST /mcp` of `body` to `port` with `bearer` and `extra` header lines (each ending in CRLF),
/// on a connection of its own (`Connection: close`, as `serve` answers).
fn request(port: u16, bearer: &str, extra: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {bearer}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// `raw` sent to `port` on a connection of its own: its time, connect to the last byte; panics
/// (naming `name`) unless the reply is a good JSON-RPC result.
fn send(port: u16, raw: &[u8], name: &str) -> Duration {
    let t = Instant::now();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_nodelay(true).unwrap();
    s.write_all(raw).unwrap();
    let mut reply = Vec::with_capacity(4096);
    s.read_to_end(&mut reply).unwrap();
    let took = t.elapsed();
    let text = String::from_utf8_lossy(&reply);
    assert!(
        text.starts_with("HTTP/1.1 200")
            && text.contains("\"result\"")
            && !text.contains("\"error\""),
        "{name}: {}",
        text.chars().take(400).collect::<String>()
    );
    took
}

/// One `POST /mcp` of `body` to `side`: its time (`send`).
fn post(side: &Side, body: &str) -> Duration {
    let raw = request(side.port, &side.bearer, "", body);
    send(side.port, raw.as_bytes(), side.name)
}

fn call(tool: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}}).to_string()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether something listens on `port` within 30 s.
fn wait_listening(port: u16) -> bool {
    let t = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if t.elapsed() > Duration::from_secs(30) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// A process of ours, stopped by its pid (SIGTERM, then SIGKILL) when dropped.
struct Stopped(Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        unsafe {
            libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM);
        }
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(10) {
            if self.0.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `mpt gateway serve` in front of the primary, with a policy of `devices` (name, entry) and a
/// token each (issued by the real `mpt gateway token issue`): the gateway and the tokens.
fn gateway(
    mpt: &Path,
    dir: &Path,
    home: &Path,
    upstream: u16,
    devices: &[(String, Value)],
) -> (Stopped, u16, Vec<String>) {
    std::fs::create_dir_all(dir).unwrap();
    let policy = json!({
        "schema": mpt_base::schema::GATEWAY_POLICY,
        "devices": devices.iter().cloned().collect::<serde_json::Map<_, _>>(),
    });
    std::fs::write(dir.join("policy.json"), policy.to_string()).unwrap();
    let run = |args: &[&str]| {
        let o = Command::new(mpt)
            .env_clear()
            .env("HOME", home)
            .env("MPT_GATEWAY_DIR", dir)
            .args(args)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "mpt {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    let tokens = devices
        .iter()
        .map(|(d, _)| run(&["gateway", "token", "issue", d]))
        .collect();
    let mut child = Command::new(mpt)
        .env_clear()
        .env("HOME", home)
        .env("MPT_GATEWAY_DIR", dir)
        .env("MEMPALACE_MCP_HTTP_TOKEN", UPSTREAM)
        .envs(std::env::vars().filter(|(k, _)| k.starts_with("MPT_HOP_TRACE")))
        .args([
            "--json",
            "gateway",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
        ])
        .arg(format!("http://127.0.0.1:{upstream}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: Value = serde_json::from_str(&line).expect("the gateway started");
    let port = v["listening"]
        .as_str()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    (Stopped(child), port, tokens)
}

/// nginx as a reverse proxy before the primary, mapping each device bearer to the upstream one
/// (what a user would write instead of a gateway): its process and port.
fn nginx(tmp: &Path, upstream: u16, tokens: &[String]) -> (Stopped, u16) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testbed/debian.sh");
    let was_running = Path::new("/run/nginx.pid").exists();
    let o = Command::new("bash")
        .arg(&script)
        .args(["bench_gateway", "/usr/sbin/nginx=nginx"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "nginx: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    stop_service_the_install_started(was_running);
    let port = free_port();
    let root = tmp.join("nginx");
    std::fs::create_dir_all(&root).unwrap();
    let map: String = tokens
        .iter()
        .map(|t| format!("    \"Bearer {t}\" \"Bearer {UPSTREAM}\";\n"))
        .collect();
    let user = if unsafe { libc::geteuid() } == 0 {
        "user root;\n"
    } else {
        ""
    };
    let r = root.display();
    let conf = format!(
        "{user}worker_processes 1;\ndaemon off;\npid {r}/nginx.pid;\nerror_log {r}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {r}/body;\n  proxy_temp_path {r}/proxy;\n\
         fastcgi_temp_path {r}/fastcgi;\n  uwsgi_temp_path {r}/uwsgi;\n  scgi_temp_path {r}/scgi;\n\
         map_hash_bucket_size 256;\n  map $http_authorization $upstream_authorization {{\n    default \"\";\n{map}  }}\n\
         server {{\n    listen 127.0.0.1:{port};\n    location / {{\n\
         if ($upstream_authorization = \"\") {{ return 401; }}\n\
         proxy_pass http://127.0.0.1:{upstream};\n      proxy_http_version 1.1;\n\
         proxy_set_header Host 127.0.0.1:{upstream};\n\
         proxy_set_header Authorization $upstream_authorization;\n\
         proxy_set_header Origin \"\";\n      proxy_set_header Connection \"close\";\n\
         proxy_buffering off;\n    }}\n  }}\n}}\n"
    );
    let conf_path = root.join("nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let stderr = std::fs::File::create(root.join("stderr.log")).unwrap();
    let child = Command::new("/usr/sbin/nginx")
        .arg("-p")
        .arg(&root)
        .arg("-c")
        .arg(&conf_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let n = Stopped(child);
    if !wait_listening(port) {
        let said = |f: &str| std::fs::read_to_string(root.join(f)).unwrap_or_default();
        panic!(
            "nginx did not listen on {port}: {}{}",
            said("stderr.log"),
            said("error.log")
        );
    }
    (n, port)
}

/// Debian's package starts its own nginx (port 80) when it installs it: the install was ours, so
/// that server is stopped by the pid its package wrote.
fn stop_service_the_install_started(was_running: bool) {
    if was_running {
        return;
    }
    let Some(pid) = std::fs::read_to_string("/run/nginx.pid")
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
    else {
        return;
    };
    unsafe {
        libc::kill(pid, libc::SIGQUIT);
    }
    eprintln!("bench_gateway: stopped the nginx service (pid {pid}) that its install started");
}

/// `n` samples of the call `body` per side, interleaved in blocks (each block in a rotated order),
/// so a machine's minute-to-minute load falls on every side alike: the milliseconds of each side.
fn latencies(sides: &[Side], n: usize, body: &str) -> Vec<Vec<f64>> {
    for s in sides {
        for _ in 0..50.min(n) {
            post(s, body);
        }
    }
    let mut out = vec![Vec::with_capacity(n); sides.len()];
    for b in 0..n.div_ceil(BLOCK) {
        for k in 0..sides.len() {
            let i = (b + k) % sides.len();
            for _ in 0..BLOCK {
                out[i].push(post(&sides[i], body).as_secs_f64() * 1e3);
            }
        }
        if std::env::var_os("BENCH_VERBOSE").is_some() {
            eprintln!("block {b}: load {}", loadavg());
        }
    }
    out
}

/// Twenty devices each sending `OPS_PER_DEVICE` writes at once (a connection per request):
/// the primary's op/s.
fn writes_at_once(sides: &[Side], tag: &str) -> f64 {
    let start = Barrier::new(sides.len() + 1);
    let t = std::thread::scope(|sc| {
        for (d, side) in sides.iter().enumerate() {
            let start = &start;
            sc.spawn(move || {
                start.wait();
                for i in 0..OPS_PER_DEVICE {
                    let body = call(
                        "mempalace_kg_add",
                        json!({"subject": format!("{tag}_dev{d}"), "predicate": "wrote", "object": format!("op{i}")}),
                    );
                    post(side, &body);
                }
            });
        }
        start.wait();
        Instant::now()
    });
    let el = t.elapsed().as_secs_f64();
    (sides.len() * OPS_PER_DEVICE) as f64 / el
}

/// Per request, each front's own CPU time and syscalls (`BENCH_PART=percall`): `n` calls of
/// `body` per front for each figure, the syscalls counted apart (strace slows what it traces).
fn per_request(fronts: &[(&Side, u32, &str)], n: usize, body: &str, tmp: &Path) {
    println!(
        "{:<44} {:>14} {:>17}",
        "kg_stats, per request, the front's process", "CPU", "syscalls"
    );
    for (side, pid, _) in fronts {
        for _ in 0..50 {
            post(side, body);
        }
        let before = percall::cpu_ns(*pid);
        for _ in 0..n {
            post(side, body);
        }
        let cpu_us = (percall::cpu_ns(*pid) - before) as f64 / n as f64 / 1e3;
        let counted = percall::syscalls(*pid, tmp, || {
            for _ in 0..n {
                post(side, body);
            }
        });
        let calls = counted.as_ref().map_or("no strace".to_string(), |(c, _)| {
            format!("{:.1}", *c as f64 / n as f64)
        });
        println!("{:<44} {:>9.1} us {:>17}", side.name, cpu_us, calls);
        if let (Some((_, table)), Some(_)) = (&counted, std::env::var_os("BENCH_VERBOSE")) {
            eprintln!("{}:\n{table}", side.name);
        }
    }
}

fn main() {
    floor::child_main();
    let mpt = std::path::PathBuf::from(env!("CARGO_BIN_EXE_mpt"));
    assert!(mpt.exists(), "build it first: cargo build --release");
    let tmp = tempfile::tempdir().unwrap();
    let load_before = loadavg();
    let primary = Primary::start_with(tmp.path(), &[("MEMPALACE_MCP_HTTP_TOKEN", UPSTREAM.into())]);
    let serve = primary.port();
    let home = tmp.path().join("home");
    let search = || {
        search::run(
            &mpt,
            tmp.path(),
            &home,
            serve,
            env_count("BENCH_SEARCH_N", 300),
        )
    };
    if std::env::var("BENCH_PART").as_deref() == Ok("search") {
        println!("load average at start: {load_before}");
        search();
        return;
    }
    let names: Vec<(String, Value)> = (0..DEVICES)
        .map(|i| (format!("dev{i}"), json!({"role": "member"})))
        .collect();
    let (gw, gw_port, tokens) = gateway(&mpt, &tmp.path().join("gateway"), &home, serve, &names);
    if std::env::var("BENCH_PART").as_deref() == Ok("eras") {
        println!("load average at start: {load_before}");
        eras::run(
            gw_port,
            &tokens[0],
            serve,
            UPSTREAM,
            env_count("BENCH_N", 2000),
        );
        return;
    }
    let (nginx_proc, nginx_port) = nginx(tmp.path(), serve, &tokens);

    let direct = Side {
        name: "serve directly",
        port: serve,
        bearer: UPSTREAM.into(),
    };
    let through = Side {
        name: "through mpt gateway",
        port: gw_port,
        bearer: tokens[0].clone(),
    };
    let proxied = Side {
        name: "through nginx (bearer map)",
        port: nginx_port,
        bearer: tokens[0].clone(),
    };
    let floors: Vec<(Stopped, Side)> = floor::KINDS
        .iter()
        .map(|kind| {
            let (child, port) = floor::spawn(kind, serve, UPSTREAM, &tokens);
            let side = Side {
                name: floor::label(kind),
                port,
                bearer: tokens[0].clone(),
            };
            (child, side)
        })
        .collect();
    // Another build's gateway beside this one (before/after a change, in the same run), with
    // the same policy and tokens (twenty devices), so the two differ only by their build.
    let baseline = std::env::var_os("BENCH_BASELINE_MPT").map(PathBuf::from);
    let before = baseline.as_ref().map(|b| {
        let (g, port, tokens) = gateway(
            b,
            &tmp.path().join("gateway-baseline"),
            &home,
            serve,
            &names,
        );
        let side = Side {
            name: "through the baseline's gateway",
            port,
            bearer: tokens[0].clone(),
        };
        (g, side)
    });
    let n = env_count("BENCH_N", 2000);
    // Every front but `serve` itself, each with the process that serves it and its bar.
    let mut fronts: Vec<(&Side, u32, &str)> = vec![
        (&through, gw.0.id(), "<= +0.15 ms, <= nginx"),
        (&proxied, percall::server_pid(nginx_proc.0.id()), "the peer"),
    ];
    for (i, (child, side)) in floors.iter().enumerate() {
        fronts.push((
            side,
            child.0.id(),
            if i == 0 {
                "the floor of hyper"
            } else {
                "a lean floor"
            },
        ));
    }
    fronts.extend(
        before
            .as_ref()
            .map(|(g, s)| (s, g.0.id(), "BENCH_BASELINE_MPT")),
    );
    let kg_stats = call("mempalace_kg_stats", json!({}));
    if std::env::var("BENCH_PART").as_deref() == Ok("percall") {
        println!("load average at start: {load_before}");
        per_request(&fronts, n, &kg_stats, tmp.path());
        println!("load average at end: {}", loadavg());
        return;
    }
    let mut sides = vec![direct.clone()];
    sides.extend(fronts.iter().map(|(s, _, _)| (*s).clone()));
    let lat = latencies(&sides, n, &kg_stats);
    let (d50, d99) = (pct(&lat[0], 0.5), pct(&lat[0], 0.99));
    println!("load average at start: {load_before}");
    println!(
        "{:<44} {:>9} {:>9} {:>11} {:>11} {:>22}",
        "kg_stats, a new connection per request", "p50", "p99", "added p50", "added p99", "bar"
    );
    println!(
        "{:<44} {:>6.3} ms {:>6.3} ms",
        format!("{} ({n} calls)", direct.name),
        d50,
        d99
    );
    let mut added = Vec::new();
    for (i, (side, _, bar)) in fronts.iter().enumerate() {
        let v = &lat[i + 1];
        let (p50, p99) = (pct(v, 0.5), pct(v, 0.99));
        added.push(p50 - d50);
        println!(
            "{:<44} {:>6.3} ms {:>6.3} ms {:>+8.3} ms {:>+8.3} ms {:>22}",
            side.name,
            p50,
            p99,
            p50 - d50,
            p99 - d99,
            bar
        );
    }
    println!(
        "the gateway adds {:.2}x what nginx adds at p50 ({:+.3} vs {:+.3} ms)",
        added[0] / added[1],
        added[0],
        added[1]
    );
    for (i, (side, _, _)) in fronts.iter().enumerate().skip(2).take(floors.len()) {
        println!(
            "the gateway adds {:.2}x what the {} adds at p50 ({:+.3} vs {:+.3} ms): its own work is {:+.3} ms",
            added[0] / added[i],
            side.name.trim_start_matches("floor: "),
            added[0],
            added[i],
            added[0] - added[i]
        );
    }
    if before.is_some() {
        let b = added[added.len() - 1];
        println!(
            "the gateway adds {:.2}x what the baseline's adds at p50 ({:+.3} vs {b:+.3} ms)",
            added[0] / b,
            added[0]
        );
    }
    drop(before);
    drop(floors);

    let runs = env_count("BENCH_RUNS", 5);
    let gw_sides: Vec<Side> = tokens
        .iter()
        .map(|t| Side {
            name: "through mpt gateway",
            port: gw_port,
            bearer: t.clone(),
        })
        .collect();
    let direct_sides: Vec<Side> = (0..DEVICES).map(|_| direct.clone()).collect();
    let (mut via, mut straight, mut ratios) = (vec![], vec![], vec![]);
    for r in 0..runs {
        // Alternate which side goes first: the primary's graph grows as the run goes on.
        let (g, d) = if r % 2 == 0 {
            let g = writes_at_once(&gw_sides, &format!("g{r}"));
            (g, writes_at_once(&direct_sides, &format!("d{r}")))
        } else {
            let d = writes_at_once(&direct_sides, &format!("d{r}"));
            (writes_at_once(&gw_sides, &format!("g{r}")), d)
        };
        if std::env::var_os("BENCH_VERBOSE").is_some() {
            eprintln!(
                "run {r}: gateway {g:.1} op/s, direct {d:.1} op/s, load {}",
                loadavg()
            );
        }
        via.push(g);
        straight.push(d);
        ratios.push(g / d);
    }
    let per_run: Vec<String> = ratios.iter().map(|r| format!("{r:.2}x")).collect();
    println!(
        "{:<44} {:>9.1} op/s  direct {:.1} op/s  ratio {:.2}x (runs: {})  bar >= 0.95x",
        format!("{DEVICES} devices x {OPS_PER_DEVICE} kg_add at once"),
        median(via),
        median(straight),
        median(ratios),
        per_run.join(", ")
    );
    if std::env::var("BENCH_PART").as_deref() != Ok("nosearch") {
        search();
    }
    println!("load average at end: {}", loadavg());
}
