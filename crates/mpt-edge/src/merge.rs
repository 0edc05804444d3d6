//! Combining a local and a primary answer for one read: search results unioned, deduped by
//! drawer id and re-sorted by distance; list reads unioned; a fallback marked `degraded`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

pub use mpt_palace::catalog::ReadKind;

/// How the edge combines `tool`'s two answers (the catalog's read kind).
pub fn read_kind(tool: &str) -> ReadKind {
    mpt_palace::catalog::tool(tool).read
}

/// The union of two search payloads: each drawer once (its smaller distance), nearest first,
/// at most `limit`.
pub fn search(local: &Value, primary: &Value, limit: usize) -> Value {
    let mut out = primary.clone();
    let mut best: BTreeMap<String, Value> = BTreeMap::new();
    let mut anonymous = Vec::new();
    for r in results(primary).iter().chain(results(local).iter()) {
        match r.get("drawer_id").and_then(Value::as_str) {
            Some(id) => {
                let keep = best.get(id).is_none_or(|prev| distance(r) < distance(prev));
                if keep {
                    best.insert(id.to_string(), r.clone());
                }
            }
            None => anonymous.push(r.clone()),
        }
    }
    let mut merged: Vec<Value> = best.into_values().chain(anonymous).collect();
    merged.sort_by(|a, b| distance(a).total_cmp(&distance(b)));
    merged.truncate(limit);
    let n_local = results(local).len();
    let n_primary = results(primary).len();
    if let Some(o) = out.as_object_mut() {
        o.insert("results".into(), Value::Array(merged));
        o.insert(
            "merged".into(),
            json!({"local": n_local, "primary": n_primary}),
        );
    }
    out
}

