//! Honest pruning: rotated audit files past the retention (age, or size in all) are removed only
//! after a record of what goes (its range, the hash at its end) moved the chain's start past them.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::{AuditLog, Event, PRUNE, Start, read};

/// What a pruning removed: records `from_seq` to `to_seq` (the last one's hash is `to_hash`, the
/// new start's `prev`), in `files` files of `bytes` bytes.
#[derive(Debug, Clone, Serialize)]
pub struct Pruned {
    pub from_seq: u64,
    pub to_seq: u64,
    pub to_hash: String,
    pub files: usize,
    pub bytes: u64,
}

/// How long rotated files are kept, and how many bytes of audit in all.
#[derive(Debug, Clone, Copy)]
pub struct Retention {
    pub keep: Duration,
    pub keep_bytes: u64,
}

struct Rotated {
    path: PathBuf,
    bytes: u64,
    modified: SystemTime,
}

impl AuditLog {
    /// Whether a file was rotated away since the last look (then a pruning may be due).
    pub fn take_rotated(&mut self) -> bool {
        std::mem::take(&mut self.rotated)
    }

    /// Removes the oldest rotated files past `keep` (older than its age, or while all the audit
    /// files pass its size), once a record of what goes is appended and the chain's start moved
    /// past them; files a crash left behind an earlier pruning's start are removed as well.
    pub fn prune(&mut self, keep: Retention) -> std::io::Result<Option<Pruned>> {
        let files = read::files(&self.dir).map_err(|e| std::io::Error::other(e.message))?;
        let (current, rotated) = files.split_last().expect("files() ends with audit.jsonl");
        let mut all: Vec<Rotated> = Vec::new();
        for path in rotated {
            let m = std::fs::metadata(path)?;
            all.push(Rotated {
                path: path.clone(),
                bytes: m.len(),
                modified: m.modified()?,
            });
        }
        let mut total: u64 = all.iter().map(|r| r.bytes).sum::<u64>()
            + std::fs::metadata(current).map(|m| m.len()).unwrap_or(0);
        let now = SystemTime::now();
        // A rotated file's records end where the next file's begin (its name holds its first).
        let first_of = |p: &PathBuf| {
            p.file_name().and_then(|n| n.to_str()).and_then(|n| {
                n.strip_prefix("audit-")?
                    .strip_suffix(".jsonl")?
                    .parse::<u64>()
                    .ok()
            })
        };
        let mut chosen = 0;
        for (i, r) in all.iter().enumerate() {
            let next_first = all
                .get(i + 1)
                .and_then(|n| first_of(&n.path))
                .unwrap_or(self.first_seq);
            let behind = next_first <= self.start.seq;
            let old = now.duration_since(r.modified).unwrap_or_default() > keep.keep;
            if !(behind || old || total > keep.keep_bytes) {
                break;
            }
            total -= r.bytes;
            chosen += 1;
        }
        let gone: Vec<Rotated> = all.into_iter().take(chosen).collect();
        // Where the chain will start: the first record after the files that go.
        let next_file = files.get(chosen).expect("at least audit.jsonl is left");
        let start = match read::first_link_of(next_file)? {
            Some(s) => s,
            None => Start {
                seq: self.next_seq,
                prev: self.head.clone(),
            },
        };
        let pruned = if start.seq > self.start.seq {
            let p = Pruned {
                from_seq: self.start.seq,
                to_seq: start.seq - 1,
                to_hash: start.prev.clone(),
                files: gone.len(),
                bytes: gone.iter().map(|r| r.bytes).sum(),
            };
            let record = Event {
                stage: PRUNE,
                class: "audit".into(),
                route: String::new(),
                allowed: true,
                rule: "retention".into(),
                pruned: Some(p.clone()),
                ..Event::default()
            };
            // The record goes with the moved start in its checkpoint, both on disk before a
            // file is removed: a crash between leaves files the next pruning removes.
            let was = std::mem::replace(&mut self.start, start);
            if let Err(e) = self.append(&record) {
                self.start = was;
                return Err(e);
            }
            self.file.sync_data()?;
            self.checkpoint(self.next_seq - 1, true)?;
            Some(p)
        } else {
            None
        };
        for r in &gone {
            std::fs::remove_file(&r.path)?;
        }
        Ok(pruned)
    }
}
