//! Each role through the real gateway to a real primary: the observer's filtered tools/list and
//! pull routes; a member's writes land and its hook_settings and delete are refused; an admin's pass.

use serde_json::{Value, json};

use super::{denied, method_denied, on_primary};
use crate::support::gateway::{Setup, call, get, payload, post};
use mpt_palace::catalog::{self, Tier};

fn tool_names(v: &Value) -> Vec<String> {
    let mut names: Vec<String> = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn each_role_may_do_what_its_tier_allows_and_no_more() {
    let s = Setup::new(
        json!({"obs": {"role": "observer"}, "mem": {"role": "member"}, "adm": {"role": "admin"}}),
    );
    let (env, p, _dir, gw) = (&s.env, &s.p, &s.dir, &s.gw);
    let obs = s.token("obs");
    let mem = s.token("mem");
    let adm = s.token("adm");

    let list = r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#;

    // The observer sees exactly the observer tier: no writes, not follow_tunnels (it writes counts).
    let r = post(gw.port, &obs, list);
    assert_eq!(
        r.header("server"),
        Some("mpt-gateway"),
        "the filtered list is the gateway's"
    );
    let mut expected: Vec<String> = catalog::all()
        .iter()
        .filter(|t| t.tier == Tier::Observer)
        .map(|t| catalog::full_name(t.name))
        .collect();
    expected.sort();
    let seen = tool_names(&r.json());
    assert_eq!(seen, expected);
    assert!(seen.contains(&"mempalace_search".to_string()));
    assert!(!seen.contains(&"mempalace_follow_tunnels".to_string()));
    assert_eq!(
        tool_names(&post(gw.port, &adm, list).json()).len(),
        46,
        "an admin sees all but sync (refused without allow_sync)"
    );
    // A method the observer's role does not open: -31020 with its rule, not a tool result.
    let r = post(
        gw.port,
        &obs,
        r#"{"jsonrpc": "2.0", "id": 2, "method": "resources/list"}"#,
    );
    method_denied(&r, "obs", "resources/list", "needs:admin (unknown method)");
    let member_sees = tool_names(&post(gw.port, &mem, list).json());
    assert!(member_sees.contains(&"mempalace_add_drawer".to_string()));
    assert!(!member_sees.contains(&"mempalace_delete_drawer".to_string()));

    // mpt's own client reaches the primary through the gateway with a device token.
    let via = [
        ("MEMPALACE_REMOTE_URL", gw.mcp()),
        ("MEMPALACE_REMOTE_TOKEN", obs.clone()),
    ];
    let via: Vec<(&str, &str)> = via.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let o = env.mpt(&["--json", "call", "kg_stats"], &via);
    assert!(o.status.success(), "{}", crate::support::stderr(&o));
    assert!(crate::support::json(&o)["payload"].get("triples").is_some());
    let o = env.mpt(
        &[
            "--json",
            "call",
            "add_drawer",
            r#"{"wing": "w", "room": "r", "content": "c"}"#,
        ],
        &via,
    );
    assert_eq!(
        o.status.code(),
        Some(4),
        "a denial is refused for safety (exit 4), naming the rule"
    );
    let err = crate::support::json(&o);
    assert_eq!(err["kind"], "refused", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("rule needs:member"),
        "{err}"
    );
    assert_eq!(err["detail"]["rule"], "needs:member", "{err}");

    // Pull routes are an observer's; the estate is an admin's.
    for route in ["/sync/version_vector", "/sync/ops?origin=x&after=0&limit=1"] {
        assert_eq!(get(gw.port, &obs, route).status, 200, "{route}");
    }
    assert_eq!(get(gw.port, &mem, "/sync/peers").status, 403);
    let status = get(gw.port, &adm, "/statusz");
    assert_eq!(status.status, 200, "{}", status.text());
    assert!(
        status.text().contains("mpt:adm"),
        "serve's client list names the device behind the gateway: {}",
        status.text()
    );

    // A member writes; the drawer is on the primary.
    let added = payload(&call(
        gw.port,
        &mem,
        "mempalace_add_drawer",
        json!({"wing": "wing_gw", "room": "r", "content": "written through the gateway"}),
    ));
    assert_eq!(added["success"], true, "{added}");
    let id = added["drawer_id"].as_str().unwrap().to_string();
    assert_eq!(
        on_primary(p, "mempalace_get_drawer", json!({"drawer_id": id}))["drawer_id"],
        id
    );
    // ... but not the server's settings, nor a delete, nor sync.
    let r = call(
        gw.port,
        &mem,
        "mempalace_hook_settings",
        json!({"silent_save": true}),
    );
    denied(&r, "mem", "mempalace_hook_settings", "needs:admin");
    let r = call(
        gw.port,
        &mem,
        "mempalace_delete_drawer",
        json!({"drawer_id": id}),
    );
    denied(&r, "mem", "mempalace_delete_drawer", "needs:admin");
    assert_eq!(
        on_primary(p, "mempalace_get_drawer", json!({"drawer_id": id}))["drawer_id"],
        id,
        "still there"
    );
    let r = call(gw.port, &adm, "mempalace_sync", json!({}));
    denied(&r, "adm", "mempalace_sync", "allow_sync:false");
    let r = call(gw.port, &mem, "mempalace_brand_new_tool", json!({}));
    denied(
        &r,
        "mem",
        "mempalace_brand_new_tool",
        "needs:admin (unknown tool)",
    );

    // The admin's delete passes and the drawer is gone from the primary.
    let gone = payload(&call(
        gw.port,
        &adm,
        "mempalace_delete_drawer",
        json!({"drawer_id": id}),
    ));
    assert_eq!(gone["success"], true, "{gone}");
    assert!(
        p.call("mempalace_get_drawer", json!({"drawer_id": id}))
            .is_err(),
        "the drawer is gone from the primary"
    );
}
