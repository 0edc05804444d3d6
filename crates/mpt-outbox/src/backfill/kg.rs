//! Knowledge-graph facts of the local palace: every row of kg_timeline with its window, closed
//! facts planned before open ones (an open copy on the primary swallows a later closed add).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::{Kind, Options, Plan, Progress, Reason, Record, Sources, items, probe, read};
use crate::replay::kg_key::Fact;
use mpt_base::error::{MptError, Result};

/// kg_timeline's own maximum page.
const PAGE: u64 = 100;
/// Walks restarted when facts were added during one (offsets shift under inserts).
const WALKS: usize = 3;

pub(super) async fn plan(
    src: &Sources<'_>,
    opts: &Options,
    plan: &mut Plan,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<()> {
    let rows = timeline(src, on_progress, plan).await?;
    // One record per distinct fact: identical closed duplicates are one.
    let mut facts: BTreeMap<Fact, Value> = BTreeMap::new();
    for row in rows {
        facts.entry(Fact::from_row(&row)).or_insert(row);
    }
    *plan.read.entry(Kind::KgClosed).or_insert(0) +=
        facts.keys().filter(|f| f.valid_to.is_some()).count() as u64;
    *plan.read.entry(Kind::KgOpen).or_insert(0) +=
        facts.keys().filter(|f| f.valid_to.is_none()).count() as u64;
    let subjects: BTreeSet<String> = facts
        .values()
        .filter_map(|r| r["subject"].as_str().map(str::to_string))
        .collect();
    // Triples with an ended window here: their open fact must reach the primary after it, so
    // it waits with it while the primary cannot be asked.
    let closed: Vec<Fact> = facts
        .keys()
        .filter(|f| f.valid_to.is_some())
        .cloned()
        .collect();
    // Facts the live edge queued (an add, an invalidation): they land first; the window they
    // leave is compared on a run after them, never raced.
    let queued: Vec<Fact> = match src.outbox {
        Some(o) => o
            .open_payloads(&["mempalace_kg_add", "mempalace_kg_invalidate"])?
            .iter()
            .map(|(_, p)| Fact::from_row(p))
            .collect(),
        None => Vec::new(),
    };
    // `--wing` or `--since` leave every fact out (none has a wing or a filing time): named,
    // and the primary not asked about them.
    if let Some(reason) = opts.filters_wingless(None) {
        for fact in facts.keys() {
            let kind = if fact.valid_to.is_some() {
                Kind::KgClosed
            } else {
                Kind::KgOpen
            };
            plan.skip(kind, &key(fact), reason, None);
        }
        return Ok(());
    }
    let mut on_primary: BTreeMap<String, Vec<Fact>> = BTreeMap::new();
    if let Some(p) = src.primary {
        for s in &subjects {
            on_primary.insert(s.clone(), probe::facts(p, s).await?);
        }
    }
    for (fact, row) in facts {
        let kind = if fact.valid_to.is_some() {
            Kind::KgClosed
        } else {
            Kind::KgOpen
        };
        let key = key(&fact);
        if queued.iter().any(|q| q.same_triple(&fact)) {
            plan.skip(
                kind,
                &key,
                Reason::QueuedByEdge,
                Some(
                    "an open op for this fact lands first: run again after `mpt outbox flush`"
                        .into(),
                ),
            );
            continue;
        }
        let subject = row["subject"].as_str().unwrap_or("").to_string();
        let held = on_primary.get(&subject);
        let open_there = held.is_some_and(|h| {
            h.iter()
                .any(|f| f.valid_to.is_none() && f.same_triple(&fact))
        });
        match (kind, src.primary.is_some()) {
            (Kind::KgClosed, false) => {
                plan.skip(kind, &key, Reason::Unverified, None);
                continue;
            }
            (Kind::KgClosed, true) if held.is_some_and(|h| h.contains(&fact)) => {
                plan.skip(kind, &key, Reason::OnPrimary, None);
                continue;
            }
            (Kind::KgClosed, true) if open_there => {
                plan.skip(
                    kind,
                    &key,
                    Reason::Conflict,
                    Some("the primary holds this fact still open".into()),
                );
                continue;
            }
            (Kind::KgOpen, false) if closed.iter().any(|c| c.same_triple(&fact)) => {
                plan.skip(
                    kind,
                    &key,
                    Reason::Unverified,
                    Some("sent after its ended window, which waits for the primary".into()),
                );
                continue;
            }
            (Kind::KgOpen, _) if open_there => {
                plan.skip(kind, &key, Reason::OnPrimary, None);
                continue;
            }
            _ => {}
        }
        let mut payload = json!({
            "subject": subject,
            "predicate": row["predicate"],
            "object": row["object"],
        });
        for k in ["valid_from", "valid_to"] {
            if let Some(v) = row.get(k).filter(|v| v.is_string()) {
                payload[k] = v.clone();
            }
        }
        plan.records.push(Record {
            kind,
            key: format!("bf:kg:{key}"),
            local_id: key,
            tool: "mempalace_kg_add",
            payload,
            local_reply: None,
            filed_at: None,
        });
    }
    Ok(())
}

/// A fact's identity in the ledger: its normalised triple and window.
fn key(f: &Fact) -> String {
    format!(
        "{}|{}|{}|{}|{}",
        f.subject,
        f.predicate,
        f.object,
        f.valid_from.as_deref().unwrap_or("-"),
        f.valid_to.as_deref().unwrap_or("open")
    )
}

/// Every kg_timeline row, paged; walked again when `total` moved during the walk.
async fn timeline(
    src: &Sources<'_>,
    on_progress: &mut dyn FnMut(Progress),
    plan: &Plan,
) -> Result<Vec<Value>> {
    for _ in 0..WALKS {
        let mut rows: Vec<Value> = Vec::new();
        let mut offset = 0u64;
        let mut first_total = None;
        loop {
            let p = read(
                src.local,
                "mempalace_kg_timeline",
                json!({"limit": PAGE, "offset": offset}),
            )
            .await?;
            let total = p["total"].as_u64().unwrap_or(0);
            first_total.get_or_insert(total);
            let page = items(&p, "mempalace_kg_timeline", "timeline")?;
            let n = page.len() as u64;
            rows.extend(page);
            offset += n;
            on_progress(plan.progress());
            if n == 0 || offset >= total {
                break;
            }
        }
        let after = read(src.local, "mempalace_kg_timeline", json!({"limit": 1})).await?["total"]
            .as_u64()
            .unwrap_or(0);
        if Some(after) == first_total {
            return Ok(rows);
        }
    }
    Err(MptError::new(
        mpt_base::error::ErrorKind::Busy,
        "the knowledge graph kept changing while it was read",
    )
    .with_hint("run `mpt outbox backfill` again once the agents writing facts are idle"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_facts_key_names_its_window() {
        let f = Fact::from_row(
            &json!({"subject": "Alice B", "predicate": "Owns", "object": "Repo",
                                        "valid_from": "2026-01-01", "valid_to": null}),
        );
        assert_eq!(key(&f), "alice_b|owns|repo|2026-01-01|open");
        let g = Fact::from_row(
            &json!({"subject": "alice b", "predicate": "owns", "object": "repo",
                                        "valid_to": "2026-03-01T00:00:00+00:00"}),
        );
        assert_eq!(key(&g), "alice_b|owns|repo|-|2026-03-01T00:00:00Z");
    }
}
