//! A gateway's denial as mpt reads it, by its structure: a tool result with `_meta["mpt/denial"]`,
//! a -31020 error with `data.rule`, or an older gateway's -32020 with one.

use serde_json::Value;

/// The JSON-RPC code `mpt gateway` answers a refused method other than `tools/call` with
/// (outside the range JSON-RPC reserves); a refused `tools/call` is a tool result instead,
/// `isError: true` with `_meta["mpt/denial"]`, so the model reads it.
pub const GATEWAY_DENIED: i64 = -31020;

/// What older gateways answered a denial with. MCP 2026-07-28 made -32020 `HeaderMismatch`, so it
/// is read as a denial only when it carries `data.rule` (a gateway's). Read until mpt 0.3: remove
/// this and its branch in [`denial_of_error`] then.
pub const LEGACY_GATEWAY_DENIED: i64 = -32020;

/// Where a refused `tools/call`'s result names its rule.
pub const DENIAL_META: &str = "mpt/denial";

/// A call the primary's gateway refused by its policy: who, what, and the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub device: String,
    /// The tool, or the JSON-RPC method when the refusal was not of a tool call.
    pub what: String,
    pub rule: String,
}

impl Denial {
    /// From a denial's fields (`_meta["mpt/denial"]`, or a refusal's `error.data`): `None`
    /// without a `rule` (a string), which every gateway denial carries.
    pub(super) fn of(fields: &Value) -> Option<Denial> {
        let field = |k: &str| fields.get(k).and_then(Value::as_str).map(str::to_string);
        Some(Denial {
            rule: field("rule")?,
            device: field("device").unwrap_or_else(|| "?".into()),
            what: field("tool")
                .or_else(|| field("method"))
                .unwrap_or_else(|| "the call".into()),
        })
    }
}

/// A `tools/call` result the gateway made of a refusal: its `_meta["mpt/denial"]` fields.
pub fn denial_of_result(result: &Value) -> Option<&Value> {
    if result.get("isError").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    let fields = result.get("_meta")?.get(DENIAL_META)?;
    Denial::of(fields).map(|_| fields)
}

/// A JSON-RPC error the gateway made of a refusal (-31020, or an older gateway's -32020), known
/// by its structure: a `data.rule`. A -32020 without one is some server's HeaderMismatch.
pub fn denial_of_error(code: i64, data: Option<&Value>) -> Option<&Value> {
    let data = data?;
    let ours = code == GATEWAY_DENIED || code == LEGACY_GATEWAY_DENIED;
    (ours && Denial::of(data).is_some()).then_some(data)
}
