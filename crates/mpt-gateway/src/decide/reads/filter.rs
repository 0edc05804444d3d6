//! A read's reply with what a device may not see taken out: items of hidden wings dropped,
//! counts recomputed, a hidden drawer turned into a missing one; returns how much was hidden.

use serde_json::{Map, Value, json};

use crate::decide::policy::{Reads, StreamGlobs};
use mpt_palace::catalog::Reveals;

/// `payload` (a tool's result) filtered for `reads`; `args` are the client's. Returns how many
/// entries were hidden (results, wings, drawers, tunnels, hallways).
pub fn filter(reveals: Reveals, reads: &Reads, args: &Value, payload: &mut Value) -> u64 {
    if payload.get("error").is_some() && reveals != Reveals::RoomGraph {
        return 0;
    }
    let sees = |v: Option<&Value>| v.and_then(Value::as_str).is_some_and(|w| reads.sees(w));
    match reveals {
        Reveals::Search => {
            let mut hidden = retain(payload, "results", |r| sees(r.get("wing")));
            for r in list(payload, "results") {
                hidden += retain(r, "also_in", |a| sees(a.get("wing")));
                if r.get("also_in")
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
                    && let Value::Object(m) = r
                {
                    m.shift_remove("also_in");
                }
            }
            hidden
        }
        Reveals::Duplicates => {
            let hidden = retain(payload, "matches", |m| sees(m.get("wing")));
            let any = !list(payload, "matches").is_empty();
            if let Some(d) = payload.get_mut("is_duplicate") {
                *d = json!(any);
            }
            hidden
        }
        Reveals::CheckpointDuplicates => list(payload, "duplicates")
            .into_iter()
            .map(|d| retain(d, "matches", |m| sees(m.get("wing"))))
            .sum(),
        Reveals::Drawer => {
            if payload.get("wing").is_some() && !sees(payload.get("wing")) {
                let id = args.get("drawer_id").cloned().unwrap_or(Value::Null);
                *payload = not_found(&id);
                return 1;
            }
            0
        }
        Reveals::Drawers => {
            let ids: Vec<Value> = args
                .get("drawer_ids")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut hidden = 0;
            for (i, r) in list(payload, "results").into_iter().enumerate() {
                if r.get("wing").is_some() && !sees(r.get("wing")) {
                    let id = ids
                        .get(i)
                        .or(r.get("drawer_id"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    let mut slot = Map::new();
                    slot.insert("drawer_id".into(), id.clone());
                    slot.insert("error".into(), not_found(&id)["error"].clone());
                    *r = Value::Object(slot);
                    hidden += 1;
                }
            }
            if let Some(Value::Number(n)) = payload.get_mut("errors") {
                *n = (n.as_u64().unwrap_or(0) + hidden).into();
            }
            hidden
        }
        Reveals::DrawerList | Reveals::Hallways => {
            let key = if reveals == Reveals::DrawerList {
                "drawers"
            } else {
                "hallways"
            };
            let hidden = retain(payload, key, |d| sees(d.get("wing")));
            let count = list(payload, key).len();
            if let Some(c) = payload.get_mut("count") {
                *c = json!(count);
            }
            hidden
        }
        Reveals::WingCounts => retain_keys(payload.get_mut("wings"), &|w| reads.sees(w)),
        Reveals::Taxonomy => retain_keys(payload.get_mut("taxonomy"), &|w| reads.sees(w)),
        Reveals::RoomGraph => room_graph(reads, payload),
        Reveals::GraphStats => {
            let mut hidden = retain_keys(payload.get_mut("rooms_per_wing"), &|w| reads.sees(w));
            hidden += retain(payload, "top_tunnels", |t| keep_wings(reads, t, 2));
            if let Value::Object(m) = payload {
                // Totals over every wing: not recomputable from what the reply holds.
                m.retain(|k, _| k == "rooms_per_wing" || k == "top_tunnels");
            }
            hidden
        }
        Reveals::Tunnels => retain_top(payload, |t| {
            sees(t.pointer("/source/wing")) && sees(t.pointer("/target/wing"))
        }),
        Reveals::Connections => retain_top(payload, |c| sees(c.get("connected_wing"))),
        _ => 0,
    }
}

/// `event_list`, `event_wait`: the events of streams the device reads, `count` recomputed.
pub fn events(streams: &StreamGlobs, payload: &mut Value) -> u64 {
    let hidden = retain(payload, "events", |e| {
        e.get("stream")
            .and_then(Value::as_str)
            .is_some_and(|s| streams.sees(s))
    });
    let count = list(payload, "events").len();
    if let Some(c) = payload.get_mut("count") {
        *c = json!(count);
    }
    hidden
}

/// `get_drawer`'s own answer for an id it does not have (`tools_write.py`).
pub fn not_found(id: &Value) -> Value {
    let id = match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    json!({"error": format!("Drawer not found: {id}")})
}

/// `traverse`, `find_tunnels`: each room's wings held to the readable ones; a room left with
/// none (or a tunnel room with fewer than two) dropped; a start room no readable wing holds
/// answered as one that does not exist.
fn room_graph(reads: &Reads, payload: &mut Value) -> u64 {
    if let Some(s) = payload.get_mut("suggestions") {
        // Room names from any wing.
        *s = json!([]);
        return 0;
    }
    let Value::Array(rooms) = payload else {
        return 0;
    };
    let find_tunnels = rooms.iter().all(|r| r.get("hop").is_none());
    let before = rooms.len();
    let start = rooms.first().and_then(|r| r.get("room")).cloned();
    rooms.retain_mut(|r| {
        let need = if find_tunnels { 2 } else { 1 };
        if !keep_wings(reads, r, need) {
            return false;
        }
        if let Some(Value::Array(via)) = r.get_mut("connected_via") {
            via.retain(|w| w.as_str().is_some_and(|w| reads.sees(w)));
            return !via.is_empty();
        }
        true
    });
    if !find_tunnels && rooms.first().and_then(|r| r.get("hop")) != Some(&json!(0)) {
        let room = start
            .and_then(|s| s.as_str().map(str::to_string))
            .unwrap_or_default();
        *payload = json!({"error": format!("Room '{room}' not found"), "suggestions": []});
        return before as u64;
    }
    (before - rooms.len()) as u64
}

/// Holds `item.wings` to the readable ones; whether at least `need` are left.
fn keep_wings(reads: &Reads, item: &mut Value, need: usize) -> bool {
    match item.get_mut("wings") {
        Some(Value::Array(ws)) => {
            ws.retain(|w| w.as_str().is_some_and(|w| reads.sees(w)));
            ws.len() >= need
        }
        _ => false,
    }
}

fn list<'a>(v: &'a mut Value, key: &str) -> Vec<&'a mut Value> {
    match v.get_mut(key) {
        Some(Value::Array(a)) => a.iter_mut().collect(),
        _ => Vec::new(),
    }
}

/// Keeps the items of `v[key]` that `keep` accepts; how many went.
fn retain(v: &mut Value, key: &str, keep: impl FnMut(&mut Value) -> bool) -> u64 {
    match v.get_mut(key) {
        Some(a) => retain_top(a, keep),
        None => 0,
    }
}

fn retain_top(v: &mut Value, mut keep: impl FnMut(&mut Value) -> bool) -> u64 {
    let Value::Array(a) = v else {
        return 0;
    };
    let before = a.len();
    a.retain_mut(|x| keep(x));
    (before - a.len()) as u64
}

fn retain_keys(v: Option<&mut Value>, keep: &dyn Fn(&str) -> bool) -> u64 {
    let Some(Value::Object(m)) = v else {
        return 0;
    };
    let before = m.len();
    m.retain(|k, _| keep(k));
    (before - m.len()) as u64
}
