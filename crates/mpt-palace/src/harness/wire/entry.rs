//! What a harness's MemPalace entry keeps of the user's own (its palace, `environment` or `env`,
//! `timeout` and other keys) through every opt-in state, and where the user's entry is remembered.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::dialect::Dialect;
use mpt_base::error::{MptError, Result};

/// What every state keeps of the user's entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kept {
    /// `--palace P` of its command (`mempalace-mcp --palace P` or `mpt edge … --palace P`).
    pub palace: Option<String>,
    /// Every key but `type`, `command`, `url` and `headers` (`environment`, `timeout`, …).
    pub keys: Map<String, Value>,
}

impl Kept {
    pub fn from_entry(dialect: Dialect, entry: &Value) -> Kept {
        let command = dialect.command(entry);
        let palace = command.iter().enumerate().find_map(|(i, a)| {
            a.strip_prefix("--palace=")
                .or_else(|| (*a == "--palace").then(|| command.get(i + 1).map(String::as_str))?)
                .map(str::to_string)
        });
        let mut keys = entry.as_object().cloned().unwrap_or_default();
        if dialect.is_remote(entry) {
            // A remote entry's keys mean nothing to a local server, and back; what the dialect
            // keeps (opencode's `oauth`) is the user's choice for the next remote entry.
            keys.retain(|k, _| dialect.remote_kept().contains(&k.as_str()));
        }
        keys.retain(|k, _| !dialect.transport_keys().contains(&k.as_str()));
        Kept { palace, keys }
    }
}

/// Where the user's own entry is remembered while mpt's replaces it: beside the config file, as
/// `<file>.mpt-user-entry.json` (no harness reads it); an entry of one of Claude Code's project
/// folders inside that file as `<file>.mpt-user-entry.<12 hex digits of the folder's SHA-256>.json`.
pub fn saved_path(config_file: &Path, project: Option<&str>) -> PathBuf {
    match project {
        None => PathBuf::from(format!("{}.mpt-user-entry.json", config_file.display())),
        Some(p) => {
            use sha2::Digest;
            let h = mpt_base::hex::hex(&sha2::Sha256::digest(p.as_bytes()));
            PathBuf::from(format!(
                "{}.mpt-user-entry.{}.json",
                config_file.display(),
                &h[..12]
            ))
        }
    }
}

/// The remembered entry: its name and its text exactly as the user wrote it (comments included),
/// or `null` when there was none (mpt inserted its entry): withdrawing then removes mpt's entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SavedEntry {
    pub schema: String,
    pub entry: String,
    pub text: Option<String>,
    /// mpt created the config file for its entry: withdrawing removes the file when nothing
    /// else was put in it since.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_file: bool,
    /// mpt created the object holding the servers (Claude Code's top-level `mcpServers`, absent
    /// until a user-scope entry exists): withdrawing removes it when it is left empty.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created_servers: bool,
}

pub const SAVED_SCHEMA: &str = mpt_base::schema::EDGE_WIRE_USER_ENTRY;

impl SavedEntry {
    pub fn new(entry: &str, text: &str) -> SavedEntry {
        SavedEntry {
            schema: SAVED_SCHEMA.into(),
            entry: entry.into(),
            text: Some(text.into()),
            created_file: false,
            created_servers: false,
        }
    }

    /// "There was no MemPalace entry" (in a file mpt created, when `created_file`; in a servers
    /// object mpt created, when `created_servers`).
    pub fn none(entry: &str, created_file: bool, created_servers: bool) -> SavedEntry {
        SavedEntry {
            schema: SAVED_SCHEMA.into(),
            entry: entry.into(),
            text: None,
            created_file,
            created_servers,
        }
    }

