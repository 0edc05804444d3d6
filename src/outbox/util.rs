//! Small pieces the outbox shares: the clock (unix ms), RFC 3339 text, canonical JSON, op ids,
//! lease tokens, this host's name and durations written as `7d` / `90s`.

use std::io::Read;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{MptError, Result};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `2026-11-29T23:34:01Z` (UTC, second precision): the shape MemPalace's event log uses.
pub fn rfc3339(ms: i64) -> String {
    crate::mailbox::time::format_iso_utc(ms.div_euclid(1000))
}

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

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

/// This machine's host name (`origin_host`).
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates on success.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "unknown".into();
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// `90s`, `15m`, `12h`, `7d`, `2w` (a bare number is seconds).
pub fn parse_duration(s: &str) -> Result<Duration> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let bad = || {
        MptError::usage(format!("'{s}' is not a duration"))
            .with_hint("write it as a number and a unit: 90s, 15m, 12h, 7d, 2w")
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    let secs = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(bad()),
    };
    n.checked_mul(secs).map(Duration::from_secs).ok_or_else(bad)
}

/// `3m`, `2h`, `5d`: an age for people.
pub fn human_age(ms: i64) -> String {
    let s = (ms / 1000).max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc3339_matches_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_995_241_353), "2026-11-29T23:34:01Z");
    }

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
    fn durations_parse_and_refuse() {
        assert_eq!(parse_duration("7d").unwrap(), Duration::from_secs(604_800));
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("0s").unwrap(), Duration::ZERO);
        assert_eq!(parse_duration("15m").unwrap(), Duration::from_secs(900));
        for bad in ["", "d", "7 days", "-1s", "1.5h"] {
            assert_eq!(parse_duration(bad).unwrap_err().exit().code(), 2, "{bad}");
        }
    }

    #[test]
    fn lease_tokens_differ() {
        assert_ne!(lease_token(), lease_token());
        assert_eq!(lease_token().len(), 32);
    }
}
