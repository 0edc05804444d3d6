//! Both MCP eras through the edge (stdio) and the gateway (HTTP), each spoken by real clients:
//! the MCP Python SDK 2.x's client (legacy, and auto: `server/discover`, then 2026-07-28) and the
//! Inspector's v2 CLI (`--protocol-era legacy|modern`); and the modern wire's refusals, raw.

use serde_json::{Value, json};

use crate::support::eras::{inspector, sdk};
use crate::support::gateway::{Setup, http};
use crate::support::harness::{Harness, OwnersStopped};
use crate::support::{TestEnv, stderr, stdout};
use mpt_mcp::era::{CAPABILITIES_KEY, SERVER_INFO_KEY, VERSION_KEY};

/// The text of a tool result as the SDK parsed it, and that text parsed (MemPalace's payload).
fn text(result: &Value) -> (String, Value) {
    let t = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {result}"))
        .to_string();
    let parsed = serde_json::from_str(&t).unwrap_or(Value::Null);
    (t, parsed)
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {list}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// A write and a read of `content`, after a list (and, for a modern client, a discover).
fn plan(mode: &str, content: &str) -> Value {
    let mut steps = vec![
        json!({"op": "list"}),
        json!({"op": "call", "name": "mempalace_add_drawer",
               "args": {"wing": "notes", "room": "eras", "content": content}}),
        json!({"op": "call", "name": "mempalace_search", "args": {"query": content, "limit": 5}}),
    ];
    if mode != "legacy" {
        steps.insert(0, json!({"op": "discover"}));
    }
    Value::Array(steps)
}

#[test]
fn the_sdk_client_of_either_era_lists_writes_and_reads_through_the_edge() {
    let env = TestEnv::new();
    let _owners = OwnersStopped::of(&env);
    let palace = env.palace("p");
    let target = [
        "stdio",
        env!("CARGO_BIN_EXE_mpt"),
        "edge",
        "--palace",
        palace.to_str().unwrap(),
    ];
    for (mode, version) in [("legacy", "2025-11-25"), ("auto", "2026-07-28")] {
        let content = format!("the {mode} SDK client wrote this through mpt edge");
        let report = sdk(&env, mode, &plan(mode, &content), &target, None);
        assert_eq!(report["protocol_version"], version, "{report}");
        let mut steps = report["steps"].as_array().unwrap().clone();
        if mode == "auto" {
            // The edge answered discover from its child's handshake.
            let d = steps.remove(0);
            assert_eq!(d["supportedVersions"], json!(["2026-07-28"]), "{d}");
            assert!(d["capabilities"]["tools"].is_object(), "{d}");
            assert_eq!(d["_meta"][SERVER_INFO_KEY]["name"], "mempalace", "{d}");
        }
        let list = &steps[0];
        assert!(names(list).len() > 10, "{list}");
        // The SDK's model fills `ttlMs: 0` where a server sent no hint (the legacy era's).
        let hinted = (list["ttlMs"].clone(), list["cacheScope"].clone());
        match mode {
            "legacy" => assert_eq!(hinted.0, 0, "{hinted:?}"),
            _ => assert_eq!(hinted, (json!(mpt_mcp::era::LIST_TTL_MS), json!("public"))),
        }
        let (_, added) = text(&steps[1]);
        assert_eq!(added["success"], true, "{}", steps[1]);
        let (found, _) = text(&steps[2]);
        assert!(found.contains(&content), "{found}");
    }
}

#[test]
fn the_edge_answers_the_modern_wire_as_the_sdk_server_does() {
    let env = TestEnv::new();
    let _owners = OwnersStopped::of(&env);
    let palace = env.palace("p");
    let mut h = Harness::start(&env, &["--palace", palace.to_str().unwrap()], &[]);
    let meta = json!({VERSION_KEY: "2026-07-28", CAPABILITIES_KEY: {}});

    let legacy = h.request("tools/list", json!({}));
    let modern = h.request("tools/list", json!({"_meta": meta}));
    let mut result = modern["result"].clone();
    assert_eq!(result["resultType"], "complete", "{modern}");
    assert_eq!(result["cacheScope"], "public", "{modern}");
    for k in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        result.as_object_mut().unwrap().remove(k);
    }
    assert_eq!(result, legacy["result"], "the same tools in both eras");
    assert!(legacy["result"].get("resultType").is_none(), "{legacy}");

    // A request of the handshake era only, in the modern envelope.
    let ping = h.request("ping", json!({"_meta": meta}));
    assert_eq!(ping["error"]["code"], -32601, "{ping}");
    let half = h.request("tools/list", json!({"_meta": {VERSION_KEY: "2026-07-28"}}));
    assert_eq!(half["error"]["code"], -32602, "{half}");
    assert!(
        half["error"]["message"]
            .as_str()
            .unwrap()
            .contains(CAPABILITIES_KEY),
        "{half}"
    );
    let later = h.request(
        "tools/list",
        json!({"_meta": {VERSION_KEY: "2099-01-01", CAPABILITIES_KEY: {}}}),
    );
    assert_eq!(later["error"]["code"], -32022, "{later}");
    assert_eq!(
        later["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2099-01-01"}),
        "{later}"
    );
    // Without the envelope, a discover is the handshake era's: answered as MemPalace answers it.
    let bare = h.request("server/discover", json!({}));
    assert_eq!(bare["error"]["code"], -32601, "{bare}");
    // A tool error is a result in both eras: the modern one says it is complete.
    let failed = h.request(
        "tools/call",
        json!({"name": "mempalace_get_drawer", "arguments": {"drawer_id": "nope"}, "_meta": meta}),
    );
    assert_eq!(failed["result"]["resultType"], "complete", "{failed}");
}

