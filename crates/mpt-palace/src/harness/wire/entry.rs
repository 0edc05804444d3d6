//! What opencode's MemPalace entry becomes in each opt-in state, derived from the user's own entry
//! (its palace, `environment`, `timeout` and other keys kept), and where that entry is remembered.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::OptIn;
use crate::harness::opencode::token_ref;
use mpt_base::config::Remote;
use mpt_base::error::{MptError, Result};

/// What every state keeps of the user's entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kept {
    /// `--palace P` of its command (`mempalace-mcp --palace P` or `mpt edge … --palace P`).
    pub palace: Option<String>,
    /// Every key but `type`, `command`, `url` and `headers` (`environment`, `timeout`, …).
    pub keys: Map<String, Value>,
}

/// What a remote entry keeps of the user's: its `timeout`, and its `oauth` (mpt writes
/// `"oauth": false` otherwise: opencode would answer a refused token with its own OAuth
/// discovery, a login prompt, instead of failing plainly).
const REMOTE_KEPT: [&str; 2] = ["timeout", "oauth"];

/// Keys that describe the transport: each state writes its own.
const TRANSPORT_KEYS: [&str; 5] = ["type", "command", "url", "headers", "enabled"];

impl Kept {
    pub fn from_entry(entry: &Value) -> Kept {
        let command: Vec<&str> = match entry.get("command") {
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            Some(Value::String(s)) => s.split_whitespace().collect(),
            _ => Vec::new(),
        };
        let palace = command.iter().enumerate().find_map(|(i, a)| {
            a.strip_prefix("--palace=")
                .or_else(|| (*a == "--palace").then(|| command.get(i + 1).copied())?)
                .map(str::to_string)
        });
        let mut keys = entry.as_object().cloned().unwrap_or_default();
        if entry.get("type").and_then(Value::as_str) == Some("remote") {
            // A remote entry's keys mean nothing to a local server, and back; its `oauth` is
            // the user's choice for the next remote entry.
            keys.retain(|k, _| REMOTE_KEPT.contains(&k.as_str()));
        }
        keys.retain(|k, _| !TRANSPORT_KEYS.contains(&k.as_str()));
        Kept { palace, keys }
    }
}

/// The entry `state` wants, keeping what the user's entry carried. The token is referenced, never
/// written: `{file:<absolute path>}` for a token file, else `{env:MEMPALACE_REMOTE_TOKEN}`.
/// `environment` does not exist for a remote entry; its palace means nothing there either (the
/// user's own entry is remembered for the way back: [`saved_path`]).
pub fn desired(state: OptIn, mpt: &Path, remote: Option<&Remote>, kept: &Kept) -> Result<Value> {
    let mut entry = Map::new();
    match state {
        OptIn::Solitary => {
            let mut command = vec![json!("mempalace-mcp")];
            if let Some(p) = &kept.palace {
                command.extend([json!("--palace"), json!(p)]);
            }
            entry.insert("type".into(), json!("local"));
            entry.insert("command".into(), Value::Array(command));
        }
        OptIn::Remote => {
            let token = remote.and_then(|r| r.token.as_ref()).map(|(_, s)| s);
            entry.insert("type".into(), json!("remote"));
            entry.insert("url".into(), json!(remote.map_or("", |r| r.url.as_str())));
            entry.insert(
                "headers".into(),
                json!({"Authorization": token_ref::header(token)?}),
            );
            entry.insert("oauth".into(), json!(false));
        }
        OptIn::Edge => {
            let mut command = vec![
                json!(mpt.display().to_string()),
                json!("edge"),
                json!("--harness"),
                json!("opencode"),
            ];
            if let Some(p) = &kept.palace {
                command.extend([json!("--palace"), json!(p)]);
            }
            entry.insert("type".into(), json!("local"));
            entry.insert("command".into(), Value::Array(command));
        }
    }
    for (k, v) in &kept.keys {
        let keep = match state {
            OptIn::Remote => REMOTE_KEPT.contains(&k.as_str()),
            _ => k != "oauth",
        };
        if !keep {
            continue;
        }
        entry.insert(k.clone(), v.clone());
    }
    entry.insert("enabled".into(), json!(true));
    Ok(Value::Object(entry))
}

