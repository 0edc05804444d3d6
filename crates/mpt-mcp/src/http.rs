//! The Streamable HTTP client for a MemPalace primary: Content-Length POSTs, bearer token, JSON or
//! SSE replies, `Mcp-Session-Id` and `MCP-Protocol-Version` echoed, each HTTP failure typed.

use std::path::PathBuf;
use std::sync::Mutex as StdMutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde_json::{Value, json};

use super::bearer::Bearer;
use super::liveness::Liveness;
use super::{
    CallError, Deadline, Handshake, HttpFailure, body, handshake, jsonrpc, sse, status_error,
};
use mpt_base::config::Secret;
use mpt_base::{log_debug, log_trace};

/// `route` beside the MCP endpoint `url` (`super::routes`), or why there is none.
fn sibling(url: &str, route: &str) -> Result<reqwest::Url, CallError> {
    super::routes::sibling(url, route).ok_or_else(|| {
        CallError::Protocol(format!(
            "{} is not a URL that {route} can be found beside",
            mpt_base::secrets::redact_url(url)
        ))
    })
}

const SESSION_HEADER: &str = "mcp-session-id";
const PROTOCOL_HEADER: &str = crate::era::PROTOCOL_HEADER;

#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The MCP endpoint, e.g. `https://palace.example:8765/mcp`.
    pub url: String,
    pub token: Option<Secret>,
    /// Extra trusted CA (PEM), for a self-signed primary.
    pub ca_file: Option<PathBuf>,
    pub timeout: Option<Duration>,
    pub init_timeout: Option<Duration>,
    /// Zero: no connect deadline of its own.
    pub connect_timeout: Duration,
}

impl HttpOptions {
    /// The configured primary: a call's default deadline is `MEMPALACE_MCP_TIMEOUT_MS`, the
    /// connect and the handshake the primary's own network deadlines (`MPT_PRIMARY_*`, not the
    /// local child's cold-open budget); callers override what differs.
    pub fn for_remote(
        remote: &mpt_base::config::Remote,
        config: &mpt_base::config::Config,
    ) -> HttpOptions {
        HttpOptions {
            url: remote.url.clone(),
            token: remote.token.as_ref().map(|(s, _)| s.clone()),
            ca_file: remote.ca_file.clone(),
            timeout: config.mcp.timeout,
            init_timeout: config.primary.handshake,
            connect_timeout: config.primary.connect,
        }
    }
}

/// The era requests go in: the handshake's (`MCP-Protocol-Version` once it is negotiated), or,
/// once the server refused that era, the modern one (the envelope and routing headers on each).
#[derive(Clone)]
enum Era {
    Handshake(Option<String>),
    Modern(&'static str),
}

pub struct HttpClient {
    /// Renewed after a probe found the primary silent: an idle connection may be one a black
    /// hole took, and would hang the next call that reuses it.
    http: StdMutex<reqwest::Client>,
    /// Probes beside a waiting call (`liveness`): a silent primary abandons it.
    liveness: Liveness,
    opts: HttpOptions,
    /// `opts.token`, renewed from its file after a 401 (`bearer.rs`).
    bearer: Bearer,
    session_id: StdMutex<Option<String>>,
    era: StdMutex<Era>,
    next_id: AtomicU64,
}

/// A reqwest client for `opts` (its CA, its connect deadline); `pooled: false` keeps no idle
/// connection, so each request opens its own.
fn build(opts: &HttpOptions, pooled: bool) -> Result<reqwest::Client, CallError> {
    let tls = |detail: String| CallError::Http {
        failure: HttpFailure::Tls,
        status: None,
        detail,
    };
    let mut builder = super::agent::builder(opts.ca_file.as_deref()).map_err(|e| tls(e.0))?;
    if !opts.connect_timeout.is_zero() {
        builder = builder.connect_timeout(opts.connect_timeout);
    }
    if !pooled {
        builder = builder.pool_max_idle_per_host(0);
    }
    builder.build().map_err(|e| CallError::Http {
        failure: HttpFailure::Tls,
        status: None,
        detail: format!("cannot set up the HTTP client: {e}"),
    })
}

impl HttpClient {
    pub fn new(opts: HttpOptions) -> Result<Self, CallError> {
        let http = build(&opts, true)?;
        let healthz = sibling(&opts.url, "/healthz")?;
        Ok(HttpClient {
            http: StdMutex::new(http),
            liveness: Liveness::new(build(&opts, false)?, healthz, opts.connect_timeout),
            bearer: Bearer::new(opts.token.clone()),
            opts,
            session_id: StdMutex::new(None),
            era: StdMutex::new(Era::Handshake(None)),
            next_id: AtomicU64::new(1),
        })
    }

