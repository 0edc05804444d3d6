//! One device of the healing fleet: its own HOME, palace and link, and a harness session through
//! `mpt edge` (the shim, which starts the palace's owner and its real `mempalace-mcp` child).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mpt_outbox::{OpenOptions, Outbox};
use serde_json::{Value, json};

use crate::link::Link;

pub struct Device {
    pub name: String,
    pub link: Link,
    home: PathBuf,
    palace: PathBuf,
    edge: Child,
    stdin: ChildStdin,
    replies: mpsc::Receiver<Value>,
    next: u64,
}

impl Device {
    /// `mpt edge` (the binary `mpt`) for device `name` in `dir`, reaching the primary on
    /// `upstream` only through its own link; initialized.
    pub fn start(mpt: &Path, dir: &Path, name: &str, link: Link) -> Device {
        let testbed = crate::common::testbed();
        let home = crate::common::model_home(dir, &testbed);
        let palace = dir.join("local/palace");
        std::fs::create_dir_all(palace.parent().unwrap()).unwrap();
        let mut edge = crate::common::mempalace_command(mpt, &home, &testbed)
            .env("MEMPALACE_REMOTE_URL", link.url())
            .env("MEMPALACE_EDGE", "1")
            .env("MEMPALACE_PI_DEVICE", name)
            .env("MEMPALACE_PALACE_PATH", &palace)
            .env("MPT_EDGE_READ_DEADLINE_MS", "1500")
            .env("MPT_EDGE_GRACE_MS", "400")
            .args(["edge", "--harness", "pi"])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mpt edge");
        let stdout = edge.stdout.take().unwrap();
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = edge.stdin.take().unwrap();
        let mut d = Device {
            name: name.to_string(),
            link,
            home,
            palace,
            edge,
            stdin,
            replies,
            next: 0,
        };
        d.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}),
        );
        d.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        d
    }

    fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// One request and its reply (replies come in order: one request at a time).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let r = self
                .replies
                .recv_timeout(Duration::from_secs(300))
                .expect("the edge answered");
            if r["id"] == id {
                return r;
            }
        }
    }

    /// A tool call that must succeed.
    pub fn call(&mut self, tool: &str, args: Value) {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(r.get("result").is_some(), "{tool}: {r}");
    }

    /// Ops not yet done or dropped in this device's outbox.
    pub fn open_ops(&self) -> i64 {
        let path = self.home.join(".mempalace/edge/outbox.sqlite3");
        Outbox::open_read_only(&path, OpenOptions::default())
            .ok()
            .flatten()
            .and_then(|o| o.open_count().ok())
            .unwrap_or(-1)
    }

    /// Ends the session, then stops the palace's owner by its pid (it would linger otherwise)
    /// and waits for it to exit; the link, for the next round.
    pub fn stop(mut self) -> Link {
        let paths = mpt_edge::owner::OwnerPaths::new(
            &mpt_base::config::Env::from_pairs([("HOME", self.home.to_str().unwrap())]),
            &self.home,
            &self.palace,
        );
        let owner = mpt_edge::owner::owner_pid(&paths).or(mpt_edge::owner::lingering_pid(&paths));
        drop(self.stdin);
        let _ = self.edge.wait();
        if let Some(pid) = owner {
            // SAFETY: kill(2) on the owner this device's session started.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGTERM);
            }
            while Path::new(&format!("/proc/{pid}")).exists()
                && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                    s.rsplit(')')
                        .next()
                        .is_some_and(|r| r.trim_start().starts_with('Z'))
                })
            {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        self.link
    }
}
