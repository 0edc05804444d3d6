//! The HTTP client against a fake primary (axum) for what the real one cannot do on demand:
//! answer over SSE, issue a session id, drop mid-reply, stall, and fail with 500.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use mpt_mcp::http::{HttpClient, HttpOptions};
use mpt_mcp::{CallError, Deadline, HttpFailure};
use serde_json::{Value, json};

#[derive(Default, Clone)]
struct Seen {
    headers: Arc<Mutex<Vec<HeaderMap>>>,
}

async fn handler(
    Path(mode): Path<String>,
    State(seen): State<Seen>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    seen.headers.lock().unwrap().push(headers.clone());
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = msg.get("id").cloned();
    let method = msg["method"].as_str().unwrap_or("").to_string();
    let result = match method.as_str() {
        "initialize" => {
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "fake", "version": "9"}})
        }
        "tools/list" => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        _ => json!({"content": [{"type": "text", "text": "{\"success\": true}"}]}),
    };
    let Some(id) = id else {
        return Response::builder().status(202).body(Body::empty()).unwrap();
    };
    let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
    let sse_frame = |v: &Value| Bytes::from(format!("event: message\ndata: {v}\n\n"));
    let note =
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}});
    match mode.as_str() {
        "sse" => {
            let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(Bytes::from(": priming\n\n")),
                Ok(sse_frame(&note)),
                Ok(sse_frame(&reply)),
            ];
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(futures_stream(chunks)))
                .unwrap()
        }
        "session" => {
            let has =
                headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) == Some("sess-123");
            if method != "initialize" && !has {
                return Response::builder()
                    .status(400)
                    .body(Body::from("missing session"))
                    .unwrap();
            }
            Response::builder()
                .header("content-type", "application/json")
                .header("mcp-session-id", "sess-123")
                .body(Body::from(reply.to_string()))
                .unwrap()
        }
        "drop-sse" if method == "tools/call" => {
            let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(sse_frame(&note)),
                Err(std::io::Error::other("pulled the plug")),
            ];
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(futures_stream(chunks)))
                .unwrap()
        }
        "drop-json" if method == "tools/call" => {
            let text = reply.to_string();
            let half = Bytes::from(text[..text.len() / 2].to_string());
            let chunks: Vec<Result<Bytes, std::io::Error>> =
                vec![Ok(half), Err(std::io::Error::other("pulled the plug"))];
            Response::builder()
                .header("content-type", "application/json")
                .header("content-length", text.len().to_string())
                .body(Body::from_stream(futures_stream(chunks)))
                .unwrap()
        }
        // MCP 2026-07-28's HeaderMismatch, which an older gateway's denial shared a code with.
        "mismatch" if method == "tools/call" => Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32020, "message": "HeaderMismatch: Mcp-Method does not match the body"}}).to_string(),
            ))
            .unwrap(),
        "stall" if method == "tools/call" => {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Response::new(Body::empty())
        }
        "500" if method == "tools/call" => Response::builder()
            .status(StatusCode::INTERNAL_SERVER_ERROR)
            .body(Body::from("boom\n"))
            .unwrap(),
        "403" => Response::builder()
            .status(403)
            .body(Body::from("<html>Forbidden</html>"))
            .unwrap(),
        _ => Response::builder()
            .header("content-type", "application/json")
            .body(Body::from(reply.to_string()))
            .unwrap(),
    }
}

/// A stream of chunks without pulling in a stream crate: an unfold over a Vec.
fn futures_stream(
    chunks: Vec<Result<Bytes, std::io::Error>>,
) -> impl futures_core::Stream<Item = Result<Bytes, std::io::Error>> + Send {
    struct S(std::vec::IntoIter<Result<Bytes, std::io::Error>>);
    impl futures_core::Stream for S {
        type Item = Result<Bytes, std::io::Error>;
        fn poll_next(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Self::Item>> {
            std::task::Poll::Ready(self.0.next())
        }
    }
    S(chunks.into_iter())
}

async fn serve() -> (String, Seen) {
    let seen = Seen::default();
    let app = Router::new()
        .route("/{mode}/mcp", post(handler))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), seen)
}

fn client(base: &str, mode: &str) -> HttpClient {
    HttpClient::new(HttpOptions {
        url: format!("{base}/{mode}/mcp"),
        token: None,
        ca_file: None,
        timeout: Some(Duration::from_millis(800)),
        init_timeout: Some(Duration::from_secs(5)),
        connect_timeout: Duration::from_secs(2),
    })
    .unwrap()
}

