//! The hash chain of the audit log: each line is a record whose last field is
//! `hash = sha256(prev || the record's bytes without hash)`; sealing and unsealing a line.

use sha2::{Digest, Sha256};

use mpt_base::hex::hex;

/// The `prev` of the first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

const FIELD: &str = ",\"hash\":\"";

/// The hash of a record's bytes (without its hash field) after the record whose hash is `prev`.
pub fn hash(prev: &str, body: impl AsRef<[u8]>) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(body.as_ref());
    hex(&h.finalize())
}

/// `body` (a compact JSON object whose `prev` is `prev`) sealed where it lies, its hash added
/// as the last field (no copy of the record); that hash.
pub fn seal(prev: &str, body: &mut Vec<u8>) -> String {
    let h = hash(prev, body.as_slice());
    if body.last() == Some(&b'}') {
        body.pop();
    }
    body.extend_from_slice(FIELD.as_bytes());
    body.extend_from_slice(h.as_bytes());
    body.extend_from_slice(b"\"}");
    h
}

/// A sealed line split into the bytes its hash covers and the hash it claims; `None` when the
/// line does not end with a hash field.
pub fn unseal(line: &str) -> Option<(String, &str)> {
    let rest = line.strip_suffix("\"}")?;
    let at = rest.rfind(FIELD)?;
    let claimed = &rest[at + FIELD.len()..];
    if claimed.len() != 64 || !claimed.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((format!("{}}}", &rest[..at]), claimed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_line_unseals_to_what_was_hashed() {
        let body = r#"{"seq":1,"prev":"00"}"#;
        let mut line = body.as_bytes().to_vec();
        let h = seal(GENESIS, &mut line);
        let line = String::from_utf8(line).unwrap();
        assert!(line.ends_with(&format!("\"hash\":\"{h}\"}}")));
        let (back, claimed) = unseal(&line).unwrap();
        assert_eq!(back, body);
        assert_eq!(claimed, h);
        assert_eq!(hash(GENESIS, &back), h);
        assert_ne!(hash(GENESIS, back.replace('1', "2")), h);
        assert!(unseal(body).is_none());
    }
}