    /// Reads the token again from `remote`'s token file after a 401 (none for a token given in
    /// the environment: a running process cannot see it change).
    pub fn renewing_from(mut self, remote: &mpt_base::config::Remote) -> HttpClient {
        self.bearer.renewing_from(remote);
        self
    }

    /// The client for the next request: a new one (an empty pool) once a probe failed.
    fn http(&self) -> reqwest::Client {
        let mut http = self.http.lock().unwrap();
        if self.liveness.take_stale_pool()
            && let Ok(fresh) = build(&self.opts, true)
        {
            log_debug!("the primary went silent: its idle connections are dropped");
            *http = fresh;
        }
        http.clone()
    }

    /// Whether the primary answers `/healthz` now (any status), within 2 s, on a connection of
    /// its own: what the edge asks while the primary is unhealthy.
    pub async fn probe(&self) -> bool {
        self.liveness.probe().await
    }

    pub fn url(&self) -> &str {
        &self.opts.url
    }

    /// Where [`HttpClient::get`] sends `route`, for messages (userinfo never shown).
    pub fn route_shown(&self, route: &str) -> String {
        sibling(&self.opts.url, route).map_or_else(
            |_| route.to_string(),
            |u| mpt_base::secrets::redact_url(u.as_str()),
        )
    }

    /// `initialize`, `notifications/initialized`, `tools/list` (all pages): `handshake::run`.
    pub async fn handshake(&self) -> Result<Handshake, CallError> {
        let deadline = self
            .opts
            .init_timeout
            .map_or(Deadline::Unbounded, Deadline::After);
        *self.session_id.lock().unwrap() = None;
        *self.era.lock().unwrap() = Era::Handshake(None);
        handshake::run(&HandshakePeer {
            client: self,
            deadline,
        })
        .await
    }

    /// One request; the result, or the typed failure.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        deadline: Deadline,
    ) -> Result<Value, CallError> {
        let id = json!(self.next_id.fetch_add(1, Ordering::SeqCst));
        let era = self.era.lock().unwrap().clone();
        let params = match era {
            Era::Modern(v) => Some(crate::era::with_envelope(params, v)),
            Era::Handshake(_) => params,
        };
        let msg = jsonrpc::request(&id, method, params);
        let started = Instant::now();
        let reply = self
            .post(&msg, Some(&id), deadline.resolve(self.opts.timeout), method)
            .await?;
        log_trace!(
            "{method} answered in {:.1} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
        match reply {
            Some(resp) => jsonrpc::into_result(resp),
            None => Err(CallError::Protocol(format!(
                "the primary accepted '{method}' (202) but sent no reply"
            ))),
        }
    }

    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), CallError> {
        let msg = jsonrpc::notification(method, params);
        self.post(&msg, None, self.opts.timeout, method)
            .await
            .map(|_| ())
    }

    /// A GET beside the MCP endpoint (`/healthz`, `/statusz`, `/sync/version_vector`, `/whoami`):
    /// the status and body text. `path` is the route as the server's root names it; it is
    /// resolved beside the MCP URL (`super::routes`), so a path prefix is kept.
    pub async fn get(&self, path: &str, deadline: Deadline) -> Result<(u16, String), CallError> {
        self.get_as(path, deadline, &[]).await
    }

    /// [`HttpClient::get`], but a 401 or a 429 is its typed error (the token refused and why,
    /// or past the rate and for how long), as for a POST.
    pub async fn get_refusing(
        &self,
        path: &str,
        deadline: Deadline,
    ) -> Result<(u16, String), CallError> {
        self.get_as(path, deadline, &[401, 429]).await
    }

    /// A GET beside the MCP endpoint whose reply is read as it comes (`/logstream/stream`): the
    /// response once its head arrived within `head_deadline`, whatever its status; `headers` are
    /// sent beside the bearer (`Last-Event-ID`).
    pub async fn open_stream(
        &self,
        path: &str,
        headers: &[(&str, String)],
        head_deadline: Duration,
    ) -> Result<reqwest::Response, CallError> {
        let url = sibling(&self.opts.url, path)?;
        let mut req = self.http().get(url).header(ACCEPT, "text/event-stream");
        if let Some(t) = &self.bearer.get() {
            req = req.bearer_auth(t.expose());
        }
        for (k, v) in headers {
            req = req.header(*k, v.as_str());
        }
        let fut = async {
            req.send()
                .await
                .map_err(|e| super::send_error::classify(&e, self.bearer.via_gateway()))
        };
        with_deadline(fut, Some(head_deadline), &format!("GET {path}")).await
    }

