//! What a decision needs from the primary before the call goes: `update_drawer`'s drawer's wing
//! today (`get_drawer`). The drawer may move between the look-up and the update: that race is accepted.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hyper::{HeaderMap, Method};
use serde_json::{Value, json};

use super::forward::{self, MAX_BODY};
use super::policy::{Current, Policy};
use super::shared::Shared;
use super::upstream::Failed;

/// A look-up is one small read: a network's deadline, not a mine's.
const LOOKUP_WAIT: Duration = Duration::from_secs(30);

/// What `policy` needs looked up to decide `tool` with `args` for `device` (nothing when it
/// needs nothing). A drawer the primary does not have has no wing: the update then fails there.
pub async fn current(
    sh: &Arc<Shared>,
    policy: &Policy,
    device: &str,
    tool: &str,
    args: &Value,
) -> Result<Current, Failed> {
    if !policy.needs_current(device, tool) {
        return Ok(Current::default());
    }
    let Some(id) = args.get("drawer_id").and_then(Value::as_str) else {
        return Ok(Current::default());
    };
    let body = json!({"jsonrpc": "2.0", "id": "mpt-gateway-lookup", "method": "tools/call",
        "params": {"name": "mempalace_get_drawer", "arguments": {"drawer_id": id}}});
    let up = sh.upstream.request(
        Method::POST,
        "/mcp",
        &HeaderMap::new(),
        &[],
        Bytes::from(body.to_string()),
    );
    let (_, bytes) = forward::fetch(sh, up, LOOKUP_WAIT, MAX_BODY).await?;
    Ok(Current {
        wing: drawer_wing(&bytes),
        ..Current::default()
    })
}

/// The `wing` of a `get_drawer` reply (`None` for "Drawer not found" or anything else).
fn drawer_wing(reply: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(reply).ok()?;
    let text = v
        .pointer("/result/content")?
        .as_array()?
        .last()?
        .get("text")?
        .as_str()?;
    let payload: Value = serde_json::from_str(text).ok()?;
    payload.get("wing")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wing_of_a_found_drawer_and_none_of_a_missing_one() {
        let reply = |payload: Value| {
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": payload.to_string()}]}})
                .to_string()
        };
        let found = reply(json!({"drawer_id": "d", "wing": "wing_lap", "room": "r"}));
        assert_eq!(drawer_wing(found.as_bytes()).as_deref(), Some("wing_lap"));
        let missing = reply(json!({"error": "Drawer not found: d"}));
        assert_eq!(drawer_wing(missing.as_bytes()), None);
        assert_eq!(drawer_wing(b"<html>"), None);
    }
}
