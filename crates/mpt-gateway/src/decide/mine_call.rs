//! One mine at a time across the gateway: a mine holds the slot until its whole answer is in;
//! a second is 429 with Retry-After (transient: a feed's queued mine comes back), never a denial.

use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::json;

use crate::decide::mine_slot::MineHeld;
use crate::http::forward::Done;
use crate::http::forward::{self, MAX_BODY};
use crate::http::reply::{self, Body};
use crate::http::upstream::Upstream;
use crate::record::audit::Event;

/// What a second mine is told to wait (a feed's mine takes seconds to minutes).
const RETRY_AFTER_S: u64 = 30;

/// 429: another mine holds the slot.
pub fn busy() -> Response<Body> {
    let mut r = reply::json(
        StatusCode::TOO_MANY_REQUESTS,
        &json!({"error": "mine_in_progress"}),
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_S));
    r
}

/// Sends a mine and answers with its whole reply, holding the slot until it is in (a mine's
/// reply is a summary, small: read whole rather than streamed).
pub async fn forward(
    upstream: &Upstream,
    held: MineHeld<'_>,
    up: Request<Full<Bytes>>,
    request: Event,
    wait: Duration,
    started: Instant,
) -> Done {
    let answer = forward::fetch(upstream, up, wait, MAX_BODY).await;
    drop(held);
    match answer {
        Ok((status, bytes)) => {
            forward::answered(request, status, started, "application/json", bytes.to_vec())
        }
        Err(f) => forward::failed(upstream, request, started, f),
    }
}