    async fn get_as(
        &self,
        path: &str,
        deadline: Deadline,
        errors: &[u16],
    ) -> Result<(u16, String), CallError> {
        let url = sibling(&self.opts.url, path)?;
        let mut req = self.http().get(url);
        if let Some(t) = &self.bearer.get() {
            req = req.bearer_auth(t.expose());
        }
        let fut = async {
            let resp = req
                .send()
                .await
                .map_err(|e| super::send_error::classify(&e, self.bearer.via_gateway()))?;
            let status = resp.status().as_u16();
            if errors.contains(&status) {
                let shown = mpt_base::secrets::redact_url(&self.opts.url);
                return Err(status_error::read(status, resp, &shown).await);
            }
            let text = body::read_capped(resp).await?;
            Ok((status, String::from_utf8_lossy(&text).into_owned()))
        };
        with_deadline(
            fut,
            deadline.resolve(self.opts.timeout),
            &format!("GET {path}"),
        )
        .await
    }

    /// [`HttpClient::post_once`], sent once more when a 401 made the token file yield another
    /// token ([`Bearer::renew`]).
    async fn post(
        &self,
        msg: &Value,
        expect: Option<&Value>,
        timeout: Option<Duration>,
        what: &str,
    ) -> Result<Option<Value>, CallError> {
        match self.post_once(msg, expect, timeout, what).await {
            Err(CallError::Http {
                failure: HttpFailure::Unauthorized(_),
                ..
            }) if self.bearer.renew() => self.post_once(msg, expect, timeout, what).await,
            r => r,
        }
    }

    async fn post_once(
        &self,
        msg: &Value,
        expect: Option<&Value>,
        timeout: Option<Duration>,
        what: &str,
    ) -> Result<Option<Value>, CallError> {
        let body = serde_json::to_vec(msg).map_err(|e| CallError::Protocol(e.to_string()))?;
        let mut req = self
            .http()
            .post(&self.opts.url)
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(t) = &self.bearer.get() {
            req = req.bearer_auth(t.expose());
        }
        if let Some(s) = self.session_id.lock().unwrap().clone() {
            req = req.header(SESSION_HEADER, s);
        }
        let era = self.era.lock().unwrap().clone();
        match era {
            Era::Handshake(None) => {}
            Era::Handshake(Some(p)) => req = req.header(PROTOCOL_HEADER, p),
            Era::Modern(v) => {
                req = req.header(PROTOCOL_HEADER, v);
                if let Some(method) = msg.get("method").and_then(Value::as_str) {
                    let params = msg.get("params").unwrap_or(&Value::Null);
                    for (name, value) in crate::era::routing_headers(method, params) {
                        req = req.header(name, value);
                    }
                }
            }
        }
        log_trace!(
            "POST {} {what}",
            mpt_base::secrets::redact_url(&self.opts.url)
        );
        let fut = async {
            let resp = req
                .send()
                .await
                .map_err(|e| super::send_error::classify(&e, self.bearer.via_gateway()))?;
            self.remember_session(resp.headers());
            let status = resp.status().as_u16();
            if status == 202 {
                return Ok(None);
            }
            if !(200..300).contains(&status) {
                return Err(status_error::read(
                    status,
                    resp,
                    &mpt_base::secrets::redact_url(&self.opts.url),
                )
                .await);
            }
            let is_sse = resp
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("text/event-stream"));
            if is_sse {
                read_sse(resp, expect).await.map(Some)
            } else {
                let bytes = body::read_capped(resp).await?;
                if bytes.is_empty() {
                    return Ok(None);
                }
                let v: Value = serde_json::from_slice(&bytes).map_err(|e| {
                    CallError::Protocol(format!("the primary's reply is not JSON: {e}"))
                })?;
                Ok(Some(pick_response(v, expect)?))
            }
        };
        let started = Instant::now();
        let label = format!("remote request '{what}'");
        tokio::select! {
            r = with_deadline(fut, timeout, &label) => r,
            // A black hole never answers and never closes: abandoned, it may have applied.
            () = self.liveness.silence(started) => Err(CallError::Http {
                failure: HttpFailure::Silent,
                status: None,
                detail: format!(
                    "the primary went silent while '{what}' waited: {} /healthz probes in a row gave no answer within {} s, so the wait was abandoned (the call may have applied)",
                    super::liveness::SILENT_AFTER,
                    super::liveness::PROBE_DEADLINE.as_secs()
                ),
            }),
        }
    }

    fn remember_session(&self, headers: &HeaderMap) {
        if let Some(s) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
            let mut cur = self.session_id.lock().unwrap();
            if cur.as_deref() != Some(s) {
                log_debug!("the primary issued an MCP session id");
                *cur = Some(s.to_string());
            }
        }
    }
}

