//! `serve.json`: where the running gateway listens (the `mpt.gateway.serve/v1` line it prints,
//! kept in its folder while it runs), so `mpt gateway invite` can name the URL devices use.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use mpt_base::error::{MptError, Result};

/// The line `mpt gateway serve --json` prints once it listens, and the file it keeps.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub schema: String,
    pub listening: String,
    pub upstream: String,
    pub dir: PathBuf,
    pub pid: u32,
}

impl Record {
    /// The record of a gateway that is running now (its pid alive); `None` otherwise.
    pub fn load(path: &Path) -> Option<Record> {
        let r: Record = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        (r.schema == mpt_base::schema::GATEWAY_SERVE && mpt_base::sys::alive(r.pid)).then_some(r)
    }

    /// Kept in the folder while the gateway runs (0600, atomic).
    pub fn write(&self, path: &Path) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        crate::state::write_private(path, text.as_bytes())
            .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
    }

    /// Removed as the gateway stops (only its own: another may have started since).
    pub fn remove(path: &Path, pid: u32) {
        let mine = serde_json::from_slice::<Record>(&std::fs::read(path).unwrap_or_default())
            .is_ok_and(|r| r.pid == pid);
        if mine {
            let _ = std::fs::remove_file(path);
        }
    }
}
