//! `GET /logstream/stream` through the gateway: a stream the device may not read refused, the
//! others joined to the one upstream stream, each frame held to its filters and `streams.read`.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Frame as BodyFrame;
use hyper::header::{self, HeaderValue};
use hyper::{HeaderMap, Response};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use crate::decide::ctx::Ctx;
use crate::decide::policy::{Policy, StreamFilter};
use crate::http::forward;
use crate::http::forward::Done;
use crate::http::relay::End;
use crate::http::reply::BoxError;
use crate::http::upstream::Upstream;
use crate::record::audit::Event;

use crate::http::fanout::{Frame, Hub, Refused};

/// The stream's filters (`http.py`'s, `list_events`' equality, `to_agent` also matching `*`),
/// applied by the gateway to the one upstream stream; `since_event_id` is each subscriber's own.
const FILTERS: &[&str] = &[
    "stream",
    "room",
    "topic",
    "type",
    "to_agent",
    "from_agent",
    "correlation_id",
    "status",
];
/// A replay reads the log this many events a page (`event_list`'s cap).
const PAGE: u64 = 500;

/// The filters of `query` in a canonical order (empty ones dropped), and the cursor.
fn parse(query: &str, headers: &HeaderMap) -> (Vec<(String, String)>, Option<String>) {
    let url = reqwest::Url::parse(&format!("http://gateway/?{query}")).ok();
    let pairs: Vec<(String, String)> = url
        .iter()
        .flat_map(|u| u.query_pairs().into_owned())
        .collect();
    let get = |k: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| mpt_palace::catalog::py_strip(v).to_string())
            .filter(|v| !v.is_empty())
    };
    let filters = FILTERS
        .iter()
        .filter_map(|k| get(k).map(|v| (k.to_string(), v)))
        .collect();
    let cursor = get("since_event_id").or_else(|| {
        headers
            .get("last-event-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    });
    (filters, cursor)
}

/// Whether the event in `frame` passes `filters` as `list_events` would pass it (a ping does).
fn passes(frame: &Frame, filters: &[(String, String)]) -> bool {
    frame.id.is_none()
        || filters.iter().all(|(k, v)| {
            let field = frame.field(k);
            field == Some(v.as_str()) || (k == "to_agent" && field == Some("*"))
        })
}

/// The filters checked by the log itself (`serve` checks them the same way before it streams):
/// the log's own error for a bad one.
async fn check_filters(upstream: &Upstream, filters: &[(String, String)]) -> Result<(), Value> {
    if filters.is_empty() {
        return Ok(());
    }
    let mut args: serde_json::Map<String, Value> =
        filters.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    args.insert("limit".into(), json!(1));
    let reply =
        crate::decide::lookup::lookup(upstream, "mempalace_event_list", Value::Object(args))
            .await
            .map_err(|_| json!({"error": "the upstream did not answer the filter check"}))?;
    match crate::decide::lookup::payload(&reply).and_then(|p| p.get("error").cloned()) {
        Some(e) => Err(json!({"error": e})),
        None => Ok(()),
    }
}

/// A stream the device may read: its filters, its cursor, what of it the device sees, and who
/// it is (checked again at each frame).
pub struct Join {
    filters: Vec<(String, String)>,
    cursor: Option<String>,
    filter: Option<StreamFilter>,
    device: String,
    token_id: String,
}

/// Whether a subscriber may still read what it joined with: its token still good and its
/// `streams.read` what it was. `None`: the stream ends at its next frame or ping.
pub trait Still: Send + Sync {
    fn stream_grant(&self, device: &str, token_id: &str) -> Option<Option<StreamFilter>>;
}

/// Whether `device` (by its token `token_id`) may open the stream `query` asks for; the rule
/// refusing it otherwise.
pub fn decide(
    policy: &Policy,
    device: &str,
    token_id: &str,
    query: &str,
    headers: &HeaderMap,
) -> Result<Join, String> {
    let (filters, cursor) = parse(query, headers);
    let streams = policy.stream_reads(device);
    let named = filters.iter().find(|(k, _)| k == "stream").map(|(_, v)| v);
    if let (Some(g), Some(s)) = (&streams, named)
        && !g.sees(s)
    {
        return Err(format!("streams.read:{s}"));
    }
    let filter = streams.map(|g| g.owned());
    Ok(Join {
        filters,
        cursor,
        filter,
        device: device.to_string(),
        token_id: token_id.to_string(),
    })
}

/// Joins the stream (`request` is its record, written); its events from the cursor first, each
/// frame sent while `still` says the device may read it.
pub async fn subscribe(
    cx: Ctx<'_>,
    join: Join,
    still: Arc<dyn Still>,
    request: Event,
    started: Instant,
) -> Done {
    let Join {
        filters,
        cursor,
        filter,
        device,
        token_id,
    } = join;
    let checked = match &cursor {
        // The replay reads the log with the filters: it checks them.
        Some(_) => Ok(()),
        None => check_filters(cx.upstream, &filters).await,
    };
    if let Err(answer) = checked {
        let out = serde_json::to_vec(&answer).unwrap_or_default();
        return forward::answered(
            request,
            400,
            started,
            "application/json; charset=utf-8",
            out,
        );
    }
    let (hub, live) = match cx.hubs.join(cx.upstream).await {
        Ok(h) => h,
        Err(Refused::Failed(f)) => return forward::failed(cx.upstream, request, started, f),
        Err(Refused::Answered(status, body)) => {
            return forward::answered(
                request,
                status,
                started,
                "application/json; charset=utf-8",
                body.to_vec(),
            );
        }
    };
    // Subscribed before the replay is read: an event landing meanwhile is in one or both.
    let replayed = match cursor {
        Some(c) => match replay(cx.upstream, &filters, &c, filter.as_ref()).await {
            Ok(r) => r,
            Err(answer) => {
                let out = serde_json::to_vec(&answer).unwrap_or_default();
                return forward::answered(
                    request,
                    400,
                    started,
                    "application/json; charset=utf-8",
                    out,
                );
            }
        },
        None => Vec::new(),
    };
    let (tx, rx) = mpsc::channel(64);
    let guard = Guard {
        still,
        device,
        token_id,
        joined: filter.clone(),
    };
    tokio::spawn(forward_frames(
        hub, live, replayed, filters, filter, guard, tx,
    ));
    let on_end = forward::hold_on_end(cx.held, request, 200, started);
    let body = Subscriber {
        rx,
        bytes: 0,
        on_end: Some(on_end),
    };
    let mut r = Response::new(body.boxed());
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    h.insert(header::VIA, HeaderValue::from_static("1.1 mpt-gateway"));
    Done::Streaming(r)
}

/// The events after `cursor` matching `filters` (as `serve` replays them, `event_list` page by
/// page), as frames; the log's own error (`{"error": …}`, a 400 at `serve`) for a bad cursor.
async fn replay(
    upstream: &Upstream,
    filters: &[(String, String)],
    cursor: &str,
    filter: Option<&StreamFilter>,
) -> Result<Vec<(String, Bytes)>, Value> {
    let mut out = Vec::new();
    let mut after = cursor.to_string();
    loop {
        let mut args: serde_json::Map<String, Value> =
            filters.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        args.insert("since_event_id".into(), json!(after));
        args.insert("limit".into(), json!(PAGE));
        args.insert("order".into(), json!("asc"));
        let reply =
            crate::decide::lookup::lookup(upstream, "mempalace_event_list", Value::Object(args))
                .await
                .map_err(|_| json!({"error": "the upstream did not answer the replay"}))?;
        let page = crate::decide::lookup::payload(&reply).unwrap_or(Value::Null);
        if let Some(e) = page.get("error") {
            return Err(json!({"error": e}));
        }
        let events = page
            .get("events")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for e in &events {
            let id = e
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let stream = e.get("stream").and_then(Value::as_str).unwrap_or("");
            if filter.is_none_or(|f| f.sees(stream)) {
                let frame = format!(
                    "id: {id}\nevent: logstream\ndata: {}\n\n",
                    String::from_utf8_lossy(&crate::decide::reads::pyjson::compact(e))
                );
                out.push((id.clone(), Bytes::from(frame)));
            }
            after = id;
        }
        if (events.len() as u64) < PAGE {
            return Ok(out);
        }
    }
}

/// A subscriber's check, made at each frame and ping: a revoked or expired token, a device gone
/// from the policy or a `streams.read` changed ends the stream (its client is judged anew when
/// it reconnects).
struct Guard {
    still: Arc<dyn Still>,
    device: String,
    token_id: String,
    joined: Option<StreamFilter>,
}

impl Guard {
    fn holds(&self) -> bool {
        self.still
            .stream_grant(&self.device, &self.token_id)
            .as_ref()
            == Some(&self.joined)
    }
}

/// One subscriber's frames: the replay, then the hub's live frames it may read, each event once.
async fn forward_frames(
    hub: Arc<Hub>,
    mut live: broadcast::Receiver<Frame>,
    replayed: Vec<(String, Bytes)>,
    filters: Vec<(String, String)>,
    filter: Option<StreamFilter>,
    guard: Guard,
    tx: mpsc::Sender<Bytes>,
) {
    let _held = hub;
    if !guard.holds() {
        return;
    }
    let mut seen = HashSet::new();
    for (id, frame) in replayed {
        seen.insert(id);
        if tx.send(frame).await.is_err() {
            return;
        }
    }
    loop {
        let frame = tokio::select! {
            _ = tx.closed() => return,
            got = live.recv() => match got {
                Ok(f) => f,
                // Fallen behind, or the upstream ended: the client reconnects with its cursor.
                Err(_) => return,
            },
        };
        if !guard.holds() {
            mpt_base::log_debug!(
                "{}'s stream ended: its token or its streams.read changed",
                guard.device
            );
            return;
        }
        if frame.id.as_ref().is_some_and(|id| seen.remove(id)) || !passes(&frame, &filters) {
            continue;
        }
        // An event of a stream the device may not read, or of none it can tell, is not sent.
        if let Some(f) = &filter
            && frame.id.is_some()
            && !frame.field("stream").is_some_and(|s| f.sees(s))
        {
            continue;
        }
        if tx.send(frame.bytes).await.is_err() {
            return;
        }
    }
}

type OnEnd = Box<dyn FnOnce(u64, End) + Send + Sync>;

/// A subscriber's body: its frames as they come, its record written once when it ends.
struct Subscriber {
    rx: mpsc::Receiver<Bytes>,
    bytes: u64,
    on_end: Option<OnEnd>,
}

impl Subscriber {
    fn finish(&mut self, how: End) {
        if let Some(f) = self.on_end.take() {
            f(self.bytes, how);
        }
    }
}

impl hyper::body::Body for Subscriber {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<BodyFrame<Bytes>, BoxError>>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(b)) => {
                self.bytes += b.len() as u64;
                Poll::Ready(Some(Ok(BodyFrame::data(b))))
            }
            Poll::Ready(None) => {
                self.finish(End::Failed);
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        self.finish(End::Dropped);
    }
}
