//! The keys a filtered read's reply may carry, per shape, from MemPalace 3.11's replies (captured
//! from the real server and read in its source): any other key is dropped and counted, so fails closed.

use serde_json::Value;

use mpt_palace::catalog::Reveals;

/// What a value under a known key may be.
#[derive(Debug)]
pub enum Keys {
    /// A string, number, boolean or null; a container there is dropped.
    Scalar,
    /// Kept whole: a visible drawer's own metadata, an event's, a write's own receipt.
    Whole,
    /// An object with only these keys.
    Obj(&'static [(&'static str, Keys)]),
    /// A list whose items each have this shape.
    List(&'static Keys),
    /// An object keyed by names (wings, rooms), each value of this shape.
    Named(&'static Keys),
}

use Keys::{List, Named, Obj, Scalar, Whole};

/// A reply: the keys of an object payload, and the shape of a list payload's items.
struct Reply {
    object: &'static [(&'static str, Keys)],
    list: Option<&'static Keys>,
}

/// What any tool may say when it fails or runs degraded (`_session.py`, `embedding.py`,
/// `tools_read.py`): kept beside every shape's own keys.
const DIAGNOSTIC: &[(&str, Keys)] = &[
    ("error", Scalar),
    ("details", Scalar),
    ("hint", Scalar),
    ("error_class", Scalar),
    ("backend", Scalar),
    ("success", Scalar),
    ("partial", Scalar),
    ("message", Scalar),
    ("vector_disabled", Scalar),
    ("vector_disabled_reason", Scalar),
    ("index_recovered", Scalar),
    ("mpt_filtered", Scalar),
];

const SCALARS: Keys = List(&Scalar);
const COUNTS: Keys = Named(&Scalar);

const STATUS: &[(&str, Keys)] = &[
    ("total_drawers", Scalar),
    ("wings", COUNTS),
    ("rooms", COUNTS),
    ("protocol", Scalar),
    ("aaak_dialect", Scalar),
    ("embedding_device", Scalar),
    // Server paths in these are blanked for non-admins (`hide_paths`).
    ("sqlite_integrity", Whole),
    ("sqlite_integrity_failed", Scalar),
    ("library_versions", Whole),
    ("updates", Whole),
];

const SEARCH_FILTERS: Keys = Obj(&[
    ("wing", Scalar),
    ("room", Scalar),
    ("source_file", Scalar),
    ("since", Scalar),
    ("before", Scalar),
]);

/// A folded copy of a hit (`searcher/candidates.py`, `_search_hit_ref`).
const ALSO_IN: Keys = Obj(&[
    ("drawer_id", Scalar),
    ("source_file", Scalar),
    ("source_path", Scalar),
    ("wing", Scalar),
    ("room", Scalar),
    ("chunk_index", Scalar),
]);

const HIT: Keys = Obj(&[
    ("drawer_id", Scalar),
    ("wing", Scalar),
    ("room", Scalar),
    ("text", Scalar),
    ("similarity", Scalar),
    ("distance", Scalar),
    ("effective_distance", Scalar),
    ("bm25_score", Scalar),
    ("closet_boost", Scalar),
    ("closet_preview", Scalar),
    ("matched_via", Scalar),
    ("source_file", Scalar),
    ("source_path", Scalar),
    ("created_at", Scalar),
    ("filed_at", Scalar),
    ("authored_at", Scalar),
    ("authored_at_source", Scalar),
    ("content_date", Scalar),
    ("content_date_source", Scalar),
    ("result_type", Scalar),
    ("also_in", List(&ALSO_IN)),
]);

const SEARCH: &[(&str, Keys)] = &[
    ("query", Scalar),
    ("filters", SEARCH_FILTERS),
    ("results", List(&HIT)),
    ("total_before_filter", Scalar),
    ("query_sanitized", Scalar),
    (
        "sanitizer",
        Obj(&[
            ("method", Scalar),
            ("original_length", Scalar),
            ("clean_length", Scalar),
            ("clean_query", Scalar),
        ]),
    ),
    ("context_received", Scalar),
    ("date_filter_pool_truncated", Scalar),
    ("candidates_truncated", Scalar),
    ("distinct_results_truncated", Scalar),
    ("fallback", Scalar),
    ("fallback_reason", Scalar),
];