async fn with_deadline<T>(
    fut: impl Future<Output = Result<T, CallError>>,
    timeout: Option<Duration>,
    what: &str,
) -> Result<T, CallError> {
    match timeout {
        None => fut.await,
        Some(d) => tokio::time::timeout(d, fut).await.unwrap_or_else(|_| {
            Err(CallError::Timeout {
                what: what.to_string(),
                ms: d.as_millis() as u64,
            })
        }),
    }
}

/// From a JSON reply (an object, or a batch), the response to our id.
fn pick_response(v: Value, expect: Option<&Value>) -> Result<Value, CallError> {
    match v {
        Value::Array(items) => items
            .into_iter()
            .find(|i| expect.is_none_or(|id| i.get("id") == Some(id)))
            .ok_or_else(|| CallError::Protocol("a batch reply without our id".into())),
        other => Ok(other),
    }
}

/// Reads SSE events until the response carrying our id; notifications before it are skipped.
/// The stream counts against the reply limit as a whole, so an endless `data:` line or an endless
/// run of events before our reply ends there (or at the deadline, whichever comes first).
async fn read_sse(mut resp: reqwest::Response, expect: Option<&Value>) -> Result<Value, CallError> {
    let mut parser = sse::Parser::default();
    let mut budget = body::Budget::default();
    let status = resp.status().as_u16();
    loop {
        let chunk = resp.chunk().await.map_err(|e| body::dropped(&e))?;
        if let Some(c) = &chunk {
            budget.take(c.len(), status)?;
        }
        let Some(chunk) = chunk else {
            return Err(CallError::Http {
                failure: HttpFailure::Dropped,
                status: Some(200),
                detail: "the primary closed its event stream before it sent the reply".into(),
            });
        };
        for ev in parser.push(&chunk) {
            let Ok(msg) = serde_json::from_str::<Value>(&ev.data) else {
                log_debug!("an SSE event that is not JSON; skipped");
                continue;
            };
            let is_ours = jsonrpc::classify(&msg) == jsonrpc::Kind::Response
                && expect.is_none_or(|id| msg.get("id") == Some(id));
            if is_ours {
                return Ok(msg);
            }
            log_trace!(
                "SSE message before the reply: {}",
                msg.get("method").and_then(Value::as_str).unwrap_or("?")
            );
        }
    }
}

/// The HTTP client as the handshake's peer, each request within the handshake's deadline. A
/// gateway's short 429 inside the handshake is waited out and that one request sent again (the
/// handshake is three requests: restarting it whole after each wait could never pass a bucket
/// of three); a long one is the caller's to judge.
struct HandshakePeer<'a> {
    client: &'a HttpClient,
    deadline: Deadline,
}

/// The longest `Retry-After` the handshake waits out itself, and how many times.
const HANDSHAKE_RATE_WAIT: Duration = Duration::from_secs(5);
const HANDSHAKE_RATE_TRIES: u32 = 8;

impl HandshakePeer<'_> {
    async fn patiently<T, F: Future<Output = Result<T, CallError>>>(
        &self,
        send: impl Fn() -> F,
    ) -> Result<T, CallError> {
        let mut tries = 0;
        loop {
            match send().await {
                Err(e) if tries < HANDSHAKE_RATE_TRIES => match e.rate_limited() {
                    Some(d) if d <= HANDSHAKE_RATE_WAIT => {
                        log_debug!("the primary's gateway asked to wait {d:?} (429) mid-handshake");
                        tries += 1;
                        tokio::time::sleep(d).await;
                    }
                    _ => return Err(e),
                },
                other => return other,
            }
        }
    }
}

impl handshake::Peer for HandshakePeer<'_> {
    async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, CallError> {
        self.patiently(|| self.client.request(method, params.clone(), self.deadline))
            .await
    }

    async fn notify(&self, method: &str) -> Result<(), CallError> {
        self.patiently(|| self.client.notify(method, None)).await
    }

    fn initialized(&self, init: &Value) {
        if let Some(v) = init.get("protocolVersion").and_then(Value::as_str) {
            *self.client.era.lock().unwrap() = Era::Handshake(Some(v.to_string()));
        }
    }

    fn go_modern(&self, version: &'static str) -> bool {
        log_debug!("the primary refused the initialize handshake: speaking MCP {version}");
        *self.client.era.lock().unwrap() = Era::Modern(version);
        true
    }
}
