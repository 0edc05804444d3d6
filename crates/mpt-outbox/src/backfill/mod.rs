//! `mpt outbox backfill`'s engine: read a device's existing memory through its one writer, keep
//! what the wing policy replicates, and plan one op per record not yet enqueued or on the primary.

mod coord;
mod drawers;
mod kg;
mod ledger;
mod listing;
mod probe;
mod reason;
mod session;

use std::collections::BTreeMap;

use serde_json::Value;

pub use drawers::content_id;
pub use ledger::Ledgered;
pub use reason::{Reason, Skipped};
pub use session::{Read, read_and_plan};

use super::{NewOp, Outbox};
use crate::policy::Policy;
use mpt_base::error::Result;
use mpt_mcp::{CallError, Deadline, McpClient};

/// What a record is, in the order a backfill enqueues them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Drawer,
    Diary,
    /// A fact with an end (`valid_to`): sent before every open fact (an open copy on the primary
    /// swallows a later closed add).
    KgClosed,
    KgOpen,
    Artifact,
    Event,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Drawer => "drawer",
            Kind::Diary => "diary",
            Kind::KgClosed => "kg_closed",
            Kind::KgOpen => "kg_open",
            Kind::Artifact => "artifact",
            Kind::Event => "event",
        }
    }
}

/// One record of the local palace to send: the op that carries it, and its ledger key.
#[derive(Debug, Clone)]
pub struct Record {
    pub kind: Kind,
    /// The ledger key (`bf:<kind>:<local id>`), also the op's dedupe key.
    pub key: String,
    /// Its id in the local palace (a fact's is its key).
    pub local_id: String,
    pub tool: &'static str,
    pub payload: Value,
    /// For records other ops reference (events, artifacts): the local id, so `refs` waits for
    /// it and rewrites it to the primary's.
    pub local_reply: Option<Value>,
    /// When it was filed, as the local palace tells it (`--since`).
    pub filed_at: Option<String>,
}

impl Record {
    pub(super) fn new_op(&self) -> NewOp<'_> {
        NewOp {
            tool: self.tool,
            payload: &self.payload,
            dedupe_key: Some(&self.key),
            local_reply: self.local_reply.as_ref(),
            maybe_applied: false,
        }
    }
}

/// What to read and keep.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--wing`: only drawers and diary entries in these wings (facts and events have none).
    pub wings: Vec<glob::Pattern>,
    /// `--since`: a date or time, compared with the record's filing time.
    pub since: Option<String>,
    /// `backfill@<device>`: the writer of a record that names none.
    pub fallback_writer: String,
    /// This device's name: stamped on what a backfill sends, as the live edge stamps.
    pub device: String,
    /// `--include-dropped`: queue again what an operator dropped from an earlier backfill.
    pub include_dropped: bool,
}

impl Options {
    /// Everything read, for this device (`MEMPALACE_PI_DEVICE`, else the host name): a record
    /// that names no writer is `backfill@<device>`'s.
    pub fn for_config(config: &mpt_base::config::Config) -> Options {
        let device = crate::Origin::from_config(config).device;
        Options {
            wings: Vec::new(),
            since: None,
            fallback_writer: format!("backfill@{device}"),
            device,
            include_dropped: false,
        }
    }

    /// A drawer's writer as the primary should see it: MemPalace's default `mcp` (the caller
    /// named none) or nothing is `backfill@<device>`; a bare name gets `@<device>`; one with an
    /// `@` is already an identity and is kept.
    fn drawer_writer(&self, added_by: Option<String>) -> String {
        match added_by.as_deref().map(str::trim) {
            None | Some("" | "mcp") => self.fallback_writer.clone(),
            Some(w) if w.contains('@') => w.to_string(),
            Some(w) => format!("{w}@{}", self.device),
        }
    }

    /// A diary entry as the live edge would have written it: `HOST:<device>|` before the text
    /// unless it already starts with `HOST:`.
    fn diary_text(&self, text: &str) -> String {
        if text.starts_with("HOST:") {
            text.to_string()
        } else {
            format!("HOST:{}|{text}", self.device)
        }
    }
    fn selects_wing(&self, wing: &str) -> bool {
        self.wings.is_empty() || self.wings.iter().any(|p| p.matches(wing))
    }

