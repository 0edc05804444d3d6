//! Small pieces the outbox shares: canonical JSON, op ids, lease tokens and this host's name;
//! the clock, RFC 3339 text, durations and ages are the crate's (`mpt_base::time`), re-exported.

use std::io::Read;

use serde_json::Value;
use sha2::{Digest, Sha256};

pub use mpt_base::hex::hex;
pub use mpt_base::time::{human_age, now_ms, parse_duration, rfc3339};

/// JSON with object keys sorted at every level and no whitespace: the same value always gives
/// the same bytes, whatever order its keys arrived in.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*k).clone()).to_string());
                out.push(':');
                write_canonical(&map[*k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// `op_id` = sha256 over the length-prefixed parts (MemPalace's own `len:part` join, so no
/// separator can be forged by a value): origin device, local_seq, tool, canonical payload.
pub fn op_id(device: &str, local_seq: i64, tool: &str, payload: &Value) -> String {
    let seq = local_seq.to_string();
    let canon = canonical_json(payload);
    let mut h = Sha256::new();
    for part in [device, seq.as_str(), tool, canon.as_str()] {
        h.update(format!("{}:", part.chars().count()).as_bytes());
        h.update(part.as_bytes());
    }
    hex(&h.finalize())
}

/// 128 random bits from the kernel, as hex; a claim's proof of ownership.
pub fn lease_token() -> String {
    let mut buf = [0u8; 16];
    let filled = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf));
    if filled.is_err() {
        // No /dev/urandom (a very bare chroot): time, pid and a counter still never repeat here.
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let seed = format!("{}:{}:{n}", now_ms(), std::process::id());
        buf.copy_from_slice(&Sha256::digest(seed.as_bytes())[..16]);
    }
    hex(&buf)
}

/// This machine's host name (`origin_host`), `unknown` when the system has none to give.
pub fn hostname() -> String {
    mpt_base::config::values::hostname().unwrap_or_else(|| "unknown".into())
}

/// An op id shortened for people: its first 12 hex digits.
pub fn short(op_id: &str) -> &str {
    &op_id[..op_id.len().min(12)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_ignores_key_order() {
        let a = json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "é"}});
        let b: Value =
            serde_json::from_str(r#"{"a":{"x":"é","y":[1,{"c":3,"d":2}]},"b":1}"#).unwrap();
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"x":"é","y":[1,{"c":3,"d":2}]},"b":1}"#
        );
    }

    #[test]
    fn op_id_is_stable_and_depends_on_every_part() {
        let p = json!({"subject": "a", "predicate": "p", "object": "b"});
        let id = op_id("lap", 7, "mempalace_kg_add", &p);
        assert_eq!(id.len(), 64);
        assert_eq!(id, op_id("lap", 7, "mempalace_kg_add", &p));
        assert_ne!(id, op_id("lap", 8, "mempalace_kg_add", &p));
        assert_ne!(id, op_id("lap2", 7, "mempalace_kg_add", &p));
        assert_ne!(id, op_id("lap", 7, "mempalace_kg_invalidate", &p));
        // The length prefix keeps parts from running into each other.
        assert_ne!(
            op_id("ab", 1, "c", &json!({})),
            op_id("a", 1, "bc", &json!({}))
        );
    }

    #[test]
    fn lease_tokens_differ() {
        assert_ne!(lease_token(), lease_token());
        assert_eq!(lease_token().len(), 32);
    }
}
