//! What a client cannot smuggle past the policy: a call without an id (MemPalace runs it all
//! the same), a `name` given twice (Python keeps the last), a body the server reads differently.

use serde_json::json;

use super::{denied, on_primary};
use crate::support::gateway::{Setup, call, payload, post};

#[test]
fn an_id_less_write_and_a_duplicated_name_smuggle_nothing() {
    let s = Setup::new(json!({"obs": {"role": "observer"}, "mem": {"role": "member"}}));
    let (p, gw) = (&s.p, &s.gw);
    let obs = s.token("obs");
    let mem = s.token("mem");

    // Without an id: still a call, still decided.
    let idless = |content: &str| {
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "mempalace_add_drawer", "arguments": {"wing": "wing_smuggled", "room": "r", "content": content}}}).to_string()
    };
    let r = post(gw.port, &obs, &idless("the observer's, without an id"));
    denied(&r, "obs", "mempalace_add_drawer", "needs:member");
    assert_eq!(r.json()["id"], serde_json::Value::Null);
    // A member's id-less write is forwarded and runs, as `serve` runs it; it is the one drawer.
    let r = post(gw.port, &mem, &idless("the member's, without an id"));
    assert_eq!(payload(&r)["success"], true, "{}", r.text());
    let wings = on_primary(p, "mempalace_list_wings", json!({}));
    assert_eq!(
        wings["wings"]["wing_smuggled"], 1,
        "only the member's landed: {wings}"
    );

    let added = payload(&call(
        gw.port,
        &mem,
        "mempalace_add_drawer",
        json!({"wing": "wing_keep", "room": "r", "content": "must survive"}),
    ));
    let id = added["drawer_id"].as_str().unwrap();
    // `name` twice, the harmless one first: the gateway decides on the one the server would run.
    let twice = format!(
        r#"{{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {{"name": "mempalace_kg_stats", "name": "mempalace_delete_drawer", "arguments": {{"drawer_id": "{id}"}}}}}}"#
    );
    denied(
        &post(gw.port, &mem, &twice),
        "mem",
        "mempalace_delete_drawer",
        "needs:admin",
    );
    // The other order: allowed, and the server runs what was allowed, not what came first.
    let other = r#"{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "mempalace_delete_drawer", "name": "mempalace_kg_stats", "arguments": {}}}"#;
    let r = post(gw.port, &mem, other);
    let stats = payload(&r);
    assert!(
        stats.get("entities").is_some() || stats.get("total_entities").is_some(),
        "kg_stats ran: {stats}"
    );
    assert_eq!(
        on_primary(p, "mempalace_get_drawer", json!({"drawer_id": id}))["drawer_id"],
        id,
        "nothing was deleted"
    );
}
