//! `mpt edge stop`, the asking side: `mpt/stop` sent to the owner over its socket (as a dry run:
//! who is attached), and mpt's own owner named as the holder of a palace, with the command that frees it.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use super::owner::OwnerPaths;
use super::stop_gate::parent_of;
pub use super::stop_gate::{Attached, STOP_METHOD};
use mpt_base::config::Env;
use mpt_mcp::jsonrpc;

/// What the owner answered `mpt/stop`.
#[derive(Debug, Clone, Deserialize)]
pub struct Answer {
    pub stopping: bool,
    pub owner_pid: u32,
    pub sessions: Vec<Attached>,
    pub inflight: usize,
}

/// Asks the owner on `paths`'s socket to stop (or, with `dry_run`, who is attached), as one of
/// mpt's tool clients; `None` when no owner answers there within `wait`.
pub fn ask(paths: &OwnerPaths, dry_run: bool, wait: Duration) -> Option<Answer> {
    let stream = UnixStream::connect(&paths.socket).ok()?;
    exchange(stream, dry_run, wait)
}

fn exchange(mut stream: UnixStream, dry_run: bool, wait: Duration) -> Option<Answer> {
    stream.set_read_timeout(Some(wait)).ok()?;
    let hello = json!({"mpt_edge_hello": {"harness": "stop"}});
    let request = jsonrpc::request(&json!(1), STOP_METHOD, Some(json!({"dry_run": dry_run})));
    stream
        .write_all(format!("{hello}\n{request}\n").as_bytes())
        .ok()?;
    let mut lines = BufReader::new(stream);
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if v["id"] == json!(1) {
            return serde_json::from_value(v.get("result")?.clone()).ok();
        }
    }
}

/// mpt's own edge owner as a holder of the palace (its child has it open), and who uses it.
#[derive(Debug, Clone)]
pub struct OwnerHold {
    pub owner_pid: u32,
    pub sessions: Vec<Attached>,
}

impl OwnerHold {
    /// The palace's owner, when one answers on its socket.
    pub fn of(env: &Env, home: &Path, palace: &Path) -> Option<OwnerHold> {
        let paths = OwnerPaths::new(env, home, palace);
        let a = ask(&paths, true, Duration::from_secs(2))?;
        Some(OwnerHold {
            owner_pid: a.owner_pid,
            sessions: a.sessions,
        })
    }

    /// Whether `pid` is the owner or its child (the `mempalace-mcp` that holds the palace).
    pub fn holds_as(&self, pid: u32) -> bool {
        pid == self.owner_pid || parent_of(pid) == Some(self.owner_pid)
    }

    /// Who it is, in a holder list: `the child of mpt's edge owner (pid O), with no harness
    /// session` or `…, serving N harness session(s)`.
    pub fn described(&self) -> String {
        match self.sessions.len() {
            0 => format!(
                "mpt's own edge owner (pid {}), lingering with no harness session",
                self.owner_pid
            ),
            n => format!(
                "mpt's edge owner (pid {}), serving {n} harness session(s): {}",
                self.owner_pid,
                self.sessions
                    .iter()
                    .map(describe)
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        }
    }

    /// The one command that frees the palace, then `then`.
    pub fn fix(&self, palace: &Path, then: &str) -> String {
        let stop = format!("`mpt edge stop --palace {}`", palace.display());
        if self.sessions.is_empty() {
            format!("{stop} stops it (what it queued stays in the outbox), then {then}")
        } else {
            format!(
                "quit those harness sessions, then {stop} (it refuses, exit 6, while one is attached), then {then}"
            )
        }
    }
}

/// `pid S (the opencode session's mpt edge, under pid H)`, for a message that names who holds.
pub fn describe(a: &Attached) -> String {
    let pid = a.pid.map_or("?".into(), |p| p.to_string());
    match a.parent_pid {
        Some(h) => format!(
            "pid {pid} (`mpt edge` for {}, started by pid {h})",
            a.harness
        ),
        None => format!("pid {pid} (`mpt edge` for {})", a.harness),
    }
}