    /// Whether `--wing` or `--since` narrows this run: then it is never done.
    pub fn narrows(&self) -> bool {
        !self.wings.is_empty() || self.since.is_some()
    }

    /// Why a record without a wing (a fact, an event) is filtered out, if it is: `--wing`
    /// selects wings only, `--since` needs a filing time (`filed_at`).
    fn filters_wingless(&self, filed_at: Option<&str>) -> Option<Reason> {
        if !self.wings.is_empty() {
            return Some(Reason::NoWing);
        }
        self.before_since(filed_at)
    }

    fn before_since(&self, filed_at: Option<&str>) -> Option<Reason> {
        let since = self.since.as_deref()?;
        match filed_at {
            None => Some(Reason::NoFilingTime),
            Some(t) if t < since => Some(Reason::BeforeSince),
            Some(_) => None,
        }
    }
}

/// Where a plan stands, for a progress bar.
#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    pub read: u64,
    pub to_send: u64,
    pub skipped: u64,
}

/// What a backfill would send, and what it passes over.
#[derive(Debug, Default)]
pub struct Plan {
    pub records: Vec<Record>,
    pub skipped: Vec<Skipped>,
    pub read: BTreeMap<Kind, u64>,
    /// Why the primary was not asked what it holds (`None`: it was).
    pub primary_error: Option<String>,
    /// Drawers and diary entries in wings `--wing` left out (listed to be counted, not read).
    pub outside_wings: u64,
}

impl Plan {
    fn skip(&mut self, kind: Kind, id: &str, reason: Reason, detail: Option<String>) {
        self.skipped.push(Skipped {
            kind,
            id: id.to_string(),
            reason,
            detail,
        });
    }

    fn progress(&self) -> Progress {
        Progress {
            read: self.read.values().sum(),
            to_send: self.records.len() as u64,
            skipped: self.skipped.len() as u64,
        }
    }

    /// Counts of records to send, by kind.
    pub fn by_kind(&self) -> BTreeMap<Kind, u64> {
        let mut m = BTreeMap::new();
        for r in &self.records {
            *m.entry(r.kind).or_insert(0) += 1;
        }
        m
    }

    /// What is left for the primary: records to send plus those waiting until it can be asked,
    /// and those an operator dropped (not there, and not undone silently). Facts the live edge
    /// still has queued count too: their window is compared once it landed. A record that can
    /// never be sent (mined, edited, a local wing, holding the token) is settled once reported.
    pub fn left(&self) -> u64 {
        let waiting = self
            .skipped
            .iter()
            .filter(|s| {
                matches!(s.reason, Reason::Unverified | Reason::Dropped)
                    || (s.reason == Reason::QueuedByEdge
                        && matches!(s.kind, Kind::KgClosed | Kind::KgOpen))
            })
            .count();
        (self.records.len() + waiting) as u64
    }

    /// Records `--wing` or `--since` kept out of this run (read and passed over, or in other
    /// wings and not read): a narrowed run is never the whole backfill.
    pub fn filtered_out(&self) -> u64 {
        let passed = self
            .skipped
            .iter()
            .filter(|s| {
                matches!(
                    s.reason,
                    Reason::BeforeSince | Reason::NoFilingTime | Reason::NoWing
                )
            })
            .count() as u64;
        passed + self.outside_wings
    }

    /// Counts of skipped records, by reason.
    pub fn by_reason(&self) -> BTreeMap<Reason, u64> {
        let mut m = BTreeMap::new();
        for s in &self.skipped {
            *m.entry(s.reason).or_insert(0) += 1;
        }
        m
    }
}

/// The clients a plan reads through.
pub struct Sources<'a> {
    /// The local palace, through its one writer (the edge owner's child, or our own child).
    pub local: &'a McpClient,
    /// The primary, for the presence checks (`None`: none configured, or it did not answer).
    pub primary: Option<&'a McpClient>,
    /// The outbox the ops go into, when it exists (its ledger and id map).
    pub outbox: Option<&'a Outbox>,
    pub policy: &'a Policy,
}

