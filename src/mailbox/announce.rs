//! Watch-loop memory: which asks were already announced and which sit dormant, so each poll
//! announces only what became owed since the last one. Pure state; no clock, no I/O.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::derive::{Ask, Derivation};

/// Why an ask is being announced now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// Owed and never announced before.
    NewlyOwed,
    /// Was dormant at an earlier poll; a baseline moved (or stopped being provable).
    LeftDormancy,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Announcement {
    pub why: Why,
    pub ask: Ask,
}

/// Remembers announced ask ids and the dormant asks' verdicts across polls.
///
/// An ask is announced once while it stays owed. A dormant ask is never announced and is
/// dropped from the announced set, so it is announced again the instant it leaves
/// dormancy. Announced ids are kept even after the ask is answered: a poll that misses a
/// page must not re-announce an old ask when the page comes back.
#[derive(Debug, Clone, Default)]
pub struct Announcer {
    announced: HashSet<String>,
    /// Dormant ask id → the verdict that kept it dormant (its baselines), from the last poll.
    dormant: HashMap<String, String>,
}

impl Announcer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `d` as already shown (e.g. the full list was just printed at start-up), so
    /// the next poll announces only changes after it.
    pub fn prime(&mut self, d: &Derivation) {
        let _ = self.next(d);
    }

    /// What became owed since the previous call, in the derivation's (causal) order.
    pub fn next(&mut self, d: &Derivation) -> Vec<Announcement> {
        let mut dormant_now = HashMap::with_capacity(d.dormant.len());
        for a in &d.dormant {
            self.announced.remove(&a.id);
            let reason = a.dormancy.as_ref().map(|v| v.reason.clone());
            dormant_now.insert(a.id.clone(), reason.unwrap_or_default());
        }
        let mut out = Vec::new();
        for a in &d.owed {
            if self.announced.insert(a.id.clone()) {
                let why = if self.dormant.contains_key(&a.id) {
                    Why::LeftDormancy
                } else {
                    Why::NewlyOwed
                };
                out.push(Announcement {
                    why,
                    ask: a.clone(),
                });
            }
        }
        self.dormant = dormant_now;
        out
    }

    pub fn is_announced(&self, id: &str) -> bool {
        self.announced.contains(id)
    }

    /// The dormant asks of the last poll with the verdict that kept each one quiet.
    pub fn dormant(&self) -> &HashMap<String, String> {
        &self.dormant
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mailbox::derive::Stats;
    use crate::mailbox::dormancy::{Dormancy, DormancyState};

    fn ask(id: &str, dormancy: Option<DormancyState>) -> Ask {
        Ask {
            id: id.to_owned(),
            from: Some("oc@box".to_owned()),
            to: Some("pi@laptop".to_owned()),
            kind: "task.request".to_owned(),
            age_secs: Some(5),
            correlation_id: None,
            summary: format!("do {id}"),
            hlc: None,
            seq: Some(1),
            created_at: None,
            dormancy: dormancy.map(|state| Dormancy {
                state,
                reason: format!("{state:?} {id}"),
            }),
        }
    }

    fn poll(owed: &[&str], dormant: &[&str]) -> Derivation {
        Derivation {
            me: "pi@laptop".to_owned(),
            identities: vec!["pi@laptop".to_owned()],
            owed: owed.iter().map(|id| ask(id, None)).collect(),
            dormant: dormant
                .iter()
                .map(|id| ask(id, Some(DormancyState::Dormant)))
                .collect(),
            stats: Stats::default(),
        }
    }

    fn said(a: &[Announcement]) -> Vec<(&str, Why)> {
        a.iter().map(|x| (x.ask.id.as_str(), x.why)).collect()
    }

    #[test]
    fn announces_once_then_only_news() {
        let mut an = Announcer::new();
        let first = an.next(&poll(&["a", "b"], &[]));
        assert_eq!(said(&first), [("a", Why::NewlyOwed), ("b", Why::NewlyOwed)]);
        assert_eq!(first[0].ask.summary, "do a");
        assert!(an.next(&poll(&["a", "b"], &[])).is_empty());
        assert!(an.next(&poll(&["a", "b"], &[])).is_empty());
        assert_eq!(
            said(&an.next(&poll(&["a", "b", "c"], &[]))),
            [("c", Why::NewlyOwed)]
        );
        // Answered (gone), then visible again after a missed page: not repeated.
        assert!(an.next(&poll(&["c"], &[])).is_empty());
        assert!(an.next(&poll(&["a", "b", "c"], &[])).is_empty());
        assert!(an.is_announced("a"));
    }

    #[test]
    fn dormant_is_silent_until_it_moves() {
        let mut an = Announcer::new();
        assert!(an.next(&poll(&[], &["d"])).is_empty());
        assert!(an.next(&poll(&[], &["d"])).is_empty());
        assert_eq!(an.dormant().get("d").map(String::as_str), Some("Dormant d"));
        assert_eq!(
            said(&an.next(&poll(&["d"], &[]))),
            [("d", Why::LeftDormancy)]
        );
        assert!(an.dormant().is_empty());
        assert!(an.next(&poll(&["d"], &[])).is_empty());
        // Back to dormant (baseline restored), then moving again: announced again.
        assert!(an.next(&poll(&[], &["d"])).is_empty());
        assert!(!an.is_announced("d"));
        assert_eq!(
            said(&an.next(&poll(&["d"], &[]))),
            [("d", Why::LeftDormancy)]
        );
    }

    #[test]
    fn prime_suppresses_what_was_already_shown() {
        let mut an = Announcer::new();
        an.prime(&poll(&["a"], &["d"]));
        assert!(an.next(&poll(&["a"], &["d"])).is_empty());
        assert_eq!(
            said(&an.next(&poll(&["a", "b", "d"], &[]))),
            [("b", Why::NewlyOwed), ("d", Why::LeftDormancy)]
        );
    }
}
