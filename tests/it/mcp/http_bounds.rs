//! Replies that never end, from a fake primary (the real one cannot misbehave so): `mpt` stops at
//! the 64 MiB reply cap (exit 1) or at its deadline (exit 7), and the process ends either way.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::response::Response;
use axum::routing::post;
use serde_json::Value;

use crate::support::{TestEnv, json};

/// Yields `head`, then `chunk` forever (every `every`, or as fast as it is read).
struct Endless {
    head: Option<Bytes>,
    chunk: Bytes,
    tick: Option<tokio::time::Interval>,
}

impl futures_core::Stream for Endless {
    type Item = Result<Bytes, std::io::Error>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(h) = self.head.take() {
            return Poll::Ready(Some(Ok(h)));
        }
        if let Some(t) = self.tick.as_mut()
            && t.poll_tick(cx).is_pending()
        {
            return Poll::Pending;
        }
        Poll::Ready(Some(Ok(self.chunk.clone())))
    }
}

fn endless(
    content_type: &str,
    status: u16,
    head: &str,
    chunk: Bytes,
    every: Option<Duration>,
) -> Response {
    Response::builder()
        .status(status)
        .header("content-type", content_type)
        .body(Body::from_stream(Endless {
            head: Some(Bytes::from(head.to_string())),
            chunk,
            tick: every.map(tokio::time::interval),
        }))
        .unwrap()
}

async fn handler(Path(mode): Path<String>) -> Response {
    let fill = Bytes::from(vec![b'x'; 64 * 1024]);
    match mode.as_str() {
        "json" => endless(
            "application/json",
            200,
            r#"{"jsonrpc": "2.0", "id": 1, "result": ""#,
            fill,
            None,
        ),
        "sse-line" => endless(
            "text/event-stream",
            200,
            "event: message\ndata: ",
            fill,
            None,
        ),
        "sse-drip" => endless(
            "text/event-stream",
            200,
            ": priming\n\n",
            Bytes::from_static(
                b"data: {\"jsonrpc\": \"2.0\", \"method\": \"notifications/progress\"}\n\n",
            ),
            Some(Duration::from_millis(20)),
        ),
        "error-page" => endless("text/html", 500, "<html>", fill, None),
        _ => Response::builder().status(404).body(Body::empty()).unwrap(),
    }
}

/// Serves the fake on a runtime of its own thread; the base URL.
fn serve() -> (String, tokio::runtime::Runtime) {
    let app = Router::new().route("/{mode}/mcp", post(handler));
    let (port, rt) = crate::support::serve_app(app);
    (format!("http://127.0.0.1:{port}"), rt)
}

/// `mpt --json call --list` against the fake's `mode`; waits for the process to end.
fn list_tools(env: &TestEnv, base: &str, mode: &str, init_timeout_ms: &str) -> Value {
    let url = format!("{base}/{mode}/mcp");
    let o = env.mpt(
        &["--json", "call", "--list"],
        &[
            ("MEMPALACE_REMOTE_URL", url.as_str()),
            ("MPT_PRIMARY_HANDSHAKE_MS", init_timeout_ms),
        ],
    );
    let doc = json(&o);
    assert_eq!(
        o.status.code(),
        doc["exit_code"].as_u64().map(|c| c as i32),
        "{doc}"
    );
    doc
}

#[test]
fn an_endless_reply_stops_at_the_64_mib_cap_with_exit_1() {
    let env = TestEnv::new();
    let (base, _rt) = serve();
    // No deadline at all: the cap alone must end it.
    for mode in ["json", "sse-line"] {
        let doc = list_tools(&env, &base, mode, "0");
        assert_eq!(doc["schema"], "mpt.error/v1", "{mode}: {doc}");
        assert_eq!(doc["exit_code"], 1, "{mode}: {doc}");
        assert_eq!(doc["kind"], "protocol", "{mode}: {doc}");
        let message = doc["message"].as_str().unwrap();
        assert!(
            message.contains("64 MiB") && message.contains("16 MiB request cap"),
            "{mode}: {message}"
        );
    }
}

#[test]
fn an_endless_event_stream_ends_at_the_init_deadline() {
    let env = TestEnv::new();
    let (base, _rt) = serve();
    let doc = list_tools(&env, &base, "sse-drip", "500");
    assert_eq!(doc["kind"], "timeout", "{doc}");
    assert_eq!(doc["exit_code"], 7, "{doc}");
    assert!(doc["message"].as_str().unwrap().contains("500 ms"), "{doc}");
}

#[test]
fn an_endless_error_page_is_read_only_in_part() {
    let env = TestEnv::new();
    let (base, _rt) = serve();
    // No deadline: only reading a bounded prefix of the page lets the 500 be reported at all.
    let doc = list_tools(&env, &base, "error-page", "0");
    assert_eq!(doc["exit_code"], 7, "{doc}");
    assert!(
        doc["message"].as_str().unwrap().contains("answered 500"),
        "{doc}"
    );
}
