//! Tolerant, zero-copy view of `mempalace_event_list` events (`serde_json::Value` objects).
//! Owns the field rules: what counts as an id, an hlc, a seq, an ack link, and causal order.

use std::cmp::Ordering;
use std::collections::HashSet;

use serde_json::{Map, Value};

/// Statuses that close a thread. `claimed`, `open` and `ready` do not.
pub const TERMINAL_STATUSES: [&str; 4] = ["applied", "superseded", "failed", "blocked"];
/// The seed's candidate query is `to_agent=<me> status=open`: an ack someone else sends me
/// (`status=applied`, `to_agent=<me>`) is a reply, not an ask.
pub const CANDIDATE_STATUS: &str = "open";
/// `to_agent` of a broadcast, which owes nobody a reply.
pub const BROADCAST: &str = "*";

/// One coordination-log event, borrowed from the JSON the palace returned.
///
/// Empty strings are treated as absent for every routing field, so `""` never joins
/// anything. Fields of the wrong JSON type are absent, not errors.
#[derive(Debug, Clone, PartialEq)]
pub struct Event<'a> {
    pub id: &'a str,
    /// Local arrival rowid: differs per replica on a mesh.
    pub seq: Option<i64>,
    pub origin_replica: Option<&'a str>,
    pub origin_seq: Option<i64>,
    /// Only a well-formed hlc (`<13 digits>-<6 lowercase hex>-<replica>`); anything else is
    /// absent, so ordering falls back to `seq` instead of trusting a malformed string.
    pub hlc: Option<&'a str>,
    pub kind: &'a str,
    pub stream: Option<&'a str>,
    pub room: Option<&'a str>,
    pub topic: Option<&'a str>,
    pub from_agent: Option<&'a str>,
    pub to_agent: Option<&'a str>,
    pub correlation_id: Option<&'a str>,
    pub branch: Option<&'a str>,
    pub base_commit: Option<&'a str>,
    pub status: Option<&'a str>,
    pub artifact_ids: Vec<&'a str>,
    pub body: &'a str,
    pub created_at: Option<&'a str>,
    pub metadata: Option<&'a Map<String, Value>>,
}

/// The result of parsing a batch: the usable events plus what was dropped and why.
#[derive(Debug, Default)]
pub struct Parsed<'a> {
    pub events: Vec<Event<'a>>,
    /// Not an object, or no non-empty string `id`.
    pub skipped_no_id: usize,
    /// Same id seen again (overlapping pages or queries); the first copy wins.
    pub duplicates: usize,
}

fn text(v: &Value) -> Option<&str> {
    v.as_str().filter(|s| !s.is_empty())
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// `<unix ms: 13 digits>-<counter: 6 lowercase hex>-<replica id>` (mempalace `hlc.py`).
pub fn is_hlc(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 21
        && b[..13].iter().all(u8::is_ascii_digit)
        && b[13] == b'-'
        && b[14..20]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
        && b[20] == b'-'
}

impl<'a> Event<'a> {
    /// `None` when the value is not an object or carries no non-empty string `id`.
    pub fn from_value(value: &'a Value) -> Option<Self> {
        let obj = value.as_object()?;
        let mut e = Event {
            id: "",
            seq: None,
            origin_replica: None,
            origin_seq: None,
            hlc: None,
            kind: "",
            stream: None,
            room: None,
            topic: None,
            from_agent: None,
            to_agent: None,
            correlation_id: None,
            branch: None,
            base_commit: None,
            status: None,
            artifact_ids: Vec::new(),
            body: "",
            created_at: None,
            metadata: None,
        };
        // One pass over the entries: ~20 keyed lookups per event cost more than the rest of
        // the derivation together.
        for (key, v) in obj {
            match key.as_str() {
                "id" => e.id = text(v).unwrap_or(""),
                "seq" => e.seq = int(v),
                "origin_replica" => e.origin_replica = text(v),
                "origin_seq" => e.origin_seq = int(v),
                "hlc" => e.hlc = text(v).filter(|h| is_hlc(h)),
                "type" => e.kind = text(v).unwrap_or(""),
                "stream" => e.stream = text(v),
                "room" => e.room = text(v),
                "topic" => e.topic = text(v),
                "from_agent" => e.from_agent = text(v),
                "to_agent" => e.to_agent = text(v),
                "correlation_id" => e.correlation_id = text(v),
                "branch" => e.branch = text(v),
                "base_commit" => e.base_commit = text(v),
                "status" => e.status = text(v),
                "artifact_ids" => {
                    e.artifact_ids = v
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default()
                }
                "body" => e.body = v.as_str().unwrap_or(""),
                "created_at" => e.created_at = text(v),
                "metadata" => e.metadata = v.as_object(),
                _ => {}
            }
        }
        (!e.id.is_empty()).then_some(e)
    }

    /// `metadata.ack_of`, the id this event acknowledges (written by `event_ack`).
    pub fn ack_of(&self) -> Option<&'a str> {
        self.metadata?
            .get("ack_of")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }

    /// Strictly later in causal order: by `hlc` when both carry one, else by `seq` when both
    /// carry one; never by `created_at`. Without a comparable pair nothing is proven: `false`.
    pub fn is_strictly_after(&self, other: &Event<'_>) -> bool {
        match (self.hlc, other.hlc) {
            (Some(a), Some(b)) => a > b,
            _ => matches!((self.seq, other.seq), (Some(a), Some(b)) if a > b),
        }
    }

    /// The one causal order (see [`CausalKey`]).
    pub fn causal_cmp(&self, other: &Event<'_>) -> Ordering {
        self.causal_key().cmp(&other.causal_key())
    }

    pub fn causal_key(&self) -> CausalKey<'a> {
        CausalKey {
            unstamped: self.hlc.is_none(),
            hlc: self.hlc,
            unsequenced: self.seq.is_none(),
            seq: self.seq,
            id: self.id,
        }
    }
}

