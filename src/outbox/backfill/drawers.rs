//! Drawers and diary entries of the local palace: listed wing by wing, read whole (chunks
//! reassembled), told apart (hand-authored, diary, mined, edited) and planned as ops.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{Kind, Options, Plan, Progress, Reason, Record, Sources, items, probe, read, text};
use crate::config::WingPolicy;
use crate::error::Result;
use crate::mcp::McpClient;

/// list_drawers' own maximum page.
const PAGE: usize = 100;
/// get_drawers takes at most 500 ids; fewer keep one reply small (a drawer is up to 100,000 chars).
const FETCH_IDS: usize = 50;
/// MemPalace's default chunk size: a listed drawer's `chunks` times this estimates its size.
const CHUNK_CHARS: usize = 800;
const FETCH_CHARS: usize = 2_000_000;

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
        &crate::hex::hex(digest.as_slice())[..24]
    )
}

/// A drawer as list_drawers shows it (metadata of its first chunk).
#[derive(Debug, Clone)]
pub(super) struct Listed {
    pub(super) id: String,
    pub(super) wing: String,
    pub(super) room: String,
    pub(super) meta: Value,
    chunks: usize,
}

impl Listed {
    fn is_diary(&self) -> bool {
        self.meta["type"] == "diary_entry"
    }

    fn kind(&self) -> Kind {
        if self.is_diary() {
            Kind::Diary
        } else {
            Kind::Drawer
        }
    }

    /// The miner marker this drawer carries, if any.
    fn miner_marker(&self) -> Option<String> {
        if let Some(p) = MINER_PREFIXES.iter().find(|p| self.id.starts_with(*p)) {
            return Some(format!("id {p}…"));
        }
        MINER_MARKERS
            .iter()
            .find(|k| self.meta.get(**k).is_some_and(|v| !v.is_null()))
            .map(|k| format!("metadata {k}"))
    }
}

