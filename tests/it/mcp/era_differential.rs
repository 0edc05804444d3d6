//! mpt's reading of a 2026-07-28 request beside the MCP Python SDK 2.x's own (`classify_inbound_request`,
//! `find_duplicated_routing_header`), over generated requests: every request the SDK refuses, mpt
//! refuses with the same code; what mpt lets through, the SDK does too. mpt refuses more in two
//! places only, each a header the body cannot confirm: any `Mcp-Param-*` (no MemPalace tool
//! declares one), and an `Mcp-Name` the body names nothing for.

use std::io::Write;
use std::process::{Command, Stdio};

use mpt_mcp::era::{CAPABILITIES_KEY, VERSION_KEY, check_http, envelope};
use serde_json::{Value, json};

use crate::support::eras::sdk_python;
use crate::support::rng::Rng;

/// The SDK's verdict per case (`{"ok", "code"}`), with and without headers (stdio has none).
const SDK: &str = r#"
import json, sys
from mcp.shared.inbound import (InboundLadderRejection, classify_inbound_request,
                                find_duplicated_routing_header)

def verdict(v):
    if isinstance(v, InboundLadderRejection):
        return {"ok": False, "code": v.code}
    return {"ok": True, "code": None}

out = []
for c in json.load(sys.stdin):
    lines = [(n.lower(), v) for n, v in c["lines"]]
    if find_duplicated_routing_header(lines) is not None:
        http = {"ok": False, "code": -32020}
    else:
        http = verdict(classify_inbound_request(c["body"], headers=dict(lines)))
    out.append({"http": http, "stdio": verdict(classify_inbound_request(c["body"]))})
json.dump(out, sys.stdout)
"#;

const METHODS: &[&str] = &[
    "tools/call",
    "tools/list",
    "prompts/get",
    "resources/read",
    "server/discover",
    "ping",
];
const NAMES: &[&str] = &[
    "mempalace_search",
    "mempalace_delete_drawer",
    "mempalace_search ",
    " mempalace_search",
    "Mempalace_search",
    "mempalace_se\u{430}rch",
    "",
    "=?base64?bWVtcGFsYWNlX3NlYXJjaA==?=",
];

/// A header value for `name` as a client might send it: verbatim, base64 (canonical or not), another.
fn name_header(rng: &mut Rng, name: &str) -> String {
    let b64 = |s: &str| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
    };
    match rng.below(6) {
        0 | 1 => name.to_string(),
        2 => format!("=?base64?{}?=", b64(name)),
        3 => format!("=?base64?{}?=", b64(name).trim_end_matches('=')),
        4 => "=?base64?!!?=".to_string(),
        _ => rng.pick(NAMES).to_string(),
    }
}

/// A request: its method, its params, its header lines.
type Case = (String, Value, Vec<(String, String)>);

fn case(rng: &mut Rng) -> Case {
    let method = rng.pick(METHODS).to_string();
    let version = match rng.below(8) {
        0 => json!("2025-11-25"),
        1 => json!("2099-01-01"),
        2 => json!(20260728),
        3 => Value::Null,
        _ => json!("2026-07-28"),
    };
    let mut meta = serde_json::Map::new();
    if rng.below(10) > 0 {
        meta.insert(VERSION_KEY.into(), version.clone());
    }
    if rng.below(10) > 0 {
        meta.insert(CAPABILITIES_KEY.into(), json!({}));
    }
    let mut params = json!({"_meta": meta});
    if rng.below(8) == 0 {
        params["_meta"] = json!("not an object");
    }
    let key = if method == "resources/read" {
        "uri"
    } else {
        "name"
    };
    let name = rng.pick(NAMES).to_string();
    match rng.below(6) {
        0 => {}
        1 => params[key] = json!(5),
        _ => params[key] = json!(name),
    }
    let mut lines = Vec::new();
    let header_version = match rng.below(6) {
        0 => None,
        1 => Some("2025-11-25".to_string()),
        _ => Some(version.as_str().unwrap_or("2026-07-28").to_string()),
    };
    if let Some(v) = header_version {
        lines.push(("MCP-Protocol-Version".to_string(), v));
    }
    match rng.below(6) {
        0 => {}
        1 => lines.push(("Mcp-Method".into(), rng.pick(METHODS).to_string())),
        _ => lines.push(("mcp-method".into(), method.clone())),
    }
    match rng.below(4) {
        0 => {}
        _ => lines.push(("Mcp-Name".into(), name_header(rng, &name))),
    }
    if !lines.is_empty() && rng.below(10) == 0 {
        let dup = lines[rng.below(lines.len() as u64) as usize].clone();
        lines.push(dup);
    }
    if rng.below(10) == 0 {
        lines.push(("Mcp-Param-Wing".into(), "wing_a".into()));
    }
    (method, params, lines)
}

fn sdk(cases: &[Value]) -> Vec<Value> {
    let mut child = Command::new(sdk_python())
        .args(["-c", SDK])
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(json!(cases).to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_modern_request_is_refused_wherever_the_sdk_refuses_it_with_the_sdks_code() {
    let mut rng = Rng::seeded(0x2026_0728);
    let cases: Vec<Case> = (0..3000).map(|_| case(&mut rng)).collect();
    let bodies: Vec<Value> = cases
        .iter()
        .map(|(m, p, lines)| {
            json!({"body": {"jsonrpc": "2.0", "id": 1, "method": m, "params": p}, "lines": lines})
        })
        .collect();
    let verdicts = sdk(&bodies);
    assert_eq!(verdicts.len(), cases.len());
    let mut wrong = Vec::new();
    let (mut agreed_ok, mut agreed_refused, mut stricter) = (0, 0, 0);
    for ((method, params, lines), v) in cases.iter().zip(&verdicts) {
        let raw: Vec<(&str, &str)> = lines
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let ours = check_http(method, Some(params), &raw);
        let theirs = &v["http"];
        let second_reading = lines.iter().any(|(n, _)| {
            let n = n.to_ascii_lowercase();
            n.starts_with("mcp-param-")
                || (n == "mcp-name"
                    && !["tools/call", "prompts/get", "resources/read"].contains(&method.as_str()))
                || (n == "mcp-name" && {
                    let key = if method == "resources/read" {
                        "uri"
                    } else {
                        "name"
                    };
                    params.get(key).is_none_or(Value::is_null)
                })
        });
        match (&ours, theirs["ok"].as_bool().unwrap()) {
            (Ok(_), true) => agreed_ok += 1,
            (Err(r), false) if json!(r.code) == theirs["code"] => agreed_refused += 1,
            (Err(r), true) if second_reading && r.code == -32020 => stricter += 1,
            _ => wrong.push(format!(
                "{method} {params} {lines:?}: ours {ours:?}, the SDK's {theirs}"
            )),
        }
        // Over stdio (no headers) the envelope alone: the same verdict and code.
        let stdio = envelope(Some(params));
        let same = match (&stdio, v["stdio"]["ok"].as_bool().unwrap()) {
            (Ok(_), true) => true,
            (Err(r), false) => json!(r.code) == v["stdio"]["code"],
            _ => false,
        };
        if !same {
            wrong.push(format!(
                "stdio {params}: ours {stdio:?}, the SDK's {}",
                v["stdio"]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "seed {}: {} of {} differ:\n{}",
        rng.seed(),
        wrong.len(),
        cases.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
    // The corpus reaches each outcome often enough to mean something.
    assert!(
        agreed_ok > 100 && agreed_refused > 1000 && stricter > 50,
        "{agreed_ok} {agreed_refused} {stricter}"
    );
}