/// The log's one causal order, total so a list sorts the same whatever order its pages arrived
/// in: hlc-stamped events first, by hlc (fixed-width: text order is causal order across
/// replicas); then the rest by `seq`; then by id. Never `created_at` (second precision), and a
/// malformed hlc counts as none ([`is_hlc`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CausalKey<'a> {
    unstamped: bool,
    hlc: Option<&'a str>,
    unsequenced: bool,
    seq: Option<i64>,
    id: &'a str,
}

impl<'a> CausalKey<'a> {
    /// The key of an event as the palace returned it (three fields read, not the whole event).
    pub fn of(value: &'a Value) -> CausalKey<'a> {
        let hlc = value.get("hlc").and_then(text).filter(|h| is_hlc(h));
        let seq = value.get("seq").and_then(int);
        CausalKey {
            unstamped: hlc.is_none(),
            hlc,
            unsequenced: seq.is_none(),
            seq,
            id: value.get("id").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

/// Parses a batch, skipping (and counting) id-less entries and duplicate ids.
pub fn parse_events(values: &[Value]) -> Parsed<'_> {
    let mut parsed = Parsed {
        events: Vec::with_capacity(values.len()),
        ..Parsed::default()
    };
    let mut seen = HashSet::with_capacity(values.len());
    for value in values {
        match Event::from_value(value) {
            None => parsed.skipped_no_id += 1,
            Some(e) if !seen.insert(e.id) => parsed.duplicates += 1,
            Some(e) => parsed.events.push(e),
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const H1: &str = "1795990813458-000000-rep_49341879be104ab48296c1e07a6e1106";
    const H2: &str = "1795990813458-000001-rep_49341879be104ab48296c1e07a6e1106";

    #[test]
    fn parses_a_full_event() {
        let v = json!({
            "id": "evt_1", "seq": 7, "origin_replica": "rep_x", "origin_seq": 3, "hlc": H1,
            "type": "task.request", "stream": "project/x", "room": "delegation", "topic": null,
            "from_agent": "oc@box", "to_agent": "pi@laptop", "correlation_id": "task_x_1",
            "branch": "", "base_commit": null, "status": "open", "artifact_ids": ["art_1", 3],
            "body": "do it\nplease", "created_at": "2026-09-22T18:12:49Z",
            "metadata": {"ack_of": "evt_0"}
        });
        let e = Event::from_value(&v).unwrap();
        assert_eq!(e.id, "evt_1");
        assert_eq!(e.seq, Some(7));
        assert_eq!(e.origin_seq, Some(3));
        assert_eq!(e.hlc, Some(H1));
        assert_eq!(e.kind, "task.request");
        assert_eq!(e.topic, None);
        assert_eq!(e.branch, None);
        assert_eq!(e.artifact_ids, vec!["art_1"]);
        assert_eq!(e.to_agent, Some("pi@laptop"));
        assert_eq!(e.ack_of(), Some("evt_0"));
        assert_eq!(e.body, "do it\nplease");
    }

    #[test]
    fn tolerates_missing_and_mistyped_fields() {
        let v = json!({"id": "evt_2", "seq": "12", "hlc": "garbage", "metadata": [1]});
        let e = Event::from_value(&v).unwrap();
        assert_eq!(e.seq, Some(12));
        assert_eq!(e.hlc, None);
        assert_eq!(e.kind, "");
        assert_eq!(e.metadata, None);
        assert_eq!(e.ack_of(), None);
    }

    #[test]
    fn hlc_shape() {
        assert!(is_hlc(H1));
        assert!(!is_hlc("1795990813458-00000A-rep_x"));
        assert!(!is_hlc("179599081345-000000-rep_x"));
        assert!(!is_hlc("1795990813458-000000-"));
        assert!(!is_hlc("1795990813458_000000-rep_x"));
    }

    #[test]
    fn counts_skipped_and_duplicates() {
        let values = vec![
            json!({"id": "a"}),
            json!({"id": ""}),
            json!({"seq": 1}),
            json!("not an object"),
            json!({"id": "a", "seq": 9}),
            json!({"id": "b"}),
        ];
        let p = parse_events(&values);
        assert_eq!(
            p.events.iter().map(|e| e.id).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(p.events[0].seq, None, "first copy wins");
        assert_eq!(p.skipped_no_id, 3);
        assert_eq!(p.duplicates, 1);
    }

    #[test]
    fn strictly_after_prefers_hlc_then_seq() {
        let mk = |hlc: Option<&str>, seq: Option<i64>| json!({"id": "x", "hlc": hlc, "seq": seq});
        let table = [
            // (later, earlier, expected): hlc decides even against seq
            (mk(Some(H2), Some(1)), mk(Some(H1), Some(9)), true),
            (mk(Some(H1), Some(9)), mk(Some(H2), Some(1)), false),
            (mk(Some(H1), Some(9)), mk(Some(H1), Some(1)), false),
            // one side without hlc: seq decides
            (mk(None, Some(5)), mk(Some(H2), Some(4)), true),
            (mk(Some(H2), Some(4)), mk(None, Some(5)), false),
            (mk(None, Some(5)), mk(None, Some(5)), false),
            // nothing comparable: not proven
            (mk(None, None), mk(None, Some(1)), false),
        ];
        for (i, (a, b, want)) in table.iter().enumerate() {
            let (a, b) = (Event::from_value(a).unwrap(), Event::from_value(b).unwrap());
            assert_eq!(a.is_strictly_after(&b), *want, "row {i}");
        }
    }
}
