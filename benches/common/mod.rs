//! What the benches share: a real `mempalace serve` on loopback with a private HOME (the
//! testbed's venv and model cache), an HTTP client for it, and the median of a block's figures.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mpt_mcp::McpClient;
use mpt_mcp::http::{HttpClient, HttpOptions};
use serde_json::Value;

/// The testbed the benches run against: `MPT_TESTBED`, else target/testbed.
pub fn testbed() -> PathBuf {
    std::env::var_os("MPT_TESTBED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/testbed"))
}

/// A HOME under `tmp` whose embedding-model cache is the testbed's (offline, no download).
pub fn model_home(tmp: &Path, testbed: &Path) -> PathBuf {
    let home = tmp.join("home");
    std::fs::create_dir_all(home.join(".cache")).unwrap();
    std::os::unix::fs::symlink(
        testbed.join("model-home/.cache/chroma"),
        home.join(".cache/chroma"),
    )
    .unwrap();
    home
}

/// The machine's load averages (1, 5, 15 min), printed beside a bench's figures.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `q` quantile of `v` by nearest rank (`NaN` of none): the figure at `(len - 1) * q`, rounded.
pub fn pct(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() as f64 - 1.0) * q).round() as usize]
}

/// The middle figure; of an even count, the mean of the two middle ones.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mid = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    }
}

/// `program` with a cleared environment but what MemPalace needs: `home`, the testbed's venv on
/// PATH, no hub forwarding, no idle exit, no writer wait, no model download.
pub fn mempalace_command(
    program: impl AsRef<std::ffi::OsStr>,
    home: &Path,
    testbed: &Path,
) -> Command {
    let bin = testbed.join("venv-mempalace-3.11.0/bin");
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .env("HOME", home)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("MEMPALACE_HUB_FORWARD", "0")
        .env("MEMPALACE_MCP_IDLE_HOURS", "0")
        .env("MEMPALACE_MCP_WRITER_WAIT_SECONDS", "0")
        .env("HF_HUB_OFFLINE", "1");
    cmd
}

pub fn client(url: &str) -> McpClient {
    McpClient::Remote(
        HttpClient::new(HttpOptions {
            url: url.into(),
            token: None,
            ca_file: None,
            timeout: Some(Duration::from_secs(60)),
            init_timeout: Some(Duration::from_secs(120)),
            connect_timeout: Duration::from_secs(5),
        })
        .unwrap(),
    )
}

/// A real `mempalace serve` with a private HOME (the testbed's venv and model cache).
pub struct Primary(Child, u16);

impl Primary {
    pub fn start(tmp: &Path) -> Primary {
        Primary::start_with(tmp, &[])
    }

    /// With `extra` in its environment (e.g. `MEMPALACE_MCP_EXTRA_ALLOWED_HOSTS` for a link's
    /// address: its Host pin names the port).
    pub fn start_with(tmp: &Path, extra: &[(&str, String)]) -> Primary {
        let testbed = testbed();
        let bin = testbed.join("venv-mempalace-3.11.0/bin");
        let home = model_home(tmp, &testbed);
        std::fs::create_dir_all(tmp.join("p")).unwrap();
        let child = mempalace_command(bin.join("mempalace"), &home, &testbed)
            .envs(extra.iter().map(|(k, v)| (k, v)))
            .args(["serve", "--palace"])
            .arg(tmp.join("p/palace"))
            .args(["--host", "127.0.0.1", "--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mempalace serve (is the testbed provisioned? tests/testbed/provision.sh)");
        let mut p = Primary(child, 0);
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(60) {
            if p.1 == 0 {
                p.1 = read_port(&home.join(".mempalace/server"), p.0.id()).unwrap_or(0);
            } else if healthz(p.1) {
                return p;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("mempalace serve did not become ready in 60 s");
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.1)
    }

    pub fn port(&self) -> u16 {
        self.1
    }

    /// CPU seconds the server has used so far (user + system, all its threads).
    pub fn cpu_seconds(&self) -> f64 {
        cpu_seconds(self.0.id())
    }
}

/// CPU seconds process `pid` has used so far, from /proc/<pid>/stat (utime + stime).
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command's closing parenthesis; utime and stime are fields 14 and 15.
    let rest: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: u64 = rest[11].parse::<u64>().unwrap() + rest[12].parse::<u64>().unwrap();
    ticks as f64 / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

impl Drop for Primary {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn read_port(server_root: &Path, pid: u32) -> Option<u16> {
    for e in std::fs::read_dir(server_root).ok()?.flatten() {
        let text = std::fs::read_to_string(e.path().join("serverinfo.json")).ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        if v["pid"].as_u64() == Some(u64::from(pid)) {
            return v["port"].as_u64().map(|p| p as u16).filter(|p| *p > 0);
        }
    }
    None
}

fn healthz(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    let req =
        format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return false;
    }
    let mut body = String::new();
    let _ = s.read_to_string(&mut body);
    body.starts_with("HTTP/1.1 200") || body.starts_with("HTTP/1.0 200")
}

/// A count from the environment (`name`), else `default`.
pub fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
