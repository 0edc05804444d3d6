//! The gateway's audit log (research §6.5): one JSON line per decision, never content, never a
//! token; hash-chained, its head in a checkpoint file, rotated by size with the chain carried on.

use std::fs::File;
use std::io::{self, BufRead, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::state::{StateDir, open_private_append, open_private_rw};
use mpt_base::error::{ErrorKind, MptError, Result};

mod bound;
pub mod chain;
pub mod prune;
pub mod read;

/// The stage of a pruning's record.
pub const PRUNE: &str = "prune";

/// What one record says, before the log numbers, times and chains it.
#[derive(Debug, Clone, Default)]
pub struct Event {
    pub stage: &'static str,
    pub device: Option<String>,
    pub token_id: Option<String>,
    pub peer: Option<String>,
    pub route: String,
    pub rpc: Option<String>,
    pub tool: Option<String>,
    pub class: String,
    pub wings: Vec<String>,
    /// What the gateway changed in the arguments (`rewrote:/added_by`; never a value).
    pub rewrites: Vec<String>,
    pub allowed: bool,
    pub rule: String,
    /// The gateway's own answer to a request refused before any decision (a modern request whose
    /// headers disagree with its body: 400); its `decision` is then `invalid`.
    pub status: Option<u16>,
    pub upstream_status: Option<u16>,
    pub latency_ms: Option<u64>,
    pub bytes_in: u64,
    pub bytes_out: Option<u64>,
    /// How a relayed reply ended: `complete`, `failed` (upstream), `dropped` (the client left).
    pub end: Option<&'static str>,
    /// A peer's refusals gathered into one record (`refusals.rs`).
    pub aggregate: Option<Aggregate>,
    /// What a pruning removed (`prune.rs`).
    pub pruned: Option<prune::Pruned>,
    /// An upload's SHA-256 (`PUT /inbox/…`): what was written, never its content.
    pub sha256: Option<String>,
}

/// One peer's refusals without a good token over a window, after the first (recorded apart).
#[derive(Debug, Clone, Serialize)]
pub struct Aggregate {
    pub count: u64,
    pub first: String,
    pub last: String,
    /// The distinct rules, at most 8.
    pub reasons: Vec<String>,
}

impl Event {
    /// The record of a request about to be forwarded, or of a refusal (one record).
    pub const REQUEST: &'static str = "request";
    /// The record of a forwarded request's answer, written once its body ended.
    pub const RESPONSE: &'static str = "response";
    /// The record of rotated files removed by the retention (`prune.rs`).
    pub const PRUNE: &'static str = PRUNE;
}

/// A record as written (its fields in this order; `hash` is added last by `chain::seal`).
#[derive(Debug, Serialize)]
struct Record<'a> {
    seq: u64,
    ts: &'a str,
    stage: &'a str,
    device: &'a Option<String>,
    token_id: &'a Option<String>,
    peer: &'a Option<String>,
    route: &'a str,
    rpc: &'a Option<String>,
    tool: &'a Option<String>,
    class: &'a str,
    wings: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    rewrites: &'a [String],
    decision: &'a str,
    rule: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    upstream_status: Option<u16>,
    latency_ms: Option<u64>,
    bytes_in: u64,
    bytes_out: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refused: Option<&'a Aggregate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pruned: Option<&'a prune::Pruned>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sha256: Option<&'a str>,
    prev: &'a str,
}

impl<'a> Record<'a> {
    /// The record of `e`, numbered `seq`, at `ts`, after the record whose hash is `prev`.
    fn of(e: &'a Event, seq: u64, ts: &'a str, prev: &'a str) -> Record<'a> {
        Record {
            seq,
            ts,
            stage: e.stage,
            device: &e.device,
            token_id: &e.token_id,
            peer: &e.peer,
            route: &e.route,
            rpc: &e.rpc,
            tool: &e.tool,
            class: &e.class,
            wings: &e.wings,
            rewrites: &e.rewrites,
            decision: match (e.allowed, e.status) {
                (true, _) => "allow",
                (false, Some(_)) => "invalid",
                (false, None) => "deny",
            },
            rule: &e.rule,
            status: e.status,
            upstream_status: e.upstream_status,
            latency_ms: e.latency_ms,
            bytes_in: e.bytes_in,
            bytes_out: e.bytes_out,
            end: e.end,
            refused: e.aggregate.as_ref(),
            pruned: e.pruned.as_ref(),
            sha256: e.sha256.as_deref(),
            prev,
        }
    }
}

/// The checkpoint of the chain's head, and where the chain starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub schema: String,
    pub seq: u64,
    pub hash: String,
    /// The chain's first record and the hash before it (genesis for a new log; moved on by a
    /// recorded pruning): a log that starts anywhere else lost its front. Absent in a head an
    /// older gateway wrote (its next start records it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Start>,
}

