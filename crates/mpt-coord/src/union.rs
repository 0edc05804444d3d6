//! Coordination events from two logs as one list, each event once: the primary's (and the copies
//! pulled from it) plus this palace's own events that are not one of them.

// An own event and the primary's copy of it are one event when: the op landed (the id map knows
// the primary's id), both carry one op key (`metadata.mpt_op_id`), or, for the tools without
// metadata, their content is the replay check's (an ack: writer, target, status, body; a task:
// writer, body, recipient, branch, commit).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::{CausalKey, op_key};

/// Which way a list runs (event_list's rule: ascending when resuming from a cursor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Asc,
    Desc,
}

impl Order {
    /// event_list's order for these arguments; event_wait is always ascending.
    pub fn of(args: &Value, wait: bool) -> Order {
        let explicit = args
            .get("order")
            .and_then(Value::as_str)
            .map(|o| o.trim().to_ascii_lowercase());
        match explicit.as_deref() {
            _ if wait => Order::Asc,
            Some("asc") => Order::Asc,
            Some("desc") => Order::Desc,
            _ if args.get("since_event_id").and_then(Value::as_str).is_some() => Order::Asc,
            _ => Order::Desc,
        }
    }
}

/// event_list's and event_wait's `limit` (default 50, at most 500).
pub fn limit_of(args: &Value) -> usize {
    args.get("limit")
        .and_then(Value::as_u64)
        .map_or(50, |l| l.clamp(1, 500) as usize)
}

/// The result of a merge.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    pub events: Vec<Value>,
    /// Own events shown (written here, not on the primary yet).
    pub own: usize,
}

/// Splits a local answer into copies of other palaces' events (pulled) and events this palace
/// wrote (`own`), by `origin_replica`. Without a known replica id every event counts as own.
pub fn split_local(local: Vec<Value>, replica: Option<&str>) -> (Vec<Value>, Vec<Value>) {
    local.into_iter().partition(|e| {
        let origin = e.get("origin_replica").and_then(Value::as_str);
        replica.is_some() && origin.is_some() && origin != replica
    })
}

/// `primary` (the primary's answer, then pulled copies: each id once) plus every `own` event that
/// is not one of them, in causal order (`order`'s way), at most `limit`. `landed` maps an id this
/// palace minted to the primary's, once its op landed.
pub fn merge(
    primary: Vec<Value>,
    own: Vec<Value>,
    landed: &dyn Fn(&str) -> Option<String>,
    order: Order,
    limit: usize,
) -> Merged {
    let mut ids = HashSet::new();
    let mut events: Vec<Value> = primary
        .into_iter()
        .filter(|e| id(e).is_none_or(|i| ids.insert(i.to_string())))
        .collect();
    let keys: HashSet<String> = events
        .iter()
        .filter_map(op_key)
        .map(str::to_string)
        .collect();
    let mut copies: HashMap<String, usize> = HashMap::new();
    for sig in events.iter().filter_map(|e| signature(e, &|_| None)) {
        *copies.entry(sig).or_default() += 1;
    }
    let mut shown = HashSet::new();
    for e in own {
        let Some(eid) = id(&e) else { continue };
        if ids.contains(eid) || landed(eid).is_some() {
            continue;
        }
        if op_key(&e).is_some_and(|k| keys.contains(k)) {
            continue;
        }
        if let Some(sig) = signature(&e, landed)
            && let Some(n) = copies.get_mut(&sig)
            && *n > 0
        {
            *n -= 1;
            continue;
        }
        ids.insert(eid.to_string());
        shown.insert(eid.to_string());
        events.push(e);
    }
    sort_causal(&mut events, order);
    events.truncate(limit);
    Merged {
        own: events
            .iter()
            .filter(|e| id(e).is_some_and(|i| shown.contains(i)))
            .count(),
        events,
    }
}

