//! Replay safety (contract §1): which tools the server dedupes itself, and for the rest how to
//! tell, after an AMBIGUOUS send, whether it landed — by asking the primary, never by guessing.

use std::collections::HashMap;

use serde_json::{Value, json};

mod check;
pub mod kg_key;

use check::text;
pub use check::{check, task_body};

use super::Op;
use mpt_palace::catalog;

/// The key stamped into `metadata` of the tools that declare it (event_append, patch_submit,
/// artifact_put) and looked for after an ambiguous send: the coordination log's op key.
pub use crate::op_key::OP_KEY;
/// How far before our first send a replay check looks on the primary (clock skew between us
/// and it; the event log's `created_at` is the primary's UTC clock).
pub(super) const SKEW_MS: i64 = 24 * 3600 * 1000;
/// event_list's own maximum page.
pub(super) const PAGE: usize = 500;
/// Pages scanned before a check gives up as unverifiable (50,000 events in the window).
pub(super) const MAX_PAGES: usize = 100;

/// A tool's replay class, settled for one op's arguments (the catalog's `Replay`).
pub use mpt_palace::catalog::Replay as Strategy;

/// The catalog's replay class for `tool`, settled against this op's arguments.
pub fn strategy(tool: &str, payload: &Value) -> Strategy {
    match catalog::tool(tool).replay {
        // An open fact dedupes on the server (the open-triple guard).
        Strategy::KgHistorical if text(payload, "valid_to").is_none() => Strategy::Idempotent,
        // Without a diary the items dedupe on the server.
        Strategy::Checkpoint if !payload.get("diary").is_some_and(Value::is_object) => {
            Strategy::Idempotent
        }
        strictest => strictest,
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
        stamp_key(&mut args, &op.op_id);
    }
    args
}

/// Whether `tool` in a `tools/list` declares an object-typed argument `arg`.
pub fn declares_object(tools: &[Value], tool: &str, arg: &str) -> bool {
    tools.iter().any(|t| {
        t["name"] == tool
            && t.pointer(&format!("/inputSchema/properties/{arg}/type"))
                .and_then(Value::as_str)
                == Some("object")
    })
}

/// Sets `metadata.mpt_op_id` to `key` unless the caller set one (a `metadata` that is not an
/// object is left for the server to refuse).
pub fn stamp_key(args: &mut Value, key: &str) {
    if !args.is_object() {
        return;
    }
    match args.get_mut("metadata") {
        None | Some(Value::Null) => args["metadata"] = json!({OP_KEY: key}),
        Some(Value::Object(m)) => {
            m.entry(OP_KEY)
                .or_insert_with(|| Value::String(key.to_string()));
        }
        Some(_) => {}
    }
}

/// What a replay check found.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// Nothing to check: a replay is harmless.
    NotNeeded,
    /// The earlier send landed: done, with the primary's id for it and, for a coordination
    /// write, the event found (its ids map to the ones minted locally).
    Present(Option<String>, Option<Value>),
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

/// Which tools' confirmed ids a check must not claim as its own.
pub fn ref_tools(tool: &str) -> Vec<String> {
    catalog::replay_family(tool)
}

/// A check scans from `SKEW_MS` before the op was queued (it cannot have landed earlier).
pub fn window_start(op: &Op) -> i64 {
    op.created_at.min(op.first_sent_at.unwrap_or(op.created_at)) - SKEW_MS
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
        let fixture: Value = serde_json::from_str(mpt_palace::catalog::args::TOOLS_LIST).unwrap();
        Schemas::from_tools(fixture["result"]["tools"].as_array().unwrap())
    }

    #[test]
    fn every_write_of_3_11_has_a_strategy() {
        use mpt_palace::catalog::{self, ToolClass};
        for w in catalog::all()
            .iter()
            .filter(|t| t.class == ToolClass::Write)
        {
            let s = strategy(&catalog::full_name(w.name), &json!({}));
            assert_ne!(s, Strategy::Unverifiable, "{}", w.name);
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
}