/// Where the chain starts: its first record's seq and that record's `prev`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Start {
    pub seq: u64,
    pub prev: String,
}

/// [`Head`] as the running log writes it, borrowed (the same fields in the same order).
#[derive(Serialize)]
struct HeadRef<'a> {
    schema: &'a str,
    seq: u64,
    hash: &'a str,
    start: &'a Start,
}

impl Head {
    pub fn load(path: &Path) -> Result<Option<Head>> {
        // The checkpoint is rewritten in place (one small write at offset 0): a reader that
        // meets it half-written reads it again rather than calling the chain cut.
        let mut tries = 0;
        loop {
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(MptError::io(format!("reading {}", path.display()), &e)),
            };
            // Empty: created by a gateway that opened its log and wrote no record yet.
            if text.trim().is_empty() {
                return Ok(None);
            }
            match serde_json::from_str(&text) {
                Ok(h) => return Ok(Some(h)),
                Err(_) if tries < 3 => tries += 1,
                Err(e) => {
                    return Err(MptError::new(
                        ErrorKind::CheckFailed,
                        format!("the audit head {} does not parse: {e}", path.display()),
                    ));
                }
            }
        }
    }
}

/// The checkpoint's fixed size: its JSON, padded with spaces, so each rewrite is one write
/// of one sector at offset 0 (no temp file and rename per record: two renames cost a read
/// most of its budget, bench_gateway).
const HEAD_LEN: usize = 256;

/// The open log: appends records, keeps the head checkpoint, rotates by size.
pub struct AuditLog {
    dir: StateDir,
    file: File,
    /// `audit.head.json`, held open and rewritten in place.
    head_file: File,
    size: u64,
    first_seq: u64,
    next_seq: u64,
    head: String,
    max_bytes: u64,
    /// The line being written, and the checkpoint's bytes: kept between records, so a record
    /// costs no allocation of its own.
    line: Vec<u8>,
    head_bytes: Vec<u8>,
    /// The current second's `ts` up to its milliseconds, and which second it is.
    ts: Ts,
    /// Why the log is no longer this gateway's to append to (removed or cut under it).
    broken: Option<String>,
    /// Where the chain starts, written in every checkpoint.
    start: Start,
    /// A file was rotated away since the last pruning looked.
    rotated: bool,
}

