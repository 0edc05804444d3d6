//! The harnesses users run, from the npm registry (tests/harnesses/ pins them): the MCP
//! Inspector CLI, opencode and pi, each driving mpt as a user's setup would.

mod claude;
mod claude_wire;
mod codex;
mod eras;
mod inspector;
mod opencode;
pub(crate) mod pi;

use serde_json::{Value, json};

use crate::support::Primary;

/// The drawer on the primary holding `content`, read back whole.
pub(super) fn on_primary(primary: &Primary, content: &str) -> Option<Value> {
    let found = primary
        .call("mempalace_search", json!({"query": content, "limit": 10}))
        .ok()?;
    let id = found["results"]
        .as_array()?
        .iter()
        .find(|r| r.to_string().contains(content))?["drawer_id"]
        .clone();
    primary
        .call("mempalace_get_drawer", json!({"drawer_id": id}))
        .ok()
}
