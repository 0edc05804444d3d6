//! The stdio client against a real `mempalace-mcp`: the handshake, all 47 tools, a write found
//! by a search (payloads parsed and asserted), and `success:false` surfaced as a failure.

use std::time::Duration;

use mpt_base::config::McpKnobs;
use mpt_mcp::stdio::{ChildSpec, StdioClient, StdioOptions};
use mpt_mcp::{CallError, Deadline, McpClient};
use serde_json::json;

use crate::support::{TestEnv, json, stderr, venv_bin};

pub fn real_child(env: &TestEnv, palace: &std::path::Path) -> McpClient {
    let spec = ChildSpec {
        program: venv_bin("mempalace-mcp"),
        args: vec!["--palace".into(), palace.as_os_str().to_owned()],
        env: env
            .mempalace_env()
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect(),
        clear_env: true,
        named_by: None,
    };
    McpClient::Local(StdioClient::new(
        spec,
        StdioOptions::new(McpKnobs::default(), false),
    ))
}

/// A live writer that is not mpt's, as a harness's own `mempalace-mcp` is: a real child on
/// `palace` that wrote first, so it holds the palace's writer lease. Returns it and its pid.
pub async fn live_writer(env: &TestEnv, palace: &std::path::Path) -> (McpClient, u32) {
    let holder = real_child(env, palace);
    holder.connect().await.unwrap();
    let w = holder
        .call_tool(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "a live session wrote first, so it holds the lease"}),
            Deadline::Default,
        )
        .await
        .unwrap();
    assert_eq!(w.payload["success"], true);
    let McpClient::Local(c) = &holder else {
        unreachable!()
    };
    let pid = c.pid().await.unwrap();
    (holder, pid)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handshake_write_search_and_failures_against_the_real_child() {
    let env = TestEnv::new();
    let client = real_child(&env, &env.palace("local"));
    let hs = client.connect().await.expect("handshake");
    assert_eq!(hs.server_version(), Some("3.11.0"));
    assert_eq!(hs.init["protocolVersion"], mpt_mcp::PROTOCOL_VERSION);
    assert_eq!(hs.tools.len(), 47, "the 3.11 catalogue");

    let added = client
        .call_tool(
            "mempalace_add_drawer",
            json!({"wing": "proj", "room": "decisions", "content": "the outbox survives kill -9 because enqueue commits before the ack"}),
            Deadline::Default,
        )
        .await
        .expect("add_drawer succeeds");
    assert_eq!(added.payload["success"], true);
    let id = added.payload["drawer_id"].as_str().unwrap().to_string();
    assert!(id.starts_with("drawer_proj_decisions_"), "{id}");

    let found = client
        .call_tool(
            "mempalace_search",
            json!({"query": "does the outbox survive kill -9", "limit": 3}),
            Deadline::Default,
        )
        .await
        .expect("search succeeds");
    let results = found.payload["results"].as_array().expect("results array");
    assert_eq!(
        results[0]["drawer_id"],
        id.as_str(),
        "the write is found first: {}",
        found.payload
    );
    assert!(results[0]["distance"].as_f64().unwrap() < 1.0);

    // A failure inside a good JSON-RPC reply is a failure.
    let err = client
        .call_tool(
            "mempalace_delete_drawer",
            json!({"drawer_id": "drawer_nope_nope_000"}),
            Deadline::Default,
        )
        .await
        .unwrap_err();
    match err {
        CallError::ToolFailed {
            message, payload, ..
        } => {
            assert_eq!(payload["success"], false);
            assert!(message.contains("not found"), "{message}");
        }
        other => panic!("expected ToolFailed, got {other:?}"),
    }
    // An unknown parameter is a JSON-RPC error (-32602), not a success.
    let err = client
        .call_tool(
            "mempalace_search",
            json!({"qury": "x"}),
            Deadline::After(Duration::from_secs(30)),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, CallError::Rpc { code: -32602, .. }),
        "{err:?}"
    );
    client.shutdown().await;
}

#[test]
fn the_binary_reports_a_success_false_reply_as_exit_1() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let child = venv_bin("mempalace-mcp");
    let add = env.mpt(
        &[
            "call",
            "--palace",
            palace.to_str().unwrap(),
            "--child",
            child.to_str().unwrap(),
            "add_drawer",
            r#"{"wing":"w","room":"r","content":"c"}"#,
        ],
        &[],
    );
    assert!(add.status.success(), "{}", stderr(&add));
    let o = env.mpt(
        &[
            "--json",
            "call",
            "--palace",
            palace.to_str().unwrap(),
            "--child",
            child.to_str().unwrap(),
            "delete_drawer",
            r#"{"drawer_id":"drawer_x_y_0"}"#,
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["schema"], "mpt.error/v1");
    assert_eq!(v["kind"], "tool_failed");
    assert_eq!(v["detail"]["success"], false);
}

/// A live writer that is not mpt's (a harness's own `mempalace-mcp` that wrote first) holds the
/// palace: `mpt call`'s write is MemPalace's "Peer MCP writer active", busy (exit 6) as `feed
/// mine` says it, not a runtime failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_beside_a_live_peer_writer_is_exit_6() {
    let env = std::sync::Arc::new(TestEnv::new());
    let palace = env.palace("held");
    let (holder, _) = live_writer(&env, &palace).await;
    let (e2, p2) = (std::sync::Arc::clone(&env), palace.clone());
    let o = tokio::task::spawn_blocking(move || {
        e2.mpt(
            &[
                "--json",
                "call",
                "--palace",
                p2.to_str().unwrap(),
                "--child",
                venv_bin("mempalace-mcp").to_str().unwrap(),
                "add_drawer",
                r#"{"wing":"w","room":"r","content":"a second writer"}"#,
            ],
            &[],
        )
    })
    .await
    .unwrap();
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["kind"], "busy", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("Peer MCP writer active"),
        "{v}"
    );
    assert_eq!(v["detail"]["failure_kind"], "peer_contention", "{v}");
    holder.shutdown().await;
}
