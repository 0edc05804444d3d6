//! The HTTP client against a real `mempalace serve`: open and with a token (right, wrong,
//! missing), `--read-only` refusals surfaced, a wrong path, and TLS with a self-signed CA.

use std::path::Path;
use std::time::Duration;

use mpt_base::config::Secret;
use mpt_mcp::http::{HttpClient, HttpOptions};
use mpt_mcp::{CallError, Deadline, HttpFailure, McpClient};
use serde_json::json;

use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv};

fn http(url: &str, token: Option<&str>, ca: Option<&Path>) -> McpClient {
    McpClient::Remote(
        HttpClient::new(HttpOptions {
            url: url.to_string(),
            token: token.map(|t| Secret::new(t.to_string())),
            ca_file: ca.map(Path::to_path_buf),
            timeout: Some(Duration::from_secs(60)),
            init_timeout: Some(Duration::from_secs(120)),
            connect_timeout: Duration::from_secs(5),
        })
        .unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_primary_handshakes_writes_and_finds() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let c = http(&p.url(), None, None);
    let hs = c.connect().await.unwrap();
    assert_eq!(hs.tools.len(), 47);
    assert_eq!(hs.server_version(), Some("3.11.0"));
    let added = c
        .call_tool("mempalace_add_drawer", json!({"wing": "fleet", "room": "ops", "content": "the primary lives on the docker0 gateway"}), Deadline::Default)
        .await
        .unwrap();
    assert_eq!(added.payload["success"], true);
    let again = c
        .call_tool("mempalace_add_drawer", json!({"wing": "fleet", "room": "ops", "content": "the primary lives on the docker0 gateway"}), Deadline::Default)
        .await
        .unwrap();
    assert_eq!(
        again.payload["reason"], "already_exists",
        "replaying add_drawer is idempotent"
    );
    let found = c
        .call_tool(
            "mempalace_search",
            json!({"query": "where does the primary live"}),
            Deadline::Default,
        )
        .await
        .unwrap();
    assert_eq!(
        found.payload["results"][0]["drawer_id"],
        added.payload["drawer_id"]
    );

    let McpClient::Remote(h) = &c else {
        unreachable!()
    };
    let (status, body) = h.get("/healthz", Deadline::Default).await.unwrap();
    assert_eq!((status, body.as_str()), (200, "ok\n"));

    // A wrong path: the URL must end in /mcp with no trailing slash.
    let e = http(&format!("{}/", p.url()), None, None)
        .connect()
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            CallError::Http {
                failure: HttpFailure::NotFound,
                status: Some(404),
                ..
            }
        ),
        "{e:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_is_checked_and_a_refusal_names_it() {
    let env = TestEnv::new();
    let p = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some("right-token"),
            ..Default::default()
        },
    );
    let ok = http(&p.url(), Some("right-token"), None);
    ok.connect().await.expect("the right token works");
    ok.call_tool("mempalace_kg_stats", json!({}), Deadline::Default)
        .await
        .unwrap();
    for bad in [Some("wrong-token"), None] {
        let e = http(&p.url(), bad, None).connect().await.unwrap_err();
        assert!(
            matches!(
                e,
                CallError::Http {
                    failure: HttpFailure::Unauthorized(None),
                    status: Some(401),
                    ..
                }
            ),
            "{e:?}"
        );
        let m = mpt_base::error::MptError::from(e);
        assert_eq!(m.exit().code(), 4);
        assert!(m.hint.as_deref().unwrap().contains("token"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_primary_refuses_writes_visibly() {
    let env = TestEnv::new();
    let p = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            read_only: true,
            ..Default::default()
        },
    );
    let c = http(&p.url(), None, None);
    let hs = c.connect().await.unwrap();
    assert_eq!(hs.tools.len(), 25, "write tools are hidden");
    let e = c
        .call_tool(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "x"}),
            Deadline::Default,
        )
        .await
        .unwrap_err();
    assert!(matches!(e, CallError::Rpc { code: -32003, .. }), "{e:?}");
    let m = mpt_base::error::MptError::from(e);
    assert!(m.hint.unwrap().contains("read-only"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_with_a_self_signed_ca() {
    let env = TestEnv::new();
    let certs = env.path("certs");
    std::fs::create_dir_all(&certs).unwrap();
    crate::support::certs::make_certs(&certs);
    let p = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            tls: Some((&certs.join("leaf.pem"), &certs.join("leaf.key"))),
            ..Default::default()
        },
    );
    assert!(p.url().starts_with("https://"));
    let c = http(&p.url(), None, Some(&certs.join("ca.pem")));
    c.connect().await.expect("trusted through the extra CA");
    c.call_tool("mempalace_kg_stats", json!({}), Deadline::Default)
        .await
        .unwrap();

    let e = http(&p.url(), None, None).connect().await.unwrap_err();
    assert!(
        matches!(
            e,
            CallError::Http {
                failure: HttpFailure::Tls,
                ..
            }
        ),
        "{e:?}"
    );
    let m = mpt_base::error::MptError::from(e);
    assert!(m.hint.unwrap().contains("MPT_CA_FILE"));
}
