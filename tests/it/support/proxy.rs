//! A fault-injecting proxy (axum) before a real primary: counts tools/call, delays them, can
//! forward a call (it applies) then drop the reply: the AMBIGUOUS case, on demand, and can hold a
//! call unanswered forever while it keeps answering everything else (a stuck server).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde_json::Value;

#[derive(Default)]
pub struct Rules {
    /// tool name → how many more of its calls to apply-then-drop.
    pub drop_after_apply: HashMap<String, u32>,
    /// Added before forwarding each tools/call.
    pub delay: Duration,
    /// How many of the first tools/call are never forwarded nor answered (held until the client
    /// gives up); the rest, and every other request, pass.
    pub hang_first: u32,
    /// A key set in every tools/call result's payload, and a `structuredContent` copy beside it:
    /// a server that says more than the one the gateway was built against.
    pub add_to_results: Option<(String, Value)>,
}

#[derive(Default)]
struct Shared {
    rules: Rules,
    /// Every tools/call forwarded, in order: (tool, arguments).
    calls: Vec<(String, Value)>,
    dropped: Vec<String>,
}

pub struct Proxy {
    pub port: u16,
    shared: Arc<Mutex<Shared>>,
    _rt: tokio::runtime::Runtime,
}

#[derive(Clone)]
struct Ctx {
    shared: Arc<Mutex<Shared>>,
    upstream: String,
    http: reqwest::Client,
}

impl Proxy {
    /// Listens on an ephemeral loopback port and forwards POST /mcp to `upstream` (…/mcp).
    pub fn start(upstream: &str, rules: Rules) -> Proxy {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let shared = Arc::new(Mutex::new(Shared {
            rules,
            ..Default::default()
        }));
        let ctx = Ctx {
            shared: shared.clone(),
            upstream: upstream.to_string(),
            http: reqwest::Client::new(),
        };
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let app = Router::new().route("/mcp", post(forward)).with_state(ctx);
        rt.spawn(async move { axum::serve(listener, app).await.unwrap() });
        Proxy {
            port,
            shared,
            _rt: rt,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// The tools/call requests seen so far: (tool, arguments).
    pub fn calls(&self) -> Vec<(String, Value)> {
        self.shared.lock().unwrap().calls.clone()
    }

    pub fn count(&self, tool: &str) -> usize {
        self.calls().iter().filter(|(t, _)| t == tool).count()
    }

    /// The calls that were applied and then had their reply dropped.
    pub fn dropped(&self) -> Vec<String> {
        self.shared.lock().unwrap().dropped.clone()
    }
}

async fn forward(State(ctx): State<Ctx>, headers: HeaderMap, body: Bytes) -> Response {
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut drop_it = false;
    let mut hang = false;
    let mut delay = Duration::ZERO;
    let mut add = None;
    if msg["method"] == "tools/call" {
        let tool = msg["params"]["name"].as_str().unwrap_or("").to_string();
        let mut s = ctx.shared.lock().unwrap();
        delay = s.rules.delay;
        add = s.rules.add_to_results.clone();
        if s.rules.hang_first > 0 {
            s.rules.hang_first -= 1;
            hang = true;
        } else if let Some(n) = s.rules.drop_after_apply.get_mut(&tool).filter(|n| **n > 0) {
            *n -= 1;
            drop_it = true;
            s.dropped.push(tool.clone());
        }
        s.calls.push((tool, msg["params"]["arguments"].clone()));
    }
    if hang {
        return std::future::pending().await;
    }
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let mut req = ctx.http.post(&ctx.upstream).body(body);
    for h in [
        "content-type",
        "accept",
        "authorization",
        "mcp-protocol-version",
    ] {
        if let Some(v) = headers.get(h) {
            req = req.header(h, v.clone());
        }
    }
    let resp = match req.send().await {
        Ok(r) => r,
        Err(e) => {
            return Response::builder()
                .status(502)
                .body(Body::from(format!("proxy: upstream: {e}")))
                .unwrap();
        }
    };
    let status = resp.status().as_u16();
    let ctype = resp
        .headers()
        .get("content-type")
        .cloned()
        .unwrap_or_else(|| "application/json".parse().unwrap());
    let mut bytes = resp.bytes().await.unwrap_or_default();
    if let Some((key, value)) = add {
        bytes = Bytes::from(with_key(&bytes, &key, value));
    }
    if drop_it {
        // The primary applied it; the client gets half a reply and a dead connection.
        let half = bytes.slice(..bytes.len() / 2);
        let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
            Ok(half),
            Err(std::io::Error::other("proxy pulled the plug")),
        ];
        return Response::builder()
            .status(status)
            .header("content-type", ctype)
            .header("content-length", bytes.len().to_string())
            .body(Body::from_stream(Chunks(chunks.into_iter())))
            .unwrap();
    }
    Response::builder()
        .status(status)
        .header("content-type", ctype)
        .body(Body::from(bytes))
        .unwrap()
}

/// A tools/call reply with `key` set in its payload (the last text block's JSON object) and
/// the payload repeated as `structuredContent`; any other reply as it was.
fn with_key(bytes: &[u8], key: &str, value: Value) -> Vec<u8> {
    let Ok(mut env) = serde_json::from_slice::<Value>(bytes) else {
        return bytes.to_vec();
    };
    let Some(Value::String(text)) = env.pointer_mut("/result/content/0/text") else {
        return bytes.to_vec();
    };
    let Ok(Value::Object(mut payload)) = serde_json::from_str::<Value>(text) else {
        return bytes.to_vec();
    };
    payload.insert(key.to_string(), value);
    *text = Value::Object(payload.clone()).to_string();
    env["result"]["structuredContent"] = Value::Object(payload);
    env.to_string().into_bytes()
}

struct Chunks(std::vec::IntoIter<Result<Bytes, std::io::Error>>);

impl futures_core::Stream for Chunks {
    type Item = Result<Bytes, std::io::Error>;
    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        std::task::Poll::Ready(self.0.next())
    }
}
