//! What mpt must never print or store: the token values it has read (registered as they are
//! loaded), scrubbed from text and JSON at every boundary; and the userinfo of any URL it shows.

use std::borrow::Cow;
use std::sync::RwLock;

use serde_json::Value;

/// Variables that carry mpt's own secrets, removed from the environment of every MemPalace
/// child mpt starts (`mempalace-mcp` reads none of them; the edge talks to the primary itself).
pub const WITHHELD_FROM_CHILDREN: &[&str] = &["MEMPALACE_REMOTE_TOKEN", "MPT_TOKEN_FILE"];

/// The type prefix of a token `mpt gateway` issues (secret scanners key on it): a device holding
/// one reaches the primary through a gateway.
pub const GATEWAY_TOKEN_PREFIX: &str = "mptg_";

/// The type prefix of a join code `mpt gateway invite` makes (exchanged once for a token).
pub const JOIN_CODE_PREFIX: &str = "mptj_";

/// What a scrubbed secret is replaced with.
pub const REDACTED: &str = "<redacted>";

/// Every secret value this process has read (the remote token, from the environment or a file).
static KNOWN: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Remembers `value` as a secret: from now on it is scrubbed from everything mpt prints or
/// stores. Empty values are ignored.
pub fn register(value: &str) {
    let value = value.trim();
    if value.is_empty() {
        return;
    }
    let mut known = KNOWN.write().unwrap_or_else(|e| e.into_inner());
    if !known.iter().any(|k| k == value) {
        known.push(value.to_string());
        // Longest first, so a secret that contains another is replaced whole.
        known.sort_by_key(|k| std::cmp::Reverse(k.len()));
    }
}

fn known() -> Vec<String> {
    KNOWN.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// `text` with every known secret replaced by `<redacted>`.
pub fn scrub(text: &str) -> Cow<'_, str> {
    let known = known();
    if known.is_empty() || !known.iter().any(|k| text.contains(k.as_str())) {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for k in &known {
        if out.contains(k.as_str()) {
            out = out.replace(k.as_str(), REDACTED);
        }
    }
    Cow::Owned(out)
}

/// `text` scrubbed, owned.
pub fn scrubbed(text: impl AsRef<str>) -> String {
    scrub(text.as_ref()).into_owned()
}

/// Whether `text` holds a known secret.
pub fn contains_known(text: &str) -> bool {
    matches!(scrub(text), Cow::Owned(_))
}

/// Whether any string (or object key) in `v` holds a known secret.
pub fn json_contains_known(v: &Value) -> bool {
    match v {
        Value::String(s) => contains_known(s),
        Value::Array(items) => items.iter().any(json_contains_known),
        Value::Object(map) => map
            .iter()
            .any(|(k, val)| contains_known(k) || json_contains_known(val)),
        _ => false,
    }
}

/// Scrubs every string (and object key) in `v`, in place.
pub fn scrub_json(v: &mut Value) {
    if KNOWN.read().unwrap_or_else(|e| e.into_inner()).is_empty() {
        return;
    }
    walk(v);
}

fn walk(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Cow::Owned(clean) = scrub(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(walk),
        Value::Object(map) => {
            let dirty: Vec<String> = map
                .keys()
                .filter(|k| matches!(scrub(k), Cow::Owned(_)))
                .cloned()
                .collect();
            for k in dirty {
                if let Some(val) = map.remove(&k) {
                    map.insert(scrubbed(&k), val);
                }
            }
            map.values_mut().for_each(walk);
        }
        _ => {}
    }
}

/// Raw bytes (a line for stdout, a log line) with every known secret replaced, also in its
/// JSON-escaped form (a secret with a quote or backslash is escaped inside a JSON document).
pub fn scrub_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    let known = known();
    if known.is_empty() {
        return Cow::Borrowed(bytes);
    }
    let mut forms: Vec<String> = Vec::new();
    for k in &known {
        forms.push(k.clone());
        let escaped = serde_json::to_string(k).unwrap_or_default();
        let inner = &escaped[1..escaped.len() - 1];
        if inner != k {
            forms.push(inner.to_string());
        }
    }
    // What mpt writes is UTF-8 (JSON, text); anything else is compared lossily, never passed
    // through unchecked.
    let text = String::from_utf8_lossy(bytes);
    if !forms.iter().any(|f| text.contains(f.as_str())) {
        return Cow::Borrowed(bytes);
    }
    let mut out = text.into_owned();
    for f in &forms {
        out = out.replace(f.as_str(), REDACTED);
    }
    Cow::Owned(out.into_bytes())
}

/// The URL as it may be shown: any `user:password@` replaced by `<redacted>@`. Text that does
/// not parse as a URL is returned with a best-effort cut of what sits between `//` and `@`.
pub fn redact_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) if !u.username().is_empty() || u.password().is_some() => {
            let after = url.find("://").map_or(0, |i| i + 3);
            let at = url[after..].find('@').map(|i| after + i);
            match at {
                Some(at) => format!("{}{REDACTED}{}", &url[..after], &url[at..]),
                None => REDACTED.to_string(),
            }
        }
        Ok(_) => url.to_string(),
        Err(_) => {
            let after = url.find("://").map_or(0, |i| i + 3);
            let end = url[after..]
                .find(['/', '?', '#'])
                .map_or(url.len(), |i| after + i);
            match url[after..end].rfind('@') {
                Some(i) => format!("{}{REDACTED}{}", &url[..after], &url[after + i..]),
                None => url.to_string(),
            }
        }
    }
}

/// Whether the URL carries userinfo (`user@` or `user:password@`).
pub fn has_userinfo(url: &reqwest::Url) -> bool {
    !url.username().is_empty() || url.password().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_registered_secret_is_scrubbed_from_text_json_and_bytes() {
        register("tok-unit-3b7f-scrub-me");
        assert_eq!(
            scrub("Authorization: Bearer tok-unit-3b7f-scrub-me!"),
            "Authorization: Bearer <redacted>!"
        );
        let mut v = json!({"error": ["x tok-unit-3b7f-scrub-me"], "tok-unit-3b7f-scrub-me": 1});
        scrub_json(&mut v);
        assert!(!v.to_string().contains("tok-unit-3b7f-scrub-me"), "{v}");
        assert_eq!(v["error"][0], "x <redacted>");
        let b = scrub_bytes(b"{\"m\":\"tok-unit-3b7f-scrub-me\"}");
        assert_eq!(&*b, b"{\"m\":\"<redacted>\"}");
        assert!(matches!(scrub("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_secret_with_json_escapes_is_scrubbed_from_serialised_json() {
        register("tok\"quote\\unit-9c1d");
        let line = serde_json::to_vec(&json!({"m": "a tok\"quote\\unit-9c1d b"})).unwrap();
        let clean = scrub_bytes(&line);
        assert!(
            !String::from_utf8_lossy(&clean).contains("quote"),
            "{clean:?}"
        );
    }

    #[test]
    fn userinfo_is_redacted_from_urls() {
        assert_eq!(
            redact_url("http://u:tok-url-1@127.0.0.1:8765/mcp"),
            "http://<redacted>@127.0.0.1:8765/mcp"
        );
        assert_eq!(
            redact_url("https://tok@palace.example/mcp"),
            "https://<redacted>@palace.example/mcp"
        );
        assert_eq!(
            redact_url("https://palace.example:8765/mcp"),
            "https://palace.example:8765/mcp"
        );
        assert_eq!(
            redact_url("ht tp://u:p@bad host/x"),
            "ht tp://<redacted>@bad host/x"
        );
    }
}
