//! What the gateway decides of a request: who asks (auth), at what rate, what the policy lets
//! the device do with it (rpc, reads, streams, a mine), as a `Step` the handler records and carries out.

pub(super) mod auth;
pub(super) mod ctx;
pub(super) mod era;
pub(super) mod lookup;
pub(super) mod mine_call;
pub(super) mod mine_slot;
pub mod policy;
pub mod rate;
pub(super) mod reads;
pub(super) mod rpc;
pub(super) mod sse;
pub(super) mod step;
pub(super) mod vector;
