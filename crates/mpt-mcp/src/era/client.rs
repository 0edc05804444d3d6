//! The modern era as mpt's own client speaks it, only to a server that refuses the handshake:
//! when to, the envelope and routing headers it sends, and the handshake it makes of a discover.

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::{
    CAPABILITIES_KEY, CLIENT_INFO_KEY, HANDSHAKE_VERSIONS, METHOD_HEADER, MODERN_VERSIONS,
    NAME_HEADER, SERVER_INFO_KEY, UNSUPPORTED_VERSION, VERSION_KEY, name_key,
};

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
