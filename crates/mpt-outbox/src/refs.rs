//! References between ops: the ids a palace mints (events, artifacts, tasks, drawers), recorded
//! from the local reply, mapped to the primary's when their op lands, rewritten in later ops.

use rusqlite::{Transaction, params};
use serde_json::{Value, json};

use super::schema::sql;
use super::{OpState, short};
use mpt_base::error::Result;
use mpt_palace::catalog::Reply;

/// Where a tool's reply carries an id the palace that applied it minted (random event, artifact
/// and task ids; content-addressed drawer ids, the same on every palace but still waited for).
const MINTED: &[&str] = &[
    "/event/id",
    "/artifact/id",
    "/task/id",
    "/task/correlation_id",
    "/drawer_id",
];

/// Argument fields that may hold such an id (contract §5: event_ack's `event_id`, an ask's
/// `metadata.ack_of`, `correlation_id` = an event or task id, `artifact_ids[]`; update_drawer's
/// `drawer_id`).
const SCALAR_SLOTS: &[&str] = &[
    "/event_id",
    "/correlation_id",
    "/metadata/ack_of",
    "/drawer_id",
];
const LIST_SLOT: &str = "/artifact_ids";

/// The ids a reply says its palace minted: (pointer, id).
pub fn minted(reply: &Value) -> Vec<(&'static str, String)> {
    MINTED
        .iter()
        .filter_map(|p| {
            let id = reply.pointer(p)?.as_str()?.trim();
            (!id.is_empty()).then(|| (*p, id.to_string()))
        })
        .collect()
}

/// Every id the arguments reference, with where.
pub(super) fn references(args: &Value) -> Vec<String> {
    let mut out: Vec<String> = SCALAR_SLOTS
        .iter()
        .filter_map(|p| args.pointer(p)?.as_str().map(str::to_string))
        .collect();
    if let Some(list) = args.pointer(LIST_SLOT).and_then(Value::as_array) {
        out.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
    }
    out
}

/// Replaces every referenced id `map` knows with the primary's.
pub(super) fn rewrite(args: &mut Value, map: impl Fn(&str) -> Option<String>) {
    for p in SCALAR_SLOTS {
        if let Some(slot) = args.pointer_mut(p)
            && let Some(new) = slot.as_str().and_then(&map)
        {
            *slot = Value::String(new);
        }
    }
    if let Some(list) = args.pointer_mut(LIST_SLOT).and_then(Value::as_array_mut) {
        for slot in list {
            if let Some(new) = slot.as_str().and_then(&map) {
                *slot = Value::String(new);
            }
        }
    }
}

/// The reply shape of `tool` rebuilt around an event a replay check found on the primary, so
/// its ids map like a reply's: `{"event": e}`, `{"task": e}`, a patch's artifact from the event.
pub fn landed_from_found(tool: &str, event: &Value) -> Value {
    match mpt_palace::catalog::tool(tool).reply {
        Reply::Task => json!({"task": event}),
        Reply::EventWithArtifact => json!({
            "event": event,
            "artifact": {"id": event.pointer("/artifact_ids/0").cloned().unwrap_or(Value::Null)},
        }),
        Reply::Event => json!({"event": event}),
    }
}

/// An op another op waits for: it minted an id the waiting op references (`waits_on[]` in an
/// op's document).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Wait {
    pub local_id: String,
    pub op_id: String,
    pub state: OpState,
}

impl Wait {
    pub fn describe(&self) -> String {
        format!(
            "{} (minted by op {}, {})",
            self.local_id,
            short(&self.op_id),
            self.state.as_str()
        )
    }
}

