//! What the primary already holds, asked before a backfill plans an op: drawers by id, diary
//! entries by text, facts with their windows, events by id. Only for what the server cannot dedupe.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::listing::{fetch, list};
use super::{items, read, text};
use crate::replay::kg_key;
use mpt_base::error::Result;
use mpt_mcp::{Deadline, McpClient};

/// The drawer ids the primary holds in these wings.
pub(super) async fn drawer_ids(primary: &McpClient, wings: &[&str]) -> Result<HashSet<String>> {
    let mut out = HashSet::new();
    let mut asked = HashSet::new();
    for w in wings {
        if asked.insert(*w) {
            out.extend(list(primary, w, None).await?.into_iter().map(|d| d.id));
        }
    }
    Ok(out)
}

/// How many diary entries the primary holds in `wing` for each (topic, text) among `texts`. A
/// diary id ends with `sha256(text)[:12]`, so only those entries are read whole.
pub(super) async fn diary_entries(
    primary: &McpClient,
    wing: &str,
    texts: &[&str],
) -> Result<HashMap<(String, String), usize>> {
    let suffixes: HashSet<String> = texts.iter().map(|t| diary_suffix(t)).collect();
    let candidates: Vec<_> = list(primary, wing, Some("diary"))
        .await?
        .into_iter()
        .filter(|d| {
            d.id.rsplit('_')
                .next()
                .is_some_and(|s| suffixes.contains(s))
        })
        .collect();
    let mut held = HashMap::new();
    for batch in candidates.chunks(50) {
        let contents = fetch(primary, batch).await?;
        for d in batch {
            if let Some(c) = contents.get(&d.id) {
                let topic = text(&d.meta, "topic").unwrap_or_else(|| "general".into());
                *held.entry((topic, c.clone())).or_insert(0) += 1;
            }
        }
    }
    Ok(held)
}

/// tools_diary.py: the id's last part is `sha256(entry)[:12]`.
fn diary_suffix(entry: &str) -> String {
    mpt_base::hex::hex(Sha256::digest(entry.as_bytes()).as_slice())[..12].to_string()
}

/// The primary's facts about `subject` (outgoing), as comparable keys: (predicate, object,
/// valid_from, valid_to) with MemPalace's normalisation.
pub(super) async fn facts(primary: &McpClient, subject: &str) -> Result<Vec<kg_key::Fact>> {
    let p = read(
        primary,
        "mempalace_kg_query",
        json!({"entity": subject, "direction": "outgoing"}),
    )
    .await?;
    Ok(items(&p, "mempalace_kg_query", "facts")?
        .iter()
        .map(kg_key::Fact::from_row)
        .collect())
}

/// Whether the primary's log holds an event with this id (the mesh keeps ids verbatim).
pub(super) async fn event_known(primary: &McpClient, id: &str) -> Result<bool> {
    let reply = primary
        .call_tool(
            "mempalace_event_list",
            json!({"since_event_id": id, "limit": 1}),
            Deadline::Default,
        )
        .await;
    match reply {
        Ok(r) => Ok(r.payload.get("events").is_some_and(Value::is_array)
            && r.payload.get("error").is_none()),
        // event_list answers an unknown cursor with an error payload or a failed tool.
        Err(mpt_mcp::CallError::ToolFailed { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_diary_suffix_is_the_entrys_digest() {
        // "hello" → sha256 2cf24dba5fb0a30e…
        assert_eq!(super::diary_suffix("hello"), "2cf24dba5fb0");
    }
}
