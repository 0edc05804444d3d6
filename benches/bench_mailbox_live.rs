//! Ask-to-announcement latency of `mpt mailbox watch`, side by side in one run on a real
//! `mempalace serve`: pushed by the live stream vs polling, median of 20 each.

// Usage: cargo bench --bench bench_mailbox_live
// MPT_TESTBED names the testbed; BENCH_N (default 20) the asks per side; BENCH_POLL_MS (default
// 2000) the short interval polling is measured at; BENCH_MPT another `mpt` (default the mpt `cargo bench` builds).
//
// Polling at the 5-minute default cannot be waited for 20 times (an hour and a half), so it is
// measured at a short interval I with each ask appended at a random phase of the poll (a uniform
// delay in [0, I) before it), and the default's figure computed from the model
// latency = phase wait + derivation, the phase wait uniform on [0, T): its median is T/2 plus the
// derivation time, which is the measured median at I minus I/2. Both are printed.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::{Primary, env_count, loadavg, median};
use mpt_mcp::{Deadline, McpClient};
use serde_json::{Value, json};

const ME: &str = "pi@lap";
const DEFAULT_POLL_MS: f64 = 300_000.0;

struct Watch {
    child: Child,
    lines: Receiver<Value>,
}

impl Watch {
    fn start(mpt: &Path, home: &Path, url: &str, poll_ms: u64, poll_only: bool) -> Watch {
        let mut args = vec!["--json", "mailbox", "--as", ME, "watch"];
        if poll_only {
            args.push("--poll");
        }
        let mut child = Command::new(mpt)
            .args(&args)
            .env_clear()
            .env("HOME", home)
            .env("PATH", "/usr/bin:/bin")
            .env("MEMPALACE_REMOTE_URL", url)
            .env("MEMPALACE_PI_DEVICE", "lap")
            .env("MEMPALACE_MAILBOX_POLL_MS", poll_ms.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the mpt under test starts");
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in out.lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&l)
                    && tx.send(v).is_err()
                {
                    return;
                }
            }
        });
        Watch { child, lines }
    }

    fn until(&self, pred: impl Fn(&Value) -> bool) -> Instant {
        loop {
            let v = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .expect("the watch answers within 120 s");
            if pred(&v) {
                return Instant::now();
            }
        }
    }

    fn announced(&self, id: &str) -> Instant {
        self.until(|v| {
            v["schema"] == "mpt.mailbox.announce/v1"
                && v["announcements"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|x| x["ask"]["id"] == id))
        })
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn ask(c: &McpClient, i: usize) -> String {
    let args = json!({"type": "task.request", "stream": "project/bench", "room": "delegation", "from_agent": "codex@desk", "to_agent": ME, "status": "open", "body": format!("ask {i}")});
    let r = c
        .call_tool("mempalace_event_append", args, Deadline::Default)
        .await
        .unwrap();
    r.payload["event"]["id"].as_str().unwrap().to_string()
}

/// One side: N asks, each announced; the latencies in ms. `phase`: a random wait first, < it.
fn measure(
    rt: &tokio::runtime::Runtime,
    c: &McpClient,
    w: &Watch,
    n: usize,
    phase: Option<u64>,
    seed: &mut u64,
) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..n {
        if let Some(max) = phase {
            // xorshift: a uniform phase in [0, max) ms.
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            std::thread::sleep(Duration::from_millis(*seed % max));
        }
        let t = Instant::now();
        let id = rt.block_on(ask(c, i));
        let at = w.announced(&id);
        out.push(at.duration_since(t).as_secs_f64() * 1e3);
    }
    out
}

fn main() {
    let mpt = std::env::var_os("BENCH_MPT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_BIN_EXE_mpt")));
    let n = env_count("BENCH_N", 20);
    let poll_ms = env_count("BENCH_POLL_MS", 2000) as u64;
    let tmp = tempfile::tempdir().unwrap();
    let p = Primary::start(tmp.path());
    let home = tmp.path().join("watch-home");
    std::fs::create_dir_all(&home).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = common::client(&p.url());
    rt.block_on(c.connect()).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;

    let live = Watch::start(&mpt, &home, &p.url(), 600_000, false);
    live.until(|v| v["schema"] == "mpt.mailbox.watch/v1" && v["mode"] == "live");
    let streamed = measure(&rt, &c, &live, n, None, &mut seed);
    drop(live);

    let polled = Watch::start(&mpt, &home, &p.url(), poll_ms, true);
    polled.until(|v| v["schema"] == "mpt.mailbox.watch/v1");
    let polling = measure(&rt, &c, &polled, n, Some(poll_ms), &mut seed);
    drop(polled);

    let s = median(streamed.clone());
    let pm = median(polling.clone());
    let derive = (pm - poll_ms as f64 / 2.0).max(0.0);
    let at_default = DEFAULT_POLL_MS / 2.0 + derive;
    println!("load average: {}", loadavg());
    println!("ask-to-announcement, median of {n}:");
    println!(
        "  streaming (live /logstream/stream)          {s:>10.0} ms  (max {:.0})",
        streamed.iter().cloned().fold(0.0, f64::max)
    );
    println!(
        "  polling at {poll_ms} ms, measured (random phase) {pm:>10.0} ms  ({:.1}x streaming)",
        pm / s
    );
    println!(
        "  polling at the 300000 ms default, modelled  {at_default:>10.0} ms  ({:.0}x streaming; = 150000 ms median phase wait + {derive:.0} ms derivation, the measured median minus {} ms; worst case {:.0} ms)",
        at_default / s,
        poll_ms / 2,
        DEFAULT_POLL_MS + derive
    );
}
