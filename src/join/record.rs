//! `joined.json` in mpt's config folder: what `mpt join` changed on this device (the settings as
//! they were before the first join, the files it wrote, the harness configs it wired, the
//! timer), so `mpt join --leave` undoes exactly that.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use mpt_base::error::{MptError, Result};

pub const SCHEMA: &str = mpt_base::schema::JOIN_RECORD;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub schema: String,
    pub gateway: String,
    pub device: String,
    pub token_id: String,
    pub token_file: PathBuf,
    /// The gateway certificate `--ca-sha256` kept (removed on leaving); `None` for a CA of the
    /// user's own (`--ca-file`), which is left alone.
    pub pinned_ca: Option<PathBuf>,
    pub config_file: PathBuf,
    /// Each setting as the config file held it before the first join.
    pub before: Vec<Before>,
    /// The harness config files wired to the edge.
    pub wired: Vec<PathBuf>,
    /// Whether a systemd timer was installed (a cron line is the user's to remove).
    pub systemd_timer: bool,
}

/// A setting and its value before the first join (`null`: it was absent).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Before {
    pub key: String,
    pub value: Option<Value>,
}

/// Its place: `$XDG_CONFIG_HOME/mpt/joined.json`.
pub fn path(env: &mpt_base::config::Env) -> Result<PathBuf> {
    mpt_base::paths::device::join_record(env)
}

impl Record {
    /// The record at `path`; `None` when this device never joined.
    pub fn load(path: &Path) -> Result<Option<Record>> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(MptError::io(format!("reading {}", path.display()), &e)),
        };
        serde_json::from_slice::<Record>(&bytes)
            .ok()
            .filter(|r| r.schema == SCHEMA)
            .map(Some)
            .ok_or_else(|| {
                MptError::usage(format!("{} is not a record mpt join wrote", path.display()))
                    .with_hint("move it away; `mpt join` writes a new one, and the settings it changed are in the config file's backup")
            })
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        mpt_base::private_fs::write_private(path, text.as_bytes())
            .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
    }
}
