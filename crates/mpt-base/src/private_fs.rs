//! mpt's private places: the edge's state folder (0700; where: `crate::paths::edge`) and the locks
//! in it, the owner log (0600), the short socket folder (where: `crate::paths::runtime`) made and
//! checked ours, and a private file written whole.

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use crate::error::{MptError, Result};
use crate::lock::PidLock;
use crate::paths::runtime::euid;
pub use crate::paths::runtime::{is_private, socket_path};

/// Creates `dir` (and missing parents) mode 0700; an existing one of ours open to others is
/// tightened to 0700.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    tighten(dir, 0o700)
}

/// Takes the pid lock at `path` in the edge's private folder, recording `what` (`None`: another
/// process holds it). Its pid is for `mpt edge status` and for stopping it by pid.
pub fn take_pid_lock(path: &Path, what: &str) -> Result<Option<PidLock>> {
    if let Some(d) = path.parent() {
        create_private_dir(d).map_err(|e| MptError::io(format!("creating {}", d.display()), &e))?;
    }
    crate::lock::try_acquire(path, what)
        .map_err(|e| MptError::io(format!("locking {}", path.display()), &e))
}

/// Opens (creating) the owner's log for appending, mode 0600; an existing one open to others is
/// tightened (it holds wing and room names and the child's stderr).
pub fn open_private_log(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    tighten(path, 0o600)?;
    Ok(file)
}

fn tighten(path: &Path, mode: u32) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.uid() == euid() && meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(path, Permissions::from_mode(mode))?;
    }
    Ok(())
}

/// Creates the socket's folder 0700 if missing and refuses (exit 4) one that is not ours, is a
/// symlink, or that others may enter: whoever controls it could answer in the owner's place.
pub fn prepare_socket_dir(socket: &Path) -> Result<()> {
    let Some(dir) = socket.parent() else {
        return Ok(());
    };
    match DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(MptError::io(format!("creating {}", dir.display()), &e)),
    }
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| MptError::io(format!("reading {}", dir.display()), &e))?;
    let why = if meta.file_type().is_symlink() {
        Some("it is a symlink".to_string())
    } else if !meta.is_dir() {
        Some("it is not a folder".to_string())
    } else if meta.uid() != euid() {
        Some(format!("it belongs to uid {}, not to us", meta.uid()))
    } else {
        None
    };
    if let Some(why) = why {
        return Err(MptError::refused(format!(
            "the edge's socket folder {} is not ours ({why}): whoever controls it could answer in the edge owner's place",
            dir.display()
        ))
        .with_hint(format!(
            "remove it if it is stale (rm -r {}), or set XDG_RUNTIME_DIR to a private folder of yours",
            dir.display()
        )));
    }
    tighten(dir, 0o700).map_err(|e| MptError::io(format!("making {} private", dir.display()), &e))
}

/// Replaces `path` with `bytes` at once (a temp file, fsynced, renamed): mode 0600.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let written = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.set_permissions(Permissions::from_mode(0o600))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_folders_and_logs_are_private_and_loose_ones_are_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/edge");
        create_private_dir(&dir).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        let log = dir.join("x.owner.log");
        std::fs::write(&log, "old").unwrap();
        std::fs::set_permissions(&log, Permissions::from_mode(0o644)).unwrap();
        open_private_log(&log).unwrap();
        assert_eq!(mode(&log), 0o600);
        std::fs::set_permissions(&dir, Permissions::from_mode(0o755)).unwrap();
        create_private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
    }

    #[test]
    fn a_symlinked_socket_folder_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = prepare_socket_dir(&link.join("k.sock")).unwrap_err();
        assert_eq!(e.exit().code(), 4, "{}", e.message);
        assert!(e.message.contains("symlink"), "{}", e.message);
        prepare_socket_dir(&real.join("k.sock")).unwrap();
        assert!(is_private(&real));
    }
}
