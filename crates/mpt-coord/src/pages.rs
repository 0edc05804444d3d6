//! Reading the coordination log through an MCP client, page by page: every page of the queries a
//! mailbox's derivation needs (the open asks to my identities, then each addressee's own events).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::Me;
use mpt_mcp::{CallError, Deadline, McpClient};

/// `event_list`'s largest page.
pub const PAGE: usize = 500;

/// The open asks addressed to one of `me`'s identities (broadcasts included; the derivation
/// drops them) and every event each addressee wrote, each read to its end, page by page.
/// MemPalace matches `to_agent` exactly, so for a device's `*@<device>` the open asks are read
/// unfiltered and matched here.
pub async fn fetch(client: &McpClient, me: &Me) -> Result<Vec<Value>, CallError> {
    if let Some(one) = me.exact() {
        let mut events = all_pages(
            client,
            json!({"to_agent": one, "status": super::CANDIDATE_STATUS}),
        )
        .await?;
        events.extend(all_pages(client, json!({"writer": one})).await?);
        return Ok(events);
    }
    let mut events: Vec<Value> = all_pages(client, json!({"status": super::CANDIDATE_STATUS}))
        .await?
        .into_iter()
        .filter(|e| {
            e.get("to_agent")
                .and_then(Value::as_str)
                .is_some_and(|to| to == super::BROADCAST || me.is(to))
        })
        .collect();
    let addressees: BTreeSet<String> = events
        .iter()
        .filter_map(|e| e.get("to_agent").and_then(Value::as_str))
        .filter(|to| me.is(to))
        .map(str::to_string)
        .collect();
    for who in addressees {
        events.extend(all_pages(client, json!({"writer": who})).await?);
    }
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
