//! The MCP handshake every transport runs, written once: `initialize`, then
//! `notifications/initialized`, then `tools/list` paged through `nextCursor`; with a server that
//! refuses that era (and a transport that can speak the next), `server/discover` instead.

use std::time::Instant;

use serde_json::{Value, json};

use super::{CallError, Handshake};

/// What a transport lends the handshake: one request (its reply's `result`), one notification.
pub(crate) trait Peer {
    async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, CallError>;
    async fn notify(&self, method: &str) -> Result<(), CallError>;
    /// Called with the `initialize` result before anything else is sent (HTTP records the
    /// negotiated protocol version for its headers).
    fn initialized(&self, _init: &Value) {}
    /// The server refused the handshake era and speaks `version` (2026-07-28): every later
    /// request goes in that era. `false`: this transport cannot (the handshake's error stands).
    fn go_modern(&self, _version: &'static str) -> bool {
        false
    }
}

/// The `initialize` parameters `mpt` sends.
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "mpt", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// Runs the handshake over `peer`: the server's `initialize` result and every tool of every page.
pub(crate) async fn run(peer: &impl Peer) -> Result<Handshake, CallError> {
    let started = Instant::now();
    let init = match peer.request("initialize", Some(initialize_params())).await {
        Ok(init) => {
            peer.initialized(&init);
            peer.notify("notifications/initialized").await?;
            init
        }
        Err(e) => {
            // Legacy-first: the modern era only with a server that says it speaks nothing else.
            let refused = match &e {
                CallError::Rpc { code, data, .. } => {
                    crate::era::handshake_refused(*code, data.as_ref())
                }
                _ => None,
            };
            match refused {
                Some(version) if peer.go_modern(version) => {
                    let discover = peer.request("server/discover", None).await?;
                    crate::era::init_of_discover(&discover, version)
                }
                _ => return Err(e),
            }
        }
    };
    let mut tools = Vec::new();
    let mut cursor: Option<Value> = None;
    loop {
        let params = cursor.take().map(|c| json!({"cursor": c}));
        let page = peer.request("tools/list", params).await?;
        if let Some(t) = page.get("tools").and_then(Value::as_array) {
            tools.extend(t.iter().cloned());
        }
        match page.get("nextCursor") {
            Some(c) if !c.is_null() => cursor = Some(c.clone()),
            _ => break,
        }
    }
    Ok(Handshake {
        init,
        tools,
        elapsed: started.elapsed(),
    })
}

/// The protocol version `mpt` offers in `initialize` (the newest 3.11 knows).
pub const PROTOCOL_VERSION: &str = crate::era::HANDSHAKE_VERSIONS[0];
