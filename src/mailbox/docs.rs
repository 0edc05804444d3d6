//! The `--json` documents of `mpt mailbox` as typed structs (their field names pinned by
//! `tests/it/mailbox_schema.rs`): the list, the inert answer, `ack`, a `watch` line, `notify`.

use serde::Serialize;
use serde_json::Value;

use super::offline::Source;
use super::{Announcement, Ask, Derivation, Route};
use mpt_coord::follow::Mode;

/// `mpt mailbox --json` (`mpt.mailbox/v1`): the derivation, then the counts and where it came from.
#[derive(Debug, Serialize)]
pub struct List<'a> {
    #[serde(flatten)]
    pub derivation: &'a Derivation,
    pub schema: &'static str,
    pub active: bool,
    pub owed_count: usize,
    pub dormant_count: usize,
    #[serde(flatten)]
    pub source: Source,
    /// [`super::DELIVERY_NOTE`] when something is owed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}

/// `mpt.mailbox/v1` when the mailbox is inert (a gate says why).
#[derive(Debug, Serialize)]
pub struct Inert<'a> {
    pub schema: &'static str,
    pub active: bool,
    pub reason: &'a str,
    pub owed: [Ask; 0],
    pub dormant: [Ask; 0],
}

impl<'a> Inert<'a> {
    pub fn new(reason: &'a str) -> Inert<'a> {
        Inert {
            schema: super::SCHEMA,
            active: false,
            reason,
            owed: [],
            dormant: [],
        }
    }
}

/// `mpt mailbox ack --json` (`mpt.mailbox.ack/v1`).
#[derive(Debug, Serialize)]
pub struct Ack<'a> {
    pub schema: &'static str,
    pub me: &'a str,
    pub acked: &'a str,
    pub status: &'a str,
    /// The ack event the primary (or the owner) stored, verbatim; null when queued.
    pub event: Value,
    /// The outbox op holding it, when queued.
    pub queued: Option<String>,
    /// Queued after a send that may have reached the primary (checked there first).
    pub unconfirmed: bool,
}

/// One delivery of `mpt mailbox watch --json` (`mpt.mailbox.announce/v1`).
#[derive(Debug, Serialize)]
pub struct Delivery<'a> {
    pub schema: &'static str,
    pub announcements: &'a [Announcement],
    pub dormant_count: usize,
    pub note: &'static str,
}

/// `mpt mailbox watch --json` going live or falling back to polling (`mpt.mailbox.watch/v1`).
#[derive(Debug, Serialize)]
pub struct WatchMode<'a> {
    #[serde(flatten)]
    pub mode: &'a Mode,
    pub schema: &'static str,
    pub interval_ms: u64,
}

/// `mpt mailbox notify --json` (`mpt.mailbox.notify/v1`).
#[derive(Debug, Serialize)]
pub struct Notify<'a> {
    pub schema: &'static str,
    pub mode: &'static str,
    pub test: bool,
    pub path: &'static str,
    pub route: Option<&'a Route>,
    pub written_bytes: usize,
    pub reason: Option<&'a str>,
    pub fix: Option<&'a str>,
    pub note: Option<&'a str>,
}
