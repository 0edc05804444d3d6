//! A 2026-07-28 request at the gateway: its routing headers held to its body before the policy
//! reads the body, its envelope taken off for `serve` (a handshake-era server), its reply shaped back.

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use mpt_mcp::era::{self, Rejection, Scope};
use serde_json::{Value, json};

use crate::http::reply::{self, Body};
use crate::record::audit::Event;

/// A modern request admitted: the method the client sent, which its reply answers (a discover
/// goes upstream as `initialize`).
pub struct Modern {
    pub method: String,
}

/// A reply made before any decision, and its record when it is a refusal.
pub type Answered = (Option<Event>, Response<Body>);

/// The request's era: `None` for the handshake era (left exactly as it came); a modern one's
/// headers checked against its body, its envelope stripped and its version header set to `serve`'s
/// era. `Err`: answered before any decision: the reply, with its record (`decision: invalid`, the
/// status) when it is a refusal.
pub fn admit(
    headers: &mut HeaderMap,
    parsed: &mut Value,
    base: &mut Event,
) -> Result<Option<Modern>, Box<Answered>> {
    let method = parsed
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let id = parsed.get("id").cloned().unwrap_or(Value::Null);
    let version_header = headers
        .get(era::PROTOCOL_HEADER)
        .and_then(|v| v.to_str().ok());
    let modern = era::is_modern(&method, parsed.get("params"))
        || version_header.is_some_and(|v| era::MODERN_VERSIONS.contains(&v));
    if !modern {
        return Ok(None);
    }
    if parsed.get("id").is_none() {
        // The modern HTTP wire has no client notifications (a client cancels by closing its
        // request): acknowledged and dropped as the SDK does, or told the version is not served.
        let r = match version_header {
            Some(v) if era::MODERN_VERSIONS.contains(&v) => {
                reply::bytes(StatusCode::ACCEPTED, "application/json", "")
            }
            other => {
                let r = era::unsupported(other.unwrap_or(""));
                reply::rpc_error(
                    StatusCode::BAD_REQUEST,
                    &Value::Null,
                    r.code,
                    &r.message,
                    r.data,
                )
            }
        };
        return Err(Box::new((None, r)));
    }
    let checked = routing_lines(headers)
        .and_then(|lines| era::check_http(&method, parsed.get("params"), &lines))
        .and_then(|_| era::served(&method));
    if let Err(r) = checked {
        let (record, reply) = refused(base, &id, &r);
        return Err(Box::new((Some(record), reply)));
    }
    if let Some(p) = parsed.get_mut("params") {
        era::to_handshake(p);
    }
    if method == "server/discover" {
        // `serve` has no discover: its `initialize` says what the answer is made of.
        parsed["method"] = json!("initialize");
        parsed["params"] = mpt_mcp::initialize_params();
    }
    headers.insert(
        era::PROTOCOL_HEADER,
        HeaderValue::from_static(era::HANDSHAKE_VERSIONS[0]),
    );
    Ok(Some(Modern { method }))
}

/// The lines of the headers the era compares (routing and `Mcp-Param-*`); a value that is not
/// visible ASCII cannot be compared with a body, so it is a mismatch.
fn routing_lines(headers: &HeaderMap) -> Result<Vec<(&str, &str)>, Rejection> {
    let mut out = Vec::new();
    for (name, value) in headers {
        let n = name.as_str();
        let routing = [era::PROTOCOL_HEADER, era::METHOD_HEADER, era::NAME_HEADER].contains(&n)
            || n.starts_with(era::PARAM_HEADER_PREFIX);
        if !routing {
            continue;
        }
        match value.to_str() {
            Ok(v) => out.push((n, v)),
            Err(_) => {
                return Err(Rejection {
                    code: era::HEADER_MISMATCH,
                    message: format!("{n} header is not visible ASCII (encode it as =?base64?…?=)"),
                    data: None,
                });
            }
        }
    }
    Ok(out)
}

/// A modern request refused before any decision: its record (`invalid`, the status) and reply.
fn refused(base: &mut Event, id: &Value, r: &Rejection) -> (Event, Response<Body>) {
    let status = r.http_status();
    base.allowed = false;
    base.status = Some(status);
    base.rule = format!(
        "mcp:{}",
        match r.code {
            era::HEADER_MISMATCH => "header_mismatch",
            era::UNSUPPORTED_VERSION => "unsupported_version",
            -32601 => "not_in_era",
            _ => "envelope",
        }
    );
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    (
        std::mem::take(base),
        reply::rpc_error(code, id, r.code, &r.message, r.data.clone()),
    )
}

impl Modern {
    /// A JSON reply in the modern shape: `result` given `resultType` and, on a list, cache hints
    /// (`private`: the gateway lists per device; a discover is the same for all, `public`); a
    /// `serve` initialize made the discover's answer; an error with the HTTP status the era gives
    /// its code. Anything else (the gateway's own 4xx/5xx bodies, not JSON-RPC) as it came.
    pub async fn shape(&self, r: Response<Body>) -> Response<Body> {
        let (mut parts, body) = r.into_parts();
        let Some(bytes) = whole(body).await else {
            return reply::upstream_failed(false);
        };
        let Ok(mut v) = serde_json::from_slice::<Value>(&bytes) else {
            return Response::from_parts(parts, reply::full(bytes));
        };
        if let Some(result) = v.get_mut("result") {
            if self.method == "server/discover" {
                *result = era::discover(result, Scope::Public);
            } else {
                era::shape(&self.method, result, Scope::Private, None);
            }
        } else if let Some(code) = v.pointer("/error/code").and_then(Value::as_i64) {
            if let Some(s) = era::http_status(code).and_then(|s| StatusCode::from_u16(s).ok()) {
                parts.status = s;
            }
        } else {
            return Response::from_parts(parts, reply::full(bytes));
        }
        let out = Bytes::from(serde_json::to_vec(&v).unwrap_or_default());
        parts.headers.remove(header::CONTENT_LENGTH);
        parts.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        Response::from_parts(parts, reply::full(out))
    }
}

/// A reply's whole body, at most what mpt's own client reads of one (`None`: it failed or was
/// larger).
async fn whole(mut body: Body) -> Option<Bytes> {
    let mut buf = Vec::new();
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.ok()?.into_data() {
            buf.extend_from_slice(&data);
            if buf.len() > mpt_mcp::REPLY_LIMIT {
                return None;
            }
        }
    }
    Some(Bytes::from(buf))
}
