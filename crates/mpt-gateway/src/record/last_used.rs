//! When each token was last used: kept by the running gateway in a file of its own
//! (`last_used.json`, 0600), so `tokens.json` has one writer; read by `mpt gateway token list`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::state::write_private;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LastUsed {
    pub schema: String,
    /// Token id → unix milliseconds.
    pub tokens: BTreeMap<String, i64>,
    #[serde(skip)]
    dirty: bool,
}

impl LastUsed {
    /// The file as written; a missing or unreadable one is empty (it is a convenience, not a record:
    /// the audit log is).
    pub fn load(path: &Path) -> LastUsed {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| LastUsed {
                schema: mpt_base::schema::GATEWAY_LAST_USED.into(),
                ..LastUsed::default()
            })
    }

    /// Notes a use; `true` when it is the token's first (worth writing at once).
    pub fn touch(&mut self, id: &str, now_ms: i64) -> bool {
        self.dirty = true;
        match self.tokens.get_mut(id) {
            Some(at) => {
                *at = now_ms;
                false
            }
            None => {
                self.tokens.insert(id.to_string(), now_ms);
                true
            }
        }
    }

    pub fn get(&self, id: &str) -> Option<i64> {
        self.tokens.get(id).copied()
    }

    /// Writes the file when something changed since the last write.
    pub fn flush(&mut self, path: &Path) -> std::io::Result<()> {
        if !self.dirty {
            return Ok(());
        }
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        write_private(path, text.as_bytes())?;
        self.dirty = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_are_kept_and_written_when_they_change() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("last_used.json");
        let mut l = LastUsed::load(&p);
        assert!(l.touch("A", 5));
        assert!(!l.touch("A", 6));
        l.flush(&p).unwrap();
        assert_eq!(LastUsed::load(&p).get("A"), Some(6));
        assert_eq!(crate::state::mode(&p), Some(0o600));
    }
}
