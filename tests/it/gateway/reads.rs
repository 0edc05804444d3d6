//! Reads held to `wings.read` through the real gateway against a real primary: a restricted
//! device sees nothing of a hidden wing in any read tool; a hidden drawer answers as a missing one.

use serde_json::{Value, json};

use super::denied;
use crate::support::gateway::{Reply, Setup, call, payload, policy};

const SECRET: &str = "desk secret about kestrels";

struct Palace {
    s: Setup,
    desk: String,
    lap: String,
}

fn seeded() -> Palace {
    let mut pol = policy(json!({
        "lap": {"role": "member", "wings": {"read": ["wing_lap*", "wing_pi"], "write": ["wing_lap*", "wing_pi"]}, "kg": "read"},
        "obs": {"role": "observer"},
        "held": {"role": "member", "wings": {"read": ["wing_lap*"]}},
        "hub": {"role": "admin"}}));
    pol["allow_sync"] = json!(false);
    let s = Setup::with_policy(pol);
    let hub = s.token("hub");
    let add = |wing: &str, content: &str| {
        let r = payload(&call(
            s.gw.port,
            &hub,
            "mempalace_add_drawer",
            json!({"wing": wing, "room": "notes", "content": content}),
        ));
        assert_eq!(r["success"], true, "{r}");
        r["drawer_id"].as_str().unwrap().to_string()
    };
    let lap = add("wing_lap", "lap note about kestrels nesting");
    add("wing_lap", "lap note about the garden shed");
    add("wing_lap_archive", "archived lap note about kestrels");
    let desk = add("wing_desk", SECRET);
    for (wing, entry) in [
        ("wing_pi", "HOST:lap|pi's own day"),
        ("wing_desk", "HOST:desk|desk's diary"),
    ] {
        let r = payload(&call(
            s.gw.port,
            &hub,
            "mempalace_diary_write",
            json!({"agent_name": "pi", "wing": wing, "entry": entry}),
        ));
        assert_eq!(r["success"], true, "{r}");
    }
    let t = payload(&call(
        s.gw.port,
        &hub,
        "mempalace_create_tunnel",
        json!({"source_wing": "wing_lap", "source_room": "notes", "target_wing": "wing_desk", "target_room": "notes"}),
    ));
    assert!(t.get("error").is_none(), "{t}");
    Palace { s, desk, lap }
}

/// The reply to a restricted read: a good one, with nothing of the hidden wing in it, and every
/// key of the real server's reply one the gateway's allow-list knows (none dropped).
fn clean(r: &Reply) -> Value {
    for hidden in ["wing_desk", SECRET, "desk's diary"] {
        assert!(!r.text().contains(hidden), "{hidden:?} shows: {}", r.text());
    }
    let p = payload(r);
    assert!(
        p.get("mpt_dropped").is_none(),
        "a key the allow-list lacks: {p}"
    );
    p
}

