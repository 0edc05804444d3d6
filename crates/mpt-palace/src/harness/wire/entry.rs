//! Where the user's own MemPalace entry is remembered while mpt's replaces it, and in what
//! form: its text as written (comments kept), or "there was none" and what mpt created for its own.

use std::path::{Path, PathBuf};

use serde_json::Value;

use mpt_base::error::{MptError, Result};

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

    /// Written whole, mode 0600 ([`write_memory`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        write_memory(path, self)
    }
}

/// A memory mpt keeps beside a harness file (the user's entry, what its hooks replaced):
/// written whole (temp file, fsync, rename) in a folder made when missing, mode 0600, since an
/// entry's `environment` or `env` may hold secrets.
pub fn write_memory(path: &Path, memory: &impl serde::Serialize) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
    let write = || -> std::io::Result<()> {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)?;
        }
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(
            serde_json::to_string_pretty(memory)
                .unwrap_or_default()
                .as_bytes(),
        )?;
        f.write_all(b"\n")?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
}

/// A memory removed once nothing of mpt's needs it (already gone is fine).
pub fn forget_memory(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(MptError::io(format!("removing {}", path.display()), &e)),
    }
}
