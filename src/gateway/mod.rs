//! `mpt gateway`: a front of ours before `mempalace serve` on the primary host (RFC 001 §6, §8
//! Phase 4): one token per device, roles from a reviewable policy, a hash-chained audit, rate limits.

pub mod decide;
mod handler;
pub mod http;
pub mod inbox;
mod join;
pub mod keys;
pub mod record;
pub mod serve;
pub mod serve_record;
mod shared;
pub mod state;

pub use state::StateDir;
