//! The coordination log below the edge and the mailbox: its events and their one causal order
//! (`event`), the local copy (`local`), paging (`pages`), the union of two logs (`union`), the
//! pull.
//!
//! The crate may import mpt-base, mpt-palace, mpt-mcp and mpt-outbox; nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

// Floors: `edge` (coordination reads, the owner's pull schedule) and `mailbox` (the derivation,
// offline answers) import this; it imports neither.

pub mod event;
pub mod follow;
pub mod local;
mod me;
pub mod pages;
pub mod pull;
pub mod puller;
pub mod stream;
pub mod union;

pub use event::{
    BROADCAST, CANDIDATE_STATUS, CausalKey, Event, Parsed, TERMINAL_STATUSES, parse_events,
};
pub use me::Me;

// The op key is the outbox's (it stamps it before a first send, and a replay checks it); the
// coordination log reads it to know an own event and the primary's copy as one.
pub use mpt_outbox::op_key::{OP_KEY, op_key};
