//! What a flush did and how it ended: the counts, why the drain stopped, the exit code that
//! follows from it, and the `mpt.outbox.flush/v1` document.

use std::time::Duration;

use serde::Serialize;

use super::{Op, OpDoc};
use mpt_base::error::{ErrorKind, MptError};

/// Why the drain ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// Nothing left to send.
    Drained,
    /// `--limit` ops settled.
    Limit,
    /// Everything sendable was sent; failed ops remain (and the ops that depend on them wait)
    /// until an operator retries or drops them.
    Blocked,
    /// The primary could not be reached, was busy or unhealthy: try later.
    Unavailable,
    /// Everything else was sent; what remains is backing off after an earlier failure.
    Backoff,
    /// The deadline passed with ops still queued.
    Deadline,
    /// Credentials or endpoint refused (401/403/404): nothing can be sent until fixed.
    Refused,
    /// Another flusher found this one stuck (no heartbeat for twice the network deadline) and
    /// asked it to let go: the send in flight was abandoned (checked before it is resent).
    TakenOver,
}

#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// Calls that carried an op to the primary.
    pub sent: u64,
    pub applied: u64,
    pub already_there: u64,
    /// Found on the primary by a replay check (the earlier, unanswered send had landed).
    pub verified_present: u64,
    pub hard_failures: u64,
    pub transient_failures: u64,
    /// Ops the primary's gateway refused by its policy: failed at once.
    pub denied: u64,
    /// Waits for a gateway's `Retry-After` (429): not failures.
    pub rate_limited: u64,
}

#[derive(Debug, Clone)]
pub struct FlushReport {
    pub stop: Stop,
    pub counts: Counts,
    /// Ops that became failed in this run.
    pub failed: Vec<String>,
    /// The first failed op, when blocked.
    pub blocked_by: Option<Op>,
    /// Ops left waiting for a failed op (or for one that has not landed).
    pub held_back: i64,
    /// Leases of a dead flusher returned to the queue at the start.
    pub recovered_leases: usize,
    pub remaining: i64,
    pub elapsed: Duration,
    pub error: Option<MptError>,
    /// It ended on a network failure (not the server's): worth probing until the primary answers.
    pub unreachable: bool,
}

impl FlushReport {
    /// The report of a flush with nothing to send (no outbox yet): drained, every count zero.
    pub fn nothing() -> FlushReport {
        FlushReport {
            stop: Stop::Drained,
            counts: Counts::default(),
            failed: Vec::new(),
            blocked_by: None,
            held_back: 0,
            recovered_leases: 0,
            remaining: 0,
            elapsed: Duration::ZERO,
            error: None,
            unreachable: false,
        }
    }

    pub fn settled(&self) -> u64 {
        self.counts.applied + self.counts.already_there + self.counts.verified_present
    }
}

/// The flush report as `mpt.outbox.flush/v1` (`mpt outbox flush` adds where it flushed and
/// the mine lane after it). Field names pinned by a golden test (`tests/it/outbox/flow.rs`).
#[derive(Debug, Serialize)]
pub struct FlushDoc<'a> {
    pub schema: &'static str,
    pub result: Stop,
    pub exit_code: u8,
    pub sent: u64,
    pub settled: u64,
    pub applied: u64,
    pub already_there: u64,
    pub verified_present: u64,
    pub hard_failures: u64,
    pub transient_failures: u64,
    pub denied: u64,
    pub rate_limited: u64,
    pub failed: &'a [String],
    pub blocked_by: Option<OpDoc<'a>>,
    pub held_back: i64,
    pub recovered_leases: usize,
    pub remaining: i64,
    pub elapsed_ms: f64,
    pub ops_per_s: f64,
    pub error: Option<ErrorBrief<'a>>,
}

/// Why the flush stopped, as the report says it (the op's own stored error is `StoredError`).
#[derive(Debug, Serialize)]
pub struct ErrorBrief<'a> {
    pub kind: &'static str,
    pub message: &'a str,
    pub hint: Option<&'a str>,
}

impl FlushReport {
    /// This report as its document, for a flush that exits with `exit_code`.
    pub fn doc(&self, exit_code: u8) -> FlushDoc<'_> {
        let secs = self.elapsed.as_secs_f64();
        let c = &self.counts;
        FlushDoc {
            schema: mpt_base::schema::OUTBOX_FLUSH,
            result: self.stop,
            exit_code,
            sent: c.sent,
            settled: self.settled(),
            applied: c.applied,
            already_there: c.already_there,
            verified_present: c.verified_present,
            hard_failures: c.hard_failures,
            transient_failures: c.transient_failures,
            denied: c.denied,
            rate_limited: c.rate_limited,
            failed: &self.failed,
            blocked_by: self.blocked_by.as_ref().map(|o| o.doc(false)),
            held_back: self.held_back,
            recovered_leases: self.recovered_leases,
            remaining: self.remaining,
            elapsed_ms: secs * 1e3,
            ops_per_s: if secs > 0.0 {
                self.settled() as f64 / secs
            } else {
                0.0
            },
            error: self.error.as_ref().map(|e| ErrorBrief {
                kind: e.kind.as_str(),
                message: &e.message,
                hint: e.hint.as_deref(),
            }),
        }
    }
}

impl Stop {
    /// The exit code a flush that ended this way returns (docs/outbox.md).
    pub fn exit_code(self, error: Option<&MptError>) -> mpt_base::error::Exit {
        use mpt_base::error::Exit;
        match self {
            Stop::Drained | Stop::Limit => Exit::Ok,
            Stop::Blocked => Exit::CheckFailed,
            Stop::Unavailable | Stop::Deadline | Stop::Backoff => match error.map(|e| e.kind) {
                Some(ErrorKind::Busy) => Exit::Busy,
                _ => Exit::Unavailable,
            },
            Stop::Refused => error.map_or(Exit::Refused, |e| e.exit()),
            Stop::TakenOver => Exit::Busy,
        }
    }
}
