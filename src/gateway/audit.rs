//! The gateway's audit log (research §6.5): one JSON line per decision, never content, never a
//! token; hash-chained, its head in a checkpoint file, rotated by size with the chain carried on.

use std::fs::File;
use std::io::{self, BufRead, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::state::{StateDir, open_private_append, open_private_rw};
use crate::error::{ErrorKind, MptError, Result};

pub mod chain;
pub mod read;

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
    pub allowed: bool,
    pub rule: String,
    pub upstream_status: Option<u16>,
    pub latency_ms: Option<u64>,
    pub bytes_in: u64,
    pub bytes_out: Option<u64>,
    /// How a relayed reply ended: `complete`, `failed` (upstream), `dropped` (the client left).
    pub end: Option<&'static str>,
}

impl Event {
    /// The record of a request about to be forwarded, or of a refusal (one record).
    pub const REQUEST: &'static str = "request";
    /// The record of a forwarded request's answer, written once its body ended.
    pub const RESPONSE: &'static str = "response";
}

/// A record as written (its fields in this order; `hash` is added last by `chain::seal`).
#[derive(Debug, Serialize)]
struct Record<'a> {
    seq: u64,
    ts: String,
    stage: &'a str,
    device: &'a Option<String>,
    token_id: &'a Option<String>,
    peer: &'a Option<String>,
    route: &'a str,
    rpc: &'a Option<String>,
    tool: &'a Option<String>,
    class: &'a str,
    wings: &'a [String],
    decision: &'a str,
    rule: &'a str,
    upstream_status: Option<u16>,
    latency_ms: Option<u64>,
    bytes_in: u64,
    bytes_out: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<&'a str>,
    prev: &'a str,
}

