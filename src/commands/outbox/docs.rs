//! The `--json` documents of `mpt outbox` as typed structs (their field paths and types pinned
//! by `tests/it/documents.rs`): the summary, list and show, and enqueue, retry, drop, purge.

use std::path::Path;

use serde::Serialize;

use mpt_outbox::refs::Wait;

/// `mpt outbox enqueue --json` (`mpt.outbox.enqueue/v1`).
#[derive(Debug, Serialize)]
pub struct Enqueued<'a> {
    pub schema: &'static str,
    pub outbox: &'a Path,
    pub op_id: &'a str,
    pub local_seq: i64,
    pub tool: &'a str,
    /// An open op with the same dedupe key was there: this is it.
    pub deduped: bool,
}

/// `mpt outbox retry --json` (`mpt.outbox.retry/v1`).
#[derive(Debug, Serialize)]
pub struct Retried<'a> {
    pub schema: &'static str,
    pub outbox: &'a Path,
    pub retried: &'a [String],
    pub count: usize,
}

/// `mpt outbox drop --json` (`mpt.outbox.drop/v1`): the op as it is now, with its payload.
#[derive(Debug, Serialize)]
pub struct Dropped<'a> {
    pub schema: &'static str,
    pub outbox: &'a Path,
    pub op: mpt_outbox::OpDoc<'a>,
}

/// `mpt outbox purge --json` (`mpt.outbox.purge/v1`).
#[derive(Debug, Serialize)]
pub struct Purged<'a> {
    pub schema: &'static str,
    pub outbox: &'a Path,
    pub deleted: i64,
    pub older_than_s: u64,
}

/// `mpt outbox --json` (`mpt.outbox.summary/v1`).
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    pub schema: &'static str,
    pub outbox: &'a Path,
    pub exists: bool,
    /// The primary's URL, any userinfo redacted.
    pub primary: Option<String>,
    pub device: String,
    /// Ops by state, every state named.
    pub counts: Counts,
    pub open: i64,
    pub oldest_open_age_s: Option<i64>,
    pub blocked: bool,
    pub held_back: i64,
    pub head: Option<mpt_outbox::OpDoc<'a>>,
    pub last_local_seq: Option<i64>,
    pub flusher_pid: Option<u32>,
    pub last_flush_error: Option<mpt_outbox::LastFlushDoc<'a>>,
    /// Writes an edge recorded before its child applied them, not yet queued or cancelled.
    pub pending_local: i64,
}

/// Ops by state in the states' own order, one key each: `{"queued": 2, "leased": 0, ...}`.
#[derive(Debug)]
pub struct Counts(pub Vec<(&'static str, i64)>);

impl Serialize for Counts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (state, n) in &self.0 {
            m.serialize_entry(state, n)?;
        }
        m.end()
    }
}

/// `mpt outbox list --json` (`mpt.outbox.list/v1`).
#[derive(Debug, Serialize)]
pub struct List<'a> {
    pub schema: &'static str,
    pub outbox: &'a Path,
    pub state: String,
    pub count: usize,
    pub ops: Vec<OpWaits<'a>>,
}

/// `mpt outbox show --json` (`mpt.outbox.op/v1`): the op with its payload, and its audit trail.
#[derive(Debug, Serialize)]
pub struct Shown<'a> {
    pub schema: &'static str,
    pub outbox: &'a Path,
    pub op: OpWaits<'a>,
    pub audit: &'a [mpt_outbox::AuditEntry],
}

/// An op in `list` (`ops[]`) and `show` (`op`): its document, then what it waits for
/// (`waits_on`: the ops that minted ids it references and have not landed; it is sent when they
/// are).
#[derive(Debug, Serialize)]
pub struct OpWaits<'a> {
    #[serde(flatten)]
    pub op: mpt_outbox::OpDoc<'a>,
    pub waits_on: &'a [Wait],
}
