//! `mpt edge`: the local-first MCP proxy (RFC 001 §4). Each harness runs a thin shim (`shim`) that
//! relays stdio to the palace's one owner (`owner`), which runs the child and talks to the primary.
//!
//! The crate may import mpt-base, mpt-palace, mpt-mcp, mpt-outbox, mpt-coord and mpt-gateway (its
//! policy judge); nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod coord;
mod health;
mod identity;
mod inflight;
pub mod launch;
pub mod log_fanout;
mod merge;
mod mine_lane;
pub mod owner;
pub mod proxy;
mod pull_loop;
mod quiet_io;
mod replicate;
mod retry_advice;
pub mod serve;
mod settle;
mod setup;
mod shim;
mod stamp;
pub mod status;
pub mod stop;
mod stop_gate;
pub mod stop_owner;
mod trust;
mod unopened;
mod write;