/// The checkpoint of the chain's head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub schema: String,
    pub seq: u64,
    pub hash: String,
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
        let head_path = dir.audit_head();
        let head_file = open_private_rw(&head_path)
            .map_err(|e| MptError::io(format!("opening {}", head_path.display()), &e))?;
        let log = AuditLog {
            dir: dir.clone(),
            file,
            head_file,
            size,
            first_seq,
            next_seq,
            head: prev,
            max_bytes: max_bytes.max(1),
        };
        if note.is_some() {
            log.checkpoint(next_seq - 1, true)
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
        if self.size >= self.max_bytes {
            self.rotate()?;
        }
        let seq = self.next_seq;
        let rec = Record {
            seq,
            ts: now_ts(),
            stage: e.stage,
            device: &e.device,
            token_id: &e.token_id,
            peer: &e.peer,
            route: &e.route,
            rpc: &e.rpc,
            tool: &e.tool,
            class: &e.class,
            wings: &e.wings,
            decision: if e.allowed { "allow" } else { "deny" },
            rule: &e.rule,
            upstream_status: e.upstream_status,
            latency_ms: e.latency_ms,
            bytes_in: e.bytes_in,
            bytes_out: e.bytes_out,
            end: e.end,
            prev: &self.head,
        };
        let body = serde_json::to_string(&rec).map_err(io::Error::other)?;
        let (mut line, hash) = chain::seal(&self.head, &body);
        line.push('\n');
        if let Err(e) = self.file.write_all(line.as_bytes()) {
            // A full disk may take half a line: cut it, so the chain stays whole.
            let _ = self.file.set_len(self.size);
            return Err(e);
        }
        self.size += line.len() as u64;
        self.head = hash;
        self.next_seq += 1;
        self.checkpoint(seq, false)?;
        Ok(seq)
    }

    /// The current file and the last seq it holds, for [`Synced::through`] (records of earlier
    /// files were fsynced when they were rotated away).
    pub fn sync_handle(&self) -> io::Result<(File, u64)> {
        Ok((self.file.try_clone()?, self.next_seq - 1))
    }

    fn checkpoint(&self, seq: u64, durable: bool) -> io::Result<()> {
        let head = Head {
            schema: crate::schema::GATEWAY_AUDIT_HEAD.into(),
            seq,
            hash: self.head.clone(),
        };
        let mut text = serde_json::to_string(&head).map_err(io::Error::other)?;
        if text.len() >= HEAD_LEN {
            return Err(io::Error::other("the audit head outgrew its fixed size"));
        }
        text.extend(std::iter::repeat_n(' ', HEAD_LEN - 1 - text.len()));
        text.push('\n');
        self.head_file.write_all_at(text.as_bytes(), 0)?;
        if self.head_file.metadata()?.len() != HEAD_LEN as u64 {
            self.head_file.set_len(HEAD_LEN as u64)?;
        }
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

/// `2026-12-01T07:52:25.605Z`.
fn now_ts() -> String {
    let ms = crate::time::now_ms();
    let secs = crate::time::format_iso_utc(ms.div_euclid(1000));
    format!("{}.{:03}Z", secs.trim_end_matches('Z'), ms.rem_euclid(1000))
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
mod tests {
    use super::*;

    fn event(n: u64) -> Event {
        Event {
            stage: Event::REQUEST,
            device: Some("lap".into()),
            route: "/mcp".into(),
            class: "read".into(),
            allowed: true,
            rule: "role:member".into(),
            bytes_in: n,
            ..Event::default()
        }
    }

    #[test]
    fn records_chain_across_rotation_and_reopen_where_they_ended() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().to_path_buf(),
        };
        let (mut log, note) = AuditLog::open(&dir, 600).unwrap();
        assert!(note.is_none());
        for n in 0..6 {
            log.append(&event(n)).unwrap();
        }
        drop(log);
        assert!(rotated_name(&dir, 1).exists(), "rotated by size");
        let (mut log, _) = AuditLog::open(&dir, 600).unwrap();
        assert_eq!(log.append(&event(9)).unwrap(), 7);
        let v = read::verify(&dir).unwrap();
        assert!(v.bad.is_none(), "{:?}", v.bad);
        assert_eq!(v.records, 7);
        assert_eq!(crate::gateway::state::mode(&dir.audit()), Some(0o600));
    }

    #[test]
    fn a_gateway_that_wrote_no_record_opens_again() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().to_path_buf(),
        };
        drop(AuditLog::open(&dir, 1 << 20).unwrap());
        assert!(
            dir.audit_head().exists(),
            "the head is held open from the start"
        );
        let (mut log, note) = AuditLog::open(&dir, 1 << 20).unwrap();
        assert!(note.is_none(), "{note:?}");
        assert_eq!(log.append(&event(1)).unwrap(), 1);
    }

    #[test]
    fn the_checkpoint_is_rewritten_in_place_at_its_fixed_size_and_private() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().to_path_buf(),
        };
        let (mut log, _) = AuditLog::open(&dir, 1 << 20).unwrap();
        let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        log.append(&event(1)).unwrap();
        let first = inode(&dir.audit_head());
        for n in 2..40 {
            log.append(&event(n)).unwrap();
        }
        let meta = std::fs::metadata(dir.audit_head()).unwrap();
        assert_eq!(meta.len(), HEAD_LEN as u64);
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
            0o600
        );
        assert_eq!(
            inode(&dir.audit_head()),
            first,
            "no temp file renamed over it"
        );
        let head = Head::load(&dir.audit_head()).unwrap().unwrap();
        assert_eq!(head.seq, 39);
        drop(log);
        let (_, note) = AuditLog::open(&dir, 1 << 20).unwrap();
        assert!(
            note.is_none(),
            "reopens where its checkpoint says: {note:?}"
        );
    }

    #[test]
    fn a_log_cut_behind_its_checkpoint_does_not_open() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().to_path_buf(),
        };
        let (mut log, _) =
            AuditLog::open(&dir, crate::config::gateway::DEFAULT_AUDIT_MAX_BYTES).unwrap();
        log.append(&event(1)).unwrap();
        log.append(&event(2)).unwrap();
        drop(log);
        let text = std::fs::read_to_string(dir.audit()).unwrap();
        let first = text.lines().next().unwrap();
        std::fs::write(dir.audit(), format!("{first}\n")).unwrap();
        let e = AuditLog::open(&dir, crate::config::gateway::DEFAULT_AUDIT_MAX_BYTES)
            .err()
            .unwrap();
        assert_eq!(e.exit().code(), 3, "{}", e.message);
    }

    #[test]
    fn a_checkpoint_left_behind_by_a_crash_opens_when_the_chain_holds_from_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().to_path_buf(),
        };
        let max = crate::config::gateway::DEFAULT_AUDIT_MAX_BYTES;
        let (mut log, _) = AuditLog::open(&dir, max).unwrap();
        log.append(&event(1)).unwrap();
        let behind = std::fs::read(dir.audit_head()).unwrap();
        for n in 2..5 {
            log.append(&event(n)).unwrap();
        }
        drop(log);
        // The power cut: the checkpoint on disk is record 1's, the log holds 4.
        std::fs::write(dir.audit_head(), &behind).unwrap();
        let (mut log, note) = AuditLog::open(&dir, max).unwrap();
        assert!(note.unwrap().contains("records 2 to 4"), "named");
        assert_eq!(log.append(&event(5)).unwrap(), 5);
        drop(log);
        assert!(read::verify(&dir).unwrap().bad.is_none());

        // A record past the checkpoint whose link is broken is not a crash: refused.
        std::fs::write(dir.audit_head(), &behind).unwrap();
        let text = std::fs::read_to_string(dir.audit()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut forged = lines.clone();
        forged.remove(1);
        std::fs::write(dir.audit(), forged.join("\n") + "\n").unwrap();
        let e = AuditLog::open(&dir, max).err().unwrap();
        assert_eq!(e.exit().code(), 3, "{}", e.message);
    }

    #[test]
    fn one_fsync_covers_every_record_appended_before_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().to_path_buf(),
        };
        let (mut log, _) =
            AuditLog::open(&dir, crate::config::gateway::DEFAULT_AUDIT_MAX_BYTES).unwrap();
        let a = log.append(&event(1)).unwrap();
        let b = log.append(&event(2)).unwrap();
        let synced = Synced::default();
        let mut syncs = 0;
        synced
            .through(a, || {
                syncs += 1;
                log.sync_handle()
            })
            .unwrap();
        synced
            .through(b, || {
                syncs += 1;
                log.sync_handle()
            })
            .unwrap();
        assert_eq!(syncs, 1, "record {b} was on disk with record {a}");
        let c = log.append(&event(3)).unwrap();
        synced
            .through(c, || {
                syncs += 1;
                log.sync_handle()
            })
            .unwrap();
        assert_eq!(syncs, 2, "a record appended after the fsync needs its own");
    }
}
