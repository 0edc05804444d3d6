//! The seeded device palace every backfill test starts from, and the record-by-record
//! comparison of what reached the primary.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::support::fleet::{Device, Fleet};
use crate::support::{stderr, venv_bin};

/// What a seeded palace holds, by the ids its palace minted.
pub struct Seeded {
    pub big: (String, String),
    pub small: (String, String),
    pub mined: Vec<String>,
    pub diary: Vec<String>,
    pub patch_event: String,
    pub ack_event: String,
    pub artifact: (String, String),
}

/// Over 10 kB (chunked at 800 chars), code points beyond ASCII across chunk borders.
fn big_text() -> String {
    (0..260)
        .map(|i| format!("Zeile {i}: café ★ ünïcode — the deploy gate checks health twice. "))
        .collect()
}

pub fn local(dev: &Device, tool: &str, args: Value) -> Value {
    dev.env.call_local(&dev.palace, tool, &args.to_string())
}

/// A device palace with everything a backfill handles: hand-authored drawers (one chunked),
/// diary entries, facts with an invalidated window and a reopened one, mined drawers in another
/// wing, and coordination events that reference an artifact and each other.
pub fn seed(dev: &Device) -> Seeded {
    let big = big_text();
    assert!(big.len() > 10_000);
    let big_id = local(
        dev,
        "mempalace_add_drawer",
        json!({"wing": "proj", "room": "decisions", "content": big, "added_by": "pi@laptop"}),
    )["drawer_id"]
        .as_str()
        .unwrap()
        .to_string();
    let small = "We chose SQLite WAL for the outbox because a kill must not lose a write.";
    let small_id = local(
        dev,
        "mempalace_add_drawer",
        json!({"wing": "proj", "room": "decisions", "content": small}),
    )["drawer_id"]
        .as_str()
        .unwrap()
        .to_string();
    let diary = vec![
        "HOST:laptop|Found the flaky test: a race on last_pull.".to_string(),
        "HOST:laptop|Backfill plan: closed facts before open ones.".to_string(),
    ];
    for d in &diary {
        local(
            dev,
            "mempalace_diary_write",
            json!({"agent_name": "pi", "entry": d, "topic": "work"}),
        );
    }
    local(
        dev,
        "mempalace_kg_add",
        json!({"subject": "Alice", "predicate": "owns", "object": "deploy-repo", "valid_from": "2026-01-01"}),
    );
    local(
        dev,
        "mempalace_kg_invalidate",
        json!({"subject": "Alice", "predicate": "owns", "object": "deploy-repo", "ended": "2026-03-01"}),
    );
    local(
        dev,
        "mempalace_kg_add",
        json!({"subject": "Alice", "predicate": "owns", "object": "deploy-repo", "valid_from": "2026-04-01"}),
    );
    local(
        dev,
        "mempalace_kg_add",
        json!({"subject": "Bob", "predicate": "prefers", "object": "tea"}),
    );
    // Mined: the projects miner over a folder, into wing `notes`.
    let src = dev.env.path("project");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("README.md"),
        "# Runbook\n\nThe blue-green switch waits for the health gate.\n",
    )
    .unwrap();
    let o = dev
        .env
        .command(venv_bin("mempalace"))
        .args([
            "--palace",
            dev.palace.to_str().unwrap(),
            "mine",
            src.to_str().unwrap(),
            "--wing",
            "notes",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "mine: {}", stderr(&o));
    let mined: Vec<String> = local(
        dev,
        "mempalace_list_drawers",
        json!({"wing": "notes", "limit": 100}),
    )["drawers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["drawer_id"].as_str().unwrap().to_string())
        .collect();
    assert!(!mined.is_empty());
    let patch =
        "--- a/gate.rs\n+++ b/gate.rs\n@@ -1 +1 @@\n-fn gate() {}\n+fn gate() { check() }\n";
    let art = local(
        dev,
        "mempalace_artifact_put",
        json!({"kind": "patch", "content": patch, "created_by": "pi@laptop"}),
    )["artifact"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let e1 = local(dev, "mempalace_event_append", json!({"type": "patch.ready", "stream": "proj", "room": "patches", "from_agent": "pi@laptop", "to_agent": "oc@desk", "status": "ready", "body": "gate fix", "artifact_ids": [art]}))["event"]["id"].as_str().unwrap().to_string();
    let e2 = local(dev, "mempalace_event_append", json!({"type": "event.ack", "stream": "proj", "room": "patches", "from_agent": "oc@desk", "to_agent": "pi@laptop", "correlation_id": e1, "status": "applied", "body": "applied", "metadata": {"ack_of": e1}}))["event"]["id"].as_str().unwrap().to_string();
    Seeded {
        big: (big_id, big),
        small: (small_id, small.to_string()),
        mined,
        diary,
        patch_event: e1,
        ack_event: e2,
        artifact: (art, patch.to_string()),
    }
}

/// The primary's drawer by id: (content, metadata), or None.
fn on_primary(fleet: &Fleet, id: &str) -> Option<(String, Value)> {
    let p = fleet
        .call("mempalace_get_drawers", json!({"drawer_ids": [id]}))
        .unwrap();
    let r = &p["results"][0];
    r.get("content")?;
    Some((r["content"].as_str()?.to_string(), r["metadata"].clone()))
}

/// The primary's diary entries in `wing_pi`, text → how many.
fn primary_diary(fleet: &Fleet) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for e in fleet.diary("pi", "wing_pi") {
        *out.entry(e).or_insert(0) += 1;
    }
    out
}

/// The primary's facts about `subject`: (predicate, object, valid_from, valid_to), sorted.
fn primary_facts(fleet: &Fleet, subject: &str) -> Vec<(String, String, Value, Value)> {
    let p = fleet
        .call(
            "mempalace_kg_query",
            json!({"entity": subject, "direction": "outgoing"}),
        )
        .unwrap();
    let mut v: Vec<_> = p["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["predicate"].as_str().unwrap().to_string(),
                f["object"].as_str().unwrap().to_string(),
                f["valid_from"].clone(),
                f["valid_to"].clone(),
            )
        })
        .collect();
    v.sort_by_key(|f| format!("{f:?}"));
    v
}