impl AuditLog {
    /// Opens the log where its chain ends. A chain whose head does not match its checkpoint
    /// (an edited or cut log) is exit 3: no request passes a gateway that cannot audit it.
    pub fn open(dir: &StateDir, max_bytes: u64) -> Result<(AuditLog, Option<String>)> {
        let path = dir.audit();
        let last = read::last_record(dir)?;
        let head = Head::load(&dir.audit_head())?;
        let mut note = None;
        let (next_seq, prev) = match (&last, &head) {
            (None, None) => (1, chain::GENESIS.to_string()),
            (Some(l), Some(h)) if l.seq == h.seq && l.hash == h.hash => (l.seq + 1, l.hash.clone()),
            // Records a crash left past their checkpoint (it is written after each record, and
            // reaches the disk by the kernel's writeback): the chain must hold from it.
            (Some(l), Some(h)) if l.seq > h.seq && read::holds_from(dir, h)? => {
                note = Some(if l.seq == h.seq + 1 {
                    format!(
                        "the audit log's record {} was written just before the gateway stopped; its checkpoint is brought up to it",
                        l.seq
                    )
                } else {
                    format!(
                        "the audit log's records {} to {} were written after its checkpoint last reached the disk (the gateway or the machine stopped); the chain holds from it, and the checkpoint is brought up to them",
                        h.seq + 1,
                        l.seq
                    )
                });
                (l.seq + 1, l.hash.clone())
            }
            _ => {
                return Err(MptError::new(
                    ErrorKind::CheckFailed,
                    format!(
                        "the audit log in {} does not end where its head checkpoint says: it was edited or cut",
                        dir.root.display()
                    ),
                )
                .with_hint(
                    "run `mpt gateway audit verify` to see where; to start a new chain, move audit*.jsonl and audit.head.json aside (keep them as evidence)",
                ));
            }
        };
        let file = open_private_append(&path)
            .map_err(|e| MptError::io(format!("opening {}", path.display()), &e))?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let first_seq = read::first_seq(&path)?.unwrap_or(next_seq);
        // The chain's start: the head's; else (a new log, or a head an older gateway wrote) its
        // first record's, recorded now.
        let recorded = head.as_ref().and_then(|h| h.start.clone());
        let start = match &recorded {
            Some(s) => s.clone(),
            None => read::first_link(dir)?.unwrap_or(Start {
                seq: next_seq,
                prev: prev.clone(),
            }),
        };
        let head_path = dir.audit_head();
        let head_file = open_private_rw(&head_path)
            .map_err(|e| MptError::io(format!("opening {}", head_path.display()), &e))?;
        let mut log = AuditLog {
            dir: dir.clone(),
            file,
            head_file,
            size,
            first_seq,
            next_seq,
            head: prev,
            max_bytes: max_bytes.max(1),
            line: Vec::with_capacity(1024),
            head_bytes: Vec::with_capacity(HEAD_LEN),
            ts: Ts::default(),
            broken: None,
            start,
            rotated: false,
        };
        let sized = log.head_file.metadata().map(|m| m.len()).unwrap_or(0) == HEAD_LEN as u64;
        if note.is_some() || (next_seq > 1 && (!sized || recorded.is_none())) {
            log.checkpoint(next_seq - 1, true)
                .and_then(|()| log.head_file.set_len(HEAD_LEN as u64))
                .map_err(|e| MptError::io("writing the audit head", &e))?;
        }
        Ok((log, note))
    }

    /// Appends one record and moves the checkpoint to it; its seq. Neither is fsynced here: a
    /// write's record is made durable by [`AuditLog::sync_handle`] and [`Synced::through`]
    /// outside the log's lock, one fsync for every record appended meanwhile (group commit:
    /// an fsync per write under the lock held twenty devices' writes to half their rate, and
    /// two per read added milliseconds, bench_gateway). A gateway killed loses nothing the
    /// kernel holds; a power cut may leave the checkpoint behind the log (`open` accepts it
    /// when the chain holds from it).
    pub fn append(&mut self, e: &Event) -> io::Result<u64> {
        self.still_whole()?;
        if self.size >= self.max_bytes {
            self.rotate()?;
        }
        let seq = self.next_seq;
        let ts = self.ts.now();
        let e = bound::bounded(e);
        let rec = Record::of(&e, seq, ts, &self.head);
        let line = &mut self.line;
        line.clear();
        serde_json::to_writer(&mut *line, &rec).map_err(io::Error::other)?;
        let hash = chain::seal(&self.head, line);
        line.push(b'\n');
        if let Err(e) = self.file.write_all(line) {
            // A full disk may take half a line: cut it, so the chain stays whole.
            let _ = self.file.set_len(self.size);
            return Err(e);
        }
        // The record counts only with its checkpoint: one whose head cannot be written is
        // taken back out, so no record says "allow" for a write that was then refused.
        let before = std::mem::replace(&mut self.head, hash);
        if let Err(e) = self.checkpoint(seq, false) {
            self.head = before;
            let _ = self.file.set_len(self.size);
            return Err(e);
        }
        self.size += self.line.len() as u64;
        self.next_seq += 1;
        Ok(seq)
    }

