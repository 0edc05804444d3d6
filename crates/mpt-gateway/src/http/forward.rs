//! A request the policy allowed, sent upstream and its answer relayed back as it streams, the
//! response's audit record written once the reply is sent (`held`); a client body read within limits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Body as _, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response};

use crate::http::relay::{End, Relay};
use crate::http::reply::{self, Body};
use crate::http::upstream::{Failed, Upstream, hop_by_hop};
use crate::record::audit::Event;
use crate::record::held::Held;

/// `serve`'s own request cap.
pub const MAX_BODY: usize = 16 << 20;
/// How long a client may take to send its body once its headers are in.
pub const BODY_READ: Duration = Duration::from_secs(30);
/// How long a relayed body may stay silent (`serve` pings an SSE stream every 15 s).
pub const IDLE: Duration = Duration::from_secs(60);

/// Why a client body was not read.
#[derive(Debug)]
pub enum Unread {
    TooLarge,
    TimedOut,
    Failed,
}

/// The whole client body, at most [`MAX_BODY`], within [`BODY_READ`]: a declared length past
/// the cap is refused before a byte of it is read.
pub async fn read_body(body: Incoming) -> Result<Bytes, Unread> {
    if body.size_hint().lower() > MAX_BODY as u64 {
        return Err(Unread::TooLarge);
    }
    match tokio::time::timeout(BODY_READ, Limited::new(body, MAX_BODY).collect()).await {
        Err(_) => Err(Unread::TimedOut),
        Ok(Ok(c)) => {
            mpt_base::hop!(GwBodyRead);
            Ok(c.to_bytes())
        }
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(Unread::TooLarge),
        Ok(Err(_)) => Err(Unread::Failed),
    }
}

/// The gateway's answer to a body it did not read.
pub fn unread_reply(u: Unread) -> Response<Body> {
    match u {
        Unread::TooLarge => reply::too_large(),
        Unread::TimedOut => reply::json(
            hyper::StatusCode::REQUEST_TIMEOUT,
            &serde_json::json!({"error": "body_timeout"}),
        ),
        Unread::Failed => reply::json(
            hyper::StatusCode::BAD_REQUEST,
            &serde_json::json!({"error": "body_unreadable"}),
        ),
    }
}

/// The request's response record: what upstream answered, how long it took, how much came back.
pub fn responded(
    mut e: Event,
    status: Option<u16>,
    started: Instant,
    bytes_out: u64,
    end: &'static str,
) -> Event {
    e.stage = Event::RESPONSE;
    e.upstream_status = status;
    e.latency_ms = Some(started.elapsed().as_millis() as u64);
    e.bytes_out = Some(bytes_out);
    e.end = Some(end);
    e
}

/// How an exchange ended (moved once, as `step::Step`).
#[allow(clippy::large_enum_variant)]
pub enum Done {
    /// The whole reply is here, and the response's record with it.
    Answered(Event, Response<Body>),
    /// The reply's body streams: its record is held when the body ends (`forward::hold_on_end`)
    /// and written once the connection has sent it.
    Streaming(Response<Body>),
}

/// Sends `up` and relays the answer; `request` is the request's audit record (already written).
pub async fn relay(
    upstream: &Upstream,
    held: &Arc<Held>,
    up: Request<Full<Bytes>>,
    request: Event,
    wait: Duration,
    started: Instant,
) -> Done {
    let resp = match upstream.send(up, wait).await {
        Ok(r) => r,
        Err(f) => return failed(upstream, request, started, f),
    };
    let status = resp.status().as_u16();
    let (mut parts, body) = resp.into_parts();
    let relay = Relay::new(body, IDLE, hold_on_end(held, request, status, started));
    relayed_headers(&mut parts.headers);
    Done::Streaming(Response::from_parts(parts, relay.map_err(|e| e).boxed()))
}

/// A whole reply the gateway made of the upstream's (`status`, `body`), with its record.
pub fn answered(
    request: Event,
    status: u16,
    started: Instant,
    content_type: &'static str,
    body: Vec<u8>,
) -> Done {
    let record = responded(
        request,
        Some(status),
        started,
        body.len() as u64,
        "complete",
    );
    let code = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::BAD_GATEWAY);
    Done::Answered(record, reply::bytes(code, content_type, body))
}

/// A relayed reply's headers: the upstream connection's own dropped, the gateway's `Via` added.
pub fn relayed_headers(headers: &mut hyper::HeaderMap) {
    let names: Vec<_> = headers.keys().filter(|n| hop_by_hop(n)).cloned().collect();
    for n in names {
        headers.remove(n);
    }
    headers.insert(header::VIA, HeaderValue::from_static("1.1 mpt-gateway"));
}

/// What a streamed reply does when it ends: its response record held (not written: the reply's
/// last bytes do not wait for the audit write).
pub fn hold_on_end(
    held: &Arc<Held>,
    request: Event,
    status: u16,
    started: Instant,
) -> Box<dyn FnOnce(u64, End) + Send + Sync> {
    let held = Arc::clone(held);
    Box::new(move |bytes: u64, end: End| {
        mpt_base::hop!(GwUpBodyEnd);
        let how = match end {
            End::Complete => "complete",
            End::Failed => "failed",
            End::Dropped => "dropped",
        };
        held.hold(responded(request, Some(status), started, bytes, how));
    })
}

/// Sends `up` and returns the whole answer (at most `limit` bytes): for replies the gateway
/// rewrites. The response record is the caller's to write.
pub async fn fetch(
    upstream: &Upstream,
    up: Request<Full<Bytes>>,
    wait: Duration,
    limit: usize,
) -> Result<(u16, Bytes), Failed> {
    let resp = upstream.send(up, wait).await?;
    let status = resp.status().as_u16();
    let body = tokio::time::timeout(IDLE, Limited::new(resp.into_body(), limit).collect())
        .await
        .map_err(|_| Failed::TimedOut)?
        .map_err(|e| Failed::Unreachable(e.to_string()))?;
    Ok((status, body.to_bytes()))
}

/// Upstream gave no answer: its record, and 502 (or 504) to the client.
pub fn failed(upstream: &Upstream, request: Event, started: Instant, f: Failed) -> Done {
    let (record, reply) = failure(upstream, request, started, f);
    Done::Answered(record, reply)
}

/// [`failed`]'s record and reply.
pub fn failure(
    upstream: &Upstream,
    request: Event,
    started: Instant,
    f: Failed,
) -> (Event, Response<Body>) {
    let (end, r) = match &f {
        Failed::TimedOut => ("timeout", reply::upstream_failed(true)),
        Failed::Busy => ("busy", reply::upstream_busy()),
        Failed::Unauthorized => ("upstream_auth", reply::upstream_auth()),
        Failed::Unreachable(why) => {
            mpt_base::log_warn!("the upstream {} did not answer: {why}", upstream.base);
            ("unreachable", reply::upstream_failed(false))
        }
    };
    (responded(request, None, started, 0, end), r)
}

/// The headers the gateway adds toward upstream: the client's address and the device, so
/// `serve`'s `/statusz` shows who is behind the gateway.
pub fn identity_headers(peer: std::net::IpAddr, device: &str) -> Vec<(&'static str, String)> {
    vec![
        ("x-forwarded-for", peer.to_string()),
        ("tailscale-user-login", format!("mpt:{device}")),
    ]
}
