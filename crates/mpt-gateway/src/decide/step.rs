//! What a request's stages decide, as values: the handler (`handler.rs`) is the one place that
//! writes their audit records, the request's before anything is forwarded and the response's after.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response};

use crate::decide::mine_slot::MineHeld;
use crate::decide::policy::Policy;
use crate::http::reply::Body;
use crate::record::audit::Event;

/// What the stages decided about one request. Made and moved once a request: its variants'
/// sizes are left unboxed (an allocation would buy nothing).
#[allow(clippy::large_enum_variant)]
pub enum Step<'a> {
    /// Answered by the gateway itself, with nothing to record: a health check, a bad header, a
    /// body not read, a message that is not JSON-RPC.
    Reply(Response<Body>),
    /// Decided without the upstream (a refusal, `/whoami`) or failed before it answered: this
    /// record, then this reply.
    Recorded(Event, Response<Body>),
    /// Allowed: `record` written first (made durable when `durable`; a durable one that cannot
    /// be written stops the request with 503), then `plan` carried out.
    Forward {
        record: Event,
        durable: bool,
        plan: Plan<'a>,
    },
}

/// How an allowed request goes upstream.
pub enum Plan<'a> {
    /// Sent and its answer relayed as it streams.
    Relay {
        up: Request<Full<Bytes>>,
        wait: Duration,
    },
    /// `tools/list`, filtered to the tools the device may call.
    ToolsList {
        up: Request<Full<Bytes>>,
        policy: Arc<Policy>,
        device: String,
        id: serde_json::Value,
    },
    /// A mine, holding the one slot until its whole answer is in.
    Mine {
        held: MineHeld<'a>,
        up: Request<Full<Bytes>>,
        wait: Duration,
    },
    /// A read held to the device's read grants (`reads/`).
    Read(crate::decide::reads::Read),
    /// A non-admin's version vector, trimmed (`vector.rs`).
    Vector { up: Request<Full<Bytes>> },
    /// The log stream, joined (`sse.rs`).
    Stream(crate::decide::sse::Join),
    /// A 2026-07-28 request's plan, its reply shaped for that era once it is in (`era.rs`).
    Modern {
        plan: Box<Plan<'a>>,
        modern: crate::decide::era::Modern,
    },
}
