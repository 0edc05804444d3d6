//! Drawers and diary entries of the local palace, told apart (hand-authored, diary, mined,
//! edited) by their content id and metadata, and planned as ops (`listing` reads them).

use std::collections::{BTreeMap, HashMap};

use serde_json::json;
use sha2::{Digest, Sha256};

use super::listing::{Listed, batches, fetch, list, wings};
use super::{Kind, Options, Plan, Progress, Reason, Record, Sources, probe, text};
use mpt_base::config::WingPolicy;
use mpt_base::error::Result;

/// Metadata only a miner writes (miner.py, convo_miner.py, format_miner.py, sweeper.py,
/// diary_ingest.py, the source adapters); add_drawer and diary_write write none of them.
const MINER_MARKERS: &[&str] = &[
    "ingest_mode",
    "extract_mode",
    "convo_chunker_version",
    "normalize_version",
    "source_mtime",
    "chunk_total",
    "content_hash",
    "adapter_name",
    "source_session",
    "message_uuid",
    "line_start",
];
/// Id prefixes only a miner mints (the convo registry sentinel, the sweeper, diary_ingest).
const MINER_PREFIXES: &[&str] = &["_reg_", "sweep_", "drawer_diary_v2_"];

/// MemPalace's content-addressed drawer id (`ids.py` recipe "v3"): the same content in the same
/// wing and room has this id on every palace. Lengths count code points, as Python does.
pub fn content_id(wing: &str, room: &str, content: &str) -> String {
    let keyed = format!(
        "{}:{wing}{}:{room}{}:{content}",
        wing.chars().count(),
        room.chars().count(),
        content.chars().count()
    );
    let digest = Sha256::digest(keyed.as_bytes());
    format!(
        "drawer_{wing}_{room}_{}",
        &mpt_base::hex::hex(digest.as_slice())[..24]
    )
}

/// The miner marker this drawer carries, if any.
fn miner_marker(d: &Listed) -> Option<String> {
    if let Some(p) = MINER_PREFIXES.iter().find(|p| d.id.starts_with(*p)) {
        return Some(format!("id {p}…"));
    }
    MINER_MARKERS
        .iter()
        .find(|k| d.meta.get(**k).is_some_and(|v| !v.is_null()))
        .map(|k| format!("metadata {k}"))
}

