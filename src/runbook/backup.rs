//! The backup toolbox every automated step shares: a kept, timestamped backup folder, durable
//! copies, the manifest with the undo line, and quoting for that line.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::apply::Applied;
use mpt_base::error::{MptError, Result};

/// A fresh, kept backup folder: `~/.mempalace/backups/runbook-<UTC ts>-<step>/`.
pub(super) fn backup_dir(home: &Path, step: &str) -> Result<PathBuf> {
    let ts: String = mpt_base::time::format_iso_utc(mpt_base::time::now_unix())
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let base = home.join(".mempalace").join("backups");
    for n in 0..100 {
        let name = if n == 0 {
            format!("runbook-{ts}-{step}")
        } else {
            format!("runbook-{ts}-{step}-{n}")
        };
        let dir = base.join(name);
        if dir.exists() {
            continue;
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
        return Ok(dir);
    }
    Err(MptError::usage(format!(
        "too many backups this second under {}",
        base.display()
    )))
}

/// Copies `from` to `to` and makes the copy durable (fsync file and folder).
pub(super) fn durable_copy(from: &Path, to: &Path) -> Result<u64> {
    let n = std::fs::copy(from, to).map_err(|e| {
        MptError::io(
            format!("copying {} to {}", from.display(), to.display()),
            &e,
        )
    })?;
    sync_path(to)?;
    if let Some(dir) = to.parent() {
        sync_path(dir)?;
    }
    Ok(n)
}

pub(super) fn sync_path(p: &Path) -> Result<()> {
    std::fs::File::open(p)
        .and_then(|f| f.sync_all())
        .map_err(|e| MptError::io(format!("syncing {}", p.display()), &e))
}

/// Writes the backup's manifest (what was where, and the undo line).
pub(super) fn manifest(dir: &Path, applied: &Applied) -> Result<()> {
    let path = dir.join("manifest.json");
    let mut f = std::fs::File::create(&path)
        .map_err(|e| MptError::io(format!("creating {}", path.display()), &e))?;
    let bytes = serde_json::to_vec_pretty(applied).unwrap_or_default();
    f.write_all(&bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
}

/// `p` quoted for `sh`.
pub(super) fn sh(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// The size of a file, 0 when absent.
pub(super) fn size(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}
