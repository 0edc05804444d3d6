//! The device token's format (research §5.5): `mptg_<id>_<secret><checksum>`, a type prefix, a
//! non-secret id, a 256-bit base62 secret, a CRC-32 checksum; a join code is `mptj_`, shorter.
//! Both are kept as SHA-256 only and compared in constant time.

use std::io::Read;

use sha2::{Digest, Sha256};

use mpt_base::hex::hex;

/// The type prefix: secret scanners key on it.
pub const PREFIX: &str = mpt_base::secrets::GATEWAY_TOKEN_PREFIX;
/// The non-secret id (audit, list, revoke): 10 base62 characters (~59 bits).
pub const ID_LEN: usize = 10;
/// The checksum: CRC-32 of everything before it, as 6 base62 characters.
const CHECK_LEN: usize = 6;

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A secret's shape: `<prefix><id>_<secret><checksum>`.
#[derive(Debug, Clone, Copy)]
pub struct Format {
    prefix: &'static str,
    secret_len: usize,
}

/// A device token: its secret 43 base62 characters (~256 bits).
pub const TOKEN: Format = Format {
    prefix: PREFIX,
    secret_len: 43,
};

/// A join code (`mpt gateway invite`): single-use and short-lived, typed or pasted once, so a
/// shorter secret, 26 base62 characters (~154 bits); its own prefix, so it is never a token.
pub const JOIN_CODE: Format = Format {
    prefix: mpt_base::secrets::JOIN_CODE_PREFIX,
    secret_len: 26,
};

impl Format {
    /// The length of every well-formed one.
    pub fn full_len(self) -> usize {
        self.prefix.len() + ID_LEN + 1 + self.secret_len + CHECK_LEN
    }

    /// A new one: its id and the whole secret (shown once, never stored).
    pub fn mint(self) -> std::io::Result<(String, String)> {
        let id = random_base62(ID_LEN)?;
        let secret = random_base62(self.secret_len)?;
        Ok((id.clone(), self.assemble(&id, &secret)))
    }

    /// The whole of an id and a secret, its checksum computed.
    pub fn assemble(self, id: &str, secret: &str) -> String {
        let body = format!("{}{id}_{secret}", self.prefix);
        format!("{body}{}", checksum(&body))
    }

    /// The id of a well-formed one (prefix, lengths, alphabet and checksum all right); `None`
    /// for anything else, which is never looked up.
    pub fn parse(self, token: &str) -> Option<&str> {
        if token.len() != self.full_len() || !token.is_ascii() {
            return None;
        }
        let rest = token.strip_prefix(self.prefix)?;
        let (id, tail) = rest.split_at(ID_LEN);
        let tail = tail.strip_prefix('_')?;
        let (secret, check) = tail.split_at(self.secret_len);
        let base62 = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric());
        if !base62(id) || !base62(secret) || !base62(check) {
            return None;
        }
        let body = &token[..token.len() - CHECK_LEN];
        (checksum(body) == check).then_some(id)
    }
}

/// A new token: its id and the whole token (shown once, never stored).
pub fn mint() -> std::io::Result<(String, String)> {
    TOKEN.mint()
}

/// The token of an id and a secret, its checksum computed.
pub fn assemble(id: &str, secret: &str) -> String {
    TOKEN.assemble(id, secret)
}

/// The id of a well-formed token; `None` for anything else, which is never looked up.
pub fn parse(token: &str) -> Option<&str> {
    TOKEN.parse(token)
}

/// What `tokens.json` keeps of a token: its SHA-256, in hex.
pub fn digest(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Whether two digests are equal, in time that does not depend on where they differ.
pub fn same_digest(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

fn checksum(body: &str) -> String {
    let mut n = crc32(body.as_bytes());
    let mut out = [b'0'; CHECK_LEN];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// CRC-32 (IEEE 802.3, reflected), the checksum GitHub's tokens carry.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// `n` base62 characters from the kernel's CSPRNG (rejection sampling: no bias). No fallback:
/// a token is never made from a weaker source.
fn random_base62(n: usize) -> std::io::Result<String> {
    let mut urandom = std::fs::File::open("/dev/urandom")?;
    let mut out = String::with_capacity(n);
    let mut buf = [0u8; 64];
    while out.len() < n {
        urandom.read_exact(&mut buf)?;
        for &b in &buf {
            // 248 = 4 × 62: bytes at or above it would favour the first characters.
            if b < 248 && out.len() < n {
                out.push(BASE62[(b % 62) as usize] as char);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minted_token_parses_to_its_id_and_a_changed_one_does_not() {
        let (id, token) = mint().unwrap();
        assert_eq!(token.len(), TOKEN.full_len());
        assert!(token.starts_with(PREFIX));
        assert_eq!(parse(&token), Some(id.as_str()));
        // One character changed anywhere fails the checksum.
        for i in PREFIX.len()..token.len() {
            let mut b = token.clone().into_bytes();
            b[i] = if b[i] == b'a' { b'b' } else { b'a' };
            let changed = String::from_utf8(b).unwrap();
            if changed != token {
                assert_eq!(parse(&changed), None, "position {i}");
            }
        }
        assert_eq!(parse(""), None);
        assert_eq!(parse(&token[1..]), None);
        assert_eq!(parse(&format!("{token}x")), None);
        assert_ne!(mint().unwrap().1, token);
    }

    #[test]
    fn a_join_code_is_its_own_format_never_a_token() {
        let (id, code) = JOIN_CODE.mint().unwrap();
        assert_eq!(code.len(), JOIN_CODE.full_len());
        assert!(code.starts_with("mptj_"));
        assert_eq!(JOIN_CODE.parse(&code), Some(id.as_str()));
        assert_eq!(parse(&code), None, "a code is not a token");
        let (_, token) = mint().unwrap();
        assert_eq!(JOIN_CODE.parse(&token), None, "a token is not a code");
        let mut typo = code.clone().into_bytes();
        typo[20] = if typo[20] == b'x' { b'y' } else { b'x' };
        assert_eq!(JOIN_CODE.parse(&String::from_utf8(typo).unwrap()), None);
    }

    #[test]
    fn crc32_is_the_ieee_one() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn digests_compare_whole() {
        let d = digest("x");
        assert_eq!(d.len(), 64);
        assert!(same_digest(&d, &digest("x")));
        assert!(!same_digest(&d, &digest("y")));
        assert!(!same_digest(&d, &d[1..]));
    }
}
