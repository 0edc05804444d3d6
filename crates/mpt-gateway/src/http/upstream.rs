//! The one upstream, `mempalace serve`: a new connection per request (it answers `Connection:
//! close`), its own bearer and Host, the headers it reads and nothing else of the client's.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::pin::Pin;
use std::sync::Mutex;

use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::http::gate::Gate;
use crate::http::reply::BoxError;
use mpt_base::config::Secret;
use mpt_base::error::{MptError, Result};

/// How long connecting (and a TLS handshake) may take.
pub(super) const CONNECT: Duration = Duration::from_secs(5);

/// The client headers `serve` reads; every other one (Origin, Authorization, forwarding and
/// `Tailscale-*` headers among them) stays at the gateway.
const FORWARDED: &[&str] = &[
    "accept",
    "content-type",
    "user-agent",
    "last-event-id",
    "mcp-protocol-version",
    "mcp-session-id",
];

/// Why a request did not get an answer from upstream.
#[derive(Debug)]
pub enum Failed {
    /// Connecting, the handshake or the exchange failed.
    Unreachable(String),
    /// No response head within the request's deadline.
    TimedOut,
    /// As many exchanges as `serve` is given are under way, and the queue for one is full or
    /// waited long enough: the client is told to come back (503, `Retry-After`).
    Busy,
    /// `serve` refused the gateway's own upstream token (401): the operator's to fix, never
    /// the device's (502 `upstream_auth`).
    Unauthorized,
}

pub struct Upstream {
    /// `scheme://host:port`, for people.
    pub base: String,
    host: String,
    port: u16,
    /// The host as an address, when it is one (no lookup per request).
    addr: Option<SocketAddr>,
    /// `host:port`: the Host `serve` pins on a loopback bind.
    authority: HeaderValue,
    bearer: Option<HeaderValue>,
    tls: Option<(TlsConnector, ServerName<'static>)>,
    pub loopback: bool,
    pub https: bool,
    gate: Gate,
}

impl Upstream {
    /// `http(s)://host:port` (a trailing `/` or `/mcp` allowed); the token is sent as its
    /// bearer on every request.
    pub fn new(url: &str, token: Option<&Secret>, ca_file: Option<&Path>) -> Result<Upstream> {
        let bad = |why: &str| {
            MptError::usage(format!(
                "--upstream '{}' {why}",
                mpt_base::secrets::redact_url(url)
            ))
            .with_hint("give the serve's base URL, e.g. --upstream http://127.0.0.1:8765")
        };
        let u = reqwest::Url::parse(url).map_err(|e| bad(&format!("is not a URL ({e})")))?;
        if !u.username().is_empty() || u.password().is_some() {
            return Err(bad(
                "carries a user or password: the upstream token comes from MEMPALACE_MCP_HTTP_TOKEN or MPT_GATEWAY_UPSTREAM_TOKEN_FILE",
            ));
        }
        let https = match u.scheme() {
            "http" => false,
            "https" => true,
            _ => return Err(bad("is neither http:// nor https://")),
        };
        if !matches!(u.path(), "" | "/" | "/mcp") || u.query().is_some() || u.fragment().is_some() {
            return Err(bad(
                "has a path: the gateway forwards each path to the same one upstream",
            ));
        }
        let host = u.host_str().ok_or_else(|| bad("has no host"))?.to_string();
        let port = u
            .port_or_known_default()
            .ok_or_else(|| bad("has no port"))?;
        let bare = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let loopback = mpt_mcp::agent::loopback_host(&host);
        let authority = HeaderValue::from_str(&format!("{host}:{port}"))
            .map_err(|_| bad("has a host no header can carry"))?;
        let bearer = token
            .map(|t| HeaderValue::from_str(&format!("Bearer {}", t.expose())))
            .transpose()
            .map_err(|_| MptError::usage("the upstream token is not printable ASCII"))?
            .map(|mut v| {
                v.set_sensitive(true);
                v
            });
        let tls = if https {
            let name = ServerName::try_from(bare.clone())
                .map_err(|_| bad("has a host TLS cannot name"))?;
            Some((crate::http::tls::connector(ca_file)?, name))
        } else {
            None
        };
        Ok(Upstream {
            base: format!("{}://{host}:{port}", u.scheme()),
            addr: bare
                .parse::<IpAddr>()
                .ok()
                .map(|ip| SocketAddr::new(ip, port)),
            host: bare,
            port,
            authority,
            bearer,
            tls,
            loopback,
            https,
            gate: Gate::default(),
        })
    }

