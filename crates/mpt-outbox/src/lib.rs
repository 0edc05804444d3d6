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

pub use admin::{AuditEntry, Summary};
pub use flush::FlushOptions;
pub use last_error::{LastFlush, LastFlushDoc};
pub use lock::FlushLock;
pub use reader::existing;
pub use report::{FlushReport, Stop};
pub use schema::Synchronous;
pub use status::{OutboxStatus, status_at};
pub use store::{Enqueued, NewOp, OpenOptions, Outbox, open_options};
#[cfg(any(test, feature = "test-support"))]
pub use types::sample_op;
pub use types::{
    MAX_ATTEMPTS, Op, OpDoc, OpState, Origin, RETENTION_DAYS, StoredError, error_json,
};
pub use util::short;
