//! What a decision needs from the primary before the call goes: `update_drawer`'s drawer's wing
//! (`get_drawer`; it may move between the look-up and the update: that race is accepted), and
//! `event_ack`'s target's stream (`event_list` around its id; events never change).

use std::time::Duration;

use bytes::Bytes;
use hyper::{HeaderMap, Method};
use serde_json::{Value, json};

use crate::decide::policy::{Current, Policy};
use crate::http::forward::{self, MAX_BODY};

use crate::http::upstream::{Failed, Upstream};

/// A look-up is one small read: a network's deadline, not a mine's.
const LOOKUP_WAIT: Duration = Duration::from_secs(30);

/// What `policy` needs looked up to decide `tool` with `args` for `device` (nothing when it
/// needs nothing). A drawer the primary does not have has no wing: the update then fails there.
pub async fn current(
    upstream: &Upstream,
    policy: &Policy,
    device: &str,
    tool: &str,
    args: &Value,
) -> Result<Current, Failed> {
    if policy.needs_stream(device, tool) {
        let Some(id) = args.get("event_id").and_then(Value::as_str) else {
            return Ok(Current::default());
        };
        return Ok(Current {
            stream: event_stream(upstream, mpt_palace::catalog::py_strip(id)).await?,
            ..Current::default()
        });
    }
    if !policy.needs_current(device, tool) {
        return Ok(Current::default());
    }
    if mpt_palace::catalog::bare(tool) == "create_tunnel" {
        let mut drawers = std::collections::BTreeMap::new();
        for arg in ["source_drawer_id", "target_drawer_id"] {
            if let Some(id) = args.get(arg).and_then(Value::as_str) {
                let bytes =
                    lookup(upstream, "mempalace_get_drawer", json!({"drawer_id": id})).await?;
                drawers.insert(arg.to_string(), drawer_wing(&bytes));
            }
        }
        return Ok(Current {
            drawers,
            ..Current::default()
        });
    }
    let Some(id) = args.get("drawer_id").and_then(Value::as_str) else {
        return Ok(Current::default());
    };
    let bytes = lookup(upstream, "mempalace_get_drawer", json!({"drawer_id": id})).await?;
    let room =
        payload(&bytes).and_then(|p| p.get("room").and_then(Value::as_str).map(str::to_string));
    Ok(Current {
        wing: drawer_wing(&bytes),
        room,
        ..Current::default()
    })
}

/// One tool call of the gateway's own, its reply's bytes.
pub async fn lookup(upstream: &Upstream, tool: &str, args: Value) -> Result<Bytes, Failed> {
    let body = json!({"jsonrpc": "2.0", "id": "mpt-gateway-lookup", "method": "tools/call",
        "params": {"name": tool, "arguments": args}});
    let up = upstream.request(
        Method::POST,
        "/mcp",
        &HeaderMap::new(),
        &[],
        Bytes::from(body.to_string()),
    );
    Ok(forward::fetch(upstream, up, LOOKUP_WAIT, MAX_BODY).await?.1)
}

/// The stream of the event `id` (`None`: no such event; the ack then fails on the primary).
/// No tool reads one event by id, so: the event just before it, then the first one after that.
async fn event_stream(upstream: &Upstream, id: &str) -> Result<Option<String>, Failed> {
    let before = lookup(
        upstream,
        "mempalace_event_list",
        json!({"before_event_id": id, "order": "desc", "limit": 1}),
    )
    .await?;
    let Some(before) = payload(&before) else {
        return Ok(None);
    };
    if before.get("error").is_some() {
        return Ok(None);
    }
    let mut next = json!({"order": "asc", "limit": 1});
    if let Some(prev) = before.pointer("/events/0/id") {
        next["since_event_id"] = prev.clone();
    }
    let found = payload(&lookup(upstream, "mempalace_event_list", next).await?);
    let event = found.as_ref().and_then(|f| f.pointer("/events/0"));
    Ok(event
        .filter(|e| e.get("id").and_then(Value::as_str) == Some(id))
        .and_then(|e| e.get("stream")?.as_str().map(str::to_string)))
}

/// A `tools/call` reply's payload (its last text block, parsed).
pub fn payload(reply: &[u8]) -> Option<Value> {
    let v: Value = serde_json::from_slice(reply).ok()?;
    let text = v
        .pointer("/result/content")?
        .as_array()?
        .last()?
        .get("text")?
        .as_str()?;
    serde_json::from_str(text).ok()
}

/// The `wing` of a `get_drawer` reply (`None` for "Drawer not found" or anything else).
fn drawer_wing(reply: &[u8]) -> Option<String> {
    payload(reply)?.get("wing")?.as_str().map(str::to_string)
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
