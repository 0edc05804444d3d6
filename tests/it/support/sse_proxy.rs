//! A proxy (axum) before a real primary for its live stream: relays POST /mcp and GET
//! /logstream/stream frame by frame (recording each connection's `Last-Event-ID` and the frame
//! ids it relayed), cuts the stream on demand and holds the reconnect; or refuses the route as
//! a blocking proxy or the gateway would, or relays the primary's own 404 for it (route absent).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use tokio::sync::{Notify, mpsc};

/// What the proxy does with GET /logstream/stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamRule {
    /// Relayed, frame by frame.
    Pass,
    /// Relayed to a path the primary does not serve: its own 404 page, as an older MemPalace.
    Absent,
    /// A 403 of the proxy's own (`Server: nginx`).
    Blocked,
    /// A 403 as the mpt gateway's denial (`Server: mpt-gateway`).
    Gateway,
}

#[derive(Default)]
struct Shared {
    /// One entry per stream connection: its `Last-Event-ID` and the ids relayed on it.
    conns: Vec<(Option<String>, Vec<String>)>,
    /// A connection opened while held waits for `release`.
    hold: bool,
    waiting: usize,
    /// Frames (and pings) are read from the primary but no longer relayed: a dead link.
    stalled: bool,
    /// The next connection's `Last-Event-ID` is replaced by an id the primary never issued.
    forge_cursor: bool,
}

#[derive(Clone)]
struct Ctx {
    upstream: String,
    rule: StreamRule,
    http: reqwest::Client,
    shared: Arc<Mutex<Shared>>,
    cut: Arc<Notify>,
    release: Arc<Notify>,
}

pub struct SseProxy {
    pub port: u16,
    ctx: Ctx,
    _rt: tokio::runtime::Runtime,
}

impl SseProxy {
    /// Before `base` (`http://127.0.0.1:PORT`, the primary's root).
    pub fn start(base: &str, rule: StreamRule) -> SseProxy {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let ctx = Ctx {
            upstream: base.to_string(),
            rule,
            http: reqwest::Client::new(),
            shared: Arc::default(),
            cut: Arc::new(Notify::new()),
            release: Arc::new(Notify::new()),
        };
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let app = Router::new()
            .route("/mcp", post(mcp))
            .route("/logstream/stream", get(stream))
            .with_state(ctx.clone());
        rt.spawn(async move { axum::serve(listener, app).await.unwrap() });
        SseProxy { port, ctx, _rt: rt }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Each stream connection so far: its `Last-Event-ID`, the frame ids relayed on it.
    pub fn connections(&self) -> Vec<(Option<String>, Vec<String>)> {
        self.ctx.shared.lock().unwrap().conns.clone()
    }

    /// Cuts the stream now; the next connection is held until [`SseProxy::release`].
    pub fn cut_and_hold(&self) {
        self.ctx.shared.lock().unwrap().hold = true;
        self.ctx.cut.notify_waiters();
    }

    /// How many connections wait, held.
    pub fn waiting(&self) -> usize {
        self.ctx.shared.lock().unwrap().waiting
    }

    /// Stops relaying anything on the open stream, keeping it open (silence, not a close).
    pub fn stall(&self) {
        self.ctx.shared.lock().unwrap().stalled = true;
    }

    /// [`SseProxy::cut_and_hold`], and the held reconnect's `Last-Event-ID` is replaced by an
    /// id the primary never issued, once.
    pub fn cut_and_hold_with_unknown_cursor(&self) {
        self.ctx.shared.lock().unwrap().forge_cursor = true;
        self.cut_and_hold();
    }

    pub fn release(&self) {
        self.ctx.shared.lock().unwrap().hold = false;
        self.ctx.release.notify_waiters();
    }
}

async fn mcp(State(ctx): State<Ctx>, headers: HeaderMap, body: Bytes) -> Response {
    let mut req = ctx.http.post(format!("{}/mcp", ctx.upstream)).body(body);
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
    match req.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            let ctype = r.headers().get("content-type").cloned();
            let bytes = r.bytes().await.unwrap_or_default();
            let mut b = Response::builder().status(status);
            if let Some(c) = ctype {
                b = b.header("content-type", c);
            }
            b.body(Body::from(bytes)).unwrap()
        }
        Err(e) => Response::builder()
            .status(502)
            .body(Body::from(format!("proxy: {e}")))
            .unwrap(),
    }
}