#[test]
fn a_restricted_device_sees_nothing_of_a_hidden_wing_in_any_read() {
    let pal = seeded();
    let (port, lap, hub) = (pal.s.gw.port, pal.s.token("lap"), pal.s.token("hub"));
    let read = |tool: &str, args: Value| call(port, &lap, tool, args);
    // No `kg` beside `wings.read`: the graph, which has no wing to hold facts to, is refused (L3).
    let held = pal.s.token("held");
    denied(
        &call(port, &held, "mempalace_kg_stats", json!({})),
        "held",
        "mempalace_kg_stats",
        "kg:none",
    );

    let all = payload(&call(
        port,
        &hub,
        "mempalace_search",
        json!({"query": "kestrels", "limit": 10}),
    ));
    assert!(
        all.to_string().contains(SECRET),
        "the admin reads every wing: {all}"
    );
    let found = clean(&read(
        "mempalace_search",
        json!({"query": "kestrels", "limit": 2}),
    ));
    let results = found["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        2,
        "over-fetched, then cut to the limit: {found}"
    );
    assert!(
        results
            .iter()
            .all(|r| r["wing"].as_str().unwrap().starts_with("wing_lap"))
    );
    assert!(found["mpt_filtered"].as_u64().unwrap() >= 1, "{found}");
    denied(
        &read(
            "mempalace_search",
            json!({"query": "kestrels", "wing": "Wing_Desk"}),
        ),
        "lap",
        "mempalace_search",
        "wings.read:wing_desk",
    );
    // The server turns plain text on by Python truthiness (H1): `true` is refused for what it
    // shows, every other truthy value already as not a boolean.
    denied(
        &read(
            "mempalace_search",
            json!({"query": "kestrels", "cli_compatible": true}),
        ),
        "lap",
        "mempalace_search",
        "wings.read:cli_compatible",
    );
    for on in [
        json!(1),
        json!("true"),
        json!("yes"),
        json!(1.5),
        json!([1]),
        json!({"a": 1}),
    ] {
        denied(
            &read(
                "mempalace_search",
                json!({"query": "kestrels", "cli_compatible": on}),
            ),
            "lap",
            "mempalace_search",
            "arguments:type:/cli_compatible:boolean",
        );
    }
    for off in [json!(false), Value::Null] {
        let r = read(
            "mempalace_search",
            json!({"query": "kestrels", "cli_compatible": off}),
        );
        assert!(r.json()["result"].get("isError").is_none(), "{}", r.text());
    }

    let wings = clean(&read("mempalace_list_wings", json!({})));
    assert_eq!(
        wings["wings"],
        json!({"wing_lap": 2, "wing_lap_archive": 1, "wing_pi": 1})
    );
    assert_eq!(wings["mpt_filtered"], 1);
    let tax = clean(&read("mempalace_get_taxonomy", json!({})));
    assert_eq!(tax["taxonomy"].as_object().unwrap().len(), 3, "{tax}");
    let rooms = clean(&read("mempalace_list_rooms", json!({})));
    assert_eq!(rooms["rooms"], json!({"notes": 3, "diary": 1}), "{rooms}");
    assert_eq!(rooms["mpt_filtered"], 1);
    let status = clean(&read("mempalace_status", json!({})));
    assert_eq!(status["total_drawers"], 4, "{status}");
    assert_eq!(status["rooms"], json!({"notes": 3, "diary": 1}));
    assert_eq!(status["sqlite_integrity"]["palace"], "", "a server path");
    let obs = payload(&call(
        port,
        &pal.s.token("obs"),
        "mempalace_status",
        json!({}),
    ));
    assert_eq!(
        obs["total_drawers"], 6,
        "an unrestricted observer counts all"
    );
    assert_eq!(
        obs["sqlite_integrity"]["palace"], "",
        "but sees no server path"
    );
    let admin = payload(&call(port, &hub, "mempalace_status", json!({})));
    assert_ne!(admin["sqlite_integrity"]["palace"], "", "{admin}");

    let page = clean(&read(
        "mempalace_list_drawers",
        json!({"limit": 2, "offset": 1}),
    ));
    assert_eq!(
        (page["total"].clone(), page["count"].clone()),
        (json!(4), json!(2)),
        "{page}"
    );
    assert_eq!(
        page["mpt_filtered"], 2,
        "the desk drawer and its diary entry"
    );
    let mut seen = Vec::new();
    for offset in 0..4 {
        let p = clean(&read(
            "mempalace_list_drawers",
            json!({"limit": 1, "offset": offset}),
        ));
        seen.push(p["drawers"][0]["drawer_id"].as_str().unwrap().to_string());
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 4, "each readable drawer on one page: {seen:?}");

    let dup = clean(&read(
        "mempalace_check_duplicate",
        json!({"content": SECRET, "threshold": 0.5}),
    ));
    assert!(
        dup["matches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["wing"] != "wing_desk")
    );
    let cp = clean(&read(
        "mempalace_checkpoint",
        json!({"items": [{"wing": "wing_lap", "room": "notes", "content": SECRET}], "dedup_threshold": 0.5}),
    ));
    assert!(cp.get("duplicates").is_some(), "{cp}");

    let diary = clean(&read(
        "mempalace_diary_read",
        json!({"agent_name": "pi", "last_n": 10}),
    ));
    assert_eq!(
        diary["entries"].as_array().unwrap().len(),
        1,
        "the wing forced: {diary}"
    );
    denied(
        &read(
            "mempalace_diary_read",
            json!({"agent_name": "pi", "wing": "wing_desk"}),
        ),
        "lap",
        "mempalace_diary_read",
        "wings.read:wing_desk",
    );

    let walk = clean(&read("mempalace_traverse", json!({"start_room": "notes"})));
    assert!(walk.as_array().is_some_and(|w| !w.is_empty()), "{walk}");
    clean(&read("mempalace_find_tunnels", json!({})));
    let tunnels = clean(&read("mempalace_list_tunnels", json!({})));
    assert_eq!(tunnels, json!([]), "the one tunnel ends in wing_desk");
    let follow = clean(&read(
        "mempalace_follow_tunnels",
        json!({"wing": "wing_lap", "room": "notes"}),
    ));
    assert_eq!(follow, json!([]));
    clean(&read("mempalace_graph_stats", json!({})));

    assert!(
        payload(&read("mempalace_kg_query", json!({"entity": "kestrel"})))
            .get("error")
            .is_none()
    );
    denied(
        &read(
            "mempalace_kg_add",
            json!({"subject": "a", "predicate": "b", "object": "c"}),
        ),
        "lap",
        "mempalace_kg_add",
        "kg:read",
    );
}

#[test]
fn a_hidden_drawer_answers_byte_for_byte_as_a_missing_one() {
    let pal = seeded();
    let (port, lap, hub) = (pal.s.gw.port, pal.s.token("lap"), pal.s.token("hub"));
    let get = |token: &str, id: &str| {
        call(
            port,
            token,
            "mempalace_get_drawer",
            json!({"drawer_id": id}),
        )
    };
    let missing = "drawer_wing_desk_notes_0000000000000000";
    let hidden = get(&lap, &pal.desk);
    // The primary's own bytes, relayed untouched to the admin, the missing id swapped for the hidden one.
    let served = get(&hub, missing).text().replace(missing, &pal.desk);
    assert_eq!(hidden.text(), served);
    assert_eq!(get(&lap, missing).text(), get(&hub, missing).text());
    assert_eq!(payload(&get(&lap, &pal.lap))["wing"], "wing_lap");

    // Ids name their wing (`drawer_<wing>_…`): the ones sent come back, nothing else of it.
    let many = payload(&call(
        port,
        &lap,
        "mempalace_get_drawers",
        json!({"drawer_ids": [pal.lap, pal.desk, missing]}),
    ));
    assert_eq!(many["errors"], 2, "{many}");
    assert_eq!(
        many["results"][1],
        json!({"drawer_id": pal.desk, "error": format!("Drawer not found: {}", pal.desk)})
    );
    assert_eq!(
        many["results"][2]["error"],
        format!("Drawer not found: {missing}")
    );
    assert!(
        many.get("mpt_filtered").is_none(),
        "an id lookup never says so"
    );
    assert!(!many.to_string().contains(SECRET), "{many}");
}

#[test]
fn a_tunnel_previews_only_a_drawer_the_device_may_read() {
    let pal = seeded();
    let (port, lap, hub) = (pal.s.gw.port, pal.s.token("lap"), pal.s.token("hub"));
    // An admin's tunnels may name any drawer at an end, whatever that end's wing (H2).
    for (wing, room, drawer) in [
        ("wing_lap_archive", "notes", &pal.desk),
        ("wing_pi", "diary", &pal.lap),
    ] {
        let t = payload(&call(
            port,
            &hub,
            "mempalace_create_tunnel",
            json!({"source_wing": "wing_lap", "source_room": "notes", "target_wing": wing,
                "target_room": room, "target_drawer_id": drawer}),
        ));
        assert!(t.get("error").is_none(), "{t}");
    }
    let args = json!({"wing": "wing_lap", "room": "notes"});
    let all = payload(&call(port, &hub, "mempalace_follow_tunnels", args.clone()));
    assert!(
        all.to_string().contains(SECRET),
        "the admin sees the preview: {all}"
    );
    let follow = clean(&call(port, &lap, "mempalace_follow_tunnels", args));
    let by_wing = |w: &str| {
        follow
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["connected_wing"] == w)
            .cloned()
            .unwrap_or_else(|| panic!("{w}: {follow}"))
    };
    let hidden = by_wing("wing_lap_archive");
    assert_eq!(hidden["drawer_id"], Value::Null, "its id names its wing");
    assert!(hidden.get("drawer_preview").is_none(), "{hidden}");
    let seen = by_wing("wing_pi");
    assert_eq!(
        seen["drawer_preview"], "lap note about kestrels nesting",
        "a readable drawer keeps its preview: {seen}"
    );
    // The tunnel list holds its ends' drawers the same way.
    let tunnels = clean(&call(port, &lap, "mempalace_list_tunnels", json!({})));
    let ends: Vec<(Value, Value)> = tunnels
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["target"]["wing"].clone(),
                t["target"]["drawer_id"].clone(),
            )
        })
        .collect();
    assert!(
        ends.contains(&(json!("wing_lap_archive"), Value::Null)),
        "{tunnels}"
    );
    assert!(
        ends.contains(&(json!("wing_pi"), json!(pal.lap))),
        "{tunnels}"
    );
}