    /// The log file is still the one this gateway writes, as long as it wrote it: not removed
    /// (its last link gone) nor cut below what was written. Once either is seen every append
    /// fails (writes get 503, as for an unwritable log) until a restart, which then finds the
    /// chain cut and stops.
    fn still_whole(&mut self) -> io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        if self.broken.is_none() {
            let m = self.file.metadata()?;
            let why = if m.nlink() == 0 {
                Some(format!("{} was removed", self.dir.audit().display()))
            } else if m.len() < self.size {
                Some(format!(
                    "{} was cut from {} to {} bytes",
                    self.dir.audit().display(),
                    self.size,
                    m.len()
                ))
            } else {
                None
            };
            if let Some(why) = why {
                mpt_base::log_warn!(
                    "{why} under the running gateway: its records are no longer its own, so writes are refused until it restarts (`mpt gateway audit verify` says what is missing)"
                );
                self.broken = Some(why);
            }
        }
        match &self.broken {
            Some(why) => Err(io::Error::other(why.clone())),
            None => Ok(()),
        }
    }

    /// The current file and the last seq it holds, for [`Synced::through`] (records of earlier
    /// files were fsynced when they were rotated away).
    pub fn sync_handle(&self) -> io::Result<(File, u64)> {
        Ok((self.file.try_clone()?, self.next_seq - 1))
    }

    fn checkpoint(&mut self, seq: u64, durable: bool) -> io::Result<()> {
        let head = HeadRef {
            schema: mpt_base::schema::GATEWAY_AUDIT_HEAD,
            seq,
            hash: &self.head,
            start: &self.start,
        };
        let text = &mut self.head_bytes;
        text.clear();
        serde_json::to_writer(&mut *text, &head).map_err(io::Error::other)?;
        if text.len() >= HEAD_LEN {
            return Err(io::Error::other("the audit head outgrew its fixed size"));
        }
        text.resize(HEAD_LEN - 1, b' ');
        text.push(b'\n');
        // Always HEAD_LEN bytes at offset 0: the file stays that size (`open` brings an older,
        // shorter head to it), so no length check on this path.
        self.head_file.write_all_at(text, 0)?;
        if durable {
            self.head_file.sync_data()?;
        }
        Ok(())
    }

    /// `audit.jsonl` becomes `audit-<its first seq>.jsonl`; the chain goes on in a new one.
    fn rotate(&mut self) -> io::Result<()> {
        let current = self.dir.audit();
        self.file.sync_data()?;
        std::fs::rename(&current, rotated_name(&self.dir, self.first_seq))?;
        self.file = open_private_append(&current)?;
        self.size = 0;
        self.first_seq = self.next_seq;
        self.rotated = true;
        Ok(())
    }
}

/// How far the log is known to be on disk: a durable record waits here for an fsync that
/// covers it; the first waiter syncs for everyone appended so far, the rest find it done.
#[derive(Debug, Default)]
pub struct Synced {
    through: std::sync::Mutex<u64>,
}

impl Synced {
    /// Returns once record `seq` is on disk; `handle` gives the file to sync and its last seq
    /// (called only when an fsync is still needed).
    pub fn through(
        &self,
        seq: u64,
        handle: impl FnOnce() -> io::Result<(File, u64)>,
    ) -> io::Result<()> {
        let mut done = self.through.lock().unwrap_or_else(|e| e.into_inner());
        if *done >= seq {
            return Ok(());
        }
        let (file, last) = handle()?;
        file.sync_data()?;
        *done = last.max(seq);
        Ok(())
    }
}

/// Where a rotated file whose first record is `first_seq` goes (names sort in chain order).
pub fn rotated_name(dir: &StateDir, first_seq: u64) -> PathBuf {
    dir.root.join(format!("audit-{first_seq:012}.jsonl"))
}

/// A record's `ts`, `2026-12-01T07:52:25.605Z`: the date and time of day formatted once a
/// second, the milliseconds each record.
#[derive(Debug, Default)]
struct Ts {
    secs: Option<i64>,
    text: String,
}

impl Ts {
    fn now(&mut self) -> &str {
        self.at(mpt_base::time::now_ms())
    }

    fn at(&mut self, ms: i64) -> &str {
        let secs = ms.div_euclid(1000);
        if self.secs != Some(secs) {
            self.secs = Some(secs);
            self.text = mpt_base::time::format_iso_utc(secs);
            self.text.pop(); // its `Z`: the milliseconds come first
            self.text.push_str(".000Z");
        }
        let ms = ms.rem_euclid(1000) as u32;
        self.text.truncate(self.text.len() - 4);
        for d in [ms / 100, ms / 10 % 10, ms % 10] {
            self.text.push(char::from(b'0' + d as u8));
        }
        self.text.push('Z');
        &self.text
    }
}

/// The lines of a file, for the readers.
pub(crate) fn lines(path: &Path) -> Result<Vec<String>> {
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(MptError::io(format!("reading {}", path.display()), &e)),
    };
    io::BufReader::new(f)
        .lines()
        .collect::<io::Result<Vec<_>>>()
        .map_err(|e| MptError::io(format!("reading {}", path.display()), &e))
}

#[cfg(test)]
mod tests;
