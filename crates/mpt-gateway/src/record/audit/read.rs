//! Reading the audit log back: every file in chain order, the records a query selects, and the
//! verification of the chain and its head checkpoint (`mpt gateway audit verify`).

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Value, json};

use super::{Head, Start, chain, lines};
use crate::state::StateDir;
use mpt_base::error::{ErrorKind, MptError, Result};

/// The audit files, oldest first: the rotated ones by their first seq, then `audit.jsonl`.
pub fn files(dir: &StateDir) -> Result<Vec<PathBuf>> {
    let mut rotated: Vec<PathBuf> = match std::fs::read_dir(&dir.root) {
        Ok(rd) => rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("audit-") && n.ends_with(".jsonl"))
            })
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(MptError::io(format!("reading {}", dir.root.display()), &e)),
    };
    rotated.sort();
    rotated.push(dir.audit());
    Ok(rotated)
}

/// One line of one audit file.
#[derive(Debug, Clone, Serialize)]
pub struct Place {
    pub file: PathBuf,
    /// 1-based.
    pub line: usize,
}

/// The fields the chain links by.
#[derive(Debug, Clone)]
pub struct Link {
    pub seq: u64,
    pub prev: String,
    pub hash: String,
}

fn link(line: &str) -> Option<(Value, Link, String)> {
    let (body, claimed) = chain::unseal(line)?;
    let v: Value = serde_json::from_str(line).ok()?;
    let l = Link {
        seq: v.get("seq")?.as_u64()?,
        prev: v.get("prev")?.as_str()?.to_string(),
        hash: claimed.to_string(),
    };
    Some((v, l, body))
}

/// The last record of the chain, if any.
pub(super) fn last_record(dir: &StateDir) -> Result<Option<Link>> {
    for file in files(dir)?.iter().rev() {
        if let Some(line) = lines(file)?
            .into_iter()
            .rev()
            .find(|l| !l.trim().is_empty())
        {
            return link(&line).map(|(_, l, _)| Some(l)).ok_or_else(|| {
                MptError::new(
                    ErrorKind::CheckFailed,
                    format!("the last record of {} does not parse", file.display()),
                )
                .with_hint("run `mpt gateway audit verify` to see where the log breaks")
            });
        }
    }
    Ok(None)
}

/// Whether the chain holds from checkpoint `h` to the log's end: its record is there with its
/// hash, and each later one is numbered next and links to the one before.
pub(super) fn holds_from(dir: &StateDir, h: &Head) -> Result<bool> {
    let mut prev: Option<Link> = None;
    for file in files(dir)? {
        for line in lines(&file)? {
            if line.trim().is_empty() {
                continue;
            }
            let Some((_, l, body)) = link(&line) else {
                if prev.is_some() {
                    return Ok(false);
                }
                continue;
            };
            match &prev {
                None if l.seq == h.seq => {
                    if l.hash != h.hash || chain::hash(&l.prev, &body) != l.hash {
                        return Ok(false);
                    }
                    prev = Some(l);
                }
                None => {}
                Some(p) => {
                    if broken(Some(p), &l, &body).is_some() {
                        return Ok(false);
                    }
                    prev = Some(l);
                }
            }
        }
    }
    Ok(prev.is_some())
}

/// The chain's first record as the files hold it now: its seq and its `prev`.
pub(super) fn first_link(dir: &StateDir) -> Result<Option<Start>> {
    for file in files(dir)? {
        if let Some(s) = first_link_of(&file).map_err(|e| MptError::io("reading the audit", &e))? {
            return Ok(Some(s));
        }
    }
    Ok(None)
}

/// One file's first record: its seq and its `prev`.
pub(super) fn first_link_of(file: &std::path::Path) -> std::io::Result<Option<Start>> {
    let lines = lines(file).map_err(|e| std::io::Error::other(e.message))?;
    Ok(lines.iter().find_map(|l| link(l)).map(|(_, l, _)| Start {
        seq: l.seq,
        prev: l.prev,
    }))
}

/// The seq of a file's first record.
pub(super) fn first_seq(path: &std::path::Path) -> Result<Option<u64>> {
    Ok(lines(path)?
        .iter()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| link(l))
        .map(|(_, l, _)| l.seq))
}

/// Every record, in chain order, with where it is (lines that do not parse are skipped here;
/// `verify` names them).
pub fn records(dir: &StateDir) -> Result<Vec<(Place, Value)>> {
    let mut out = Vec::new();
    for file in files(dir)? {
        for (i, line) in lines(&file)?.iter().enumerate() {
            if let Ok(v) = serde_json::from_str::<Value>(line) {
                out.push((
                    Place {
                        file: file.clone(),
                        line: i + 1,
                    },
                    v,
                ));
            }
        }
    }
    Ok(out)
}

/// The first record that does not verify, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Bad {
    #[serde(flatten)]
    pub place: Place,
    pub seq: Option<u64>,
    pub why: String,
}

/// What `verify` found.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub records: u64,
    pub first_seq: Option<u64>,
    pub last_seq: Option<u64>,
    pub head: Option<Head>,
    pub bad: Option<Bad>,
    /// Each recorded pruning: when, its record's seq, and what it removed.
    pub pruned: Vec<Value>,
}

