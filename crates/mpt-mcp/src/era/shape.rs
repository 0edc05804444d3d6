//! Between the eras: a modern request made a handshake-era one for MemPalace, and a handshake-era
//! result made the modern one (`resultType`, cache hints, the server named); `server/discover`.

use serde_json::{Map, Value, json};

use super::{MODERN_VERSIONS, RESERVED_PREFIX, SERVER_INFO_KEY};

/// The methods whose modern results carry `ttlMs` and `cacheScope`.
const CACHEABLE: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

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
