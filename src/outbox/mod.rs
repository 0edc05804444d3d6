//! The outbox: a durable, ordered queue of MCP write calls in one SQLite file (`store`, `order`,
//! `lease`), drained to the primary by one flusher at a time (`lock`, `flush`), replay-safe.

pub mod admin;
pub mod apart;
pub mod backfill;
pub mod classify;
pub mod flush;
pub mod intent;
pub mod last_error;
pub mod lease;
pub mod lock;
pub mod order;
pub mod policy;
mod reader;
pub mod refs;
pub mod replay;
pub mod report;
mod resolve;
pub mod schema;
pub mod status;
pub mod store;
pub mod util;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::config::{Config, Env};
use crate::error::{MptError, Result};

pub use admin::Summary;
pub use flush::FlushOptions;
pub use last_error::LastFlush;
pub use lock::FlushLock;
pub use reader::existing;
pub use report::{FlushReport, Stop};
pub use schema::Synchronous;
pub use status::{OutboxStatus, status_at};
pub use store::{Enqueued, NewOp, OpenOptions, Outbox};

/// Hard failures an op may have before it is failed and blocks the queue (daemon.py's MAX_ATTEMPTS).
pub const MAX_ATTEMPTS: i64 = 3;
/// Done and dropped ops are kept this long, then `purge` removes them (daemon.py's 7 days).
pub const RETENTION_DAYS: u64 = 7;

/// Where the outbox lives: `MPT_OUTBOX`, else `outbox` in the config file, else
/// `outbox.sqlite3` in the edge's state folder (`~/.mempalace/edge`, under the MemPalace home
/// the edge-mode volume persists; on a read-only HOME `<palace>/.mpt-edge`: `StateDir`). The
/// palace is `palace`, else the one MemPalace would pick: the edge, `mpt outbox` and doctor
/// resolve the same file.
pub fn resolve_path(env: &Env, config: &Config, palace: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = crate::config::values::env_path(env, "MPT_OUTBOX")? {
        return Ok(p);
    }
    if let Some(p) = &config.file.outbox {
        return Ok(p.clone());
    }
    let state = crate::state_dir::StateDir::resolve(env, Some(config), palace)?;
    Ok(state.path.join("outbox.sqlite3"))
}

/// How this invocation opens the outbox: `MPT_OUTBOX_SYNC` = `full` (the default: a returned
/// enqueue survives a power loss) or `normal` (it survives a process kill; for slow disks).
pub fn open_options(env: &Env) -> Result<OpenOptions> {
    let synchronous = match crate::config::edge::outbox_sync(env)? {
        crate::config::edge::OutboxSync::Full => Synchronous::Full,
        crate::config::edge::OutboxSync::Normal => Synchronous::Normal,
    };
    Ok(OpenOptions {
        synchronous,
        ..OpenOptions::default()
    })
}

/// Who enqueues: the device (`MEMPALACE_PI_DEVICE`, else the host name) and the host; and the
/// device's feed inbox on the primary's host, the one place a queued `mempalace_mine` may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub device: String,
    pub host: String,
    /// `MEMPALACE_PI_REMOTE_PATH`, else `~/.mempalace/feed/inbox/<device>` (`None`: no mine is
    /// admitted).
    pub inbox: Option<String>,
}

impl Origin {
    pub fn from_config(config: &Config) -> Origin {
        let host = util::hostname();
        Origin {
            device: config.device.clone().unwrap_or_else(|| host.clone()),
            host,
            inbox: Some(config.feed.remote_path_or_default(config.device.as_deref())),
        }
    }
}

/// An op's place in its life: queued → leased → done, or failed (blocks) → queued by retry, or
/// dropped by an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpState {
    Queued,
    Leased,
    Done,
    Failed,
    Dropped,
}

impl OpState {
    pub const ALL: [OpState; 5] = [
        OpState::Queued,
        OpState::Leased,
        OpState::Done,
        OpState::Failed,
        OpState::Dropped,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OpState::Queued => "queued",
            OpState::Leased => "leased",
            OpState::Done => "done",
            OpState::Failed => "failed",
            OpState::Dropped => "dropped",
        }
    }

    pub fn parse(s: &str) -> Option<OpState> {
        OpState::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// Not yet settled: still ahead of (or at) the head of the queue.
    pub fn is_open(self) -> bool {
        matches!(self, OpState::Queued | OpState::Leased | OpState::Failed)
    }
}