fn results(v: &Value) -> &[Value] {
    v.get("results")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Distance for ordering; a BM25 hit without one sorts last.
fn distance(r: &Value) -> f64 {
    r.get("distance")
        .and_then(Value::as_f64)
        .unwrap_or(f64::INFINITY)
}

/// The union of two `list_drawers` payloads, primary order first, each drawer once.
pub fn drawers(local: &Value, primary: &Value) -> Value {
    let mut out = primary.clone();
    let key = ["drawers", "results"].into_iter().find(|k| {
        primary.get(*k).is_some_and(Value::is_array) || local.get(*k).is_some_and(Value::is_array)
    });
    let Some(key) = key else { return out };
    let mut seen = std::collections::HashSet::new();
    let mut list = Vec::new();
    for d in [primary, local].iter().flat_map(|v| {
        v.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    }) {
        let id = d
            .get("drawer_id")
            .or_else(|| d.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string);
        if id.as_ref().is_none_or(|i| seen.insert(i.clone())) {
            list.push(d);
        }
    }
    if let Some(o) = out.as_object_mut() {
        o.insert(key.into(), Value::Array(list));
    }
    out
}

/// Two `diary_read` payloads as one: each entry once (by its text), newest first, at most `limit`.
pub fn diary(local: &Value, primary: &Value, limit: usize) -> Value {
    let mut out = if primary.get("entries").is_some() {
        primary.clone()
    } else {
        local.clone()
    };
    let mut seen = std::collections::HashSet::new();
    let mut entries: Vec<Value> = [primary, local]
        .iter()
        .flat_map(|v| {
            v.get("entries")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .filter(|e| {
            seen.insert(
                e.get("content")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect();
    let stamp = |e: &Value| {
        e.get("timestamp")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    entries.sort_by_key(|e| std::cmp::Reverse(stamp(e)));
    entries.truncate(limit);
    if let Some(o) = out.as_object_mut() {
        o.remove("message");
        o.insert("showing".into(), json!(entries.len()));
        o.insert("entries".into(), Value::Array(entries));
    }
    out
}

/// Name → count maps unioned at every level (the larger count wins; nested maps recurse).
pub fn counts(local: &Value, primary: &Value) -> Value {
    match (local, primary) {
        (Value::Object(l), Value::Object(p)) => {
            let mut out: Map<String, Value> = p.clone();
            for (k, lv) in l {
                let merged = match p.get(k) {
                    Some(pv) => counts(lv, pv),
                    None => lv.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        (Value::Number(l), Value::Number(p)) => {
            if l.as_f64().unwrap_or(0.0) > p.as_f64().unwrap_or(0.0) {
                local.clone()
            } else {
                primary.clone()
            }
        }
        _ => primary.clone(),
    }
}

/// Marks a payload as answered without the primary.
pub fn degraded(mut payload: Value, why: &str) -> Value {
    if let Some(o) = payload.as_object_mut() {
        o.insert("degraded".into(), Value::Bool(true));
        o.insert("degraded_reason".into(), Value::String(why.to_string()));
    }
    payload
}

/// Notes on a payload why it was not merged.
pub fn merge_disabled(mut payload: Value, why: &str) -> Value {
    if let Some(o) = payload.as_object_mut() {
        o.insert("merge".into(), Value::String(format!("disabled: {why}")));
    }
    payload
}

/// A `tools/call` result with its last text block replaced by `payload` (other blocks kept).
pub fn with_payload(result: &Value, payload: &Value) -> Value {
    let text = serde_json::to_string_pretty(payload).unwrap_or_default();
    let mut out = result.clone();
    let blocks = out.get_mut("content").and_then(Value::as_array_mut);
    match blocks {
        Some(blocks) => match blocks
            .iter_mut()
            .rev()
            .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        {
            Some(b) => b["text"] = Value::String(text),
            None => blocks.push(json!({"type": "text", "text": text})),
        },
        None => out = json!({"content": [{"type": "text", "text": text}]}),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, d: f64) -> Value {
        json!({"drawer_id": id, "distance": d, "text": id})
    }

    #[test]
    fn search_unions_dedupes_and_sorts() {
        let local = json!({"query": "q", "results": [hit("a", 0.5), hit("b", 0.2), {"drawer_id": "c", "distance": null}]});
        let primary = json!({"query": "q", "results": [hit("a", 0.4), hit("d", 0.3)]});
        let m = search(&local, &primary, 10);
        let ids: Vec<&str> = m["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["drawer_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["b", "d", "a", "c"]);
        assert_eq!(
            m["results"][2]["distance"], 0.4,
            "the smaller distance of a duplicate is kept"
        );
        assert_eq!(m["merged"], json!({"local": 3, "primary": 2}));
        assert_eq!(
            search(&local, &primary, 2)["results"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }

    #[test]
    fn diary_union_keeps_unflushed_entries_once_newest_first() {
        let l = json!({"agent": "pi", "entries": [{"content": "HOST:a|new", "timestamp": "2026-11-30T10:00:00"}, {"content": "HOST:a|old", "timestamp": "2026-11-29T10:00:00"}]});
        let p = json!({"agent": "pi", "entries": [{"content": "HOST:a|old", "timestamp": "2026-11-29T10:00:05"}]});
        let d = diary(&l, &p, 10);
        let texts: Vec<&str> = d["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["content"].as_str().unwrap())
            .collect();
        assert_eq!(texts, ["HOST:a|new", "HOST:a|old"]);
        let empty = json!({"agent": "pi", "entries": [], "message": "No diary entries yet."});
        assert!(diary(&l, &empty, 10).get("message").is_none());
    }

    #[test]
    fn counts_union_takes_the_larger() {
        let l = json!({"wings": {"a": 3, "b": 1}});
        let p = json!({"wings": {"a": 2, "c": 5}});
        assert_eq!(counts(&l, &p), json!({"wings": {"a": 3, "c": 5, "b": 1}}));
    }

    #[test]
    fn drawers_union_each_once() {
        let l = json!({"drawers": [{"drawer_id": "x"}, {"drawer_id": "y"}]});
        let p = json!({"drawers": [{"drawer_id": "y"}, {"drawer_id": "z"}]});
        let ids: Vec<String> = drawers(&l, &p)["drawers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["drawer_id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids, ["y", "z", "x"]);
    }

    #[test]
    fn payload_replaces_the_last_text_block() {
        let r = json!({"content": [{"type": "text", "text": "[note]"}, {"type": "text", "text": "{}"}]});
        let out = with_payload(&r, &json!({"a": 1}));
        assert_eq!(out["content"][0]["text"], "[note]");
        assert_eq!(
            serde_json::from_str::<Value>(out["content"][1]["text"].as_str().unwrap()).unwrap()["a"],
            1
        );
    }
}