#[test]
fn the_sdk_client_of_either_era_is_held_to_its_devices_policy_through_the_gateway() {
    let s = Setup::new(json!({"lap": {"role": "member"}}));
    let token = s.token("lap");
    let url = s.gw.mcp();
    let target = ["http", url.as_str()];
    let audit_rpcs = |s: &Setup| -> Vec<String> {
        let audit =
            crate::support::json(&s.host_mpt(&["--json", "gateway", "audit", "--device", "lap"]));
        audit["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["stage"] == "request")
            .filter_map(|r| r["rpc"].as_str().map(str::to_string))
            .collect()
    };
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let content = format!("the {mode} SDK client wrote this through mpt gateway");
        let mut steps = plan(mode, &content).as_array().unwrap().clone();
        steps.push(
            json!({"op": "call", "name": "mempalace_delete_drawer", "args": {"drawer_id": "d"}}),
        );
        let report = sdk(&s.env, mode, &Value::Array(steps), &target, Some(&token));
        assert_eq!(report["protocol_version"], version, "{report}");
        let mut steps = report["steps"].as_array().unwrap().clone();
        if mode == "auto" {
            let d = steps.remove(0);
            assert_eq!(d["supportedVersions"], json!(["2026-07-28"]), "{d}");
            assert_eq!(d["_meta"][SERVER_INFO_KEY]["name"], "mempalace", "{d}");
            // No handshake reached the gateway: the modern client never sent `initialize`.
            let rpcs = audit_rpcs(&s);
            assert!(rpcs.contains(&"server/discover".to_string()), "{rpcs:?}");
            assert!(!rpcs.contains(&"initialize".to_string()), "{rpcs:?}");
        }
        let list = &steps[0];
        let listed = names(list);
        assert!(
            listed.contains(&"mempalace_add_drawer".into()),
            "{listed:?}"
        );
        assert!(
            !listed.contains(&"mempalace_delete_drawer".into()),
            "filtered: {listed:?}"
        );
        if mode == "auto" {
            assert_eq!(list["cacheScope"], "private", "a per-device list: {list}");
        }
        let (_, added) = text(&steps[1]);
        assert_eq!(added["success"], true, "{}", steps[1]);
        assert!(crate::harnesses::on_primary(&s.p, &content).is_some());
        let (found, _) = text(&steps[2]);
        assert!(found.contains(&content), "{found}");
        // The denial is a tool error the model reads, with the rule, in either era.
        let denied = &steps[3];
        assert_eq!(denied["isError"], true, "{denied}");
        let (why, _) = text(denied);
        assert!(why.contains("needs:admin"), "{why}");
    }
    assert!(audit_rpcs(&s).contains(&"initialize".to_string()));
}

