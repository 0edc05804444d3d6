//! The KG landmine (RFC 001 §7.1, contract §6), judged once for doctor and runbook: where a
//! process started without `--palace` keeps its graph vs the palace-local one, and their triples.

use std::path::PathBuf;

use super::kg::{self, KgStats};
use super::paths::{PalacePaths, realpath};
use mpt_base::error::Result;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KgVerdict {
    /// Facts only palace-local (or no graph at all): every writer agrees.
    Clean,
    /// The HOME path is a link to the palace-local file: one graph.
    Linked,
    /// Both files hold triples: two graphs, answers depend on who asks.
    Split,
    /// The palace-local graph is empty or absent while the HOME one holds the facts.
    Stranded,
    /// One graph so far, but nothing at the HOME path links to the palace-local one: the next
    /// process started without `--palace` opens a new, empty graph there and splits the KG.
    Unlinked,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct KgLandmine {
    pub palace_kg: PathBuf,
    pub home_kg: PathBuf,
    pub palace_stats: Option<KgStats>,
    pub home_stats: Option<KgStats>,
    pub verdict: KgVerdict,
}

pub fn inspect(paths: &PalacePaths) -> Result<KgLandmine> {
    let palace_kg = paths.kg_with_flag.clone();
    let home_kg = paths.kg_without_flag.clone();
    let linked = home_kg.exists() && realpath(&home_kg) == realpath(&palace_kg);
    let palace_stats = kg::stats(&palace_kg)?;
    let home_stats = if linked { None } else { kg::stats(&home_kg)? };
    let triples = |s: &Option<KgStats>| s.map_or(0, |s| s.triples);
    // A link elsewhere is its own trouble (the runbook blocks on it), not a missing link.
    let home_is_link =
        std::fs::symlink_metadata(&home_kg).is_ok_and(|m| m.file_type().is_symlink());
    let unlinked =
        home_kg != palace_kg && !home_is_link && (home_kg.exists() || palace_kg.exists());
    let verdict = if linked {
        KgVerdict::Linked
    } else {
        match (triples(&palace_stats), triples(&home_stats)) {
            (p, h) if p > 0 && h > 0 => KgVerdict::Split,
            (0, h) if h > 0 => KgVerdict::Stranded,
            _ if unlinked => KgVerdict::Unlinked,
            _ => KgVerdict::Clean,
        }
    };
    Ok(KgLandmine {
        palace_kg,
        home_kg,
        palace_stats,
        home_stats,
        verdict,
    })
}