const MATCH: Keys = Obj(&[
    ("id", Scalar),
    ("wing", Scalar),
    ("room", Scalar),
    ("similarity", Scalar),
    ("content", Scalar),
]);

const DUPLICATES: &[(&str, Keys)] = &[("is_duplicate", Scalar), ("matches", List(&MATCH))];

/// A checkpoint's receipt: its own drawers and diary whole, the duplicates held to the shape
/// that names another drawer's wing.
const CHECKPOINT: &[(&str, Keys)] = &[
    ("added", Whole),
    ("errors", Whole),
    ("diary", Whole),
    (
        "duplicates",
        List(&Obj(&[("room", Scalar), ("matches", List(&MATCH))])),
    ),
];

const DRAWER: &[(&str, Keys)] = &[
    ("drawer_id", Scalar),
    ("wing", Scalar),
    ("room", Scalar),
    ("content", Scalar),
    ("metadata", Whole),
];

const DRAWERS: &[(&str, Keys)] = &[
    ("count", Scalar),
    ("errors", Scalar),
    (
        "results",
        List(&Obj(&[
            ("drawer_id", Scalar),
            ("wing", Scalar),
            ("room", Scalar),
            ("content", Scalar),
            ("metadata", Whole),
            ("error", Scalar),
        ])),
    ),
];

const PAGE: &[(&str, Keys)] = &[
    ("count", Scalar),
    ("total", Scalar),
    ("limit", Scalar),
    ("offset", Scalar),
    (
        "drawers",
        List(&Obj(&[
            ("drawer_id", Scalar),
            ("wing", Scalar),
            ("room", Scalar),
            ("content_preview", Scalar),
            ("metadata", Whole),
        ])),
    ),
    (
        "hallways",
        List(&Obj(&[
            ("id", Scalar),
            ("wing", Scalar),
            ("entity_a", Scalar),
            ("entity_b", Scalar),
            ("co_occurrence_count", Scalar),
            ("rooms", SCALARS),
            ("label", Scalar),
            ("created_at", Scalar),
            ("created_by", Scalar),
            ("access_count", Scalar),
            ("strength", Scalar),
            ("stability", Scalar),
            ("last_activated", Scalar),
        ])),
    ),
];

const DIARY: &[(&str, Keys)] = &[
    ("agent", Scalar),
    ("total", Scalar),
    ("showing", Scalar),
    (
        "entries",
        List(&Obj(&[
            ("date", Scalar),
            ("timestamp", Scalar),
            ("topic", Scalar),
            ("content", Scalar),
        ])),
    ),
];

/// `traverse` (hop, connected_via) and `find_tunnels` (recent) rooms; the error's suggestions
/// are emptied by the filter.
const ROOM: Keys = Obj(&[
    ("room", Scalar),
    ("wings", SCALARS),
    ("halls", SCALARS),
    ("count", Scalar),
    ("hop", Scalar),
    ("connected_via", SCALARS),
    ("recent", Scalar),
]);

const GRAPH_STATS: &[(&str, Keys)] = &[
    ("rooms_per_wing", COUNTS),
    (
        "top_tunnels",
        List(&Obj(&[
            ("room", Scalar),
            ("wings", SCALARS),
            ("count", Scalar),
        ])),
    ),
];

const END: Keys = Obj(&[("wing", Scalar), ("room", Scalar), ("drawer_id", Scalar)]);

const TUNNEL: Keys = Obj(&[
    ("id", Scalar),
    ("kind", Scalar),
    ("label", Scalar),
    ("source", END),
    ("target", END),
    ("created_at", Scalar),
    ("access_count", Scalar),
    ("strength", Scalar),
    ("stability", Scalar),
    ("last_activated", Scalar),
]);

const CONNECTION: Keys = Obj(&[
    ("direction", Scalar),
    ("connected_wing", Scalar),
    ("connected_room", Scalar),
    ("label", Scalar),
    ("drawer_id", Scalar),
    ("tunnel_id", Scalar),
    ("drawer_preview", Scalar),
]);

