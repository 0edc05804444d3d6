//! MCP's two eras as mpt serves them: the `initialize` handshake (up to 2025-11-25) and the
//! 2026-07-28 per-request envelope. Which era a request is, its envelope and headers checked, a result shaped.
//!
//! The rules are the MCP Python SDK 2.x's own (`mcp/shared/inbound.py`, `mcp/server/runner.py`),
//! so a request the SDK would refuse is refused here in the same words and codes.

use base64::Engine as _;
use serde_json::{Map, Value, json};

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
const RESERVED_PREFIX: &str = "io.modelcontextprotocol/";

/// An HTTP routing header disagrees with the body (400).
pub const HEADER_MISMATCH: i64 = -32020;
/// A version this server does not serve (400), with `data.supported`.
pub const UNSUPPORTED_VERSION: i64 = -32022;
const INVALID_PARAMS: i64 = -32602;

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
/// The methods whose modern results carry `ttlMs` and `cacheScope`.
const CACHEABLE: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// The methods whose body names a thing mirrored in `Mcp-Name`, and the params key it is in.
fn name_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
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
    fn new(code: i64, message: impl Into<String>) -> Rejection {
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

    /// The HTTP status a modern server answers it with (every ladder refusal is a 400).
    pub fn http_status(&self) -> u16 {
        400
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

/// The envelope checked where no headers travel (stdio): `_meta` with the version and the
/// capabilities (else -32602), the version a string (-32602) this side serves (else -32022).
pub fn envelope(params: Option<&Value>) -> Result<Envelope, Rejection> {
    let version = envelope_pair(params)?;
    supported(version)
}

/// The envelope and the routing headers of a modern HTTP request checked, in the SDK's order: a
/// routing header given twice, the envelope's pair, each header against the body (-32020), then
/// the version; then what the SDK lets pass and mpt does not (a header the body cannot confirm,
/// -32020). `headers` are the raw lines (name, value), names in any case.
pub fn check_http(
    method: &str,
    params: Option<&Value>,
    headers: &[(&str, &str)],
) -> Result<Envelope, Rejection> {
    let lower: Vec<(String, &str)> = headers
        .iter()
        .map(|(n, v)| (n.to_ascii_lowercase(), *v))
        .collect();
    let one = |name: &str| -> Result<Option<&str>, Rejection> {
        let mut found = lower.iter().filter(|(n, _)| n == name).map(|(_, v)| *v);
        let first = found.next();
        if found.next().is_some() {
            return Err(Rejection::new(
                HEADER_MISMATCH,
                format!("{name} header appears more than once"),
            ));
        }
        Ok(first)
    };
    let (version_h, method_h, name_h) = (
        one(PROTOCOL_HEADER)?,
        one(METHOD_HEADER)?,
        one(NAME_HEADER)?,
    );
    let version = envelope_pair(params)?;
    if version_h.is_none() || version.as_str() != version_h {
        return Err(Rejection::new(
            HEADER_MISMATCH,
            format!(
                "{PROTOCOL_HEADER} header does not match the request envelope's protocol version"
            ),
        ));
    }
    if method_h != Some(method) {
        return Err(Rejection::new(
            HEADER_MISMATCH,
            format!("{METHOD_HEADER} header does not match the request body's method"),
        ));
    }
    let key = name_key(method);
    let named = key
        .and_then(|k| params.and_then(|p| p.get(k)))
        .filter(|v| !v.is_null());
    if let (Some(key), Some(body)) = (key, named) {
        // A body value that is not a string, or a header missing or malformed, matches nothing.
        let header = name_h.and_then(decode_header_value);
        if header.is_none() || header.as_deref() != body.as_str() {
            return Err(Rejection::new(
                HEADER_MISMATCH,
                format!("{NAME_HEADER} header does not match the request body's '{key}' parameter"),
            ));
        }
    }
    let envelope = supported(version)?;
    // Then what the SDK lets pass: a name the body does not give, something a router might read
    // that the body does not say.
    if name_h.is_some() && named.is_none() {
        return Err(Rejection::new(
            HEADER_MISMATCH,
            format!("{NAME_HEADER} header on {method}, whose body names nothing"),
        ));
    }
    // No tool MemPalace serves declares an `x-mcp-header` argument, so no `Mcp-Param-*` header
    // can agree with a body: each one is a second reading of the call, refused.
    if let Some((name, _)) = lower
        .iter()
        .find(|(n, _)| n.starts_with(PARAM_HEADER_PREFIX))
    {
        return Err(Rejection::new(
            HEADER_MISMATCH,
            format!("{name} header names no argument the tool declares for a header"),
        ));
    }
    Ok(envelope)
}

/// Rung one: `_meta` an object with the version and the capabilities; the version's value.
fn envelope_pair(params: Option<&Value>) -> Result<&Value, Rejection> {
    let Some(meta) = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
    else {
        return Err(Rejection::new(
            INVALID_PARAMS,
            format!(
                "params._meta must be an object carrying the required '{VERSION_KEY}' and '{CAPABILITIES_KEY}' envelope keys"
            ),
        ));
    };
    let missing: Vec<&str> = [VERSION_KEY, CAPABILITIES_KEY]
        .into_iter()
        .filter(|k| !meta.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        return Err(Rejection::new(
            INVALID_PARAMS,
            format!(
                "params._meta is missing the required envelope key(s): {}",
                missing.join(", ")
            ),
        ));
    }
    Ok(&meta[VERSION_KEY])
}

/// The last rung: a string this side serves, else -32022 naming what it does.
fn supported(version: &Value) -> Result<Envelope, Rejection> {
    let Some(v) = version.as_str() else {
        return Err(Rejection::new(
            INVALID_PARAMS,
            "the protocol-version envelope value must be a string",
        ));
    };
    if MODERN_VERSIONS.contains(&v) {
        return Ok(Envelope {
            version: v.to_string(),
        });
    }
    Err(unsupported(v))
}

/// -32022 for `requested`: the versions served, in the spec's data shape.
pub fn unsupported(requested: &str) -> Rejection {
    Rejection {
        code: UNSUPPORTED_VERSION,
        message: "Unsupported protocol version".into(),
        data: Some(json!({"supported": MODERN_VERSIONS, "requested": requested})),
    }
}

/// A header value as the SDK encodes it: verbatim, or `=?base64?…?=` (canonical base64 of UTF-8)
/// for one that would not survive as a header. `None`: a malformed sentinel, which matches nothing.
pub fn decode_header_value(raw: &str) -> Option<String> {
    let Some(payload) = raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    else {
        return Some(raw.to_string());
    };
    let engine = base64::engine::general_purpose::STANDARD;
    let bytes = engine.decode(payload).ok()?;
    if engine.encode(&bytes) != payload {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The request as a handshake-era server reads it: the envelope's reserved keys taken out of
/// `_meta` (and `_meta` itself when nothing else was in it); everything else as sent.
pub fn to_handshake(params: &mut Value) {
    let Some(p) = params.as_object_mut() else {
        return;
    };
    let empty = match p.get_mut("_meta").and_then(Value::as_object_mut) {
        Some(meta) => {
            meta.retain(|k, _| !k.starts_with(RESERVED_PREFIX));
            meta.is_empty()
        }
        None => false,
    };
    if empty {
        p.remove("_meta");
    }
}

/// Who may keep a cacheable result: anyone (`Public`: the same for every caller) or only the
/// caller's own authorization (`Private`: a gateway's per-device view).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Public,
    Private,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::Public => "public",
            Scope::Private => "private",
        }
    }
}

/// How long a list stays fresh: the tools behind it change only when the server restarts.
pub const LIST_TTL_MS: u64 = 60_000;

/// A handshake-era result as a modern client reads it: `resultType` (a server of that era sends
/// none: complete), cache hints on a cacheable method's result (`scope`, [`LIST_TTL_MS`]) unless
/// it set its own, and the server named in `_meta` when known.
pub fn shape(method: &str, result: &mut Value, scope: Scope, server_info: Option<&Value>) {
    let Some(r) = result.as_object_mut() else {
        return;
    };
    if CACHEABLE.contains(&method) {
        r.entry("ttlMs").or_insert(json!(LIST_TTL_MS));
        r.entry("cacheScope").or_insert(json!(scope.as_str()));
    }
    r.entry("resultType").or_insert(json!("complete"));
    if let Some(info) = server_info {
        let meta = r
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(m) = meta.as_object_mut() {
            m.entry(SERVER_INFO_KEY).or_insert_with(|| info.clone());
        }
    }
}

/// `server/discover` answered from a handshake-era server's `initialize` result: the modern
/// versions served, its capabilities and instructions, shaped as every modern result is.
pub fn discover(init: &Value, scope: Scope) -> Value {
    let mut r = json!({
        "supportedVersions": MODERN_VERSIONS,
        "capabilities": init.get("capabilities").cloned().unwrap_or_else(|| json!({})),
    });
    if let Some(i) = init.get("instructions").filter(|i| i.is_string()) {
        r["instructions"] = i.clone();
    }
    shape("server/discover", &mut r, scope, init.get("serverInfo"));
    r
}

/// The modern version a server speaks when it refused the handshake era: its `initialize`
/// answered -32022 listing only modern versions, one of them ours. Anything else is no reason to
/// leave the handshake era (mpt's own client is legacy-first).
pub fn handshake_refused(code: i64, data: Option<&Value>) -> Option<&'static str> {
    if code != UNSUPPORTED_VERSION {
        return None;
    }
    let supported: Vec<&str> = data?
        .get("supported")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if supported.iter().any(|v| HANDSHAKE_VERSIONS.contains(v)) {
        return None;
    }
    MODERN_VERSIONS
        .iter()
        .rev()
        .find(|v| supported.contains(v))
        .copied()
}