/// One row of the outbox.
#[derive(Debug, Clone)]
pub struct Op {
    /// Queue order (insertion order across every process sharing the file).
    pub id: i64,
    pub op_id: String,
    pub local_seq: i64,
    pub origin_device: String,
    pub origin_host: String,
    pub tool_name: String,
    pub payload: Value,
    pub dedupe_key: Option<String>,
    pub state: OpState,
    /// Hard failures so far; at `MAX_ATTEMPTS` the op is failed.
    pub attempts: i64,
    /// Times the op was claimed for sending.
    pub sends: i64,
    /// A send may have reached the primary without our knowing its outcome: check before resending.
    pub unconfirmed: bool,
    pub next_attempt_at: i64,
    pub lease_token: Option<String>,
    pub lease_expires_at: Option<i64>,
    pub first_sent_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    pub flushed_at: Option<i64>,
    /// applied | already_there | verified_present | dropped
    pub outcome: Option<String>,
    /// The id the primary gave the effect (event id, drawer id, diary timestamp...).
    pub primary_ref: Option<String>,
    pub error: Option<Value>,
}

impl Op {
    /// The op for `--json` and `show`; the payload only when asked (lists stay small).
    pub fn to_json(&self, with_payload: bool) -> Value {
        let ts = |v: Option<i64>| v.filter(|t| *t > 0).map(util::rfc3339);
        let mut v = json!({
            "op_id": self.op_id,
            "local_seq": self.local_seq,
            "origin_device": self.origin_device,
            "origin_host": self.origin_host,
            "tool": self.tool_name,
            "state": self.state,
            "attempts": self.attempts,
            "sends": self.sends,
            "unconfirmed": self.unconfirmed,
            "dedupe_key": self.dedupe_key,
            "created_at": util::rfc3339(self.created_at),
            "next_attempt_at": ts(Some(self.next_attempt_at)),
            "lease_expires_at": ts(self.lease_expires_at),
            "first_sent_at": ts(self.first_sent_at),
            "flushed_at": ts(self.flushed_at),
            "outcome": self.outcome,
            "primary_ref": self.primary_ref,
            "error": self.error,
        });
        if with_payload {
            v["payload"] = self.payload.clone();
        }
        v
    }

    /// `mempalace_kg_add` → `kg_add`, for people.
    pub fn short_tool(&self) -> &str {
        crate::palace::catalog::bare(&self.tool_name)
    }

    /// The rule of the primary's gateway that refused this op (-32020), when it was refused so.
    pub fn denied_by(&self) -> Option<&str> {
        self.error.as_ref()?.get("rule")?.as_str()
    }

    /// How a failed op came to fail, for people: refused by the gateway's rule, or its attempts.
    pub fn failed_how(&self) -> String {
        match self.denied_by() {
            Some(rule) => format!("was refused by the primary's gateway (rule {rule})"),
            None => format!("failed after {} attempts", self.attempts),
        }
    }

    /// The first line of the last error's message.
    pub fn error_line(&self) -> Option<String> {
        let e = self.error.as_ref()?;
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
        Some(msg.lines().next().unwrap_or("").to_string())
    }
}

/// An `MptError` as stored in `error_json`, scrubbed of every known secret (a server's error
/// text may echo the token; the outbox never holds it). A gateway's refusal keeps its `rule`.
pub fn error_json(e: &MptError) -> Value {
    let mut v = json!({"kind": e.kind.as_str(), "message": e.message, "hint": e.hint, "at": util::rfc3339(util::now_ms())});
    if let Some(rule) = e
        .detail
        .as_ref()
        .filter(|_| e.kind == crate::error::ErrorKind::Refused)
        .and_then(|d| d.get("rule"))
    {
        v["rule"] = rule.clone();
    }
    crate::secrets::scrub_json(&mut v);
    v
}

/// An op id shortened for people: its first 12 hex digits.
pub fn short(op_id: &str) -> &str {
    &op_id[..op_id.len().min(12)]
}
