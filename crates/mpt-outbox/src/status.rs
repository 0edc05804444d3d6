//! The outbox's status as one value (`Outbox::status`): counts, open ops, the backlog, the head,
//! the oldest open op and the last flush, read through one read-only open for every view of it.

// `mpt outbox`, doctor's `outbox` check and `mpt edge status` each built this by hand (doctor and
// the edge status opening the queue read-write); they now read `status_at` and print their part.

use std::path::Path;

use super::order::Backlog;
use super::{LastFlush, Op, OpState, OpenOptions, Outbox};
use mpt_base::error::Result;

/// Where the outbox stands at one instant. `Default` is the status of an outbox that does not
/// exist yet (or holds no schema): nothing queued, nothing ever flushed.
#[derive(Debug, Default)]
pub struct OutboxStatus {
    /// Ops by state (every state, zero included; empty for no outbox).
    pub counts: Vec<(OpState, i64)>,
    /// Queued, leased or failed: not settled yet (the lane apart included).
    pub open: i64,
    /// Where the open ops of the main lane stand (failed ones in queue order, held back, ...).
    pub backlog: Backlog,
    /// The first op not yet done or dropped.
    pub head: Option<Op>,
    /// When the oldest open op was queued (unix ms).
    pub oldest_open_at: Option<i64>,
    /// The last `local_seq` this outbox allocated.
    pub last_seq: Option<i64>,
    /// When an op last reached the primary (unix ms).
    pub last_flushed_at: Option<i64>,
    /// How the last flush that reached for the primary failed, while that stands.
    pub last_flush_error: Option<LastFlush>,
    /// Writes an edge recorded before its local palace applied them, not yet queued or cancelled.
    pub pending_local: i64,
}

impl OutboxStatus {
    pub fn count(&self, st: OpState) -> i64 {
        super::admin::count_in(&self.counts, st)
    }

    /// The first failed op, what needs a person.
    pub fn first_failed(&self) -> Option<&Op> {
        self.backlog.failed.first()
    }

    /// The op to show at the head: the first failed one when there is one, else the head.
    pub fn shown_head(&self) -> Option<&Op> {
        self.first_failed().or(self.head.as_ref())
    }

    /// A failed op holds back what depends on it.
    pub fn blocked(&self) -> bool {
        !self.backlog.failed.is_empty()
    }

    /// How long the oldest open op has waited at `now` (ms), if one does.
    pub fn oldest_open_age_ms(&self, now: i64) -> Option<i64> {
        self.oldest_open_at.map(|t| (now - t).max(0))
    }
}

impl Outbox {
    /// The outbox's status at `now` (unix ms): the backlog is judged with backoff due by `now`.
    pub fn status(&self, now: i64) -> Result<OutboxStatus> {
        let summary = self.summary()?;
        Ok(OutboxStatus {
            open: summary.open(),
            counts: summary.counts,
            backlog: self.backlog(now, now)?,
            head: summary.head,
            oldest_open_at: summary.oldest_queued_at,
            last_seq: summary.last_seq,
            last_flushed_at: self.last_flushed_at()?,
            last_flush_error: self.last_flush_error()?,
            pending_local: self.intent_count()?,
        })
    }
}

/// The status of the outbox at `path`, opened read-only (a full disk or a read-only folder never
/// stops it being read); `None` when there is no outbox there (no file, or a file that holds no
/// schema yet: nothing was ever queued).
pub fn status_at(path: &Path, opts: OpenOptions, now: i64) -> Result<Option<OutboxStatus>> {
    if !path.exists() {
        return Ok(None);
    }
    Outbox::open_read_only(path, opts)?
        .map(|store| store.status(now))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NewOp, Origin, util};
    use serde_json::json;

    #[test]
    fn the_status_is_read_in_one_read_only_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outbox.sqlite3");
        assert!(
            status_at(&path, OpenOptions::default(), 0)
                .unwrap()
                .is_none()
        );
        let origin = Origin {
            device: "d".into(),
            host: "h".into(),
            inbox: None,
        };
        {
            let mut o = Outbox::open(&path, OpenOptions::default()).unwrap();
            for s in ["a", "b"] {
                o.enqueue(
                    &origin,
                    NewOp {
                        tool: "mempalace_kg_add",
                        payload: &json!({"subject": s, "predicate": "p", "object": "o"}),
                        dedupe_key: None,
                        local_reply: None,
                        maybe_applied: false,
                    },
                )
                .unwrap();
            }
        }
        let now = util::now_ms();
        let s = status_at(&path, OpenOptions::default(), now)
            .unwrap()
            .expect("an outbox");
        assert_eq!((s.open, s.count(OpState::Queued)), (2, 2));
        assert_eq!(s.backlog.sendable, 2);
        assert_eq!(s.shown_head().map(|h| h.local_seq), Some(1));
        assert_eq!(s.last_seq, Some(2));
        assert!(!s.blocked() && s.last_flushed_at.is_none() && s.last_flush_error.is_none());
        assert!(s.oldest_open_age_ms(now).is_some_and(|a| a >= 0));
    }
}