/// Reads the local palace and plans the backfill: every record the policy replicates and
/// `opts` selects, minus what is enqueued already or on the primary, in the order to send.
pub async fn plan(
    src: &Sources<'_>,
    opts: &Options,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<Plan> {
    let mut plan = Plan::default();
    drawers::plan(src, opts, &mut plan, on_progress).await?;
    kg::plan(src, opts, &mut plan, on_progress).await?;
    coord::plan(src, opts, &mut plan, on_progress).await?;
    drop_known(src.outbox, opts, &mut plan)?;
    drop_secrets(&mut plan);
    plan.records.sort_by_key(|r| order(r.kind));
    on_progress(plan.progress());
    Ok(plan)
}

/// Events and their artifacts keep their own interleaving (each artifact before its event).
fn order(kind: Kind) -> u8 {
    match kind {
        Kind::Drawer => 0,
        Kind::Diary => 1,
        Kind::KgClosed => 2,
        Kind::KgOpen => 3,
        Kind::Artifact | Kind::Event => 4,
    }
}

/// Passes over the records whose ledger key is known: a backfill enqueued them before. One
/// whose op an operator dropped is `dropped`, and planned again only with `--include-dropped`.
fn drop_known(outbox: Option<&Outbox>, opts: &Options, plan: &mut Plan) -> Result<()> {
    let Some(outbox) = outbox else {
        return Ok(());
    };
    let keys: Vec<&str> = plan.records.iter().map(|r| r.key.as_str()).collect();
    let known = outbox.backfilled(&keys)?;
    let (kept, gone): (Vec<Record>, Vec<Record>) = std::mem::take(&mut plan.records)
        .into_iter()
        .partition(|r| match known.get(&r.key) {
            None => true,
            Some(Ledgered::Dropped) => opts.include_dropped,
            Some(Ledgered::Enqueued) => false,
        });
    plan.records = kept;
    for r in gone {
        match known.get(&r.key) {
            Some(Ledgered::Dropped) => plan.skip(
                r.kind,
                &r.local_id,
                Reason::Dropped,
                Some("an operator dropped its op: `--include-dropped` queues it again".into()),
            ),
            _ => plan.skip(r.kind, &r.local_id, Reason::Enqueued, None),
        }
    }
    Ok(())
}

/// Passes over the records that carry the remote token: the outbox refuses them (it never
/// holds the token), so each is named rather than failing the whole run.
fn drop_secrets(plan: &mut Plan) {
    let (kept, gone): (Vec<Record>, Vec<Record>) = std::mem::take(&mut plan.records)
        .into_iter()
        .partition(|r| !mpt_base::secrets::json_contains_known(&r.payload));
    plan.records = kept;
    for r in gone {
        plan.skip(
            r.kind,
            &r.local_id,
            Reason::ContainsSecret,
            Some("the remote token appears in it; the outbox never holds the token, so it stays on this device".into()),
        );
    }
}

/// One read call's payload. A tool that reports its own failure (`{"error": …}`, e.g. "Chroma
/// database missing" on a palace with no drawers yet) is returned as that payload: the caller
/// knows which of those mean "nothing here" (`list`), and `items` fails on the rest.
async fn read(client: &McpClient, tool: &str, args: Value) -> Result<Value> {
    match client.call_tool(tool, args, Deadline::Default).await {
        Ok(reply) => Ok(reply.payload),
        Err(CallError::ToolFailed { payload, .. }) if payload.get("error").is_some() => Ok(payload),
        Err(e) => Err(reading(tool, e)),
    }
}

/// The array `key` of a read's payload; a payload without it is the tool's failure.
fn items(p: &Value, tool: &str, key: &str) -> Result<Vec<Value>> {
    match p.get(key).and_then(Value::as_array) {
        Some(a) => Ok(a.clone()),
        None => Err(mpt_base::error::MptError::new(
            mpt_base::error::ErrorKind::ToolFailed,
            format!(
                "{tool} answered without `{key}`: {}",
                mpt_base::secrets::scrubbed(text(p, "error").unwrap_or_else(|| p.to_string()))
            ),
        )
        .with_hint("check the palace with `mpt doctor`, then run `mpt outbox backfill` again")),
    }
}

fn reading(tool: &str, e: CallError) -> mpt_base::error::MptError {
    let mut err = mpt_base::error::MptError::from(e);
    err.message = format!("{tool}: {}", err.message);
    err
}

/// `s` or a field of an object as a trimmed, non-empty string.
fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}
