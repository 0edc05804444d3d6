//! Refusals of requests without a good token, one record per peer and window: the first written at
//! once, the rest counted into one record when the window ends (count, first, last, reasons).

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::record::audit::{Aggregate, Event};

/// How long one peer's refusals are gathered into one record.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Peers tracked at once; past it, the rest share one window (`peer: "*"`).
const MAX_PEERS: usize = 1024;
/// The peer the others share when `MAX_PEERS` are tracked.
const OTHERS: &str = "*";

struct Window {
    opened: Instant,
    /// The refusals after the first (which was written at once).
    more: u64,
    first_ms: i64,
    last_ms: i64,
    reasons: BTreeSet<String>,
    route: String,
}

#[derive(Default)]
pub struct Refusals(Mutex<HashMap<String, Window>>);

impl Refusals {
    /// Notes the refusal `e` (its peer, rule and route); returns it when it is the first of its
    /// peer's window and so is written now, `None` when it is counted for the window's record.
    pub fn note(&self, e: Event) -> Option<Event> {
        let now_ms = mpt_base::time::now_ms();
        let mut peers = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut peer = e.peer.clone().unwrap_or_default();
        if !peers.contains_key(&peer) && peers.len() >= MAX_PEERS {
            peer = OTHERS.to_string();
        }
        match peers.get_mut(&peer) {
            Some(w) if w.opened.elapsed() < WINDOW => {
                w.more += 1;
                w.last_ms = now_ms;
                if w.reasons.len() < 8 {
                    w.reasons.insert(e.rule.clone());
                }
                None
            }
            _ => {
                peers.insert(
                    peer,
                    Window {
                        opened: Instant::now(),
                        more: 0,
                        first_ms: now_ms,
                        last_ms: now_ms,
                        reasons: BTreeSet::new(),
                        route: e.route.clone(),
                    },
                );
                Some(e)
            }
        }
    }

    /// The records of the windows that ended (all of them when `all`, at shutdown): one per
    /// peer that was refused again after its first refusal.
    pub fn due(&self, all: bool) -> Vec<Event> {
        let mut peers = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let ended: Vec<String> = peers
            .iter()
            .filter(|(_, w)| all || w.opened.elapsed() >= WINDOW)
            .map(|(p, _)| p.clone())
            .collect();
        let mut out = Vec::new();
        for peer in ended {
            let Some(w) = peers.remove(&peer) else {
                continue;
            };
            if w.more == 0 {
                continue;
            }
            out.push(Event {
                stage: Event::REQUEST,
                peer: Some(peer),
                route: w.route,
                class: "auth".into(),
                rule: "auth:refused_again".into(),
                aggregate: Some(Aggregate {
                    count: w.more,
                    first: mpt_base::time::rfc3339(w.first_ms),
                    last: mpt_base::time::rfc3339(w.last_ms),
                    reasons: w.reasons.into_iter().collect(),
                }),
                ..Event::default()
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(peer: &str, why: &str) -> Event {
        Event {
            peer: Some(peer.into()),
            route: "/mcp".into(),
            rule: format!("auth:{why}"),
            ..Event::default()
        }
    }

    #[test]
    fn a_peers_refusals_after_the_first_are_one_record() {
        let r = Refusals::default();
        assert!(
            r.note(refused("127.0.0.1", "malformed")).is_some(),
            "the first, at once"
        );
        for _ in 0..999 {
            assert!(r.note(refused("127.0.0.1", "unknown_token")).is_none());
        }
        assert!(
            r.note(refused("10.0.0.2", "revoked")).is_some(),
            "another peer's own first"
        );
        assert!(r.due(false).is_empty(), "the window is still open");
        let records = r.due(true);
        assert_eq!(
            records.len(),
            1,
            "10.0.0.2 was refused once: nothing more to say"
        );
        let a = records[0].aggregate.as_ref().unwrap();
        assert_eq!(a.count, 999);
        assert_eq!(
            a.reasons,
            ["auth:unknown_token"],
            "the first is in its own record"
        );
        assert!(r.due(true).is_empty());
    }
}
