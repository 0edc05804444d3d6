//! `mpt gateway`: a front of ours before `mempalace serve` on the primary host (RFC 001 §6, §8
//! Phase 4): one token per device, roles from a reviewable policy, a hash-chained audit, rate limits.

pub mod audit;
pub mod envfile;
pub mod last_used;
pub mod policy;
pub mod rate;
pub mod state;
pub mod token;
pub mod tokens;

pub use state::StateDir;
