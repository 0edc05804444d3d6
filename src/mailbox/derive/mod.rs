//! Owed-ness derivation: which asks addressed to one of my identities no later terminal event of
//! that identity answers. Pure: events in, [`Derivation`] out; the only outside access is [`Fs`].

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::dormancy::{self, Dormancy, DormancyState, Fs};
use super::text::clean_text;
use mpt_base::time::parse_iso_utc;
use mpt_coord::{Event, Me, Parsed, parse_events};

pub use mpt_coord::event::{BROADCAST, CANDIDATE_STATUS, TERMINAL_STATUSES};
/// Longest summary kept from a body's first line, in characters.
pub const SUMMARY_CHARS: usize = 200;

/// An ask addressed to me, as the mailbox shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ask {
    pub id: String,
    pub from: Option<String>,
    /// The identity it is addressed to (one of mine): only its own reply closes it.
    pub to: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    /// `now - created_at`, clamped at 0; `None` when `created_at` is absent or malformed.
    pub age_secs: Option<i64>,
    pub correlation_id: Option<String>,
    /// First non-blank line of the body, control characters removed, at most
    /// [`SUMMARY_CHARS`] characters.
    pub summary: String,
    pub hlc: Option<String>,
    pub seq: Option<i64>,
    pub created_at: Option<String>,
    /// Present only when the ask declares `dormant_unless`: why it is dormant, live or owed
    /// because its predicate could not be evaluated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dormancy: Option<Dormancy>,
}

/// What the derivation saw, for `--json` and for debugging a surprising mailbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Events given, before parsing.
    pub events: usize,
    /// Entries without a usable `id`, skipped.
    pub skipped_no_id: usize,
    /// Repeated ids (overlapping queries or pages), the first copy kept.
    pub duplicates: usize,
    /// Open asks addressed to one of my identities by someone else.
    pub candidates: usize,
    /// Candidates closed by a strictly later terminal event of mine.
    pub answered: usize,
    /// Broadcasts (`to_agent='*'`) from others: owe nothing.
    pub broadcasts: usize,
    /// Events addressed to me by me.
    pub own: usize,
    /// Events addressed to me by others whose status is not `open` (replies, claims).
    pub not_open: usize,
}

/// The mailbox: owed asks (to announce) and dormant ones (to list once), both in causal order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Derivation {
    pub me: String,
    /// The identities of mine the asks were addressed to (sorted; `--as`: that one).
    pub identities: Vec<String>,
    pub owed: Vec<Ask>,
    pub dormant: Vec<Ask>,
    pub stats: Stats,
}

fn is_terminal(status: Option<&str>) -> bool {
    status.is_some_and(|s| TERMINAL_STATUSES.contains(&s))
}

fn summary(body: &str) -> String {
    let line = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let clean = clean_text(line).trim().to_owned();
    if clean.chars().count() <= SUMMARY_CHARS {
        return clean;
    }
    let mut cut: String = clean.chars().take(SUMMARY_CHARS - 1).collect();
    cut.push('…');
    cut
}

fn ask(e: &Event<'_>, now_unix: i64, dormancy: Option<Dormancy>) -> Ask {
    Ask {
        id: e.id.to_owned(),
        from: e.from_agent.map(str::to_owned),
        to: e.to_agent.map(str::to_owned),
        kind: e.kind.to_owned(),
        age_secs: e
            .created_at
            .and_then(parse_iso_utc)
            .map(|t| (now_unix - t).max(0)),
        correlation_id: e.correlation_id.map(str::to_owned),
        summary: summary(e.body),
        hlc: e.hlc.map(str::to_owned),
        seq: e.seq,
        created_at: e.created_at.map(str::to_owned),
        dormancy,
    }
}

/// Derives the mailbox of `me` from raw `mempalace_event_list` events (any order, any mix of
/// pages and queries; duplicates are fine). `now_unix` only feeds the ages.
pub fn derive(events: &[Value], me: &Me, now_unix: i64, fs: &dyn Fs) -> Derivation {
    derive_parsed(&parse_events(events), me, now_unix, fs)
}

/// [`derive()`] over already parsed events.
pub fn derive_parsed(parsed: &Parsed<'_>, me: &Me, now_unix: i64, fs: &dyn Fs) -> Derivation {
    let events = &parsed.events;
    let mut stats = Stats {
        events: events.len() + parsed.skipped_no_id + parsed.duplicates,
        skipped_no_id: parsed.skipped_no_id,
        duplicates: parsed.duplicates,
        ..Stats::default()
    };

    // My identities' terminal events, indexed by the two joins and by who wrote them: an ask
    // is answered only by the identity it was addressed to.
    let mut by_ack: HashMap<(&str, &str), Vec<&Event<'_>>> = HashMap::new();
    let mut by_corr: HashMap<(&str, &str), Vec<&Event<'_>>> = HashMap::new();
    let mut candidates = Vec::new();
    let mut identities: Vec<String> = me.exact().map(str::to_string).into_iter().collect();
    for e in events {
        let from_me = e.from_agent.is_some_and(|f| me.is(f));
        if from_me && is_terminal(e.status) {
            let writer = e.from_agent.unwrap_or("");
            if let Some(target) = e.ack_of() {
                by_ack.entry((target, writer)).or_default().push(e);
            }
            if let Some(corr) = e.correlation_id {
                by_corr.entry((corr, writer)).or_default().push(e);
            }
        }
        match e.to_agent {
            Some(BROADCAST) if !from_me => stats.broadcasts += 1,
            Some(to) if me.is(to) => {
                if e.from_agent == Some(to) {
                    stats.own += 1;
                } else if e.status != Some(CANDIDATE_STATUS) {
                    stats.not_open += 1;
                } else {
                    if !identities.iter().any(|i| i == to) {
                        identities.push(to.to_string());
                    }
                    candidates.push(e);
                }
            }
            _ => {}
        }
    }
    identities.sort();
    stats.candidates = candidates.len();

    let answers = |c: &Event<'_>| {
        let to = c.to_agent.unwrap_or("");
        let via_ack = by_ack.get(&(c.id, to)).into_iter().flatten();
        let via_corr = c
            .correlation_id
            .and_then(|k| by_corr.get(&(k, to)))
            .into_iter()
            .flatten();
        via_ack
            .chain(via_corr)
            .any(|r| r.id != c.id && r.is_strictly_after(c))
    };
    let mut open: Vec<&Event<'_>> = candidates.into_iter().filter(|c| !answers(c)).collect();
    stats.answered = stats.candidates - open.len();
    open.sort_by(|a, b| a.causal_cmp(b));

    let (mut owed, mut dormant) = (Vec::new(), Vec::new());
    for e in open {
        let verdict = dormancy::evaluate(e.metadata, fs);
        let is_dormant = verdict
            .as_ref()
            .is_some_and(|d| d.state == DormancyState::Dormant);
        let a = ask(e, now_unix, verdict);
        if is_dormant {
            dormant.push(a);
        } else {
            owed.push(a);
        }
    }
    Derivation {
        me: me.shown.clone(),
        identities,
        owed,
        dormant,
        stats,
    }
}

#[cfg(test)]
mod tests;
