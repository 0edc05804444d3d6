//! Replay safety (contract §1): which tools the server dedupes itself, and for the rest how to
//! tell, after an AMBIGUOUS send, whether it landed — by asking the primary, never by guessing.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::{Op, util};
use crate::mcp::{Deadline, McpClient, McpError};

/// The key stamped into `metadata` of the tools that declare it (event_append, patch_submit,
/// artifact_put) and looked for after an ambiguous send.
pub const OP_KEY: &str = "mpt_op_id";
/// How far before our first send a replay check looks on the primary (clock skew between us
/// and it; the event log's `created_at` is the primary's UTC clock).
const SKEW_MS: i64 = 24 * 3600 * 1000;
/// event_list's own maximum page.
const PAGE: usize = 500;
/// Pages scanned before a check gives up as unverifiable (50,000 events in the window).
const MAX_PAGES: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// The server dedupes a replay itself: content-addressed drawers, the open-triple guard,
    /// canonical tunnel ids, settings set to the same values.
    Idempotent,
    /// kg_add of an already-ended fact (`valid_to` given): the open-triple guard does not apply
    /// and a replay adds a second historical triple. Checked with kg_query.
    KgHistorical,
    /// event_append, patch_submit: `metadata.mpt_op_id`, found with event_list.
    EventKey,
    /// event_ack: an `event.ack` by that agent with `metadata.ack_of` = the event, same status and body.
    Ack,
    /// task_create: a `task.request` by that agent with the same goal, done, branch and commit.
    Task,
    /// diary_write: diary_read, the exact text under the same topic.
    Diary,
    /// checkpoint with a diary: the diary is checked; if it is there, only the items are
    /// replayed (they dedupe server-side by similarity and content-addressed ids).
    Checkpoint,
    /// artifact_put: no tool lists artifacts, so nothing can be checked; a replay's duplicate
    /// is an orphan no tool or event can reach (artifacts are found only by the id a reply
    /// returns, and only the landed reply's id is recorded). Resent, stamped with the op key.
    Orphan,
    /// A tool mpt does not know: an ambiguous send fails the op; an operator decides.
    Unverifiable,
}

pub fn strategy(tool: &str, payload: &Value) -> Strategy {
    let bare = tool.strip_prefix("mempalace_").unwrap_or(tool);
    match bare {
        "add_drawer"
        | "kg_invalidate"
        | "kg_supersede"
        | "create_tunnel"
        | "update_drawer"
        | "hook_settings"
        | "memories_filed_away" => Strategy::Idempotent,
        "kg_add" => {
            if text(payload, "valid_to").is_some() {
                Strategy::KgHistorical
            } else {
                Strategy::Idempotent
            }
        }
        "event_append" | "patch_submit" => Strategy::EventKey,
        "event_ack" => Strategy::Ack,
        "task_create" => Strategy::Task,
        "diary_write" => Strategy::Diary,
        "checkpoint" if payload.get("diary").is_some_and(Value::is_object) => Strategy::Checkpoint,
        "checkpoint" => Strategy::Idempotent,
        "artifact_put" => Strategy::Orphan,
        _ => Strategy::Unverifiable,
    }
}

/// Whether an ambiguous send of this op can be resolved without an operator.
pub fn can_verify(tool: &str, payload: &Value) -> bool {
    strategy(tool, payload) != Strategy::Unverifiable
}

/// The tools' input schemas as the primary declared them (`tools/list`).
#[derive(Debug, Default, Clone)]
pub struct Schemas(HashMap<String, Value>);

impl Schemas {
    pub fn from_tools(tools: &[Value]) -> Schemas {
        Schemas(
            tools
                .iter()
                .filter_map(|t| {
                    Some((
                        t["name"].as_str()?.to_string(),
                        t.get("inputSchema")?.clone(),
                    ))
                })
                .collect(),
        )
    }

    /// Whether `tool` declares an object-typed argument `arg`.
    pub fn declares_object(&self, tool: &str, arg: &str) -> bool {
        self.0
            .get(tool)
            .and_then(|s| s.pointer(&format!("/properties/{arg}/type")))
            .and_then(Value::as_str)
            == Some("object")
    }
}

