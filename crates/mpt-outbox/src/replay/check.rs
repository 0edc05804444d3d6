//! The lookups a replay check makes on the primary, one per strategy, with read tools only:
//! event_list pages, diary_read, kg_query; and the server's own normalisation rules.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::kg_key::Fact;
use super::{Check, MAX_PAGES, PAGE, Schemas, Strategy, send_args, strategy, window_start};
use crate::{Op, util};
use mpt_mcp::{CallError, Deadline, McpClient};

/// Asks the primary whether the op's earlier, ambiguous send landed. `confirmed` holds the
/// primary's ids for effects other ops already own (an identical diary entry or ack written
/// on purpose by an earlier op is not this op's).
pub async fn check(
    client: &McpClient,
    op: &Op,
    schemas: &Schemas,
    confirmed: &[String],
) -> Result<Check, CallError> {
    let p = &op.payload;
    let since = util::rfc3339(window_start(op).max(0));
    let mine = |e: &Value| {
        !confirmed
            .iter()
            .any(|c| Some(c.as_str()) == e["id"].as_str())
    };
    match strategy(&op.tool_name, p) {
        Strategy::Idempotent | Strategy::Orphan => Ok(Check::NotNeeded),
        Strategy::Unverifiable => Ok(Check::Unverifiable(format!(
            "{} is not a tool mpt can check on the primary after an unanswered send",
            op.tool_name
        ))),
        Strategy::EventKey => {
            let args = send_args(op, schemas);
            let Some(key) = crate::op_key::op_key(&args) else {
                return Ok(Check::Unverifiable(format!(
                    "the primary's {} declares no metadata to carry the op key",
                    op.tool_name
                )));
            };
            let patch = op.tool_name.ends_with("patch_submit");
            let filters = json!({
                "type": if patch { Some("patch.ready".to_string()) } else { text(p, "type") },
                "stream": text(p, "stream"),
                "room": text(p, "room").or(patch.then(|| "patches".to_string())),
                "writer": text(p, "from_agent"),
                "preview": true,
            });
            let found = scan(client, filters, &since, |e| {
                crate::op_key::op_key(e) == Some(key)
            })
            .await?;
            Ok(found.into_check())
        }
        Strategy::Ack => {
            let filters = json!({"type": "event.ack", "writer": text(p, "from_agent")});
            let target = text(p, "event_id");
            let status = text(p, "status");
            let body = p.get("body").and_then(Value::as_str).unwrap_or("");
            let topic = text(p, "topic");
            let found = scan(client, filters, &since, |e| {
                e.pointer("/metadata/ack_of").and_then(Value::as_str) == target.as_deref()
                    && e["status"].as_str().map(str::to_string) == status
                    && e["body"].as_str().unwrap_or("") == body
                    && topic
                        .as_ref()
                        .is_none_or(|t| e["topic"].as_str() == Some(t))
                    && mine(e)
            })
            .await?;
            Ok(found.into_check())
        }
        Strategy::Task => {
            let filters = json!({"type": "task.request", "room": "delegation", "writer": text(p, "from_agent")});
            let body = task_body(raw(p, "goal"), raw(p, "done"));
            let to = text(p, "to_agent");
            let branch = text(p, "branch");
            let commit = text(p, "base_commit").map(|c| c.to_lowercase());
            let found = scan(client, filters, &since, |e| {
                e["body"].as_str() == Some(&body)
                    && e["to_agent"].as_str().map(str::to_string) == to
                    && e["branch"].as_str().map(str::to_string) == branch
                    && e["base_commit"].as_str().map(str::to_string) == commit
                    && mine(e)
            })
            .await?;
            Ok(found.into_check())
        }
        Strategy::KgHistorical => {
            let reply = client
                .call_tool(
                    "mempalace_kg_query",
                    json!({"entity": text(p, "subject"), "direction": "outgoing"}),
                    Deadline::Default,
                )
                .await?;
            let want = Fact::from_row(p);
            let hit = reply.payload["facts"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|f| Fact::from_row(f) == want);
            Ok(if hit {
                Check::Present(None, None)
            } else {
                Check::Absent
            })
        }
        Strategy::Diary => {
            let entry = p
                .get("entry")
                .or_else(|| p.get("content"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let topic = text(p, "topic").unwrap_or_else(|| "general".into());
            let found = diary_entry(
                client,
                raw(p, "agent_name"),
                text(p, "wing"),
                entry,
                &topic,
                confirmed,
            )
            .await?;
            Ok(found.map_or(Check::Absent, |ts| Check::Present(Some(ts), None)))
        }
        Strategy::Checkpoint => {
            let d = &p["diary"];
            let entry = d
                .get("entry")
                .or_else(|| d.get("content"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let agent = d
                .get("agent_name")
                .and_then(Value::as_str)
                .unwrap_or("cursor-ide");
            let topic = text(d, "topic").unwrap_or_else(|| "session-checkpoint".into());
            let found =
                diary_entry(client, agent, text(d, "wing"), entry, &topic, confirmed).await?;
            Ok(match found {
                None => Check::Absent,
                Some(ts) => {
                    let mut items_only = p.clone();
                    items_only.as_object_mut().map(|m| m.remove("diary"));
                    let has_items = items_only["items"]
                        .as_array()
                        .is_some_and(|a| !a.is_empty());
                    if has_items {
                        Check::Resend {
                            args: items_only,
                            primary_ref: Some(ts),
                        }
                    } else {
                        Check::Present(Some(ts), None)
                    }
                }
            })
        }
    }
}

enum Scan {
    Found(Value),
    NotFound,
    TooMany,
}

impl Scan {
    fn into_check(self) -> Check {
        match self {
            Scan::Found(e) => Check::Present(e["id"].as_str().map(str::to_string), Some(e)),
            Scan::NotFound => Check::Absent,
            Scan::TooMany => Check::Unverifiable(format!(
                "more than {} events in the check's window: too many to scan",
                PAGE * MAX_PAGES
            )),
        }
    }
}

/// Pages event_list (newest first) over the window until `hit` matches or the window is done.
async fn scan(
    client: &McpClient,
    filters: Value,
    since: &str,
    hit: impl Fn(&Value) -> bool,
) -> Result<Scan, CallError> {
    let mut args = filters;
    let obj = args.as_object_mut().expect("filters are an object");
    obj.retain(|_, v| !v.is_null());
    obj.insert("since_created_at".into(), json!(since));
    obj.insert("order".into(), json!("desc"));
    obj.insert("limit".into(), json!(PAGE));
    for _ in 0..MAX_PAGES {
        let reply = client
            .call_tool("mempalace_event_list", args.clone(), Deadline::Default)
            .await?;
        let events = reply.payload["events"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if let Some(e) = events.iter().find(|e| hit(e)) {
            return Ok(Scan::Found(e.clone()));
        }
        match events.last().and_then(|e| e["id"].as_str()) {
            Some(last) if events.len() >= PAGE => args["before_event_id"] = json!(last),
            _ => return Ok(Scan::NotFound),
        }
    }
    Ok(Scan::TooMany)
}

/// diary_read's newest 100 rows, chunks joined per entry (one `timestamp`), matched exactly.
/// Bound: an entry pushed out of those 100 rows by later writes of the same agent is not seen.
async fn diary_entry(
    client: &McpClient,
    agent: &str,
    wing: Option<String>,
    entry: &str,
    topic: &str,
    confirmed: &[String],
) -> Result<Option<String>, CallError> {
    let mut args = json!({"agent_name": agent, "last_n": 100});
    if let Some(w) = wing {
        args["wing"] = json!(w);
    }
    let reply = match client
        .call_tool("mempalace_diary_read", args, Deadline::Default)
        .await
    {
        Ok(r) => r,
        // 3.11 on a palace that has no drawer yet: no diary entry either.
        Err(CallError::ToolFailed { message, .. })
            if message.contains("Chroma database missing") =>
        {
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let mut order: Vec<String> = Vec::new();
    let mut joined: HashMap<String, (String, String)> = HashMap::new();
    for e in reply.payload["entries"].as_array().into_iter().flatten() {
        let ts = e["timestamp"].as_str().unwrap_or("").to_string();
        let slot = joined.entry(ts.clone()).or_insert_with(|| {
            order.push(ts.clone());
            (e["topic"].as_str().unwrap_or("").to_string(), String::new())
        });
        slot.1.push_str(e["content"].as_str().unwrap_or(""));
    }
    Ok(order.into_iter().find(|ts| {
        let (t, body) = &joined[ts];
        body == entry && t == topic && !confirmed.contains(ts)
    }))
}

/// task_create's body, exactly as MemPalace 3.11 writes it (`tasks.py` create_task).
pub fn task_body(goal: &str, done: &str) -> String {
    format!(
        "Goal:\n{goal}\n\nDefinition of done:\n{done}\n\nDelivery:\nClose the loop through MemPalace: \
         claim the request, then submit a patch with mempalace_patch_submit or reply with \
         blocked/failed evidence."
    )
}

/// A string field, trimmed as the server's sanitizers trim it; empty counts as absent.
pub(super) fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn raw<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}