async fn stream(State(ctx): State<Ctx>, headers: HeaderMap) -> Response {
    match ctx.rule {
        StreamRule::Blocked => {
            return refuse(
                "nginx/1.25.3",
                "<html><center>403 Forbidden</center><hr><center>nginx</center></html>",
            );
        }
        StreamRule::Gateway => {
            return refuse(
                "mpt-gateway",
                "{\"error\":\"the policy denies GET /logstream/stream\"}",
            );
        }
        StreamRule::Absent | StreamRule::Pass => {}
    }
    let mut last_id = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let path = if ctx.rule == StreamRule::Absent {
        "/logstream/no-such-route"
    } else {
        "/logstream/stream"
    };
    // Held: wait (counted) until released.
    loop {
        let released = ctx.release.notified();
        {
            let mut s = ctx.shared.lock().unwrap();
            if !s.hold {
                break;
            }
            s.waiting += 1;
        }
        released.await;
        ctx.shared.lock().unwrap().waiting -= 1;
    }
    {
        let mut s = ctx.shared.lock().unwrap();
        s.stalled = false;
        if std::mem::take(&mut s.forge_cursor) && last_id.is_some() {
            last_id = Some("evt_20000101T000000_000000000000".into());
        }
    }
    let mut req = ctx.http.get(format!("{}{path}", ctx.upstream));
    for h in ["authorization", "accept"] {
        if let Some(v) = headers.get(h) {
            req = req.header(h, v.clone());
        }
    }
    if let Some(id) = &last_id {
        req = req.header("last-event-id", id.as_str());
    }
    let mut resp = match req.send().await {
        Ok(r) => r,
        Err(e) => {
            return Response::builder()
                .status(502)
                .body(Body::from(format!("proxy: {e}")))
                .unwrap();
        }
    };
    let status = resp.status().as_u16();
    let mut b = Response::builder().status(status);
    for h in ["content-type", "server", "cache-control"] {
        if let Some(v) = resp.headers().get(h) {
            b = b.header(h, v.clone());
        }
    }
    let conn = {
        let mut s = ctx.shared.lock().unwrap();
        s.conns.push((last_id, Vec::new()));
        s.conns.len() - 1
    };
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    let (shared, cut) = (ctx.shared.clone(), ctx.cut.clone());
    tokio::spawn(async move {
        let mut parser = mpt_mcp::sse::Parser::default();
        loop {
            let cutting = cut.notified();
            tokio::select! {
                () = cutting => {
                    let _ = tx.send(Err(std::io::Error::other("proxy cut the stream"))).await;
                    return;
                }
                chunk = resp.chunk() => match chunk {
                    Ok(Some(_)) if shared.lock().unwrap().stalled => {}
                    Ok(Some(bytes)) => {
                        for ev in parser.push(&bytes) {
                            if let Some(id) = ev.id {
                                shared.lock().unwrap().conns[conn].1.push(id);
                            }
                        }
                        if tx.send(Ok(bytes)).await.is_err() {
                            return;
                        }
                    }
                    _ => return,
                },
            }
        }
    });
    b.body(Body::from_stream(Rx(rx))).unwrap()
}

fn refuse(server: &str, body: &'static str) -> Response {
    Response::builder()
        .status(403)
        .header("server", server)
        .header("content-type", "text/html")
        .body(Body::from(body))
        .unwrap()
}

struct Rx(mpsc::Receiver<Result<Bytes, std::io::Error>>);

impl futures_core::Stream for Rx {
    type Item = Result<Bytes, std::io::Error>;
    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        self.0.poll_recv(cx)
    }
}

/// How long a test waits for the watch to see something (a loaded machine is slow).
pub const PATIENCE: Duration = Duration::from_secs(60);