/// The primary's events that a backfill sent, by the local id they came from.
fn backfilled_events(fleet: &Fleet) -> BTreeMap<String, Vec<Value>> {
    let p = fleet
        .call(
            "mempalace_event_list",
            json!({"limit": 500, "order": "asc"}),
        )
        .unwrap();
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for e in p["events"].as_array().unwrap() {
        if let Some(of) = e
            .pointer("/metadata/mpt_backfill_of")
            .and_then(Value::as_str)
        {
            out.entry(of.to_string()).or_default().push(e.clone());
        }
    }
    out
}

/// Everything the seed holds is on the primary exactly once, whole, with its references.
pub fn assert_landed_once(fleet: &Fleet, s: &Seeded) {
    let (content, meta) =
        on_primary(fleet, &s.big.0).expect("the chunked drawer is on the primary");
    assert_eq!(content, s.big.1, "reassembled byte for byte");
    assert_eq!(meta["added_by"], "pi@laptop", "its writer kept");
    let (content, meta) = on_primary(fleet, &s.small.0).expect("the small drawer");
    assert_eq!(content, s.small.1);
    assert!(
        meta["added_by"].as_str().is_some_and(|a| !a.is_empty()),
        "{meta}"
    );
    for m in &s.mined {
        assert!(
            on_primary(fleet, m).is_none(),
            "mined drawers stay local: {m}"
        );
    }
    let diary = primary_diary(fleet);
    for d in &s.diary {
        assert_eq!(diary.get(d), Some(&1), "{d} once: {diary:?}");
    }
    assert_eq!(
        primary_facts(fleet, "Alice"),
        vec![
            (
                "owns".into(),
                "deploy-repo".into(),
                json!("2026-01-01"),
                json!("2026-03-01")
            ),
            (
                "owns".into(),
                "deploy-repo".into(),
                json!("2026-04-01"),
                Value::Null
            ),
        ],
        "the invalidated window and the reopened fact, each once"
    );
    assert_eq!(primary_facts(fleet, "Bob").len(), 1);
    let events = backfilled_events(fleet);
    let e1 = &events.get(&s.patch_event).expect("the patch event")[..];
    let e2 = &events.get(&s.ack_event).expect("the ack")[..];
    assert_eq!((e1.len(), e2.len()), (1, 1), "each event once: {events:?}");
    let (e1, e2) = (&e1[0], &e2[0]);
    assert_eq!(
        e2["metadata"]["ack_of"], e1["id"],
        "the ack points at the primary's id"
    );
    assert_eq!(e2["correlation_id"], e1["id"]);
    assert_eq!(e1["from_agent"], "pi@laptop");
    let art = e1["artifact_ids"][0]
        .as_str()
        .expect("the patch keeps its artifact");
    assert_ne!(art, s.artifact.0, "the primary minted its own artifact id");
    let a = fleet
        .call("mempalace_artifact_get", json!({"artifact_id": art}))
        .unwrap();
    assert_eq!(a["artifact"]["content"], s.artifact.1.as_str());
    assert_eq!(
        a["artifact"]["metadata"]["mpt_backfill_of"],
        s.artifact.0.as_str()
    );
    let found = fleet
        .call(
            "mempalace_search",
            json!({"query": "deploy gate checks health twice", "limit": 5}),
        )
        .unwrap();
    assert!(
        found.to_string().contains(&s.big.0),
        "a search on the primary finds backfilled content: {found}"
    );
}
