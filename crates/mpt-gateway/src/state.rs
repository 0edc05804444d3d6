//! The gateway's state folder (`MPT_GATEWAY_DIR`, else `$XDG_STATE_HOME/mpt/gateway`): where each
//! file lives, the folder made 0700 (a wider one tightened, with a note), private atomic writes.

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use mpt_base::error::{MptError, Result};

pub use mpt_base::paths::gateway::StateDir;

/// Creates the folder 0700; one of ours that others may enter is tightened and its old mode
/// returned (for a note).
pub fn prepare(dir: &StateDir) -> Result<Option<u32>> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir.root)
        .map_err(|e| MptError::io(format!("creating {}", dir.root.display()), &e))?;
    tighten(&dir.root, 0o700)
        .map_err(|e| MptError::io(format!("making {} private", dir.root.display()), &e))
}

/// Sets `path` to `mode` when it is ours and others may read it; the old mode when it changed.
pub fn tighten(path: &Path, mode: u32) -> io::Result<Option<u32>> {
    let meta = std::fs::metadata(path)?;
    let old = meta.permissions().mode() & 0o777;
    if meta.uid() == mpt_base::sys::euid() && old & 0o077 != 0 {
        std::fs::set_permissions(path, Permissions::from_mode(mode))?;
        return Ok(Some(old));
    }
    Ok(None)
}

// A private file written whole (a temp file, fsynced, renamed, 0600): `mpt_base::private_fs`.
pub use mpt_base::private_fs::write_private;

/// Opens `path` for appending, created 0600; an existing one others can read is tightened.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    let f = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    tighten(path, 0o600)?;
    Ok(f)
}

/// Opens `path` for reading and writing in place, created 0600; an existing one others can read
/// is tightened.
pub fn open_private_rw(path: &Path) -> io::Result<File> {
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .mode(0o600)
        .open(path)?;
    tighten(path, 0o600)?;
    Ok(f)
}

/// The mode bits of `path`, when it exists.
pub fn mode(path: &Path) -> Option<u32> {
    std::fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o777)
}

/// Refuses `path` (the policy, the token file) when others than its owner may write it, or
/// its folder: whoever could would grant themselves a device. Checked at each load, so a reload
/// keeps the last good file.
pub fn refuse_writable_by_others(path: &Path) -> Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    for (what, p, fix) in [
        ("", path, format!("chmod go-w {}", path.display())),
        (" folder", folder, format!("chmod 700 {}", folder.display())),
    ] {
        if let Some(m) = mode(p).filter(|m| m & 0o022 != 0) {
            return Err(MptError::refused(format!(
                "{}'s{what} is mode {m:04o}: others on this host could change it and grant themselves a device, so the gateway does not read it",
                path.display()
            ))
            .with_hint(fix));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_private_and_a_loose_one_is_tightened_with_its_old_mode() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir {
            root: tmp.path().join("a/gateway"),
        };
        assert_eq!(prepare(&dir).unwrap(), None);
        assert_eq!(mode(&dir.root), Some(0o700));
        std::fs::set_permissions(&dir.root, Permissions::from_mode(0o755)).unwrap();
        assert_eq!(prepare(&dir).unwrap(), Some(0o755));
        assert_eq!(mode(&dir.root), Some(0o700));
        write_private(&dir.tokens(), b"{}").unwrap();
        assert_eq!(mode(&dir.tokens()), Some(0o600));
    }
}
