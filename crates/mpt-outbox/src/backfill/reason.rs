//! Why a backfill passes a record over: the reasons it reports (`skipped` in `--json`), each
//! saying whether the record is settled or still owed to the primary (`Plan::left`).

use super::Kind;

/// Why a record is not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Made by a miner (RFC 001 §5: mined drawers stay local; each device mines its own).
    Mined,
    /// Its id does not match its content (edited with update_drawer, or an older id recipe): on
    /// the primary it would get another id.
    Edited,
    /// Its wing replicates `local` in the policy.
    LocalWing,
    /// Filed before `--since`.
    BeforeSince,
    /// `--since` given and the record has no filing time (knowledge-graph facts).
    NoFilingTime,
    /// `--wing` given and the record has no wing (knowledge-graph facts, coordination events).
    NoWing,
    /// The remote token appears in it: the outbox never holds it, so it is never sent (an
    /// operator edits the record, or leaves it local).
    ContainsSecret,
    /// A backfill enqueued it and an operator dropped that op (`mpt outbox drop`): not on the
    /// primary, and queued again only with `--include-dropped`.
    Dropped,
    /// A backfill already enqueued it (the ledger).
    Enqueued,
    /// The live edge queued it (an op of this outbox carries it).
    QueuedByEdge,
    /// The primary already holds it.
    OnPrimary,
    /// The primary holds the same fact still open, the device's copy is closed: sending it
    /// would be swallowed; an operator decides (`kg_invalidate` on the primary).
    Conflict,
    /// The primary could not be asked whether it holds it (diary, closed facts and events are
    /// not deduped by the server): left for a run while it answers.
    Unverified,
    /// The local palace could not return it whole.
    Unreadable,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Mined => "mined",
            Reason::Edited => "edited",
            Reason::LocalWing => "local_wing",
            Reason::BeforeSince => "before_since",
            Reason::NoFilingTime => "no_filing_time",
            Reason::NoWing => "no_wing",
            Reason::ContainsSecret => "contains_secret",
            Reason::Dropped => "dropped",
            Reason::Enqueued => "enqueued",
            Reason::QueuedByEdge => "queued_by_edge",
            Reason::OnPrimary => "on_primary",
            Reason::Conflict => "conflict",
            Reason::Unverified => "unverified",
            Reason::Unreadable => "unreadable",
        }
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    pub kind: Kind,
    pub id: String,
    pub reason: Reason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}