pub(super) async fn plan(
    src: &Sources<'_>,
    opts: &Options,
    plan: &mut Plan,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<()> {
    let wings = wings(src.local).await?;
    let mut wanted: Vec<Listed> = Vec::new();
    for wing in &wings {
        let listed = list(src.local, wing, None).await?;
        if !opts.selects_wing(wing) {
            // Counted, not read: list_wings' counts are chunks, a listing is one row a drawer.
            plan.outside_wings += listed.len() as u64;
            continue;
        }
        for d in listed {
            *plan.read.entry(d.kind()).or_insert(0) += 1;
            if let Some(marker) = miner_marker(&d) {
                plan.skip(d.kind(), &d.id, Reason::Mined, Some(marker));
            } else if src.policy.for_wing(&d.wing) == WingPolicy::Local {
                plan.skip(d.kind(), &d.id, Reason::LocalWing, Some(d.wing.clone()));
            } else if let Some(reason) = opts.before_since(text(&d.meta, "filed_at").as_deref()) {
                plan.skip(d.kind(), &d.id, reason, None);
            } else {
                wanted.push(d);
            }
        }
        on_progress(plan.progress());
    }
    let mut whole: Vec<(Listed, String)> = Vec::new();
    for batch in batches(&wanted) {
        let contents = fetch(src.local, batch).await?;
        for d in batch {
            match contents.get(&d.id) {
                Some(c) => whole.push((d.clone(), c.clone())),
                None => plan.skip(d.kind(), &d.id, Reason::Unreadable, None),
            }
        }
        on_progress(plan.progress());
    }
    let (diary, drawers): (Vec<_>, Vec<_>) = whole.into_iter().partition(|(d, _)| d.is_diary());
    plan_drawers(src, opts, plan, drawers).await?;
    let diary = diary
        .into_iter()
        .map(|(d, c)| {
            let stamped = opts.diary_text(&c);
            (d, stamped)
        })
        .collect();
    plan_diary(src, plan, diary).await?;
    on_progress(plan.progress());
    Ok(())
}

/// Hand-authored drawers (their id is their content's): add_drawer, the writer kept.
async fn plan_drawers(
    src: &Sources<'_>,
    opts: &Options,
    plan: &mut Plan,
    drawers: Vec<(Listed, String)>,
) -> Result<()> {
    let on_primary = match src.primary {
        Some(p) => {
            let wings: Vec<&str> = drawers.iter().map(|(d, _)| d.wing.as_str()).collect();
            Some(probe::drawer_ids(p, &wings).await?)
        }
        None => None,
    };
    for (d, content) in drawers {
        if content_id(&d.wing, &d.room, &content) != d.id {
            plan.skip(
                Kind::Drawer,
                &d.id,
                Reason::Edited,
                Some(format!(
                    "its content hashes to {}",
                    content_id(&d.wing, &d.room, &content)
                )),
            );
            continue;
        }
        if on_primary.as_ref().is_some_and(|ids| ids.contains(&d.id)) {
            plan.skip(Kind::Drawer, &d.id, Reason::OnPrimary, None);
            continue;
        }
        let added_by = opts.drawer_writer(text(&d.meta, "added_by"));
        plan.records.push(Record {
            kind: Kind::Drawer,
            key: format!("bf:drawer:{}", d.id),
            local_id: d.id.clone(),
            tool: "mempalace_add_drawer",
            payload: json!({"wing": d.wing, "room": d.room, "content": content, "added_by": added_by}),
            local_reply: None,
            filed_at: text(&d.meta, "filed_at"),
        });
    }
    Ok(())
}

/// Diary entries (their text already stamped `HOST:<device>|`): diary_write under the same
/// agent, topic and wing. The primary dates them its own today (diary_write takes no date).
/// Never deduped by the server: the primary is asked for the stamped text.
async fn plan_diary(
    src: &Sources<'_>,
    plan: &mut Plan,
    diary: Vec<(Listed, String)>,
) -> Result<()> {
    // (wing, topic, text) → how many the live edge queued and has not landed.
    let mut queued: HashMap<(String, String, String), usize> = HashMap::new();
    if let Some(outbox) = src.outbox {
        for (_, p) in outbox.open_payloads(&["mempalace_diary_write"])? {
            let agent = text(&p, "agent_name").unwrap_or_default();
            let wing = text(&p, "wing")
                .unwrap_or_else(|| format!("wing_{}", agent.to_lowercase().replace(' ', "_")));
            let topic = text(&p, "topic").unwrap_or_else(|| "general".into());
            let entry = p["entry"].as_str().unwrap_or("").to_string();
            *queued.entry((wing, topic, entry)).or_insert(0) += 1;
        }
    }
    let mut by_wing: BTreeMap<String, Vec<(Listed, String)>> = BTreeMap::new();
    for (d, c) in diary {
        by_wing.entry(d.wing.clone()).or_default().push((d, c));
    }
    for (wing, entries) in by_wing {
        // (topic, text) → how many the primary holds: each local copy beyond them is sent.
        let mut held = match src.primary {
            Some(primary) => {
                let texts: Vec<&str> = entries.iter().map(|(_, c)| c.as_str()).collect();
                probe::diary_entries(primary, &wing, &texts).await?
            }
            None => HashMap::new(),
        };
        for (d, content) in entries {
            let topic = text(&d.meta, "topic").unwrap_or_else(|| "general".into());
            let key = (topic.clone(), content.clone());
            if let Some(n) = held.get_mut(&key).filter(|n| **n > 0) {
                *n -= 1;
                plan.skip(Kind::Diary, &d.id, Reason::OnPrimary, None);
                continue;
            }
            if let Some(n) = queued
                .get_mut(&(wing.clone(), topic.clone(), content.clone()))
                .filter(|n| **n > 0)
            {
                *n -= 1;
                plan.skip(Kind::Diary, &d.id, Reason::QueuedByEdge, None);
                continue;
            }
            if src.primary.is_none() {
                plan.skip(Kind::Diary, &d.id, Reason::Unverified, None);
                continue;
            }
            let agent = text(&d.meta, "agent")
                .unwrap_or_else(|| wing.strip_prefix("wing_").unwrap_or(&wing).to_string());
            plan.records.push(Record {
                kind: Kind::Diary,
                key: format!("bf:diary:{}", d.id),
                local_id: d.id.clone(),
                tool: "mempalace_diary_write",
                payload: json!({"agent_name": agent, "entry": content, "topic": topic, "wing": wing}),
                local_reply: None,
                filed_at: text(&d.meta, "filed_at"),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backfill::listing::tests::listed;

    #[test]
    fn the_content_id_is_mempalaces_v3_recipe() {
        // Vectors computed with MemPalace 3.11's make_drawer_id_from_content.
        assert_eq!(
            content_id("proj", "decisions", "We chose SQLite WAL for the outbox."),
            "drawer_proj_decisions_e6b7bb5435dd8cb272c923e6"
        );
        assert_eq!(
            content_id("proj", "decisions", "café ★ ünïcode"),
            "drawer_proj_decisions_0cbb31aa884378658dc19926"
        );
    }

    #[test]
    fn miners_are_told_by_their_markers_not_their_wing() {
        let hand = listed(
            "drawer_w_r_1",
            json!({"added_by": "pi@a", "id_recipe": "v3", "filed_at": "x"}),
            1,
        );
        assert_eq!(miner_marker(&hand), None);
        let mined = listed(
            "drawer_w_r_2",
            json!({"added_by": "mempalace", "source_mtime": 1.0, "chunk_total": 3}),
            1,
        );
        assert_eq!(
            miner_marker(&mined).as_deref(),
            Some("metadata source_mtime")
        );
        let swept = listed("sweep_s_u", json!({}), 1);
        assert!(miner_marker(&swept).is_some());
        let diary = listed(
            "diary_w_1",
            json!({"type": "diary_entry", "agent": "pi"}),
            1,
        );
        assert!(diary.is_diary() && miner_marker(&diary).is_none());
    }
}