const EVENT: Keys = Obj(&[
    ("id", Scalar),
    ("seq", Scalar),
    ("hlc", Scalar),
    ("origin_replica", Scalar),
    ("origin_seq", Scalar),
    ("created_at", Scalar),
    ("type", Scalar),
    ("stream", Scalar),
    ("room", Scalar),
    ("topic", Scalar),
    ("from_agent", Scalar),
    ("to_agent", Scalar),
    ("correlation_id", Scalar),
    ("branch", Scalar),
    ("base_commit", Scalar),
    ("status", Scalar),
    ("body", Scalar),
    ("body_truncated", Scalar),
    ("body_length", Scalar),
    ("metadata", Whole),
    ("artifact_ids", SCALARS),
]);

const EVENTS: &[(&str, Keys)] = &[
    ("events", List(&EVENT)),
    ("count", Scalar),
    ("timed_out", Scalar),
    ("note", Scalar),
];

fn reply(reveals: Reveals) -> Option<Reply> {
    let object = |object| Reply { object, list: None };
    let list = |item| Reply {
        object: &[("suggestions", SCALARS)],
        list: Some(item),
    };
    Some(match reveals {
        Reveals::Nothing | Reveals::Kg => return None,
        Reveals::Status => object(STATUS),
        Reveals::WingCounts => object(&[("wings", COUNTS)]),
        Reveals::RoomCounts => object(&[("wing", Scalar), ("rooms", COUNTS)]),
        Reveals::Taxonomy => object(&[("taxonomy", Named(&COUNTS))]),
        Reveals::Search => object(SEARCH),
        Reveals::Duplicates => object(DUPLICATES),
        Reveals::CheckpointDuplicates => object(CHECKPOINT),
        Reveals::Drawer => object(DRAWER),
        Reveals::Drawers => object(DRAWERS),
        Reveals::DrawerList | Reveals::Hallways => object(PAGE),
        Reveals::Diary => object(DIARY),
        Reveals::RoomGraph => list(&ROOM),
        Reveals::GraphStats => object(GRAPH_STATS),
        Reveals::Tunnels => list(&TUNNEL),
        Reveals::Connections => list(&CONNECTION),
        Reveals::Events => object(EVENTS),
    })
}

/// Drops from `payload` every key its shape does not know; returns how many were dropped (a
/// key, or a container where a scalar belongs). A tool with no shape is left as it is.
pub fn keep(reveals: Reveals, payload: &mut Value) -> u64 {
    let Some(shape) = reply(reveals) else {
        return 0;
    };
    match payload {
        Value::Object(m) => known_fields(m, DIAGNOSTIC.iter().chain(shape.object)),
        Value::Array(items) => match shape.list {
            Some(item) => items.iter_mut().map(|v| value(item, v)).sum(),
            None => {
                let n = items.len() as u64;
                items.clear();
                n
            }
        },
        _ => 0,
    }
}

/// A filtered read's JSON-RPC envelope: `jsonrpc`, `id`, and a `result` of `content` and
/// `isError` (a `structuredContent` would be a second, unfiltered copy) whose content is the one
/// text block the filtered payload is written into, or an `error` of `code` and `message`.
/// `readable`: the payload parsed; a text the gateway could not read is not shown. Returns what
/// it dropped.
pub fn envelope(env: &mut Value, readable: bool) -> u64 {
    const ENVELOPE: Keys = Obj(&[
        ("jsonrpc", Scalar),
        ("id", Scalar),
        ("result", Obj(&[("content", Whole), ("isError", Scalar)])),
        ("error", Obj(&[("code", Scalar), ("message", Scalar)])),
    ]);
    let mut dropped = value(&ENVELOPE, env);
    if let Some(Value::Array(blocks)) = env.pointer_mut("/result/content") {
        let last_text = blocks
            .iter()
            .rposition(|b| b.get("type").and_then(Value::as_str) == Some("text"));
        let before = blocks.len();
        let kept: Vec<Value> = last_text
            .map(|i| blocks.swap_remove(i))
            .into_iter()
            .collect();
        *blocks = kept;
        dropped += (before - blocks.len()) as u64;
        if let Some(block) = blocks.first_mut() {
            dropped += value(&Obj(&[("type", Scalar), ("text", Scalar)]), block);
            if !readable {
                block["text"] = Value::String(UNREADABLE.into());
                dropped += 1;
            }
        }
    }
    dropped
}

