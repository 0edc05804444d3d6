//! `mpt gateway`: a front of ours before `mempalace serve` on the primary host (RFC 001 §6, §8
//! Phase 4): one token per device, roles from a reviewable policy, a hash-chained audit, rate limits.

pub mod audit;
mod auth;
mod ctx;
pub mod envfile;
mod fanout;
mod forward;
mod framing;
mod front;
mod handler;
mod held;
pub mod last_used;
mod lookup;
mod mine_call;
mod mine_slot;
pub mod policy;
pub mod rate;
mod reads;
mod relay;
mod reload;
pub mod reply;
mod rpc;
pub mod serve;
mod shared;
mod sse;
pub mod state;
mod step;
mod tls;
pub mod token;
pub mod tokens;
mod upstream;
mod vector;

pub use state::StateDir;