/// A modern `POST /mcp` as the device, with `headers` beside its bearer.
fn modern_post(
    s: &Setup,
    headers: &[(&str, &str)],
    body: &Value,
) -> crate::support::gateway::Reply {
    let auth = format!("Bearer {}", s.token("lap"));
    let mut all: Vec<(&str, &[u8])> = vec![
        ("host", b"127.0.0.1"),
        ("authorization", auth.as_bytes()),
        ("content-type", b"application/json"),
        ("accept", b"application/json, text/event-stream"),
    ];
    all.extend(headers.iter().map(|(k, v)| (*k, v.as_bytes())));
    http(s.gw.port, "POST", "/mcp", &all, body.to_string().as_bytes())
}

#[test]
fn a_modern_request_whose_headers_disagree_with_its_body_is_refused_before_the_policy() {
    let s = Setup::new(json!({"lap": {"role": "member"}}));
    let meta = json!({VERSION_KEY: "2026-07-28", CAPABILITIES_KEY: {}});
    let call = |name: &str, version: &str| {
        let mut m = meta.clone();
        m[VERSION_KEY] = json!(version);
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": name, "arguments": {"drawer_id": "d"}, "_meta": m}})
    };
    let routed = |name: &'static str| {
        vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", name),
        ]
    };

    // A router reading the headers sees a search; the body deletes. Refused before any decision.
    let r = modern_post(
        &s,
        &routed("mempalace_search"),
        &call("mempalace_delete_drawer", "2026-07-28"),
    );
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["code"], -32020, "{}", r.text());
    // An `Mcp-Param-*` header no tool declares: a second reading, refused.
    let mut h = routed("mempalace_delete_drawer");
    h.push(("mcp-param-wing", "wing_public"));
    let r = modern_post(&s, &h, &call("mempalace_delete_drawer", "2026-07-28"));
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32020)),
        "{}",
        r.text()
    );
    // A version the gateway does not serve: -32022 naming what it does.
    let later = vec![
        ("mcp-protocol-version", "2099-01-01"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "mempalace_delete_drawer"),
    ];
    let r = modern_post(&s, &later, &call("mempalace_delete_drawer", "2099-01-01"));
    assert_eq!(r.status, 400, "{}", r.text());
    let e = &r.json()["error"];
    assert_eq!(e["code"], -32022, "{e}");
    assert_eq!(e["data"]["supported"], json!(["2026-07-28"]), "{e}");

    let audit =
        crate::support::json(&s.host_mpt(&["--json", "gateway", "audit", "--device", "lap"]));
    let records = audit["records"].as_array().unwrap();
    let invalid: Vec<&Value> = records
        .iter()
        .filter(|r| r["decision"] == "invalid")
        .collect();
    assert_eq!(invalid.len(), 3, "{audit}");
    assert!(invalid.iter().all(|r| r["status"] == 400), "{audit}");
    assert_eq!(invalid[0]["rule"], "mcp:header_mismatch", "{audit}");
    assert_eq!(invalid[2]["rule"], "mcp:unsupported_version", "{audit}");
    assert!(
        records
            .iter()
            .all(|r| r["decision"] != "deny" && r["decision"] != "allow"),
        "the policy decided nothing: {audit}"
    );

    // Headers that agree: the policy decides, and its denial is a tool error the model reads.
    let r = modern_post(
        &s,
        &routed("mempalace_delete_drawer"),
        &call("mempalace_delete_drawer", "2026-07-28"),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let result = &r.json()["result"];
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["resultType"], "complete", "{result}");
    assert!(text(result).0.contains("needs:admin"), "{result}");

    // A modern list, filtered for the device: private.
    let list =
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"_meta": meta}});
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let r = modern_post(&s, &h, &list);
    assert_eq!(r.json()["result"]["cacheScope"], "private", "{}", r.text());
    // The modern HTTP wire has no client notifications: acknowledged and dropped, as the SDK does.
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 3}});
    let r = modern_post(&s, &[("mcp-protocol-version", "2026-07-28")], &cancelled);
    assert_eq!(r.status, 202, "{}", r.text());
    // A legacy list is what it was: no modern keys.
    let legacy = crate::support::gateway::post(
        s.gw.port,
        &s.token("lap"),
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).to_string(),
    );
    assert!(
        legacy.json()["result"].get("cacheScope").is_none(),
        "{}",
        legacy.text()
    );
}