    /// The entry remembered at `path` ([`saved_path`]), if any. One that does not parse is an
    /// error: mpt never guesses at the user's entry.
    pub fn load(path: &Path) -> Result<Option<SavedEntry>> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(MptError::io(format!("reading {}", path.display()), &e)),
        };
        let saved: SavedEntry = serde_json::from_str(&text)
            .ok()
            .filter(|s: &SavedEntry| s.schema == SAVED_SCHEMA)
            .filter(|s| {
                s.text.as_ref().is_none_or(|t| {
                    serde_json::from_str::<Value>(&crate::harness::jsonc::strip(t)).is_ok()
                })
            })
            .ok_or_else(|| {
                MptError::usage(format!(
                    "{} does not hold a MemPalace entry mpt can read",
                    path.display()
                ))
                .with_hint("it remembers your own MemPalace entry while mpt's replaces it: fix it, or delete it to let mpt derive the entry")
            })?;
        Ok(Some(saved))
    }

    /// The entry's value (comments and trailing commas allowed in the text); `Null` for none.
    pub fn value(&self) -> Value {
        self.text
            .as_ref()
            .and_then(|t| serde_json::from_str(&crate::harness::jsonc::strip(t)).ok())
            .unwrap_or(Value::Null)
    }

    /// Written whole (temp file and rename), mode 0600: an `environment` may hold secrets.
    pub fn save(&self, path: &Path) -> Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let tmp = PathBuf::from(format!("{}.tmp", path.display()));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(
                serde_json::to_string_pretty(self)
                    .unwrap_or_default()
                    .as_bytes(),
            )?;
            f.write_all(b"\n")?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)
        };
        write().map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::wire::OptIn;
    use mpt_base::config::Remote;
    use serde_json::json;

    const D: Dialect = Dialect::Opencode;

    #[test]
    fn every_state_keeps_the_palace_environment_and_timeout() {
        let user = json!({"type": "local", "command": ["mempalace-mcp", "--palace", "/data/p"], "environment": {"A": "b"}, "timeout": 30000, "enabled": false});
        let kept = Kept::from_entry(D, &user);
        assert_eq!(kept.palace.as_deref(), Some("/data/p"));
        let mpt = Path::new("/usr/local/bin/mpt");
        let edge = D.desired(OptIn::Edge, mpt, None, &kept).unwrap();
        assert_eq!(
            edge,
            json!({"type": "local", "command": ["/usr/local/bin/mpt", "edge", "--harness", "opencode", "--palace", "/data/p"], "environment": {"A": "b"}, "timeout": 30000, "enabled": true})
        );
        assert_eq!(
            Kept::from_entry(D, &edge),
            kept,
            "the edge entry carries it all"
        );
        let primary = Remote {
            url: "https://h/mcp".into(),
            token: None,
            ca_file: None,
        };
        let remote = D
            .desired(OptIn::Remote, mpt, Some(&primary), &kept)
            .unwrap();
        assert_eq!(remote["timeout"], 30000);
        assert!(remote.get("environment").is_none() && remote.get("command").is_none());
        // No OAuth discovery on a refused token, unless the user's own remote entry asked.
        assert_eq!(remote["oauth"], false, "{remote}");
        let own = Kept::from_entry(
            D,
            &json!({"type": "remote", "url": "u", "oauth": {"clientId": "c"}}),
        );
        let again = D.desired(OptIn::Remote, mpt, Some(&primary), &own).unwrap();
        assert_eq!(again["oauth"], json!({"clientId": "c"}));
        let local = D.desired(OptIn::Edge, mpt, None, &own).unwrap();
        assert!(local.get("oauth").is_none(), "{local}");
        let back = D
            .desired(OptIn::Solitary, mpt, None, &Kept::from_entry(D, &edge))
            .unwrap();
        assert_eq!(
            back,
            json!({"type": "local", "command": ["mempalace-mcp", "--palace", "/data/p"], "environment": {"A": "b"}, "timeout": 30000, "enabled": true})
        );
        let eq = Kept::from_entry(D, &json!({"command": "mempalace-mcp --palace=/q"}));
        assert_eq!(eq.palace.as_deref(), Some("/q"));
    }
}
