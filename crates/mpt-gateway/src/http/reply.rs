//! The replies the gateway makes itself, each with `Server: mpt-gateway`: its refusals (401,
//! 403, 429, 413, 400, 405, 503, 502), the denials (a tool result with `isError`, or -31020),
//! `/healthz` and `/whoami`.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

/// The body every reply carries: the gateway's own bytes, or an upstream's streamed through.
pub type Body = http_body_util::combinators::BoxBody<Bytes, BoxError>;
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What the gateway's own replies say they come from.
pub const SERVER: &str = mpt_mcp::agent::GATEWAY_SERVER;

/// The JSON-RPC error code of a method other than `tools/call` the policy refuses (one place:
/// the readers' `mcp::GATEWAY_DENIED`).
pub const DENIED: i64 = mpt_mcp::GATEWAY_DENIED;

/// Why a token was refused (the whole 401 body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unauthorized {
    Malformed,
    UnknownToken,
    Expired,
    Revoked,
}

impl Unauthorized {
    pub fn as_str(self) -> &'static str {
        match self {
            Unauthorized::Malformed => "malformed",
            Unauthorized::UnknownToken => "unknown_token",
            Unauthorized::Expired => "expired",
            Unauthorized::Revoked => "revoked",
        }
    }
}

pub fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).map_err(|e| match e {}).boxed()
}

/// A reply of ours: `status`, the content type, the body.
pub fn bytes(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Body> {
    let mut r = Response::new(full(body));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(header::SERVER, HeaderValue::from_static(SERVER));
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

pub fn json(status: StatusCode, v: &Value) -> Response<Body> {
    bytes(
        status,
        "application/json",
        serde_json::to_vec(v).unwrap_or_default(),
    )
}

/// 401 with `WWW-Authenticate: Bearer error="invalid_token"`; the body names the reason and
/// echoes nothing the client sent.
pub fn unauthorized(why: Unauthorized) -> Response<Body> {
    let mut r = json(StatusCode::UNAUTHORIZED, &json!({"error": why.as_str()}));
    r.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer error=\"invalid_token\""),
    );
    r
}

/// A request whose headers the gateway refuses (duplicated or non-ASCII Host or Origin).
pub fn bad_header(name: &'static str) -> Response<Body> {
    json(
        StatusCode::BAD_REQUEST,
        &json!({"error": "bad_header", "header": name}),
    )
}

/// 403 for a route the device's role does not open.
pub fn route_denied(device: &str, route: &str, rule: &str) -> Response<Body> {
    json(
        StatusCode::FORBIDDEN,
        &json!({"error": "denied", "device": device, "route": route, "rule": rule}),
    )
}

/// 429 with the seconds to wait.
pub fn rate_limited(retry_after_s: u64) -> Response<Body> {
    let mut r = json(
        StatusCode::TOO_MANY_REQUESTS,
        &json!({"error": "rate_limited"}),
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_s));
    r
}

/// 503: a write whose audit record could not be written is not forwarded (Vault's rule).
pub fn audit_unavailable() -> Response<Body> {
    let mut r = json(
        StatusCode::SERVICE_UNAVAILABLE,
        &json!({"error": "audit_unavailable"}),
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    r
}

/// 502 or 504: the upstream could not be reached, or did not answer in time.
pub fn upstream_failed(timed_out: bool) -> Response<Body> {
    let (status, what) = if timed_out {
        (StatusCode::GATEWAY_TIMEOUT, "upstream_timeout")
    } else {
        (StatusCode::BAD_GATEWAY, "upstream_unavailable")
    };
    json(status, &json!({"error": what}))
}

/// `serve` refused the gateway's own upstream token: a server-side fault, not the device's.
pub fn upstream_auth() -> Response<Body> {
    json(StatusCode::BAD_GATEWAY, &json!({"error": "upstream_auth"}))
}

/// A connection closed by the budget of unproven ones before its head was whole.
pub fn connections_busy() -> Response<Body> {
    let mut r = json(
        StatusCode::SERVICE_UNAVAILABLE,
        &json!({"error": "connections_busy"}),
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// Every exchange with the upstream is taken and the queue is full: come back in a second.
pub fn upstream_busy() -> Response<Body> {
    let mut r = json(
        StatusCode::SERVICE_UNAVAILABLE,
        &json!({"error": "upstream_busy"}),
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

pub fn not_allowed() -> Response<Body> {
    let mut r = json(
        StatusCode::METHOD_NOT_ALLOWED,
        &json!({"error": "method_not_allowed"}),
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, POST"));
    r
}

/// `GET /mcp`: `serve` offers no server-initiated SSE stream there, and the MCP transport's
/// answer for that is 405 (a client then carries on with POSTs alone).
pub fn no_stream() -> Response<Body> {
    let mut r = json(
        StatusCode::METHOD_NOT_ALLOWED,
        &json!({"error": "method_not_allowed"}),
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}

/// A JSON-RPC error as `serve` sends one (HTTP 200 unless `status` says otherwise).
pub fn rpc_error(
    status: StatusCode,
    id: &Value,
    code: i64,
    message: &str,
    data: Option<Value>,
) -> Response<Body> {
    let mut err = json!({"code": code, "message": message});
    if let Some(d) = data {
        err["data"] = d;
    }
    json(status, &json!({"jsonrpc": "2.0", "id": id, "error": err}))
}

/// A request the policy refuses, HTTP 200 (a 403 would stop a device's whole flush). A
/// `tools/call` (`tool` given) is answered as a tool result with `isError: true`, whose text the
/// model reads (what, for whom, the rule, and `instead`: what the device may do) and whose
/// `_meta["mpt/denial"]` programs read; any other method is a JSON-RPC error -31020 with
/// `data: {rule, device, method}`.
pub fn rpc_denied(
    id: &Value,
    device: &str,
    tool: Option<&str>,
    method: &str,
    rule: &str,
    instead: &str,
) -> Response<Body> {
    match tool {
        Some(t) => {
            let result = denied_tool_result(device, t, rule, instead);
            json(
                StatusCode::OK,
                &json!({"jsonrpc": "2.0", "id": id, "result": result}),
            )
        }
        None => rpc_error(
            StatusCode::OK,
            id,
            DENIED,
            &format!("mpt gateway refused {method} for device {device} (rule {rule}): {instead}"),
            Some(json!({"rule": rule, "device": device, "method": method})),
        ),
    }
}

/// A refused `tools/call`'s result: a tool error the model reads (what it may do instead), the
/// rule in `_meta` for programs. An edge that judged the call ahead answers with the same.
pub fn denied_tool_result(device: &str, tool: &str, rule: &str, instead: &str) -> Value {
    let text = format!("mpt gateway refused {tool} for device {device} (rule {rule}): {instead}.");
    json!({
        "content": [{"type": "text", "text": text}],
        "isError": true,
        "_meta": {mpt_mcp::DENIAL_META: {"rule": rule, "device": device, "tool": tool}},
    })
}

/// `serve`'s own 413 shape, for a body past the 16 MiB cap.
pub fn too_large() -> Response<Body> {
    rpc_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        &Value::Null,
        -32600,
        "Request too large",
        None,
    )
}