    /// The request `serve` gets: method and path as the client sent them, the gateway's
    /// re-serialised body with its Content-Length, the upstream's Host and bearer.
    pub fn request(
        &self,
        method: Method,
        path_and_query: &str,
        client: &HeaderMap,
        extra: &[(&'static str, String)],
        body: Bytes,
    ) -> Request<Full<Bytes>> {
        let mut req = Request::new(Full::new(body.clone()));
        *req.method_mut() = method;
        *req.uri_mut() = path_and_query
            .parse()
            .unwrap_or_else(|_| "/".parse().unwrap());
        let h = req.headers_mut();
        for name in FORWARDED {
            if let Some(v) = client.get(*name) {
                h.insert(HeaderName::from_static(name), v.clone());
            }
        }
        for (name, value) in extra {
            if let Ok(v) = HeaderValue::from_str(value) {
                h.insert(HeaderName::from_static(name), v);
            }
        }
        h.insert(header::HOST, self.authority.clone());
        if let Some(b) = &self.bearer {
            h.insert(header::AUTHORIZATION, b.clone());
        }
        h.insert(header::CONNECTION, HeaderValue::from_static("close"));
        if !body.is_empty() {
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        }
        req
    }

    /// Sends `req` on a connection of its own; the response head within `wait` (its body is
    /// the caller's to stream).
    pub async fn send(
        &self,
        req: Request<Full<Bytes>>,
        wait: Duration,
    ) -> std::result::Result<Response<UpBody>, Failed> {
        let permit = self.gate.enter().await.map_err(|_| Failed::Busy)?;
        let unreachable = |e: &dyn std::fmt::Display| Failed::Unreachable(e.to_string());
        let connect = async {
            match self.addr {
                Some(addr) => TcpStream::connect(addr).await,
                None => TcpStream::connect((self.host.as_str(), self.port)).await,
            }
        };
        let tcp = tokio::time::timeout(CONNECT, connect)
            .await
            .map_err(|_| Failed::Unreachable("connect timed out".into()))?
            .map_err(|e| unreachable(&e))?;
        mpt_base::hop!(GwUpConnected);
        let _ = tcp.set_nodelay(true);
        let exchange = async {
            match &self.tls {
                Some((connector, name)) => {
                    let tls = tokio::time::timeout(CONNECT, connector.connect(name.clone(), tcp))
                        .await
                        .map_err(|_| Failed::Unreachable("TLS handshake timed out".into()))?
                        .map_err(|e| unreachable(&e))?;
                    exchange(TokioIo::new(Closed::later(tls)), req).await
                }
                None => exchange(TokioIo::new(Closed::later(tcp)), req).await,
            }
        };
        let resp = tokio::time::timeout(wait, exchange)
            .await
            .map_err(|_| Failed::TimedOut)??;
        if resp.status() == hyper::StatusCode::UNAUTHORIZED {
            mpt_base::log_warn!(
                "the upstream {} refused the gateway's upstream token (401): set MEMPALACE_MCP_HTTP_TOKEN (or MPT_GATEWAY_UPSTREAM_TOKEN_FILE) to the one `mempalace serve` was started with",
                self.base
            );
            return Err(Failed::Unauthorized);
        }
        Ok(resp.map(|body| UpBody {
            _permit: Some(permit),
            ..body
        }))
    }
}

/// The upstream connection's own work (writing the request, reading the reply), as a future.
type Conn = Pin<Box<dyn Future<Output = hyper::Result<()>> + Send>>;

async fn exchange<I>(
    io: I,
    req: Request<Full<Bytes>>,
) -> std::result::Result<Response<UpBody>, Failed>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| Failed::Unreachable(e.to_string()))?;
    // The connection is driven by the request's own task, not one spawned for it: no hop
    // between two tasks (and two threads) for the request, the head and each frame.
    let mut conn: Option<Conn> = Some(Box::pin(conn));
    let mut broke = None;
    let sending = sender.send_request(req);
    tokio::pin!(sending);
    let head = std::future::poll_fn(|cx| {
        if let Some(c) = conn.as_mut()
            && let Poll::Ready(done) = c.as_mut().poll(cx)
        {
            broke = done.err();
            conn = None;
        }
        sending.as_mut().poll(cx)
    })
    .await;
    mpt_base::hop!(GwUpHead);
    match head {
        Ok(resp) => Ok(resp.map(|body| UpBody {
            body,
            conn: Mutex::new(conn),
            _permit: None,
        })),
        Err(e) => Err(Failed::Unreachable(broke.unwrap_or(e).to_string())),
    }
}

/// An upstream reply's body, with the connection that carries it, polled together (the
/// connection lives until the body is read or dropped, then closes).
pub struct UpBody {
    body: Incoming,
    /// `Mutex` for `Sync` alone (a reply's body must be): only ever reached by `get_mut`.
    conn: Mutex<Option<Conn>>,
    /// Its place at the gate, given back when the body is read or dropped.
    _permit: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl hyper::body::Body for UpBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<std::result::Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        let conn = this.conn.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = conn.as_mut()
            && c.as_mut().poll(cx).is_ready()
        {
            // Its end (or failure) reaches the body: an error, or the body's end.
            *conn = None;
        }
        Pin::new(&mut this.body)
            .poll_frame(cx)
            .map_err(|e| Box::new(e) as BoxError)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The upstream connection, closed after the reply is on its way to the client rather than
/// before: hyper shuts a `Connection: close` exchange down (and drops it) in the same poll that
/// reads the reply's last bytes, which put the upstream's FIN (its shutdown, its close) ahead of
/// the client's reply on every request. The shutdown hyper asks for is done, then the socket
/// closed, on a task of its own, which runs once the request's task has written and yields.
struct Closed<S: AsyncWrite + Unpin + Send + 'static> {
    io: Option<S>,
    shut: bool,
}

impl<S: AsyncWrite + Unpin + Send + 'static> Closed<S> {
    fn later(io: S) -> Closed<S> {
        Closed {
            io: Some(io),
            shut: false,
        }
    }

    fn io(&mut self) -> &mut S {
        self.io
            .as_mut()
            .expect("the stream is only taken when it is dropped")
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send + 'static> AsyncRead for Closed<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(self.io()).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin + Send + 'static> AsyncWrite for Closed<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(self.io()).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(self.io()).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.as_ref().is_some_and(|io| io.is_write_vectored())
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(self.io()).poll_flush(cx)
    }

    /// Done when dropped (below): nothing is written after it here.
    fn poll_shutdown(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.shut = true;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin + Send + 'static> Drop for Closed<S> {
    fn drop(&mut self) {
        let (Some(mut io), Ok(rt)) = (self.io.take(), tokio::runtime::Handle::try_current()) else {
            return;
        };
        let shut = self.shut;
        rt.spawn(async move {
            if shut {
                let _ = tokio::time::timeout(CONNECT, io.shutdown()).await;
            }
            drop(io);
        });
    }
}

/// Headers of an upstream reply that belong to its connection, not to the reply.
pub fn hop_by_hop(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "connection"
            | "keep-alive"
            | "transfer-encoding"
            | "te"
            | "trailer"
            | "upgrade"
            | "proxy-authenticate"
            | "proxy-connection"
    )
}