/// Recomputes every record's hash and link, then checks the last against the head checkpoint.
pub fn verify(dir: &StateDir) -> Result<Verdict> {
    let head = Head::load(&dir.audit_head()).ok().flatten();
    let mut v = Verdict {
        records: 0,
        first_seq: None,
        last_seq: None,
        head: head.clone(),
        bad: None,
        pruned: Vec::new(),
    };
    let mut prev: Option<Link> = None;
    let mut last_place = None;
    for file in files(dir)? {
        for (i, line) in lines(&file)?.iter().enumerate() {
            let place = Place {
                file: file.clone(),
                line: i + 1,
            };
            if line.trim().is_empty() {
                continue;
            }
            let Some((record, l, body)) = link(line) else {
                v.bad = Some(bad(place, None, "it is not a sealed audit record"));
                return Ok(v);
            };
            if prev.is_none()
                && let Some(start) = head.as_ref().and_then(|h| h.start.as_ref())
            {
                // Records before the chain's start were pruned (their files not yet removed).
                if l.seq < start.seq {
                    continue;
                }
                if let Some(why) = front_cut(start, &l) {
                    v.bad = Some(bad(place, Some(l.seq), &why));
                    return Ok(v);
                }
            }
            if record.get("stage").and_then(Value::as_str) == Some(super::PRUNE)
                && let Some(p) = record.get("pruned")
            {
                v.pruned
                    .push(json!({"at": record["ts"], "seq": l.seq, "pruned": p}));
            }
            if let Some(why) = broken(prev.as_ref(), &l, &body) {
                v.bad = Some(bad(place, Some(l.seq), &why));
                return Ok(v);
            }
            v.records += 1;
            v.first_seq.get_or_insert(l.seq);
            v.last_seq = Some(l.seq);
            last_place = Some(place);
            prev = Some(l);
        }
    }
    v.bad = against_head(prev.as_ref(), head.as_ref(), last_place, dir);
    Ok(v)
}

/// Why record `l` does not follow `prev` or does not match its own hash.
/// Why the log's first record is not where the head says the chain starts, if it is not.
fn front_cut(start: &Start, l: &Link) -> Option<String> {
    if l.seq > start.seq {
        return Some(format!(
            "the log starts at record {}: records {} to {} before it are missing (its front was cut or a file removed)",
            l.seq,
            start.seq,
            l.seq - 1
        ));
    }
    (l.prev != start.prev).then(|| {
        format!(
            "record {} does not link to where the head says the chain starts: the records before it were replaced",
            l.seq
        )
    })
}

fn broken(prev: Option<&Link>, l: &Link, body: &str) -> Option<String> {
    if chain::hash(&l.prev, body) != l.hash {
        return Some("its hash does not match its content: the record was changed".into());
    }
    match prev {
        Some(p) if l.seq != p.seq + 1 => Some(format!(
            "it follows record {} but is numbered {}: records are missing or were moved",
            p.seq, l.seq
        )),
        Some(p) if l.prev != p.hash => Some(format!(
            "its prev is not record {}'s hash: one of the two was rewritten",
            p.seq
        )),
        None if l.seq == 1 && l.prev != chain::GENESIS => {
            Some("the first record does not start the chain".into())
        }
        _ => None,
    }
}

fn against_head(
    last: Option<&Link>,
    head: Option<&Head>,
    place: Option<Place>,
    dir: &StateDir,
) -> Option<Bad> {
    let at_head = || Place {
        file: dir.audit_head(),
        line: 1,
    };
    match (last, head) {
        (None, None) => None,
        (None, Some(h)) => Some(bad(
            at_head(),
            Some(h.seq),
            &format!(
                "the head checkpoint is at record {} but the log holds none: it was cut",
                h.seq
            ),
        )),
        (Some(l), None) => Some(bad(
            place.unwrap_or_else(at_head),
            Some(l.seq),
            "there is no head checkpoint to confirm the last record: audit.head.json was removed",
        )),
        (Some(l), Some(h)) if l.seq < h.seq => Some(bad(
            place.unwrap_or_else(at_head),
            Some(l.seq + 1),
            &format!(
                "records {} to {} are missing: the log ends at {} but its head checkpoint is at {}",
                l.seq + 1,
                h.seq,
                l.seq,
                h.seq
            ),
        )),
        (Some(l), Some(h)) if l.seq > h.seq => Some(bad(
            place.unwrap_or_else(at_head),
            Some(h.seq + 1),
            &format!(
                "records after {} are not covered by the head checkpoint (at {}): appended since, or the gateway stopped mid-write",
                h.seq, h.seq
            ),
        )),
        (Some(l), Some(h)) if l.hash != h.hash => Some(bad(
            place.unwrap_or_else(at_head),
            Some(l.seq),
            "its hash is not the one the head checkpoint holds: the last record was rewritten",
        )),
        _ => None,
    }
}

fn bad(place: Place, seq: Option<u64>, why: &str) -> Bad {
    Bad {
        place,
        seq,
        why: why.to_string(),
    }
}

/// Which records `mpt gateway audit` shows.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub device: Option<String>,
    pub denied: bool,
    /// Unix seconds: records at or after it.
    pub since: Option<i64>,
    /// The most recent this many.
    pub limit: usize,
}

/// The records `q` selects, oldest first.
pub fn select(dir: &StateDir, q: &Query) -> Result<Vec<Value>> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let mut out: Vec<Value> = records(dir)?
        .into_iter()
        .map(|(_, v)| v)
        .filter(|v| q.device.is_none() || text(v, "device") == q.device)
        .filter(|v| {
            // A refusal before any decision (`invalid`) is a refusal too.
            !q.denied || matches!(text(v, "decision").as_deref(), Some("deny" | "invalid"))
        })
        .filter(|v| {
            q.since.is_none_or(|s| {
                text(v, "ts")
                    .and_then(|t| mpt_base::time::parse_iso_utc(&t))
                    .is_some_and(|t| t >= s)
            })
        })
        .collect();
    if out.len() > q.limit {
        out.drain(..out.len() - q.limit);
    }
    Ok(out)
}
