//! `tokens.json`: one entry per device token, its SHA-256 only (never the secret), its times and
//! its state (`active`, `overlap`, `expired`, `revoked`); read by the gateway, written by `edit`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use mpt_base::config::read::{Named, config_text, read_regular};
use mpt_base::error::{MptError, Result};
use mpt_base::time::{format_iso_utc, parse_iso_utc};

pub mod edit;

/// The file's own schema.
pub const SCHEMA: &str = mpt_base::schema::GATEWAY_TOKENS;
/// Room for thousands of entries.
const FILE_LIMIT: u64 = 8 << 20;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenFile {
    pub schema: String,
    pub tokens: Vec<Entry>,
}

/// One token as the gateway knows it. Times are RFC 3339 UTC (whole seconds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: String,
    pub device: String,
    /// SHA-256 of the whole token, hex.
    pub sha256: String,
    pub created: String,
    /// After this instant the token is refused as expired; `None`: never.
    pub expires: Option<String>,
    pub revoked: Option<String>,
    /// The token that replaced this one (`token rotate`); it lives out its overlap.
    pub rotated_to: Option<String>,
}

/// Where a token stands at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenState {
    Active,
    /// Rotated: it still works until its expiry (the overlap).
    Overlap,
    Expired,
    Revoked,
}

impl TokenState {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenState::Active => "active",
            TokenState::Overlap => "overlap",
            TokenState::Expired => "expired",
            TokenState::Revoked => "revoked",
        }
    }

    /// Whether a request carrying it is let in.
    pub fn works(self) -> bool {
        matches!(self, TokenState::Active | TokenState::Overlap)
    }
}

impl Entry {
    /// Unix seconds of the expiry (`None`: never, or unreadable, which `TokenFile::parse` refuses).
    pub fn expires_at(&self) -> Option<i64> {
        self.expires.as_deref().and_then(parse_iso_utc)
    }

    pub fn state(&self, now_s: i64) -> TokenState {
        if self.revoked.is_some() {
            TokenState::Revoked
        } else if self.expires_at().is_some_and(|e| e <= now_s) {
            TokenState::Expired
        } else if self.rotated_to.is_some() {
            TokenState::Overlap
        } else {
            TokenState::Active
        }
    }
}

/// An instant for the file.
pub fn stamp(unix_s: i64) -> String {
    format_iso_utc(unix_s)
}

impl TokenFile {
    pub fn empty() -> TokenFile {
        TokenFile {
            schema: SCHEMA.into(),
            tokens: Vec::new(),
        }
    }

    /// The file at `path`; a missing one is empty (no token works yet).
    pub fn load(path: &Path) -> Result<TokenFile> {
        if !path.exists() {
            return Ok(TokenFile::empty());
        }
        let named = Named {
            setting: "the gateway's token file",
            path,
        };
        crate::state::refuse_writable_by_others(path)?;
        let bytes = read_regular(&named, FILE_LIMIT)?;
        TokenFile::parse(&config_text(&bytes, path)?, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<TokenFile> {
        let bad = |why: String| {
            MptError::usage(format!("{}: {why}", path.display())).with_hint(
                "tokens.json is written by `mpt gateway token` alone; restore it from a backup, or move it away and issue the tokens again",
            )
        };
        let file: TokenFile = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if file.schema != SCHEMA {
            return Err(bad(format!(
                "schema is \"{}\", not \"{SCHEMA}\"",
                file.schema
            )));
        }
        for e in &file.tokens {
            for (field, value) in [
                ("created", Some(&e.created)),
                ("expires", e.expires.as_ref()),
                ("revoked", e.revoked.as_ref()),
            ] {
                if let Some(v) = value
                    && parse_iso_utc(v).is_none()
                {
                    return Err(bad(format!("token {}: {field} '{v}' is not a time", e.id)));
                }
            }
        }
        Ok(file)
    }

    pub fn find(&self, id: &str) -> Option<&Entry> {
        self.tokens.iter().find(|e| e.id == id)
    }

    /// The JSON the file holds.
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            id: "AAAAAAAAAA".into(),
            device: "lap".into(),
            sha256: "0".repeat(64),
            created: stamp(1000),
            expires: None,
            revoked: None,
            rotated_to: None,
        }
    }

    #[test]
    fn states_follow_revocation_expiry_and_rotation() {
        let mut e = entry();
        assert_eq!(e.state(2000), TokenState::Active);
        e.rotated_to = Some("B".into());
        e.expires = Some(stamp(3000));
        assert_eq!(e.state(2000), TokenState::Overlap);
        assert!(e.state(2000).works());
        assert_eq!(e.state(3000), TokenState::Expired);
        e.revoked = Some(stamp(2500));
        assert_eq!(e.state(2000), TokenState::Revoked);
        assert!(!e.state(2000).works());
    }

    #[test]
    fn the_file_round_trips_and_refuses_unknown_fields_and_bad_times() {
        let p = Path::new("/t/tokens.json");
        let mut f = TokenFile::empty();
        f.tokens.push(entry());
        let back = TokenFile::parse(&f.to_text(), p).unwrap();
        assert_eq!(back.tokens, f.tokens);
        let e = TokenFile::parse(
            &f.to_text()
                .replace("\"device\"", "\"secret\": 1, \"device\""),
            p,
        )
        .unwrap_err();
        assert!(e.message.contains("unknown field"), "{}", e.message);
        let e = TokenFile::parse(&f.to_text().replace(&stamp(1000), "yesterday"), p).unwrap_err();
        assert!(e.message.contains("not a time"), "{}", e.message);
    }
}
