//! The device's own coordination records: events this palace wrote (`origin_replica` is its
//! replica), each after the artifacts it references, their references kept through the id map.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::{Kind, Options, Plan, Progress, Reason, Record, Sources, items, probe, read, text};
use crate::op_key::op_key;
use crate::refs;
use mpt_base::error::{MptError, Result};

/// event_list's own maximum page.
const PAGE: usize = 500;
/// Where a backfilled event or artifact keeps the id it had on the device.
pub const BACKFILL_OF: &str = "mpt_backfill_of";
/// event_append's arguments, copied from the event as they are.
const EVENT_FIELDS: &[&str] = &[
    "type",
    "stream",
    "room",
    "topic",
    "to_agent",
    "correlation_id",
    "branch",
    "base_commit",
    "status",
    "body",
];

pub(super) async fn plan(
    src: &Sources<'_>,
    opts: &Options,
    plan: &mut Plan,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<()> {
    let me = replica_id(src).await?;
    let events = all_events(src, plan, on_progress).await?;
    // The primary's copies the edge pulled back carry the op key of the local original.
    let pulled: HashMap<String, String> = events
        .iter()
        .filter(|e| e["origin_replica"].as_str() != Some(me.as_str()))
        .filter_map(|e| Some((op_key(e)?.to_string(), e["id"].as_str()?.to_string())))
        .collect();
    // Local id → the primary's, for references to records already there.
    let mut known: HashMap<String, String> = HashMap::new();
    let mut artifacts_planned: HashSet<String> = HashSet::new();
    for e in events
        .iter()
        .filter(|e| e["origin_replica"].as_str() == Some(me.as_str()))
    {
        let id = e["id"].as_str().unwrap_or("").to_string();
        *plan.read.entry(Kind::Event).or_insert(0) += 1;
        if let Some(reason) = opts.filters_wingless(text(e, "created_at").as_deref()) {
            plan.skip(Kind::Event, &id, reason, None);
            continue;
        }
        let mut payload = event_payload(e, &opts.fallback_writer);
        if !src.policy.replicates("mempalace_event_append", &payload) {
            plan.skip(Kind::Event, &id, Reason::LocalWing, None);
            continue;
        }
        if let Some(copy) = op_key(e).and_then(|k| pulled.get(k)) {
            known.insert(id.clone(), copy.clone());
            plan.skip(Kind::Event, &id, Reason::OnPrimary, Some(copy.clone()));
            continue;
        }
        if let Some(outbox) = src.outbox
            && !backfilled(outbox, &format!("bf:evt:{id}"))?
            && outbox.minted_by_an_op(&id)?
        {
            if let Some(p) = outbox.landed_id(&id)? {
                known.insert(id.clone(), p);
            }
            plan.skip(Kind::Event, &id, Reason::QueuedByEdge, None);
            continue;
        }
        let Some(primary) = src.primary else {
            plan.skip(Kind::Event, &id, Reason::Unverified, None);
            continue;
        };
        if probe::event_known(primary, &id).await? {
            known.insert(id.clone(), id.clone());
            plan.skip(Kind::Event, &id, Reason::OnPrimary, None);
            continue;
        }
        for art in e["artifact_ids"].as_array().into_iter().flatten() {
            let Some(art) = art.as_str() else { continue };
            if artifacts_planned.contains(art) || known.contains_key(art) {
                continue;
            }
            match artifact(src, &me, art, opts, plan).await? {
                Some(rec) => {
                    artifacts_planned.insert(art.to_string());
                    plan.records.push(rec);
                }
                None => {
                    known.insert(art.to_string(), art.to_string());
                }
            }
        }
        refs::rewrite(&mut payload, |r| known.get(r).filter(|p| *p != r).cloned());
        plan.records.push(Record {
            kind: Kind::Event,
            key: format!("bf:evt:{id}"),
            local_id: id.clone(),
            tool: "mempalace_event_append",
            payload,
            local_reply: Some(json!({"event": {"id": id}})),
            filed_at: text(e, "created_at"),
        });
    }
    Ok(())
}

/// The artifact `id` as an op to send before its event; `None` when it needs none (another
/// replica's, or already on the primary under the same id).
async fn artifact(
    src: &Sources<'_>,
    me: &str,
    id: &str,
    opts: &Options,
    plan: &mut Plan,
) -> Result<Option<Record>> {
    *plan.read.entry(Kind::Artifact).or_insert(0) += 1;
    let a = read(
        src.local,
        "mempalace_artifact_get",
        json!({"artifact_id": id}),
    )
    .await?;
    let Some(a) = a.get("artifact").filter(|a| a.is_object()) else {
        plan.skip(Kind::Artifact, id, Reason::Unreadable, text(&a, "error"));
        return Ok(None);
    };
    if a["origin_replica"].as_str() != Some(me) {
        return Ok(None);
    }
    if let Some(outbox) = src.outbox
        && !backfilled(outbox, &format!("bf:art:{id}"))?
        && outbox.minted_by_an_op(id)?
    {
        plan.skip(Kind::Artifact, id, Reason::QueuedByEdge, None);
        return Ok(None);
    }
    if let Some(primary) = src.primary {
        let there = read(
            primary,
            "mempalace_artifact_get",
            json!({"artifact_id": id}),
        )
        .await?;
        if there.get("artifact").is_some_and(Value::is_object) {
            plan.skip(Kind::Artifact, id, Reason::OnPrimary, None);
            return Ok(None);
        }
    }
    let mut metadata = a["metadata"].as_object().cloned().unwrap_or_default();
    metadata.insert(BACKFILL_OF.into(), json!(id));
    Ok(Some(Record {
        kind: Kind::Artifact,
        key: format!("bf:art:{id}"),
        local_id: id.to_string(),
        tool: "mempalace_artifact_put",
        payload: json!({
            "kind": a["kind"],
            "content": a["content"],
            "created_by": text(a, "created_by").unwrap_or_else(|| opts.fallback_writer.clone()),
            "metadata": metadata,
        }),
        local_reply: Some(json!({"artifact": {"id": id}})),
        filed_at: text(a, "created_at"),
    }))
}

/// Whether a backfill queued this key before (its op also minted the id: the ledger, not the
/// live edge, explains it, and the record is planned to be passed over as `enqueued`).
fn backfilled(outbox: &crate::Outbox, key: &str) -> Result<bool> {
    Ok(!outbox.backfilled(&[key])?.is_empty())
}

/// event_append's arguments for a local event: its fields verbatim, its writer (or ours), and
/// `metadata.mpt_backfill_of` = its local id.
fn event_payload(e: &Value, fallback_writer: &str) -> Value {
    let mut p = Map::new();
    for f in EVENT_FIELDS {
        if let Some(v) = e.get(*f).filter(|v| !v.is_null()) {
            p.insert((*f).into(), v.clone());
        }
    }
    p.insert(
        "from_agent".into(),
        json!(text(e, "from_agent").unwrap_or_else(|| fallback_writer.to_string())),
    );
    if let Some(a) = e["artifact_ids"].as_array().filter(|a| !a.is_empty()) {
        p.insert("artifact_ids".into(), json!(a));
    }
    let mut metadata = e["metadata"].as_object().cloned().unwrap_or_default();
    metadata.insert(BACKFILL_OF.into(), e["id"].clone());
    p.insert("metadata".into(), Value::Object(metadata));
    Value::Object(p)
}

/// This palace's replica id (mesh_peers' `self`): its own events carry it as `origin_replica`.
async fn replica_id(src: &Sources<'_>) -> Result<String> {
    let p = read(src.local, "mempalace_mesh_peers", json!({})).await?;
    text(&p["self"], "replica_id").ok_or_else(|| {
        MptError::new(
            mpt_base::error::ErrorKind::Unavailable,
            "the local palace did not say its replica id (mesh_peers): its own events cannot be told from pulled ones",
        )
        .with_hint("check the palace with `mpt doctor`; backfill drawers alone with `--wing '*'`")
    })
}

/// Every event of the local log, oldest first (event_list with a since cursor).
async fn all_events(
    src: &Sources<'_>,
    plan: &Plan,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<Vec<Value>> {
    let mut out: Vec<Value> = Vec::new();
    loop {
        let mut args = json!({"order": "asc", "limit": PAGE});
        if let Some(last) = out.last().and_then(|e| e["id"].as_str()) {
            args["since_event_id"] = json!(last);
        }
        let p = read(src.local, "mempalace_event_list", args).await?;
        let page = items(&p, "mempalace_event_list", "events")?;
        let n = page.len();
        out.extend(page);
        on_progress(plan.progress());
        if n < PAGE {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_events_payload_is_verbatim_with_its_local_id() {
        let e = json!({"id": "evt_1", "seq": 3, "origin_replica": "rep_a", "type": "task.request",
            "stream": "s", "room": "r", "topic": null, "from_agent": "pi@a", "to_agent": "oc@b",
            "correlation_id": "task_x", "status": "open", "body": "do it", "artifact_ids": ["art_1"],
            "created_at": "2026-01-01T00:00:00Z", "metadata": {"k": 1}});
        let p = event_payload(&e, "backfill@a");
        assert_eq!(
            p,
            json!({"type": "task.request", "stream": "s", "room": "r", "to_agent": "oc@b",
                "correlation_id": "task_x", "status": "open", "body": "do it", "from_agent": "pi@a",
                "artifact_ids": ["art_1"], "metadata": {"k": 1, "mpt_backfill_of": "evt_1"}})
        );
        let bare = event_payload(
            &json!({"id": "evt_2", "type": "note", "stream": "s"}),
            "backfill@a",
        );
        assert_eq!(bare["from_agent"], "backfill@a");
    }
}