/// Where the user's own entry is remembered while mpt's replaces it: beside the config file, as
/// `<file>.mpt-user-entry.json` (opencode reads only `opencode.json[c]`).
pub fn saved_path(config_file: &Path) -> PathBuf {
    PathBuf::from(format!("{}.mpt-user-entry.json", config_file.display()))
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
}

pub const SAVED_SCHEMA: &str = mpt_base::schema::EDGE_WIRE_USER_ENTRY;

impl SavedEntry {
    pub fn new(entry: &str, text: &str) -> SavedEntry {
        SavedEntry {
            schema: SAVED_SCHEMA.into(),
            entry: entry.into(),
            text: Some(text.into()),
            created_file: false,
        }
    }

    /// "There was no MemPalace entry" (in a file mpt created, when `created_file`).
    pub fn none(entry: &str, created_file: bool) -> SavedEntry {
        SavedEntry {
            schema: SAVED_SCHEMA.into(),
            entry: entry.into(),
            text: None,
            created_file,
        }
    }

    /// The remembered entry for `config_file`, if any. One that does not parse is an error: mpt
    /// never guesses at the user's entry.
    pub fn load(config_file: &Path) -> Result<Option<SavedEntry>> {
        let path = saved_path(config_file);
        let text = match std::fs::read_to_string(&path) {
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
                .with_hint("it remembers your own opencode entry while mpt's replaces it: fix it, or delete it to let mpt derive the entry")
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
    pub fn save(&self, config_file: &Path) -> Result<PathBuf> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let path = saved_path(config_file);
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
            std::fs::rename(&tmp, &path)
        };
        write().map_err(|e| MptError::io(format!("writing {}", path.display()), &e))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_keeps_the_palace_environment_and_timeout() {
        let user = json!({"type": "local", "command": ["mempalace-mcp", "--palace", "/data/p"], "environment": {"A": "b"}, "timeout": 30000, "enabled": false});
        let kept = Kept::from_entry(&user);
        assert_eq!(kept.palace.as_deref(), Some("/data/p"));
        let mpt = Path::new("/usr/local/bin/mpt");
        let edge = desired(OptIn::Edge, mpt, None, &kept).unwrap();
        assert_eq!(
            edge,
            json!({"type": "local", "command": ["/usr/local/bin/mpt", "edge", "--harness", "opencode", "--palace", "/data/p"], "environment": {"A": "b"}, "timeout": 30000, "enabled": true})
        );
        assert_eq!(
            Kept::from_entry(&edge),
            kept,
            "the edge entry carries it all"
        );
        let primary = Remote {
            url: "https://h/mcp".into(),
            token: None,
            ca_file: None,
        };
        let remote = desired(OptIn::Remote, mpt, Some(&primary), &kept).unwrap();
        assert_eq!(remote["timeout"], 30000);
        assert!(remote.get("environment").is_none() && remote.get("command").is_none());
        // No OAuth discovery on a refused token, unless the user's own remote entry asked.
        assert_eq!(remote["oauth"], false, "{remote}");
        let own =
            Kept::from_entry(&json!({"type": "remote", "url": "u", "oauth": {"clientId": "c"}}));
        let again = desired(OptIn::Remote, mpt, Some(&primary), &own).unwrap();
        assert_eq!(again["oauth"], json!({"clientId": "c"}));
        let local = desired(OptIn::Edge, mpt, None, &own).unwrap();
        assert!(local.get("oauth").is_none(), "{local}");
        let back = desired(OptIn::Solitary, mpt, None, &Kept::from_entry(&edge)).unwrap();
        assert_eq!(
            back,
            json!({"type": "local", "command": ["mempalace-mcp", "--palace", "/data/p"], "environment": {"A": "b"}, "timeout": 30000, "enabled": true})
        );
        let eq = Kept::from_entry(&json!({"command": "mempalace-mcp --palace=/q"}));
        assert_eq!(eq.palace.as_deref(), Some("/q"));
    }
}
