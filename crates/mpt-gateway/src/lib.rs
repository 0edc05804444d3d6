//! `mpt gateway`: a front of ours before `mempalace serve` on the primary host (RFC 001 §6, §8
//! Phase 4): one token per device, roles from a reviewable policy, a hash-chained audit, rate
//! limits.
//!
//! The crate may import mpt-base, mpt-palace and mpt-mcp; nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod decide;
mod handler;
mod http;
mod inbox;
mod join;
pub mod keys;
pub mod record;
pub mod serve;
pub mod serve_record;
mod shared;
pub mod state;

pub use state::StateDir;
