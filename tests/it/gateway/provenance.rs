//! Provenance from the token through the real gateway, read back from the real primary: each
//! forged writer stored as the token's device, `agents` held, strict refusing, rewrites audited.

use serde_json::json;

use super::{denied, on_primary};
use crate::support::gateway::{Setup, call, get, mpt, payload, policy};

fn entries(p: &crate::support::Primary, agent: &str, wing: &str) -> Vec<String> {
    on_primary(
        p,
        "mempalace_diary_read",
        json!({"agent_name": agent, "wing": wing, "last_n": 50}),
    )["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["content"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn forged_writers_and_host_prefixes_are_stored_as_the_tokens_device() {
    let mut pol = policy(json!({
        "lap": {"role": "member"},
        "ci": {"role": "member", "agents": ["bot"]},
        "desk": {"role": "member", "provenance": "strict"}}));
    pol["provenance"] = json!("stamp");
    let s = Setup::with_policy(pol);
    let (p, gw) = (&s.p, &s.gw);
    let (lap, ci, desk) = (s.token("lap"), s.token("ci"), s.token("desk"));
    let lap_token_id = get(gw.port, &lap, "/whoami").json()["token_id"].clone();

    let r = call(
        gw.port,
        &lap,
        "mempalace_add_drawer",
        json!({"wing": "wing_lap", "room": "r", "content": "forged drawer", "added_by": "pi@desk"}),
    );
    let id = payload(&r)["drawer_id"].as_str().unwrap().to_string();
    let d = on_primary(p, "mempalace_get_drawer", json!({"drawer_id": id}));
    assert_eq!(d["metadata"]["added_by"], "pi@lap", "{d}");

    let r = call(
        gw.port,
        &lap,
        "mempalace_event_append",
        json!({"type": "note", "stream": "fleet", "room": "general", "from_agent": "pi@desk",
               "body": "forged event", "metadata": {"keep": 1, "mpt": {"device": "desk"}}}),
    );
    assert!(payload(&r).get("event").is_some(), "{}", r.text());
    let events = on_primary(p, "mempalace_event_list", json!({"stream": "fleet"}));
    let e = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["body"] == "forged event")
        .unwrap_or_else(|| panic!("{events}"))
        .clone();
    assert_eq!(e["from_agent"], "pi@lap");
    assert_eq!(e["metadata"]["keep"], 1);
    assert_eq!(
        e["metadata"]["mpt"],
        json!({"device": "lap", "token_id": lap_token_id})
    );

    let r = call(
        gw.port,
        &lap,
        "mempalace_artifact_put",
        json!({"kind": "note", "content": "forged artifact", "created_by": "ops@desk"}),
    );
    let art = payload(&r);
    let art_id = art["artifact"]["id"]
        .as_str()
        .or(art["id"].as_str())
        .unwrap_or_else(|| panic!("{art}"))
        .to_string();
    let a = on_primary(p, "mempalace_artifact_get", json!({"artifact_id": art_id}));
    assert_eq!(a["artifact"]["created_by"], "ops@lap", "{a}");

    for args in [
        json!({"agent_name": "pi", "wing": "wing_lap", "entry": "HOST:desk|entry forged"}),
        json!({"agent_name": "pi", "wing": "wing_lap", "content": "HOST:desk|content forged"}),
    ] {
        assert_eq!(
            payload(&call(gw.port, &lap, "mempalace_diary_write", args))["success"],
            true
        );
    }
    let cp = json!({"items": [{"wing": "wing_lap", "room": "r", "content": "checkpointed item"}],
        "diary": {"agent_name": "pi", "wing": "wing_lap", "entry": "HOST:desk|checkpoint forged"}, "added_by": "x@desk"});
    assert!(
        call(gw.port, &lap, "mempalace_checkpoint", cp)
            .json()
            .get("error")
            .is_none()
    );
    let mut got = entries(p, "pi", "wing_lap");
    got.sort();
    assert_eq!(
        got,
        [
            "HOST:lap|checkpoint forged",
            "HOST:lap|content forged",
            "HOST:lap|entry forged"
        ]
    );

    // A diary entry's content rewritten by update_drawer keeps the token's stamp (M4).
    let written = payload(&call(
        gw.port,
        &lap,
        "mempalace_diary_write",
        json!({"agent_name": "pi", "wing": "wing_lap", "entry": "to be rewritten"}),
    ));
    let id = written["entry_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{written}"));
    let r = call(
        gw.port,
        &lap,
        "mempalace_update_drawer",
        json!({"drawer_id": id, "content": "HOST:desk|rewritten by update"}),
    );
    assert!(r.json().get("error").is_none(), "{}", r.text());
    let stored = on_primary(p, "mempalace_get_drawer", json!({"drawer_id": id}));
    assert_eq!(
        stored["content"], "HOST:lap|rewritten by update",
        "{stored}"
    );

    // `agents`: ci writes as bot only; its diary's agent_name is checked, never rewritten.
    denied(
        &call(
            gw.port,
            &ci,
            "mempalace_diary_write",
            json!({"agent_name": "pi", "entry": "x"}),
        ),
        "ci",
        "mempalace_diary_write",
        "agents:not_allowed",
    );
    let r = call(
        gw.port,
        &ci,
        "mempalace_add_drawer",
        json!({"wing": "wing_ci", "room": "r", "content": "ci drawer", "added_by": "root@lap"}),
    );
    let id = payload(&r)["drawer_id"].as_str().unwrap().to_string();
    let d = on_primary(p, "mempalace_get_drawer", json!({"drawer_id": id}));
    assert_eq!(d["metadata"]["added_by"], "bot@ci");

    // strict: refused, nothing stored; its own name passes.
    denied(
        &call(
            gw.port,
            &desk,
            "mempalace_add_drawer",
            json!({"wing": "wing_desk", "room": "r", "content": "strict forged", "added_by": "pi@lap"}),
        ),
        "desk",
        "mempalace_add_drawer",
        "provenance:strict:added_by",
    );
    denied(
        &call(
            gw.port,
            &desk,
            "mempalace_diary_write",
            json!({"agent_name": "pi", "wing": "wing_desk", "entry": "HOST:lap|strict"}),
        ),
        "desk",
        "mempalace_diary_write",
        "provenance:strict:entry",
    );
    let listed = on_primary(p, "mempalace_list_drawers", json!({"wing": "wing_desk"}));
    assert_eq!(
        listed["drawers"].as_array().map_or(0, Vec::len),
        0,
        "{listed}"
    );
    let r = call(
        gw.port,
        &desk,
        "mempalace_add_drawer",
        json!({"wing": "wing_desk", "room": "r", "content": "strict own", "added_by": "pi@desk"}),
    );
    assert_eq!(payload(&r)["success"], true);

    // Each rewrite is in the audit, by field, never by value.
    let o = mpt(
        &s.env,
        &s.dir,
        &["--json", "gateway", "audit", "--device", "lap"],
    );
    assert!(o.status.success(), "{}", crate::support::stderr(&o));
    let text = crate::support::stdout(&o);
    assert!(text.contains("rewrote:/added_by"), "{text}");
    assert!(text.contains("rewrote:/diary/entry"), "{text}");
    assert!(
        text.contains("filled:/metadata/mpt") || text.contains("rewrote:/metadata/mpt"),
        "{text}"
    );
    assert!(
        !text.contains("pi@desk") && !text.contains("forged"),
        "no value in the audit: {text}"
    );
}
