//! A real `mempalace serve` on loopback with a private HOME: started with `--port 0`, its port
//! read from the registry, ready on `/healthz`, and stopped by its pid on drop (also on panic).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::{TestEnv, venv_bin, wait_for};

pub struct Primary {
    child: Child,
    pub port: u16,
    pub scheme: &'static str,
    pub serverinfo: PathBuf,
    /// The bearer its clients need (given through its environment, never argv).
    pub token: Option<String>,
}

#[derive(Default)]
pub struct PrimaryOpts<'a> {
    pub token: Option<&'a str>,
    pub read_only: bool,
    pub tls: Option<(&'a Path, &'a Path)>,
    pub extra_env: Vec<(&'a str, String)>,
    /// A fixed port (to restart a primary where its clients expect it); else an ephemeral one.
    pub port: Option<u16>,
}

impl Primary {
    pub fn start(env: &TestEnv, palace: &Path, opts: PrimaryOpts) -> Primary {
        let mut cmd = Command::new(venv_bin("mempalace"));
        cmd.env_clear()
            .args(["serve", "--palace"])
            .arg(palace)
            .args(["--host", "127.0.0.1", "--port"])
            .arg(opts.port.unwrap_or(0).to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            // Appended, so a restarted primary's log follows the first one's.
            .stderr(Stdio::from(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(env.path("primary.log"))
                    .unwrap(),
            ));
        for (k, v) in env.mempalace_env() {
            cmd.env(k, v);
        }
        if let Some(t) = opts.token {
            // Through the environment, as `mempalace serve` itself hands it on: never argv.
            cmd.env("MEMPALACE_MCP_HTTP_TOKEN", t);
        }
        for (k, v) in &opts.extra_env {
            cmd.env(k, v);
        }
        if opts.read_only {
            cmd.arg("--read-only");
        }
        if let Some((cert, key)) = opts.tls {
            cmd.arg("--tls-cert").arg(cert).arg("--tls-key").arg(key);
        }
        let child = cmd.spawn().expect("mempalace serve starts");
        let mut p = Primary {
            child,
            port: 0,
            scheme: if opts.tls.is_some() { "https" } else { "http" },
            serverinfo: PathBuf::new(),
            token: opts.token.map(str::to_string),
        };
        let server_root = env.home().join(".mempalace/server");
        let found = wait_for(60.0, || {
            let Ok(rd) = std::fs::read_dir(&server_root) else {
                return false;
            };
            for e in rd.flatten() {
                let info = e.path().join("serverinfo.json");
                // A record left by an earlier primary of this HOME (same palace) is not ours.
                if let Ok(t) = std::fs::read_to_string(&info)
                    && let Ok(v) = serde_json::from_str::<serde_json::Value>(&t)
                    && v["pid"].as_u64() == Some(u64::from(p.child.id()))
                    && let Some(port) = v["port"].as_u64().filter(|p| *p > 0)
                {
                    p.port = port as u16;
                    p.serverinfo = info;
                    return true;
                }
            }
            false
        });
        let log = || std::fs::read_to_string(env.path("primary.log")).unwrap_or_default();
        assert!(
            found,
            "mempalace serve registered no port in 60 s; its log:\n{}",
            log()
        );
        let ready = wait_for(60.0, || {
            if p.scheme == "http" {
                p.healthz()
            } else {
                TcpStream::connect(("127.0.0.1", p.port)).is_ok()
            }
        });
        assert!(
            ready,
            "mempalace serve did not become ready; its log:\n{}",
            log()
        );
        p
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn url(&self) -> String {
        format!("{}/mcp", self.base_url())
    }

    /// `scheme://127.0.0.1:port`, as a front (the gateway) names its upstream.
    pub fn base_url(&self) -> String {
        format!("{}://127.0.0.1:{}", self.scheme, self.port)
    }

    /// One tool call straight to this primary (with its token), the payload parsed.
    pub fn call(
        &self,
        tool: &str,
        args: serde_json::Value,
    ) -> Result<serde_json::Value, mpt_mcp::CallError> {
        call_remote(&self.url(), self.token.as_deref(), tool, args)
    }

    fn healthz(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
        let req = format!(
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        );
        if s.write_all(req.as_bytes()).is_err() {
            return false;
        }
        let mut body = String::new();
        let _ = s.read_to_string(&mut body);
        body.starts_with("HTTP/1.1 200") || body.starts_with("HTTP/1.0 200")
    }

    /// SIGKILL, no grace: the primary dies mid-request if it was in one; reaped.
    pub fn kill9(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// SIGTERM, then SIGKILL after a grace period; reaped.
    pub fn stop(&mut self) {
        let pid = self.child.id() as libc::pid_t;
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let exited = wait_for(5.0, || self.child.try_wait().ok().flatten().is_some());
        if !exited {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Drop for Primary {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One tool call to the MemPalace at `url` (with `token` as its bearer), the payload parsed.
pub fn call_remote(
    url: &str,
    token: Option<&str>,
    tool: &str,
    args: serde_json::Value,
) -> Result<serde_json::Value, mpt_mcp::CallError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        remote_client(url, token)
            .call_tool(tool, args, mpt_mcp::Deadline::Default)
            .await
            .map(|r| r.payload)
    })
}

/// The one HTTP MCP client the tests use to reach a primary directly (plain http, no CA file):
/// generous timeouts, since a loaded machine's first MemPalace call loads the embedder.
pub fn remote_client(url: &str, token: Option<&str>) -> mpt_mcp::McpClient {
    use mpt_mcp::http::{HttpClient, HttpOptions};
    mpt_mcp::McpClient::Remote(
        HttpClient::new(HttpOptions {
            url: url.into(),
            token: token.map(|t| mpt_base::config::Secret::new(t.to_string())),
            ca_file: None,
            timeout: Some(Duration::from_secs(60)),
            init_timeout: Some(Duration::from_secs(120)),
            connect_timeout: Duration::from_secs(5),
        })
        .unwrap(),
    )
}

/// Leaves what a primary killed mid-write leaves: `chroma.sqlite3-journal`, a rollback journal
/// no process holds (a writer that began a transaction, changed pages, and was SIGKILLed).
pub fn leave_crash_journal(palace: &Path) {
    let script = r#"
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma cache_size=1")
c.execute("begin immediate")
for (t,) in c.execute("select name from sqlite_master where type='table'").fetchall():
    try:
        c.execute(f'delete from "{t}"')
    except sqlite3.Error:
        pass
print("mid-write", flush=True)
time.sleep(600)
"#;
    let mut child = Command::new(crate::support::venv_bin("python3"))
        .arg("-c")
        .arg(script)
        .arg(palace.join("chroma.sqlite3"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "mid-write");
    let _ = child.kill();
    let _ = child.wait();
    assert!(palace.join("chroma.sqlite3-journal").exists());
}
