//! Reading the coordination log for a mailbox through an MCP client: every page of the two
//! queries the derivation needs (open asks to me, everything I wrote), oldest first.

use serde_json::{Value, json};

use crate::mcp::{CallError, Deadline, McpClient};

/// `event_list`'s largest page.
pub const PAGE: usize = 500;

/// Open asks addressed to `me` (broadcasts included; the derivation drops them) and every event
/// `me` wrote, each read to its end, page by page.
pub async fn fetch(client: &McpClient, me: &str) -> Result<Vec<Value>, CallError> {
    let mut events = all_pages(
        client,
        json!({"to_agent": me, "status": super::CANDIDATE_STATUS}),
    )
    .await?;
    events.extend(all_pages(client, json!({"writer": me})).await?);
    Ok(events)
}

async fn all_pages(client: &McpClient, filter: Value) -> Result<Vec<Value>, CallError> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = filter.clone();
        args["order"] = json!("asc");
        args["limit"] = json!(PAGE);
        if let Some(c) = &cursor {
            args["since_event_id"] = json!(c);
        }
        let reply = client
            .call_tool("mempalace_event_list", args, Deadline::Default)
            .await?;
        let page = reply
            .payload
            .get("events")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let n = page.len();
        let last = page
            .last()
            .and_then(|e| e.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string);
        out.extend(page);
        match last {
            Some(id) if n >= PAGE => cursor = Some(id),
            _ => return Ok(out),
        }
    }
}