/// What a device held to some wings reads in place of a reply the gateway could not parse.
const UNREADABLE: &str = "{\"error\": \"the gateway could not read the server's reply, so it shows none of it to a device held to some wings\"}";

/// Keeps the keys of `m` that `fields` names, each held to its shape; returns what it dropped.
fn known_fields<'a>(
    m: &mut serde_json::Map<String, Value>,
    fields: impl Iterator<Item = &'a (&'static str, Keys)> + Clone,
) -> u64 {
    let before = m.len();
    let mut dropped = 0;
    m.retain(|k, v| match fields.clone().find(|(name, _)| name == k) {
        Some((_, keys)) => {
            dropped += value(keys, v);
            true
        }
        None => false,
    });
    dropped + (before - m.len()) as u64
}

/// Holds `v` to `keys` in place; returns what it dropped. A value of the wrong kind is made null.
fn value(keys: &Keys, v: &mut Value) -> u64 {
    match (keys, &mut *v) {
        (Whole, _) => 0,
        (Scalar, Value::Array(_) | Value::Object(_)) => {
            *v = Value::Null;
            1
        }
        (Scalar, _) => 0,
        (Obj(fields), Value::Object(m)) => known_fields(m, fields.iter()),
        (List(item), Value::Array(items)) => items.iter_mut().map(|v| value(item, v)).sum(),
        (Named(each), Value::Object(m)) => m.values_mut().map(|v| value(each, v)).sum(),
        (_, Value::Null) => 0,
        _ => {
            *v = Value::Null;
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_key_the_shape_does_not_know_is_dropped_and_counted() {
        let mut p = json!({"query": "q", "results": [
            {"drawer_id": "d", "wing": "w", "text": "t", "new_secret": "x",
             "also_in": [{"wing": "w2", "room": "r", "leak": 1}]}],
            "total_before_filter": 3, "every_wing": {"a": 1}, "error": null});
        assert_eq!(keep(Reveals::Search, &mut p), 3);
        assert_eq!(
            p,
            json!({"query": "q", "results": [{"drawer_id": "d", "wing": "w", "text": "t",
                "also_in": [{"wing": "w2", "room": "r"}]}], "total_before_filter": 3, "error": null})
        );
    }

    #[test]
    fn names_lists_and_whole_values_keep_their_own_keys() {
        let mut tax = json!({"taxonomy": {"wing_a": {"r1": 1, "r2": {"nested": 1}}}});
        assert_eq!(keep(Reveals::Taxonomy, &mut tax), 1);
        assert_eq!(tax, json!({"taxonomy": {"wing_a": {"r1": 1, "r2": null}}}));
        let mut drawer = json!({"drawer_id": "d", "wing": "w", "metadata": {"anything": [1]}});
        assert_eq!(keep(Reveals::Drawer, &mut drawer), 0);
        let mut tunnels =
            json!([{"id": "t", "source": {"wing": "a", "room": "r", "x": 1}, "extra": 2}]);
        assert_eq!(keep(Reveals::Tunnels, &mut tunnels), 2);
        assert_eq!(
            tunnels,
            json!([{"id": "t", "source": {"wing": "a", "room": "r"}}])
        );
        let mut graph = json!({"error": "Room 'x' not found", "suggestions": []});
        assert_eq!(keep(Reveals::RoomGraph, &mut graph), 0);
        let mut env = json!({"jsonrpc": "2.0", "id": 1, "extra": 1, "result": {
            "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "x"}, {"type": "text", "text": "{}", "annotations": {}}],
            "structuredContent": {"all": "wings"}, "isError": false}});
        assert_eq!(envelope(&mut env, true), 5);
        assert_eq!(
            env,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "{}"}], "isError": false}})
        );
        let mut text = json!({"result": {"content": [{"type": "text", "text": "wing_secret: 3"}]}});
        assert_eq!(envelope(&mut text, false), 1);
        assert!(!text.to_string().contains("wing_secret"));
        let mut kg = json!({"facts": [1]});
        assert_eq!(keep(Reveals::Kg, &mut kg), 0, "not a filtered read");
    }
}
