//! The outbox: a durable, ordered queue of MCP write calls in one SQLite file (`store`, `order`,
//! `lease`), drained to the primary by one flusher at a time (`lock`, `flush`), replay-safe.
//!
//! The crate may import mpt-base, mpt-palace and mpt-mcp; nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod admin;
pub mod apart;
pub mod backfill;
pub mod classify;
pub mod flush;
pub mod intent;
mod last_error;
mod lease;
pub mod lock;
pub mod op_key;
mod order;
pub mod policy;
mod reader;
pub mod refs;
pub mod replay;
pub mod report;
mod resolve;
mod schema;
mod status;
pub mod store;
mod types;
pub mod util;

#[cfg(test)]
mod tests;

use serde_json::Value;

use mpt_base::config::Env;
use mpt_base::error::{MptError, Result};

pub use admin::{AuditEntry, Summary};
pub use flush::FlushOptions;
pub use last_error::{LastFlush, LastFlushDoc};
pub use lock::FlushLock;
pub use reader::existing;
pub use report::{FlushReport, Stop};
pub use schema::Synchronous;
pub use status::{OutboxStatus, status_at};
pub use store::{Enqueued, NewOp, OpenOptions, Outbox};
#[cfg(any(test, feature = "test-support"))]
pub use types::sample_op;
pub use types::{Op, OpDoc, OpState, Origin, StoredError};

/// Hard failures an op may have before it is failed and blocks the queue (daemon.py's MAX_ATTEMPTS).
pub const MAX_ATTEMPTS: i64 = 3;
/// Done and dropped ops are kept this long, then `purge` removes them (daemon.py's 7 days).
pub const RETENTION_DAYS: u64 = 7;

/// How this invocation opens the outbox: `MPT_OUTBOX_SYNC` = `full` (the default: a returned
/// enqueue survives a power loss) or `normal` (it survives a process kill; for slow disks).
pub fn open_options(env: &Env) -> Result<OpenOptions> {
    let synchronous = match mpt_base::config::edge::outbox_sync(env)? {
        mpt_base::config::edge::OutboxSync::Full => Synchronous::Full,
        mpt_base::config::edge::OutboxSync::Normal => Synchronous::Normal,
    };
    Ok(OpenOptions {
        synchronous,
        ..OpenOptions::default()
    })
}

/// An `MptError` as stored in `error_json`, scrubbed of every known secret (a server's error
/// text may echo the token; the outbox never holds it). A gateway's refusal keeps its `rule`.
pub fn error_json(e: &MptError) -> Value {
    let rule = e
        .detail
        .as_ref()
        .filter(|_| e.kind == mpt_base::error::ErrorKind::Refused)
        .and_then(|d| d.get("rule"));
    let mut v = serde_json::to_value(StoredError {
        kind: e.kind.as_str(),
        message: &e.message,
        hint: e.hint.as_deref(),
        at: util::rfc3339(util::now_ms()),
        rule,
    })
    .unwrap_or_default();
    mpt_base::secrets::scrub_json(&mut v);
    v
}

/// An op id shortened for people: its first 12 hex digits.
pub fn short(op_id: &str) -> &str {
    &op_id[..op_id.len().min(12)]
}
