//! `mpt edge`: the local-first MCP proxy (RFC 001 §4). Each harness runs a thin shim (`shim`) that
//! relays stdio to the palace's one owner (`owner`), which runs the child and talks to the primary.
//!
//! The crate may import mpt-base, mpt-palace, mpt-mcp, mpt-outbox, mpt-coord and mpt-gateway (its policy judge); nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod coord;
pub mod health;
pub mod identity;
pub mod inflight;
pub mod launch;
pub mod log_fanout;
pub mod merge;
pub mod mine_lane;
pub mod owner;
pub mod proxy;
pub mod pull_loop;
mod quiet_io;
pub mod replicate;
pub mod retry_advice;
pub mod serve;
pub mod settle;
pub mod setup;
pub mod shim;
pub mod stamp;
pub mod status;
pub mod stop;
pub mod stop_gate;
pub mod stop_owner;
pub mod trust;
pub mod unopened;
mod write;
