//! A modern request's envelope and HTTP routing headers checked as the MCP Python SDK 2.x checks
//! them (`mcp/shared/inbound.py`), in its order and with its codes, then mpt's own stricter rules.

use base64::Engine as _;
use serde_json::{Value, json};

use super::{
    CAPABILITIES_KEY, Envelope, HEADER_MISMATCH, INVALID_PARAMS, METHOD_HEADER, MODERN_VERSIONS,
    NAME_HEADER, PARAM_HEADER_PREFIX, PROTOCOL_HEADER, Rejection, UNSUPPORTED_VERSION, VERSION_KEY,
    name_key,
};

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