async fn call(c: &HttpClient) -> Result<Value, CallError> {
    c.request(
        "tools/call",
        Some(json!({"name": "echo", "arguments": {}})),
        Deadline::Default,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_replies_are_read_past_notifications() {
    let (base, seen) = serve().await;
    let c = client(&base, "sse");
    let hs = c.handshake().await.unwrap();
    assert_eq!(hs.tools.len(), 1);
    let r = call(&c).await.unwrap();
    assert_eq!(r["content"][0]["text"], "{\"success\": true}");
    let headers = seen.headers.lock().unwrap();
    let last = headers.last().unwrap();
    assert_eq!(last["accept"], "application/json, text/event-stream");
    assert_eq!(
        last["mcp-protocol-version"], "2025-06-18",
        "the negotiated version is sent after the handshake"
    );
    assert!(
        last.get("content-length").is_some() && last.get("transfer-encoding").is_none(),
        "Content-Length bodies, never chunked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_minus_32020_without_a_rule_is_not_taken_for_a_gateways_denial() {
    let (base, _) = serve().await;
    let c = client(&base, "mismatch");
    c.handshake().await.unwrap();
    let e = call(&c).await.unwrap_err();
    assert!(e.denial().is_none(), "{e:?}");
    assert!(
        matches!(e, CallError::Rpc { code: -32020, .. }),
        "a plain JSON-RPC error: {e:?}"
    );
    assert!(!e.is_transient(), "not retried either: {e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_id_is_echoed() {
    let (base, _) = serve().await;
    let c = client(&base, "session");
    c.handshake()
        .await
        .expect("the fake 400s any request without the session id");
    call(&c).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drop_mid_reply_is_ambiguous_and_transient() {
    let (base, _) = serve().await;
    for mode in ["drop-sse", "drop-json"] {
        let c = client(&base, mode);
        c.handshake().await.unwrap();
        let e = call(&c).await.unwrap_err();
        assert!(
            matches!(
                e,
                CallError::Http {
                    failure: HttpFailure::Dropped,
                    ..
                }
            ),
            "{mode}: {e:?}"
        );
        assert!(e.is_ambiguous() && e.is_transient(), "{mode}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_primary_fails_within_the_deadline() {
    let (base, _) = serve().await;
    let c = client(&base, "stall");
    c.handshake().await.unwrap();
    let e = call(&c).await.unwrap_err();
    assert!(matches!(e, CallError::Timeout { ms: 800, .. }), "{e:?}");
    let m = mpt_base::error::MptError::from(e);
    assert_eq!(m.exit().code(), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_500_is_a_transient_server_failure_and_403_names_the_host_pin() {
    let (base, _) = serve().await;
    let c = client(&base, "500");
    c.handshake().await.unwrap();
    let e = call(&c).await.unwrap_err();
    assert!(
        matches!(
            e,
            CallError::Http {
                failure: HttpFailure::Server,
                status: Some(500),
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.is_transient() && !e.is_ambiguous());

    let e = client(&base, "403").handshake().await.unwrap_err();
    assert!(
        matches!(
            e,
            CallError::Http {
                failure: HttpFailure::Forbidden,
                ..
            }
        ),
        "{e:?}"
    );
    let m = mpt_base::error::MptError::from(e);
    assert!(m.hint.unwrap().contains("Host"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_connection_is_named() {
    // A port that was just free: nothing listens there. (DNS failures are classified from the
    // resolver's error text; no test sends a DNS query, as loopback is the only network target.)
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    let c = HttpClient::new(HttpOptions {
        url: format!("http://127.0.0.1:{port}/mcp"),
        token: None,
        ca_file: None,
        timeout: Some(Duration::from_secs(5)),
        init_timeout: Some(Duration::from_secs(5)),
        connect_timeout: Duration::from_secs(2),
    })
    .unwrap();
    let e = c.handshake().await.unwrap_err();
    assert!(
        matches!(
            e,
            CallError::Http {
                failure: HttpFailure::Refused,
                ..
            }
        ),
        "{e:?}"
    );
    let m = mpt_base::error::MptError::from(e);
    assert_eq!(m.exit().code(), 7);
    assert!(m.hint.unwrap().contains("mempalace serve"));
}
