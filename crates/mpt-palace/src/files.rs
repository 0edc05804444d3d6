//! The small files MemPalace leaves beside a palace that `mpt` reads: the embedder sidecar, the
//! server registry record (`serverinfo.json`) and the writer lease's holder.

use std::fs::{File, TryLockError};
use std::path::Path;

use serde_json::Value;

use mpt_base::error::{MptError, Result};

/// The palace's embedder identity (`mempalace_embedder.json`, keyed by collection).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EmbedderIdentity {
    pub model_name: String,
    /// 0 means unknown: MemPalace's own check skips it.
    pub dimension: u64,
}

pub const DRAWERS_COLLECTION: &str = "mempalace_drawers";

pub fn embedder_identity(sidecar: &Path) -> Result<Option<EmbedderIdentity>> {
    let Some(v) = read_json(sidecar)? else {
        return Ok(None);
    };
    let entry = v
        .get(DRAWERS_COLLECTION)
        .or_else(|| v.as_object().and_then(|o| o.values().next()));
    Ok(entry.and_then(|e| {
        Some(EmbedderIdentity {
            model_name: e.get("model_name")?.as_str()?.to_string(),
            dimension: e.get("dimension").and_then(Value::as_u64).unwrap_or(0),
        })
    }))
}

/// A `mempalace serve` registered for a palace (`~/.mempalace/server/<key>/serverinfo.json`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ServerInfo {
    pub pid: u32,
    pub host: String,
    pub port: u16,
    pub scheme: String,
    pub read_only: bool,
    pub palace_path: Option<String>,
    /// The record is trusted only while its pid is alive (as MemPalace does).
    pub alive: bool,
}

impl ServerInfo {
    pub fn mcp_url(&self) -> String {
        format!("{}://{}:{}/mcp", self.scheme, self.host, self.port)
    }
}

pub fn server_info(path: &Path) -> Result<Option<ServerInfo>> {
    let Some(v) = read_json(path)? else {
        return Ok(None);
    };
    let pid = v.get("pid").and_then(Value::as_u64).unwrap_or(0) as u32;
    Ok(Some(ServerInfo {
        pid,
        host: v
            .get("host")
            .and_then(Value::as_str)
            .unwrap_or("127.0.0.1")
            .to_string(),
        port: v.get("port").and_then(Value::as_u64).unwrap_or(0) as u16,
        scheme: v
            .get("scheme")
            .and_then(Value::as_str)
            .unwrap_or("http")
            .to_string(),
        read_only: v.get("read_only").and_then(Value::as_bool).unwrap_or(false),
        palace_path: v
            .get("palace_path")
            .and_then(Value::as_str)
            .map(str::to_string),
        alive: pid_alive(pid),
    }))
}

/// Who holds a palace's writer lease, if anyone.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LeaseHolder {
    pub held: bool,
    /// From the lock body (`<sentinel><pid> <argv[:3]>`), when it names one.
    pub pid: Option<u32>,
    pub command: Option<String>,
    pub pid_alive: bool,
}

/// Reads the lease file and tests it with a shared, non-blocking lock (released at once), so a
/// live holder is seen without ever taking the lease from it.
pub fn lease_holder(lease: &Path) -> Result<Option<LeaseHolder>> {
    let file = match File::open(lease) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(MptError::io(format!("opening {}", lease.display()), &e)),
    };
    let held = match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            false
        }
        Err(TryLockError::WouldBlock) => true,
        Err(TryLockError::Error(e)) => {
            return Err(MptError::io(
                format!("testing the lock on {}", lease.display()),
                &e,
            ));
        }
    };
    let body = std::fs::read(lease).unwrap_or_default();
    let text = String::from_utf8_lossy(body.get(1..).unwrap_or_default())
        .trim()
        .to_string();
    let (pid, command) = match text.split_once(' ') {
        Some((p, rest)) => (p.parse().ok(), Some(rest.to_string())),
        None => (text.parse().ok(), None),
    };
    Ok(Some(LeaseHolder {
        held,
        pid,
        command,
        pid_alive: pid.is_some_and(pid_alive),
    }))
}

/// Who holds the palace's writer lease right now, as a phrase (`pid 123 (mempalace-mcp …)`):
/// a live process writes to it, and a second writer would be refused. `None`: nobody.
pub fn lease_held_by(lease: &Path) -> Result<Option<String>> {
    let Some(h) = lease_holder(lease)?.filter(|h| h.held) else {
        return Ok(None);
    };
    Ok(Some(match (h.pid, &h.command) {
        (Some(p), Some(c)) => format!("pid {p} ({c})"),
        (Some(p), None) => format!("pid {p}"),
        _ => "another process".to_string(),
    }))
}

pub fn pid_alive(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    mpt_base::sys::alive(pid)
}

/// The palace's replica id (`replica.json`, minted by MemPalace's log on first use), which
/// `origin_replica` names on every event this palace authored.
pub fn replica_id(palace: &Path) -> Option<String> {
    let v = read_json(&palace.join("replica.json")).ok()??;
    v.get("replica_id")?.as_str().map(str::to_string)
}

fn read_json(path: &Path) -> Result<Option<Value>> {
    match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str(&t)
            .map(Some)
            .map_err(|e| MptError::usage(format!("{} is not valid JSON: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(MptError::io(format!("reading {}", path.display()), &e)),
    }
}