#[test]
fn the_inspector_v2_in_either_era_reaches_the_palace_through_the_edge_and_the_gateway() {
    let env = TestEnv::new();
    let _owners = OwnersStopped::of(&env);
    let palace = env.palace("p");
    let edge = [
        env!("CARGO_BIN_EXE_mpt"),
        "edge",
        "--palace",
        palace.to_str().unwrap(),
    ];
    let s = Setup::new(json!({"lap": {"role": "member"}}));
    // The device token on the Inspector's argv is this test's road, not a user's.
    let header = format!("Authorization: Bearer {}", s.token("lap"));
    let url = s.gw.mcp();
    let gateway = [
        url.as_str(),
        "--transport",
        "http",
        "--header",
        header.as_str(),
    ];
    let run = |env: &TestEnv, era: &str, server: &[&str], method: &[&str]| -> Value {
        let o = inspector(env, era, server, method);
        assert!(
            o.status.success(),
            "inspector {era} {method:?}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)))
    };
    for era in ["modern", "legacy"] {
        for (env, server, via) in [(&env, &edge[..], "edge"), (&s.env, &gateway[..], "gateway")] {
            let listed = run(env, era, server, &["--method", "tools/list"]);
            let listed = names(&listed);
            assert!(
                listed.contains(&"mempalace_search".into()),
                "{via} {era}: {listed:?}"
            );
            assert_eq!(
                listed.contains(&"mempalace_delete_drawer".into()),
                via == "edge",
                "{via} {era}: {listed:?}"
            );
            let content = format!("the inspector v2 ({era}) wrote this through mpt {via}");
            let added = run(
                env,
                era,
                server,
                &[
                    "--method",
                    "tools/call",
                    "--tool-name",
                    "mempalace_add_drawer",
                    "--tool-arg",
                    "wing=notes",
                    "room=eras",
                    &format!("content={content}"),
                ],
            );
            assert_eq!(text(&added).1["success"], true, "{via} {era}: {added}");
            // The edge names the server on a modern result: the Inspector spoke that era.
            if via == "edge" {
                assert_eq!(
                    added["_meta"].get(SERVER_INFO_KEY).is_some(),
                    era == "modern",
                    "{added}"
                );
            } else if era == "modern" {
                // And no handshake reached the gateway.
                let audit = crate::support::json(&s.host_mpt(&["--json", "gateway", "audit"]));
                assert!(
                    audit["records"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|r| r["rpc"] != "initialize"),
                    "{audit}"
                );
            }
            let found = run(
                env,
                era,
                server,
                &[
                    "--method",
                    "tools/call",
                    "--tool-name",
                    "mempalace_search",
                    "--tool-arg",
                    &format!("query={content}"),
                ],
            );
            assert!(text(&found).0.contains(&content), "{via} {era}: {found}");
        }
    }
}
