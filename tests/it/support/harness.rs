//! A harness-like MCP client for `mpt edge`: spawns it on pipes, sends requests, reads the
//! replies matched by id. On drop it closes stdin, waits, and stops the palace's owner by pid.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use super::TestEnv;

pub struct Harness {
    child: Child,
    stdin: Option<ChildStdin>,
    replies: mpsc::Receiver<Value>,
    next: u64,
    pending: Vec<Value>,
    pub owner_lock_dir: PathBuf,
}

impl Harness {
    pub fn start(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> Harness {
        Harness::start_with(env, args, vars, |_| {})
    }

    /// `start`, with `prepare` applied to the command first (a read-only HOME, say).
    pub fn start_with(
        env: &TestEnv,
        args: &[&str],
        vars: &[(&str, &str)],
        prepare: impl FnOnce(&mut std::process::Command),
    ) -> Harness {
        let mut cmd = env.mpt_command(&["edge"]);
        cmd.args(args);
        cmd.env("MPT_EDGE_GRACE_MS", "400");
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(env.path("edge.stderr"))
                    .unwrap(),
            ));
        prepare(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("the edge wrote a non-JSON line to stdout ({e}): {line}")
                });
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Harness {
            child,
            stdin,
            replies,
            next: 100,
            pending: Vec::new(),
            owner_lock_dir: env.home().join(".mempalace/edge"),
        }
    }

    /// The `mpt edge` process (the shim a harness session runs).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send_raw(&mut self, line: &str) {
        let s = self.stdin.as_mut().unwrap();
        s.write_all(line.as_bytes()).unwrap();
        s.write_all(b"\n").unwrap();
        s.flush().unwrap();
    }

    /// Part of a line, written and flushed on its own (no newline added).
    pub fn send_partial(&mut self, piece: &str) {
        let s = self.stdin.as_mut().unwrap();
        s.write_all(piece.as_bytes()).unwrap();
        s.flush().unwrap();
    }

    /// The reply to `id`, within `secs`.
    pub fn reply(&mut self, id: &Value, secs: u64) -> Value {
        if let Some(i) = self.pending.iter().position(|r| &r["id"] == id) {
            return self.pending.remove(i);
        }
        loop {
            let r = self
                .replies
                .recv_timeout(Duration::from_secs(secs))
                .unwrap_or_else(|_| panic!("no reply to {id} in {secs} s"));
            if &r["id"] == id {
                return r;
            }
            self.pending.push(r);
        }
    }

    /// Whether the reply to `id` has arrived (without waiting for it; it stays to be read).
    pub fn replied(&mut self, id: &Value) -> bool {
        while let Ok(r) = self.replies.try_recv() {
            self.pending.push(r);
        }
        self.pending.iter().any(|r| &r["id"] == id)
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = json!(self.next);
        self.send_raw(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.reply(&id, 120)
    }

    pub fn initialize(&mut self) -> Value {
        let r = self.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test-harness", "version": "1"}}));
        self.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r
    }

    /// A tool call: the parsed payload of a good reply, or the JSON-RPC error.
    pub fn call(&mut self, tool: &str, args: Value) -> Result<Value, Value> {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        match r.get("result") {
            Some(res) => Ok(mpt_mcp::ToolReply::from_result(res).payload),
            None => Err(r["error"].clone()),
        }
    }

    /// SIGTERM to the edge, then its exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        self.child.wait().unwrap()
    }

    /// Sends a request without waiting; returns its id.
    pub fn send(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = json!(self.next);
        self.send_raw(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        id
    }

    pub fn close(&mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
        stop_owners(&self.owner_lock_dir);
    }
}

/// Stops the edge owners of a HOME when dropped (also on panic): for harnesses the test does not
/// start itself (opencode, the Inspector), whose `mpt edge` detaches an owner.
pub struct OwnersStopped(pub std::path::PathBuf);

impl OwnersStopped {
    pub fn of(env: &TestEnv) -> OwnersStopped {
        OwnersStopped(env.home().join(".mempalace/edge"))
    }
}

impl Drop for OwnersStopped {
    fn drop(&mut self) {
        stop_owners(&self.0);
    }
}

/// Stops the detached edge owners (and lingering ones) whose lock files are in `lock_dir`
/// (`<home>/.mempalace/edge`), by the pid each lock holds.
pub fn stop_owners(lock_dir: &std::path::Path) {
    let Ok(rd) = std::fs::read_dir(lock_dir) else {
        return;
    };
    for e in rd.flatten().filter(|e| {
        let name = e.file_name().to_string_lossy().to_string();
        name.ends_with(".owner.lock") || name.ends_with(".linger.lock")
    }) {
        if let Some(pid) = std::fs::read_to_string(e.path())
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<i32>().ok())
            && super::pid_alive(pid as u32)
        {
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
            super::wait_for(5.0, || !super::pid_alive(pid as u32));
        }
    }
}