pub(super) async fn plan(
    src: &Sources<'_>,
    opts: &Options,
    plan: &mut Plan,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<()> {
    let wings = wings(src.local).await?;
    let mut wanted: Vec<Listed> = Vec::new();
    for wing in wings.iter().filter(|w| opts.selects_wing(w)) {
        let listed = list(src.local, wing, None).await?;
        for d in listed {
            *plan.read.entry(d.kind()).or_insert(0) += 1;
            if let Some(marker) = d.miner_marker() {
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
        let added_by = text(&d.meta, "added_by").unwrap_or_else(|| opts.fallback_writer.clone());
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

/// Diary entries: diary_write under the same agent, topic and wing. The primary dates them its
/// own today (diary_write takes no date). Never deduped by the server: the primary is asked.
async fn plan_diary(
    src: &Sources<'_>,
    plan: &mut Plan,
    diary: Vec<(Listed, String)>,
) -> Result<()> {
    let Some(primary) = src.primary else {
        for (d, _) in diary {
            plan.skip(Kind::Diary, &d.id, Reason::Unverified, None);
        }
        return Ok(());
    };
    let mut by_wing: BTreeMap<String, Vec<(Listed, String)>> = BTreeMap::new();
    for (d, c) in diary {
        by_wing.entry(d.wing.clone()).or_default().push((d, c));
    }
    for (wing, entries) in by_wing {
        // (topic, text) → how many the primary holds: each local copy beyond them is sent.
        let texts: Vec<&str> = entries.iter().map(|(_, c)| c.as_str()).collect();
        let mut held = probe::diary_entries(primary, &wing, &texts).await?;
        for (d, content) in entries {
            let topic = text(&d.meta, "topic").unwrap_or_else(|| "general".into());
            let slot = held.entry((topic.clone(), content.clone())).or_insert(0);
            if *slot > 0 {
                *slot -= 1;
                plan.skip(Kind::Diary, &d.id, Reason::OnPrimary, None);
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

/// The palace's wings (list_wings), sorted; none when it has no drawers yet.
pub(super) async fn wings(client: &McpClient) -> Result<Vec<String>> {
    let p = read(client, "mempalace_list_wings", json!({})).await?;
    if missing_palace(&p) {
        return Ok(Vec::new());
    }
    let Some(wings) = p["wings"].as_object() else {
        return Err(items(&p, "mempalace_list_wings", "wings").unwrap_err());
    };
    let mut w: Vec<String> = wings.keys().cloned().collect();
    w.sort();
    Ok(w)
}

/// Every drawer of `wing` (of `room` when given), paged in id order until `total`.
pub(super) async fn list(
    client: &McpClient,
    wing: &str,
    room: Option<&str>,
) -> Result<Vec<Listed>> {
    let mut out: Vec<Listed> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut offset = 0usize;
    loop {
        let mut args = json!({"wing": wing, "limit": PAGE, "offset": offset});
        if let Some(r) = room {
            args["room"] = json!(r);
        }
        let p = read(client, "mempalace_list_drawers", args).await?;
        if missing_palace(&p) {
            break;
        }
        let page = items(&p, "mempalace_list_drawers", "drawers")?;
        let total = p["total"].as_u64().unwrap_or(0) as usize;
        let n = page.len();
        for d in page {
            let id = d["drawer_id"].as_str().unwrap_or("").to_string();
            // A drawer inserted before our offset shows one row twice.
            if id.is_empty() || !seen.insert(id.clone()) {
                continue;
            }
            let meta = d.get("metadata").cloned().unwrap_or(Value::Null);
            out.push(Listed {
                wing: d["wing"].as_str().unwrap_or(wing).to_string(),
                room: d["room"].as_str().unwrap_or("").to_string(),
                chunks: d["chunks"].as_u64().unwrap_or(1).max(1) as usize,
                id,
                meta,
            });
        }
        offset += n;
        if n == 0 || offset >= total {
            break;
        }
    }
    Ok(out)
}

/// Consecutive runs of drawers whose content fits one get_drawers reply.
fn batches(drawers: &[Listed]) -> Vec<&[Listed]> {
    let mut out = Vec::new();
    let (mut start, mut chars) = (0usize, 0usize);
    for (i, d) in drawers.iter().enumerate() {
        let size = d.chunks * CHUNK_CHARS;
        if i > start && (i - start >= FETCH_IDS || chars + size > FETCH_CHARS) {
            out.push(&drawers[start..i]);
            (start, chars) = (i, 0);
        }
        chars += size;
    }
    if start < drawers.len() {
        out.push(&drawers[start..]);
    }
    out
}

/// The whole content of each drawer (get_drawers reassembles chunks); a missing one is absent.
pub(super) async fn fetch(
    client: &McpClient,
    drawers: &[Listed],
) -> Result<HashMap<String, String>> {
    let ids: Vec<&str> = drawers.iter().map(|d| d.id.as_str()).collect();
    let p = read(client, "mempalace_get_drawers", json!({"drawer_ids": ids})).await?;
    if missing_palace(&p) {
        return Ok(HashMap::new());
    }
    Ok(items(&p, "mempalace_get_drawers", "results")?
        .iter()
        .filter(|r| r.get("error").is_none())
        .filter_map(|r| {
            Some((
                r["drawer_id"].as_str()?.to_string(),
                r["content"].as_str()?.to_string(),
            ))
        })
        .collect())
}

/// A palace with no drawer store yet answers reads with this error: it holds nothing.
pub(super) fn missing_palace(p: &Value) -> bool {
    p.get("error")
        .and_then(Value::as_str)
        .is_some_and(|e| e.contains("database missing") || e.contains("No palace"))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn listed(id: &str, meta: Value, chunks: usize) -> Listed {
        Listed {
            id: id.into(),
            wing: "w".into(),
            room: "r".into(),
            meta,
            chunks,
        }
    }

    #[test]
    fn miners_are_told_by_their_markers_not_their_wing() {
        let hand = listed(
            "drawer_w_r_1",
            json!({"added_by": "pi@a", "id_recipe": "v3", "filed_at": "x"}),
            1,
        );
        assert_eq!(hand.miner_marker(), None);
        let mined = listed(
            "drawer_w_r_2",
            json!({"added_by": "mempalace", "source_mtime": 1.0, "chunk_total": 3}),
            1,
        );
        assert_eq!(
            mined.miner_marker().as_deref(),
            Some("metadata source_mtime")
        );
        let swept = listed("sweep_s_u", json!({}), 1);
        assert!(swept.miner_marker().is_some());
        let diary = listed(
            "diary_w_1",
            json!({"type": "diary_entry", "agent": "pi"}),
            1,
        );
        assert!(diary.is_diary() && diary.miner_marker().is_none());
    }

    #[test]
    fn batches_bound_ids_and_size() {
        let small: Vec<Listed> = (0..120)
            .map(|i| listed(&format!("d{i:03}"), Value::Null, 1))
            .collect();
        let b = batches(&small);
        assert_eq!(b.iter().map(|b| b.len()).collect::<Vec<_>>(), [50, 50, 20]);
        let big: Vec<Listed> = (0..3)
            .map(|i| listed(&format!("d{i}"), Value::Null, 2000))
            .collect();
        assert_eq!(batches(&big).len(), 3, "1.6 M chars each: one a reply");
        assert!(batches(&[]).is_empty());
    }
}
