//! The coordination log below the edge and the mailbox: its events and their one causal order
//! (`event`), the local copy (`local`), paging (`pages`), the union of two logs (`union`), the pull.

// Floors: `edge` (coordination reads, the owner's pull schedule) and `mailbox` (the derivation,
// offline answers) import this; it imports neither.

pub mod event;
pub mod follow;
pub mod local;
pub mod me;
pub mod pages;
pub mod pull;
pub mod puller;
pub mod stream;
pub mod union;

use serde_json::Value;

pub use event::{
    BROADCAST, CANDIDATE_STATUS, CausalKey, Event, Parsed, TERMINAL_STATUSES, parse_events,
};
pub use me::Me;

/// The op key: the metadata field a replayed append carries (`metadata.mpt_op_id`), so an own
/// event and the primary's copy of it are known as one, and a replay as already landed.
pub const OP_KEY: &str = "mpt_op_id";

/// An event's op key, when it carries a non-empty one.
pub fn op_key(event: &Value) -> Option<&str> {
    event
        .get("metadata")?
        .get(OP_KEY)?
        .as_str()
        .filter(|s| !s.is_empty())
}
