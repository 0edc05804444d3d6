//! The official MCP Inspector CLI (from npm) against `mpt edge` and against `mempalace-mcp`
//! itself: what a user's MCP client sees through the edge is what the server offers; and over
//! HTTP through `mpt gateway` with a device's own token.

use std::process::Output;

use serde_json::Value;

use crate::support::harness::OwnersStopped;
use crate::support::npm::inspector_dir;
use crate::support::{TestEnv, stderr, stdout, venv_bin};

/// `inspector-cli <server…> <method args…>` with the test's MemPalace environment; it must succeed.
fn inspect(env: &TestEnv, server: &[&str], method: &[&str]) -> Output {
    let o = run_inspector(env, server, method);
    assert!(
        o.status.success(),
        "inspector {server:?} {method:?}: {}{}",
        stdout(&o),
        stderr(&o)
    );
    o
}

/// `inspector-cli <server…> <method args…>`, whatever its exit.
fn run_inspector(env: &TestEnv, server: &[&str], method: &[&str]) -> Output {
    let mut cmd = std::process::Command::new("node");
    cmd.env_clear()
        .current_dir(inspector_dir())
        .arg("index.js")
        .args(server)
        .args(method);
    for (k, v) in env.mempalace_env() {
        cmd.env(k, v);
    }
    cmd.env("MPT_EDGE_GRACE_MS", "400");
    cmd.output().unwrap()
}

/// The payload of a `tools/call` reply as the Inspector prints it (the tool's text, parsed).
fn payload(o: &Output) -> Value {
    let reply: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_ne!(reply["isError"], true, "{reply}");
    serde_json::from_str(reply["content"][0]["text"].as_str().unwrap()).unwrap()
}

#[test]
fn the_inspector_sees_through_the_edge_the_tools_mempalace_offers_byte_for_byte() {
    let env = TestEnv::new();
    let _owners = OwnersStopped::of(&env);
    let (direct, edged) = (env.palace("direct"), env.palace("edged"));
    let child = venv_bin("mempalace-mcp");
    let mpt = env!("CARGO_BIN_EXE_mpt");
    let list = ["--method", "tools/list"];

    let theirs = inspect(
        &env,
        &[
            child.to_str().unwrap(),
            "--palace",
            direct.to_str().unwrap(),
        ],
        &list,
    );
    let ours = inspect(
        &env,
        &[mpt, "edge", "--palace", edged.to_str().unwrap()],
        &list,
    );
    let tools: Value = serde_json::from_slice(&theirs.stdout).unwrap();
    assert!(tools["tools"].as_array().unwrap().len() > 10, "{tools}");
    assert!(
        theirs.stdout == ours.stdout,
        "the tool list through the edge differs from mempalace-mcp's:\n{}\n---\n{}",
        stdout(&theirs),
        stdout(&ours)
    );

    // A write and a read through the edge, as the Inspector sends them.
    let edge = [mpt, "edge", "--palace", edged.to_str().unwrap()];
    let added = payload(&inspect(
        &env,
        &edge,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "mempalace_add_drawer",
            "--tool-arg",
            "wing=notes",
            "room=inspector",
            "content=the inspector wrote this through mpt edge",
        ],
    ));
    assert_eq!(added["success"], true, "{added}");
    let found = payload(&inspect(
        &env,
        &edge,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "mempalace_search",
            "--tool-arg",
            "query=inspector wrote through the edge",
        ],
    ));
    let text = found.to_string();
    assert!(
        text.contains("the inspector wrote this through mpt edge"),
        "{found}"
    );
}

#[test]
fn the_inspector_over_http_reaches_the_primary_through_the_gateway_with_a_device_token() {
    let s = crate::support::gateway::Setup::new(serde_json::json!({"lap": {"role": "member"}}));
    // The device token on the Inspector's argv (`--header`) is this test's road, not a user's:
    // a user's MCP client keeps it in its own config (opencode: `{env:…}` or `{file:…}`).
    let header = format!("Authorization: Bearer {}", s.token("lap"));
    let url = s.gw.mcp();
    let server = [
        url.as_str(),
        "--transport",
        "http",
        "--header",
        header.as_str(),
    ];

    let listed: Value =
        serde_json::from_slice(&inspect(&s.env, &server, &["--method", "tools/list"]).stdout)
            .unwrap();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"mempalace_add_drawer"), "{names:?}");
    assert!(
        !names.contains(&"mempalace_delete_drawer"),
        "a member's list is filtered: {names:?}"
    );

    let added = payload(&inspect(
        &s.env,
        &server,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "mempalace_add_drawer",
            "--tool-arg",
            "wing=notes",
            "room=inspector",
            "content=the inspector wrote this through mpt gateway",
        ],
    ));
    assert_eq!(added["success"], true, "{added}");
    let on_primary =
        s.p.call(
            "mempalace_get_drawer",
            serde_json::json!({"drawer_id": added["drawer_id"]}),
        )
        .unwrap();
    assert_eq!(on_primary["drawer_id"], added["drawer_id"]);

    // A tool the role does not open: the gateway's tool error, its text as the Inspector shows it.
    let o = run_inspector(
        &s.env,
        &server,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "mempalace_delete_drawer",
            "--tool-arg",
            &format!("drawer_id={}", added["drawer_id"].as_str().unwrap()),
        ],
    );
    let said = format!("{}{}", stdout(&o), stderr(&o));
    // A tool result, not a protocol error: the text reaches the client (and so the model).
    let shown: Value = serde_json::from_str(&stdout(&o)).expect(&said);
    assert_eq!(shown["isError"], true, "{said}");
    let text = shown["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("needs:admin") && text.contains("only an admin device may use this"),
        "{said}"
    );
    let audit =
        crate::support::json(&s.host_mpt(&["--json", "gateway", "audit", "--device", "lap"]));
    assert!(
        audit["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["tool"] == "mempalace_add_drawer" && r["decision"] == "allow"),
        "{audit}"
    );
}