/// The arguments to send: the payload, plus `metadata.mpt_op_id` for the tools whose schema on
/// this primary declares `metadata` (never an argument the schema does not declare). A key the
/// caller already set is kept.
pub fn send_args(op: &Op, schemas: &Schemas) -> Value {
    let mut args = op.payload.clone();
    let keyed = matches!(
        strategy(&op.tool_name, &op.payload),
        Strategy::EventKey | Strategy::Orphan
    );
    if keyed && schemas.declares_object(&op.tool_name, "metadata") {
        match args.get_mut("metadata") {
            None | Some(Value::Null) => args["metadata"] = json!({OP_KEY: op.op_id}),
            Some(Value::Object(m)) => {
                m.entry(OP_KEY)
                    .or_insert_with(|| Value::String(op.op_id.clone()));
            }
            Some(_) => {} // not an object: the server refuses it, a hard failure.
        }
    }
    args
}

/// What a replay check found.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// Nothing to check: a replay is harmless.
    NotNeeded,
    /// The earlier send landed: done, with the primary's id for it.
    Present(Option<String>),
    /// It did not land: send.
    Absent,
    /// Part of it landed: send these arguments instead (checkpoint without its diary).
    Resend {
        args: Value,
        primary_ref: Option<String>,
    },
    /// It cannot be told: an operator decides (`retry` resends, `drop` gives up).
    Unverifiable(String),
}

/// Asks the primary whether the op's earlier, ambiguous send landed. `confirmed` holds the
/// primary's ids for effects other ops already own (an identical diary entry or ack written
/// on purpose by an earlier op is not this op's).
pub async fn check(
    client: &McpClient,
    op: &Op,
    schemas: &Schemas,
    confirmed: &[String],
) -> Result<Check, McpError> {
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
            let Some(key) = args
                .pointer(&format!("/metadata/{OP_KEY}"))
                .and_then(Value::as_str)
            else {
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
                e.pointer(&format!("/metadata/{OP_KEY}"))
                    .and_then(Value::as_str)
                    == Some(key)
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
            let want = (
                entity_id(raw(p, "subject")),
                predicate_id(raw(p, "predicate")),
                entity_id(raw(p, "object")),
                temporal(p.get("valid_from")),
                temporal(p.get("valid_to")),
            );
            let hit = reply.payload["facts"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|f| {
                    (
                        entity_id(f["subject"].as_str().unwrap_or("")),
                        predicate_id(f["predicate"].as_str().unwrap_or("")),
                        entity_id(f["object"].as_str().unwrap_or("")),
                        temporal(f.get("valid_from")),
                        temporal(f.get("valid_to")),
                    ) == want
                });
            Ok(if hit {
                Check::Present(None)
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
            Ok(found.map_or(Check::Absent, |ts| Check::Present(Some(ts))))
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
                        Check::Present(Some(ts))
                    }
                }
            })
        }
    }
}

/// Which tools' confirmed ids a check must not claim as its own.
pub fn ref_tools(tool: &str) -> Vec<&'static str> {
    match tool.strip_prefix("mempalace_").unwrap_or(tool) {
        "diary_write" | "checkpoint" => vec!["mempalace_diary_write", "mempalace_checkpoint"],
        "event_ack" => vec!["mempalace_event_ack"],
        "task_create" => vec!["mempalace_task_create"],
        _ => vec![],
    }
}

/// A check scans from `SKEW_MS` before the op was queued (it cannot have landed earlier).
pub fn window_start(op: &Op) -> i64 {
    op.created_at.min(op.first_sent_at.unwrap_or(op.created_at)) - SKEW_MS
}

enum Scan {
    Found(Value),
    NotFound,
    TooMany,
}