#[test]
fn a_key_the_gateway_does_not_know_is_dropped_and_counted() {
    use crate::support::gateway::Gateway;
    use crate::support::proxy::{Proxy, Rules};
    let mut pal = seeded();
    // A newer server's reply: a key this gateway was not built with, and a structured copy.
    let newer = Proxy::start(
        &pal.s.p.url(),
        Rules {
            add_to_results: Some(("every_wing".into(), json!({"wing_desk": 1}))),
            ..Rules::default()
        },
    );
    pal.s.gw.stop();
    let gw = Gateway::start(
        &pal.s.env,
        &pal.s.dir,
        &format!("http://127.0.0.1:{}", newer.port),
        &[],
        &[],
    );
    let r = call(
        gw.port,
        &pal.s.token("lap"),
        "mempalace_list_wings",
        json!({}),
    );
    for hidden in ["wing_desk", "every_wing", "structuredContent"] {
        assert!(!r.text().contains(hidden), "{hidden:?} shows: {}", r.text());
    }
    let p = payload(&r);
    assert_eq!(p["mpt_dropped"], 2, "the key and the structured copy: {p}");
    assert_eq!(p["mpt_filtered"], 1, "the hidden wing, apart: {p}");
    let admin = call(
        gw.port,
        &pal.s.token("hub"),
        "mempalace_list_wings",
        json!({}),
    );
    assert!(
        admin.text().contains("every_wing"),
        "an admin's is relayed: {}",
        admin.text()
    );
}
