//! The op key: the metadata field a replayed append carries (`metadata.mpt_op_id`), so an own
//! event and the primary's copy of it are known as one, and a replay as already landed.

use serde_json::Value;

pub const OP_KEY: &str = "mpt_op_id";

/// An event's op key, when it carries a non-empty one.
pub fn op_key(event: &Value) -> Option<&str> {
    event
        .get("metadata")?
        .get(OP_KEY)?
        .as_str()
        .filter(|s| !s.is_empty())
}
