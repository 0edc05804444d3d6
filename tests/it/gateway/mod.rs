//! `mpt gateway` (issue 27): a real `mpt gateway serve` on loopback in front of a real
//! `mempalace serve`, each refusal, each role, tokens over their life, the audit chain, the modes.

mod arguments;
mod audit;
mod audit_integrity;
mod differential;
mod exhaustion;
mod fleet;
mod framing;
mod inbox;
mod join;
mod mine;
mod modes;
mod policy_check;
mod provenance;
mod reads;
mod refusals;
mod reload;
mod roles;
mod smuggling;
mod stream_grants;
mod streams;
mod tokens;
mod upstream_token;
mod wings;

use serde_json::Value;

use crate::support::gateway::{Reply, http};

/// A refusal the gateway made itself: its own Server header, and nothing it was sent echoed.
pub fn made_by_gateway(r: &Reply, sent: &[&str]) {
    assert_eq!(
        r.header("server"),
        Some("mpt-gateway"),
        "{}: {}",
        r.status,
        r.text()
    );
    for s in sent {
        assert!(
            !r.text().contains(s),
            "the reply echoes {s:?}: {}",
            r.text()
        );
    }
}

/// A refused `tools/call` in an HTTP 200: a tool result with `isError`, its text (what the
/// model reads) naming the tool, the device and the rule, its `_meta["mpt/denial"]` the fields.
pub fn denied(r: &Reply, device: &str, tool: &str, rule: &str) {
    assert_eq!(r.status, 200, "{}", r.text());
    made_by_gateway(r, &[]);
    let v = r.json();
    assert!(v.get("error").is_none(), "a tool result, not an error: {v}");
    let result = &v["result"];
    assert_eq!(result["isError"], true, "{v}");
    assert_eq!(
        result["_meta"]["mpt/denial"],
        serde_json::json!({"device": device, "tool": tool, "rule": rule}),
        "{v}"
    );
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    for said in [tool, device, rule] {
        assert!(text.contains(said), "the model reads {said:?}: {text}");
    }
}

/// A refused method other than `tools/call`: HTTP 200, JSON-RPC error -31020 with its data.
pub fn method_denied(r: &Reply, device: &str, method: &str, rule: &str) {
    assert_eq!(r.status, 200, "{}", r.text());
    made_by_gateway(r, &[]);
    let v = r.json();
    assert_eq!(v["error"]["code"], -31020, "{v}");
    assert_eq!(
        v["error"]["data"],
        serde_json::json!({"device": device, "method": method, "rule": rule}),
        "{v}"
    );
}

/// The primary's answer for one tool, straight from it (not through the gateway).
pub fn on_primary(p: &crate::support::Primary, tool: &str, args: Value) -> Value {
    p.call(tool, args).unwrap()
}

/// `GET /healthz` of whatever listens on `port`.
pub fn healthz(port: u16) -> Reply {
    http(port, "GET", "/healthz", &[("host", b"127.0.0.1")], b"")
}

/// The stream's text up to the frame carrying `id`.
pub async fn sse_until(body: &mut hyper::body::Incoming, id: &str) -> String {
    let mut seen = String::new();
    while !seen.contains(id) {
        let frame = tokio::time::timeout(
            std::time::Duration::from_secs(120),
            http_body_util::BodyExt::frame(body),
        )
        .await
        .expect("a frame within two minutes")
        .expect("the stream stays open")
        .unwrap();
        if let Some(d) = frame.data_ref() {
            seen.push_str(&String::from_utf8_lossy(d));
        }
    }
    seen
}