impl Scan {
    fn into_check(self) -> Check {
        match self {
            Scan::Found(e) => Check::Present(e["id"].as_str().map(str::to_string)),
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
) -> Result<Scan, McpError> {
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
) -> Result<Option<String>, McpError> {
    let mut args = json!({"agent_name": agent, "last_n": 100});
    if let Some(w) = wing {
        args["wing"] = json!(w);
    }
    let reply = client
        .call_tool("mempalace_diary_read", args, Deadline::Default)
        .await?;
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
fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn raw<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// knowledge_graph.py `_entity_id`, after sanitize_kg_value's strip.
fn entity_id(name: &str) -> String {
    name.trim()
        .to_lowercase()
        .replace(' ', "_")
        .replace('\'', "")
}

fn predicate_id(p: &str) -> String {
    p.trim().to_lowercase().replace(' ', "_")
}

/// config.py sanitize_iso_temporal: stripped, `+00:00` written `Z`; empty is none.
fn temporal(v: Option<&Value>) -> Option<String> {
    let s = v?.as_str()?.trim();
    if s.is_empty() {
        return None;
    }
    Some(match s.strip_suffix("+00:00") {
        Some(head) => format!("{head}Z"),
        None => s.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(tool: &str, payload: Value) -> Op {
        Op {
            id: 1,
            op_id: "abc123".into(),
            local_seq: 1,
            origin_device: "d".into(),
            origin_host: "h".into(),
            tool_name: tool.into(),
            payload,
            dedupe_key: None,
            state: super::super::OpState::Leased,
            attempts: 0,
            sends: 1,
            unconfirmed: true,
            next_attempt_at: 0,
            lease_token: None,
            lease_expires_at: None,
            first_sent_at: Some(0),
            created_at: 0,
            updated_at: 0,
            flushed_at: None,
            outcome: None,
            primary_ref: None,
            error: None,
        }
    }

    fn schemas() -> Schemas {
        let fixture: Value =
            serde_json::from_str(include_str!("../../tests/fixtures/tools-list-3.11.json"))
                .unwrap();
        Schemas::from_tools(fixture["result"]["tools"].as_array().unwrap())
    }

    #[test]
    fn every_write_of_3_11_has_a_strategy() {
        for w in crate::palace::catalog::WRITES {
            let s = strategy(&format!("mempalace_{w}"), &json!({}));
            assert_ne!(s, Strategy::Unverifiable, "{w}");
        }
        assert_eq!(
            strategy("mempalace_new_tool", &json!({})),
            Strategy::Unverifiable
        );
        assert_eq!(
            strategy("mempalace_kg_add", &json!({"valid_to": "2021-01-01"})),
            Strategy::KgHistorical
        );
        assert_eq!(
            strategy("mempalace_kg_add", &json!({"valid_to": ""})),
            Strategy::Idempotent
        );
    }

    #[test]
    fn the_key_goes_only_where_the_schema_declares_metadata() {
        let s = schemas();
        let a = send_args(&op("mempalace_event_append", json!({"type": "t"})), &s);
        assert_eq!(a["metadata"][OP_KEY], "abc123");
        let a = send_args(
            &op("mempalace_patch_submit", json!({"metadata": {"x": 1}})),
            &s,
        );
        assert_eq!(a["metadata"], json!({"x": 1, OP_KEY: "abc123"}));
        let a = send_args(
            &op(
                "mempalace_artifact_put",
                json!({"metadata": {OP_KEY: "mine"}}),
            ),
            &s,
        );
        assert_eq!(a["metadata"][OP_KEY], "mine");
        // event_ack and diary_write declare no metadata: nothing is added.
        for t in [
            "mempalace_event_ack",
            "mempalace_diary_write",
            "mempalace_task_create",
        ] {
            let a = send_args(&op(t, json!({"a": 1})), &s);
            assert_eq!(a, json!({"a": 1}), "{t}");
        }
        // A primary whose schema lacks metadata gets nothing extra either.
        let a = send_args(
            &op("mempalace_event_append", json!({"type": "t"})),
            &Schemas::default(),
        );
        assert_eq!(a, json!({"type": "t"}));
    }

    #[test]
    fn normalisation_follows_the_server() {
        assert_eq!(entity_id(" Max's Dog "), "maxs_dog");
        assert_eq!(predicate_id("Works On"), "works_on");
        assert_eq!(
            temporal(Some(&json!("2026-01-03T00:00:00+00:00"))).as_deref(),
            Some("2026-01-03T00:00:00Z")
        );
        assert_eq!(temporal(Some(&json!(""))), None);
        assert_eq!(temporal(Some(&Value::Null)), None);
    }
}
