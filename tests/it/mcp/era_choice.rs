//! mpt's own HTTP client is legacy-first: with a server of both eras (the MCP SDK 2.x's) it speaks
//! the initialize handshake; only with one that refuses that era (-32022 listing 2026-07-28 alone,
//! as a future MemPalace may) does it speak the modern one, each request carrying the envelope and
//! the routing headers the SDK checks.

use std::time::Duration;

use mpt_mcp::http::{HttpClient, HttpOptions};
use mpt_mcp::{Deadline, McpClient};
use serde_json::{Value, json};

use crate::support::TestEnv;
use crate::support::eras::SdkServer;

fn client(url: &str) -> McpClient {
    McpClient::Remote(
        HttpClient::new(HttpOptions {
            url: url.to_string(),
            token: None,
            ca_file: None,
            timeout: Some(Duration::from_secs(30)),
            init_timeout: Some(Duration::from_secs(30)),
            connect_timeout: Duration::from_secs(5),
        })
        .unwrap(),
    )
}

async fn status(c: &McpClient) -> Value {
    c.call_tool("mempalace_status", json!({}), Deadline::Default)
        .await
        .unwrap()
        .payload
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_of_both_eras_is_spoken_to_in_the_handshake_era() {
    let env = TestEnv::new();
    let s = SdkServer::start(&env, false);
    let c = client(&s.url);
    assert_eq!(
        c.connect().await.unwrap().init["protocolVersion"],
        "2025-11-25"
    );
    assert_eq!(status(&c).await["total_drawers"], 1);
    let seen = s.requests();
    assert_eq!(seen[0]["method"], "initialize", "{seen:?}");
    assert!(seen.iter().all(|r| r["envelope"] == false), "{seen:?}");
    assert!(
        !seen.iter().any(|r| r["method"] == "server/discover"),
        "{seen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_refuses_the_handshake_era_is_spoken_to_in_the_modern_one() {
    let env = TestEnv::new();
    let s = SdkServer::start(&env, true);
    let c = client(&s.url);
    let hs = c.connect().await.unwrap();
    assert_eq!(hs.init["protocolVersion"], "2026-07-28", "{}", hs.init);
    assert_eq!(hs.init["serverInfo"]["name"], "sdk-fixture", "{}", hs.init);
    assert!(hs.tools.iter().any(|t| t["name"] == "mempalace_status"));
    assert_eq!(status(&c).await["total_drawers"], 1);
    let seen = s.requests();
    assert_eq!(seen[0]["method"], "initialize", "legacy first: {seen:?}");
    let later = &seen[1..];
    let methods: Vec<&str> = later.iter().filter_map(|r| r["method"].as_str()).collect();
    assert!(
        methods.starts_with(&["server/discover", "tools/list"]),
        "{methods:?}"
    );
    assert!(methods.contains(&"tools/call"), "{methods:?}");
    for r in later {
        assert_eq!(r["envelope"], true, "{r}");
        assert_eq!(r["protocol"], "2026-07-28", "{r}");
        assert_eq!(r["mcp_method"], r["method"], "{r}");
    }
    let call = later.iter().find(|r| r["method"] == "tools/call").unwrap();
    assert_eq!(call["mcp_name"], "mempalace_status", "{call}");
}
