//! MCP's two eras as mpt serves them: the `initialize` handshake (up to 2025-11-25) and the
//! 2026-07-28 per-request envelope. Which era a request is, its envelope and headers checked, a result shaped.
//!
//! The rules are the MCP Python SDK 2.x's own (`mcp/shared/inbound.py`, `mcp/server/runner.py`),
//! so a request the SDK would refuse is refused here in the same words and codes.

use serde_json::{Value, json};

mod check;
mod client;
mod shape;

pub use check::{check_http, decode_header_value, envelope, unsupported};
pub use client::{
    encode_header_value, handshake_refused, init_of_discover, routing_headers, with_envelope,
};
pub use shape::{LIST_TTL_MS, Scope, discover, shape, to_handshake};

/// The handshake-era versions, newest first: MemPalace 3.11's own (`schemas.py:1153`), the
/// versions an edge's `initialize` echoes and the one mpt's own clients offer first.
pub const HANDSHAKE_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The per-request-envelope versions the edge and the gateway serve.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// `params._meta` keys of the modern envelope (spec-reserved; a handshake-era request never has them).
pub const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
pub const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The result `_meta` key naming the server that produced it.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// The prefix every reserved key has: stripped before a request goes to a handshake-era server.
pub(crate) const RESERVED_PREFIX: &str = "io.modelcontextprotocol/";

/// An HTTP routing header disagrees with the body (400).
pub const HEADER_MISMATCH: i64 = -32020;
/// A version this server does not serve (400), with `data.supported`.
pub const UNSUPPORTED_VERSION: i64 = -32022;
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// The routing headers of a modern HTTP request (lowercase, as compared).
pub const PROTOCOL_HEADER: &str = "mcp-protocol-version";
pub const METHOD_HEADER: &str = "mcp-method";
pub const NAME_HEADER: &str = "mcp-name";
pub const PARAM_HEADER_PREFIX: &str = "mcp-param-";

/// The requests a modern client sends (2026-07-28's client methods): `initialize`, `ping`,
/// `logging/setLevel` and the resource subscriptions are the handshake era's only.
pub const MODERN_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "completion/complete",
    "subscriptions/listen",
];

/// The methods whose body names a thing mirrored in `Mcp-Name`, and the params key it is in.
pub(crate) fn name_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// The HTTP status the modern era gives a JSON-RPC error code over HTTP (the SDK's
/// `ERROR_CODE_HTTP_STATUS`); `None`: the reply's own (200).
pub fn http_status(code: i64) -> Option<u16> {
    match code {
        -32700 | -32600 | INVALID_PARAMS | HEADER_MISMATCH | -32021 | UNSUPPORTED_VERSION => {
            Some(400)
        }
        -32601 => Some(404),
        _ => None,
    }
}

/// A modern request refused: its JSON-RPC error, and the HTTP status it goes with.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl Rejection {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Rejection {
        Rejection {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The `error` object.
    pub fn error(&self) -> Value {
        let mut e = json!({"code": self.code, "message": self.message});
        if let Some(d) = &self.data {
            e["data"] = d.clone();
        }
        e
    }

    /// The whole JSON-RPC error response to `id`.
    pub fn response(&self, id: &Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "error": self.error()})
    }

    /// The HTTP status a modern server answers it with.
    pub fn http_status(&self) -> u16 {
        http_status(self.code).unwrap_or(400)
    }
}

/// A modern request whose envelope passed: the version it speaks.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub version: String,
}

/// Whether a request speaks the modern era: its `_meta` carries the version key (the SDK's own
/// signal, `runner.py:_has_modern_envelope`). `initialize` never does, whatever it carries.
pub fn is_modern(method: &str, params: Option<&Value>) -> bool {
    method != "initialize"
        && params
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key(VERSION_KEY))
}
/// Whether mpt answers `method` in the modern era: every 2026-07-28 client method but
/// `subscriptions/listen` (no part of mpt sends change notifications); else -32601.
pub fn served(method: &str) -> Result<(), Rejection> {
    if MODERN_METHODS.contains(&method) && method != "subscriptions/listen" {
        Ok(())
    } else {
        Err(not_in_era(method))
    }
}

/// -32601 for a method the modern era does not have (`ping`, `logging/setLevel`, …).
fn not_in_era(method: &str) -> Rejection {
    Rejection {
        code: -32601,
        message: "Method not found".into(),
        data: Some(json!(method)),
    }
}

#[cfg(test)]
mod tests;
