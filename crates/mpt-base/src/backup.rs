//! Backups beside a file: `<file>.mpt-backup-<unix seconds>[-<n>]`, created exclusively, so a
//! backup (a user's own among them) is never overwritten (`edge wire`, `feed install-helper`).

use std::path::{Path, PathBuf};

use crate::error::{MptError, Result};

/// A copy of `file` as `<file>.mpt-backup-<unix seconds>[-<n>]`, created exclusively: an existing
/// backup (the user's original among them) is never overwritten. Same mode as the file.
pub fn beside(file: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let fail = |e: &std::io::Error| MptError::io(format!("backing up {}", file.display()), e);
    let ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mode = std::fs::metadata(file)
        .map_err(|e| fail(&e))?
        .permissions()
        .mode()
        & 0o777;
    for n in 0u32.. {
        let name = match n {
            0 => format!("{}.mpt-backup-{ts}", file.display()),
            n => format!("{}.mpt-backup-{ts}-{n}", file.display()),
        };
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&name);
        match created {
            Ok(mut out) => {
                let mut src = std::fs::File::open(file).map_err(|e| fail(&e))?;
                std::io::copy(&mut src, &mut out)
                    .and_then(|_| out.sync_all())
                    .map_err(|e| fail(&e))?;
                return Ok(PathBuf::from(name));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(fail(&e)),
        }
    }
    unreachable!("u32 backups of one file in one second")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backup_gets_a_name_of_its_own_and_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("helper");
        std::fs::write(&f, "first").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o750)).unwrap();
        let a = beside(&f).unwrap();
        std::fs::write(&f, "second").unwrap();
        let b = beside(&f).unwrap();
        assert_ne!(a, b);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "first");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "second");
        assert!(
            a.to_string_lossy().contains("helper.mpt-backup-"),
            "{}",
            a.display()
        );
        let mode = std::fs::metadata(&b).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o750);
    }
}