fn id(e: &Value) -> Option<&str> {
    e.get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

fn text<'a>(e: &'a Value, key: &str) -> &'a str {
    e.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The content that names a copy of an event whose tool carries no op key (`None`: other types).
fn signature(e: &Value, landed: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let fields: Vec<String> = match text(e, "type") {
        "event.ack" => {
            let target = e
                .pointer("/metadata/ack_of")
                .and_then(Value::as_str)
                .unwrap_or("");
            let target = landed(target).unwrap_or_else(|| target.to_string());
            vec![
                "ack".into(),
                text(e, "from_agent").into(),
                target,
                text(e, "status").into(),
                text(e, "body").into(),
            ]
        }
        "task.request" => ["from_agent", "body", "to_agent", "branch", "base_commit"]
            .iter()
            .map(|k| text(e, k).to_string())
            .chain(["task".to_string()])
            .collect(),
        _ => return None,
    };
    serde_json::to_string(&fields).ok()
}

/// Sorts `events` in the log's one causal order ([`CausalKey`]), each key read once.
fn sort_causal(events: &mut Vec<Value>, order: Order) {
    let mut keyed: Vec<(CausalKey<'_>, usize)> = events
        .iter()
        .enumerate()
        .map(|(i, e)| (CausalKey::of(e), i))
        .collect();
    keyed.sort_unstable_by(|(a, i), (b, j)| {
        let c = a.cmp(b).then(i.cmp(j));
        if order == Order::Desc { c.reverse() } else { c }
    });
    let at: Vec<usize> = keyed.into_iter().map(|(_, i)| i).collect();
    let mut slots: Vec<Option<Value>> = std::mem::take(events).into_iter().map(Some).collect();
    events.extend(at.into_iter().filter_map(|i| slots[i].take()));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::OP_KEY;

    /// A well-formed hlc from a short `<ms>-<replica>` (`"3-a"`).
    fn hlc(short: &str) -> String {
        let (ms, replica) = short.split_once('-').unwrap_or((short, "x"));
        format!("{:013}-000000-rep_{replica}", ms.parse::<u64>().unwrap())
    }

    fn ev(id: &str, short_hlc: &str, extra: Value) -> Value {
        let hlc = hlc(short_hlc);
        let mut e = json!({"id": id, "hlc": hlc, "type": "note", "from_agent": "pi@a", "body": id});
        if let (Some(o), Some(x)) = (e.as_object_mut(), extra.as_object()) {
            o.extend(x.clone());
        }
        e
    }

    fn ids(m: &Merged) -> Vec<&str> {
        m.events.iter().map(|e| e["id"].as_str().unwrap()).collect()
    }

    #[test]
    fn an_own_event_and_its_primary_copy_are_one() {
        let primary = vec![
            ev("P1", "1-a", json!({"metadata": {OP_KEY: "k1"}})),
            ev("P2", "3-a", json!({})),
            ev(
                "P3",
                "5-a",
                json!({"type": "event.ack", "metadata": {"ack_of": "P2"}, "status": "applied", "body": "ok"}),
            ),
        ];
        let own = vec![
            // The same op key: the primary's copy of a replayed append.
            ev("L1", "1-b", json!({"metadata": {OP_KEY: "k1"}})),
            // Landed: the id map knows its primary id (not in this answer).
            ev("L2", "2-b", json!({})),
            // An ack of a local event whose op landed as P2: the same ack as P3.
            ev(
                "L3",
                "4-b",
                json!({"type": "event.ack", "metadata": {"ack_of": "L9"}, "status": "applied", "body": "ok"}),
            ),
            // Not replicated yet: shown.
            ev("L4", "6-b", json!({"metadata": {OP_KEY: "k4"}})),
            // A pulled copy counted as own by mistake is still one event (same id).
            ev("P2", "3-a", json!({})),
        ];
        let landed = |i: &str| match i {
            "L2" => Some("P0".to_string()),
            "L9" => Some("P2".to_string()),
            _ => None,
        };
        let m = merge(primary.clone(), own.clone(), &landed, Order::Asc, 50);
        assert_eq!(ids(&m), ["P1", "P2", "P3", "L4"]);
        assert_eq!(m.own, 1);
        let m = merge(primary, own, &landed, Order::Desc, 2);
        assert_eq!(ids(&m), ["L4", "P3"]);
    }

    #[test]
    fn a_second_identical_ack_is_not_swallowed_by_one_copy() {
        let ack = |id: &str, h: &str| {
            ev(
                id,
                h,
                json!({"type": "event.ack", "metadata": {"ack_of": "X"}, "status": "applied", "body": ""}),
            )
        };
        let m = merge(
            vec![ack("P1", "1")],
            vec![ack("L1", "2"), ack("L2", "3")],
            &|_| None,
            Order::Asc,
            50,
        );
        assert_eq!(ids(&m), ["P1", "L2"]);
    }

    #[test]
    fn the_local_log_splits_by_origin() {
        let local = vec![
            json!({"id": "a", "origin_replica": "rep_me"}),
            json!({"id": "b", "origin_replica": "rep_primary"}),
            json!({"id": "c"}),
        ];
        let (pulled, own) = split_local(local.clone(), Some("rep_me"));
        assert_eq!(pulled, vec![local[1].clone()]);
        assert_eq!(own.len(), 2);
        let (pulled, own) = split_local(local, None);
        assert!(pulled.is_empty() && own.len() == 3);
    }

    /// The one causal order, on events where the union's old order (hlc as text with absent as
    /// empty, then `created_at`) and the derivation's disagreed: hlc-stamped events first, by
    /// hlc; then by `seq`; a malformed hlc is none; `created_at` never decides.
    #[test]
    fn the_union_sorts_in_the_logs_one_causal_order() {
        let at = |id: &str, hlc: Option<&str>, seq: i64, created: &str| json!({"id": id, "hlc": hlc, "seq": seq, "created_at": created, "type": "note"});
        let stamped = hlc("5-a");
        let events = vec![
            // Unstamped, arrived later (seq 8) but with the earlier created_at.
            at("n2", None, 8, "2026-01-01T00:00:00Z"),
            // Unstamped, arrived first: before n2, whatever created_at says.
            at("n1", None, 7, "2026-01-01T00:00:09Z"),
            // A malformed hlc sorts as none (the old order trusted it as text).
            at("m", Some("0-garbage"), 9, "2026-01-01T00:00:01Z"),
            // Stamped: first, though its seq is the largest (the old order put it last).
            at("s", Some(&stamped), 99, "2026-01-01T00:00:05Z"),
        ];
        let m = merge(events.clone(), Vec::new(), &|_| None, Order::Asc, 50);
        assert_eq!(ids(&m), ["s", "n1", "n2", "m"]);
        let m = merge(events.clone(), Vec::new(), &|_| None, Order::Desc, 50);
        assert_eq!(ids(&m), ["m", "n2", "n1", "s"]);
        // The derivation's order is the same one.
        let parsed = crate::parse_events(&events);
        let mut sorted = parsed.events.clone();
        sorted.sort_by(|a, b| a.causal_cmp(b));
        let order: Vec<&str> = sorted.iter().map(|e| e.id).collect();
        assert_eq!(order, ["s", "n1", "n2", "m"]);
    }

    #[test]
    fn order_follows_event_list() {
        assert_eq!(Order::of(&json!({}), false), Order::Desc);
        assert_eq!(
            Order::of(&json!({"since_event_id": "e"}), false),
            Order::Asc
        );
        assert_eq!(
            Order::of(&json!({"since_event_id": "e", "order": "DESC"}), false),
            Order::Desc
        );
        assert_eq!(Order::of(&json!({"order": "desc"}), true), Order::Asc);
        assert_eq!(limit_of(&json!({"limit": 9000})), 500);
        assert_eq!(limit_of(&json!({})), 50);
    }
}