/// `params` with mpt's own envelope in `_meta`: `version`, no client capabilities (mpt's client
/// serves nothing back), and who it is.
pub fn with_envelope(params: Option<Value>, version: &str) -> Value {
    let mut p = match params {
        Some(Value::Object(o)) => o,
        _ => Map::new(),
    };
    let meta = p
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(m) = meta.as_object_mut() {
        m.insert(VERSION_KEY.into(), json!(version));
        m.insert(CAPABILITIES_KEY.into(), json!({}));
        m.insert(
            CLIENT_INFO_KEY.into(),
            json!({"name": "mpt", "version": env!("CARGO_PKG_VERSION")}),
        );
    }
    Value::Object(p)
}

/// The routing headers of a modern HTTP request: `Mcp-Method`, and `Mcp-Name` where the method
/// names something (a value that would not survive as a header in the SDK's `=?base64?…?=`).
pub fn routing_headers(method: &str, params: &Value) -> Vec<(&'static str, String)> {
    let mut h = vec![(METHOD_HEADER, method.to_string())];
    if let Some(name) = name_key(method)
        .and_then(|k| params.get(k))
        .and_then(Value::as_str)
    {
        h.push((NAME_HEADER, encode_header_value(name)));
    }
    h
}

/// [`decode_header_value`]'s inverse: verbatim when visible ASCII without edge spaces (and not
/// itself sentinel-shaped), else the base64 sentinel.
pub fn encode_header_value(value: &str) -> String {
    let safe = value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && value.trim() == value
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if safe {
        return value.to_string();
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
    format!("=?base64?{b64}?=")
}

/// What the rest of mpt reads from a handshake (`protocolVersion`, `capabilities`, `serverInfo`,
/// `instructions`), made of a modern server's `server/discover` result.
pub fn init_of_discover(discover: &Value, version: &str) -> Value {
    let mut init = json!({
        "protocolVersion": version,
        "capabilities": discover.get("capabilities").cloned().unwrap_or_else(|| json!({})),
    });
    if let Some(info) = discover.pointer(&format!("/_meta/{}", SERVER_INFO_KEY.replace('/', "~1")))
    {
        init["serverInfo"] = info.clone();
    }
    if let Some(i) = discover.get("instructions") {
        init["instructions"] = i.clone();
    }
    init
}

/// -32601 for a method the modern era does not have (`ping`, `logging/setLevel`, …).
pub fn not_in_era(method: &str) -> Rejection {
    Rejection {
        code: -32601,
        message: "Method not found".into(),
        data: Some(json!(method)),
    }
}

#[cfg(test)]
mod tests;