/// Inside the enqueuing transaction: the ids the local apply minted for op `row`, and the ops
/// whose minted ids its arguments reference.
pub(super) fn record(
    tx: &Transaction<'_>,
    row: i64,
    payload: &Value,
    local_reply: Option<&Value>,
) -> Result<()> {
    for (pointer, id) in local_reply.map(minted).unwrap_or_default() {
        tx.prepare_cached(
            "INSERT OR IGNORE INTO minted (local_id, op_row, pointer) VALUES (?1, ?2, ?3)",
        )
        .and_then(|mut st| st.execute(params![id, row, pointer]))
        .map_err(|e| sql("recording minted ids", &e))?;
    }
    for id in references(payload) {
        tx.prepare_cached(
            "INSERT OR IGNORE INTO deps (op_row, on_row, local_id)
             SELECT ?1, op_row, local_id FROM minted WHERE local_id = ?2 AND op_row != ?1",
        )
        .and_then(|mut st| st.execute(params![row, id]))
        .map_err(|e| sql("recording references", &e))?;
    }
    Ok(())
}

/// Inside the ack's transaction: the primary's ids for what op `row` minted locally, read from
/// the primary's reply at the same places.
pub(super) fn map_landed(tx: &Transaction<'_>, row: i64, primary_reply: &Value) -> Result<()> {
    for (pointer, id) in minted(primary_reply) {
        tx.prepare_cached("UPDATE minted SET primary_id = ?3 WHERE op_row = ?1 AND pointer = ?2")
            .and_then(|mut st| st.execute(params![row, pointer, id]))
            .map_err(|e| sql("mapping ids", &e))?;
    }
    Ok(())
}

/// The ops `row` still waits for: they minted an id it references and have not landed.
pub(super) fn waits_in(conn: &rusqlite::Connection, row: i64) -> Result<Vec<Wait>> {
    let mut st = conn
        .prepare_cached(
            "SELECT d.local_id, o.op_id, o.state FROM deps d
               JOIN ops o ON o.id = d.on_row
               JOIN minted m ON m.local_id = d.local_id
              WHERE d.op_row = ?1 AND m.primary_id IS NULL
                AND o.state IN ('queued', 'leased', 'failed')",
        )
        .map_err(|e| sql("reading references", &e))?;
    st.query_map([row], |r| {
        let state: String = r.get(2)?;
        Ok(Wait {
            local_id: r.get(0)?,
            op_id: r.get(1)?,
            state: OpState::parse(&state).unwrap_or(OpState::Failed),
        })
    })
    .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
    .map_err(|e| sql("reading references", &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_ids_come_from_the_reply_shapes_of_3_11() {
        let r = json!({"success": true, "event": {"id": "evt_1", "artifact_ids": ["art_9"], "correlation_id": "c"}});
        assert_eq!(minted(&r), vec![("/event/id", "evt_1".to_string())]);
        let r = json!({"success": true, "task": {"id": "evt_2", "correlation_id": "task_x_1"}, "handoff": "h"});
        assert_eq!(
            minted(&r),
            vec![
                ("/task/id", "evt_2".to_string()),
                ("/task/correlation_id", "task_x_1".to_string())
            ]
        );
        let r = json!({"success": true, "artifact": {"id": "art_1"}, "event": {"id": "evt_3"}});
        assert_eq!(minted(&r).len(), 2);
    }

    #[test]
    fn references_are_rewritten_in_every_slot() {
        let mut a = json!({"event_id": "evt_l", "correlation_id": "task_l", "metadata": {"ack_of": "evt_l", "x": "evt_l"},
                           "artifact_ids": ["art_l", "art_other"], "body": "evt_l"});
        assert_eq!(references(&a).len(), 5);
        rewrite(&mut a, |id| id.strip_suffix("_l").map(|s| format!("{s}_P")));
        assert_eq!(
            a,
            json!({"event_id": "evt_P", "correlation_id": "task_P", "metadata": {"ack_of": "evt_P", "x": "evt_l"},
                   "artifact_ids": ["art_P", "art_other"], "body": "evt_l"})
        );
    }

    #[test]
    fn a_found_patch_event_maps_its_artifact() {
        let e = json!({"id": "evt_p", "artifact_ids": ["art_p"]});
        let landed = landed_from_found("mempalace_patch_submit", &e);
        assert_eq!(
            minted(&landed),
            vec![
                ("/event/id", "evt_p".to_string()),
                ("/artifact/id", "art_p".to_string())
            ]
        );
    }
}
