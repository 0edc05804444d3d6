//! `mempalace-pi-session`, the pi bridge's feeder, as another name of mpt: how mpt knows it was
//! started under that name, and the link `mpt feed install-helper` makes (never over a stranger).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::Serialize;

use mpt_base::config::Env;
use mpt_base::error::{MptError, Result};

/// The name the bridge runs by default (`MEMPALACE_FEED_BIN` unset).
pub const HELPER_NAME: &str = "mempalace-pi-session";

/// Whether `argv0` names the drop-in (a link to mpt called `mempalace-pi-session`).
pub fn invoked_as_helper(argv0: &OsStr) -> bool {
    Path::new(argv0).file_name() == Some(OsStr::new(HELPER_NAME))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Created,
    /// The link was already there and pointed at this mpt.
    Unchanged,
    /// `--force`: another link or file was there; a file is kept as a numbered backup.
    Replaced,
}

/// What was at the link's path before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Found {
    /// A regular file (the original helper, a script of the user's).
    File {
        bytes: u64,
    },
    Symlink {
        to: PathBuf,
    },
    Directory,
    /// A FIFO, a socket, a device.
    Other {
        what: String,
    },
}

impl Found {
    fn at(path: &Path) -> Option<Found> {
        use std::os::unix::fs::FileTypeExt;
        let meta = std::fs::symlink_metadata(path).ok()?;
        let t = meta.file_type();
        Some(if t.is_symlink() {
            Found::Symlink {
                to: std::fs::read_link(path).unwrap_or_default(),
            }
        } else if t.is_dir() {
            Found::Directory
        } else if t.is_file() {
            Found::File { bytes: meta.len() }
        } else {
            let what = if t.is_fifo() {
                "a named pipe"
            } else if t.is_socket() {
                "a socket"
            } else {
                "a device"
            };
            Found::Other { what: what.into() }
        })
    }

    pub fn describe(&self) -> String {
        match self {
            Found::File { bytes } => {
                format!("a file of {bytes} bytes that is not mpt (the original helper?)")
            }
            Found::Symlink { to } => format!("a link to {}", to.display()),
            Found::Directory => "a directory".into(),
            Found::Other { what } => what.clone(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Installed {
    pub path: PathBuf,
    pub target: PathBuf,
    pub action: Action,
    /// What was there before (`None`: nothing, or this mpt already).
    pub replaced: Option<Found>,
    /// Where a replaced regular file is kept (a name no other backup has).
    pub backup: Option<PathBuf>,
}

/// Makes `dir/mempalace-pi-session` a link to `exe`. Another file or link there is left alone
/// unless `force`: then a file is kept as a numbered backup (never over another backup) and a
/// link replaced. A directory or anything else is never moved.
pub fn install(dir: &Path, exe: &Path, force: bool) -> Result<Installed> {
    std::fs::create_dir_all(dir)
        .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    let path = dir.join(HELPER_NAME);
    let installed = |action, replaced, backup| Installed {
        path: path.clone(),
        target: exe.to_path_buf(),
        action,
        replaced,
        backup,
    };
    let Some(found) = Found::at(&path) else {
        link(exe, &path)?;
        return Ok(installed(Action::Created, None, None));
    };
    if same_file(&path, exe) {
        return Ok(installed(Action::Unchanged, None, None));
    }
    let what = found.describe();
    if matches!(found, Found::Directory | Found::Other { .. }) {
        return Err(MptError::refused(format!(
            "{} is {what}, not a program: mpt never moves {what} aside to make room for the helper, even with --force",
            path.display()
        ))
        .with_hint(
            "move it away yourself, then run `mpt feed install-helper` again (or link into another folder: `mpt feed install-helper DIR`)",
        ));
    }
    if !force {
        return Err(MptError::refused(format!(
            "{} is already {what}: the pi bridge would run it, not mpt",
            path.display()
        ))
        .with_hint(
            "`mpt feed install-helper --force` replaces it (a file is kept as <name>.mpt-backup-<time>, beside any earlier backup)",
        ));
    }
    let backup = match found {
        Found::File { .. } => Some(mpt_base::backup::beside(&path)?),
        _ => None,
    };
    remove(&path)?;
    link(exe, &path)?;
    Ok(installed(Action::Replaced, Some(found), backup))
}

fn link(exe: &Path, path: &Path) -> Result<()> {
    std::os::unix::fs::symlink(exe, path)
        .map_err(|e| MptError::io(format!("linking {}", path.display()), &e))
}

fn remove(path: &Path) -> Result<()> {
    std::fs::remove_file(path).map_err(|e| MptError::io(format!("removing {}", path.display()), &e))
}

/// Both name the same file once every link is followed.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// What the bridge would run: `MEMPALACE_FEED_BIN` (a path, or a name looked up on `PATH`),
/// default `mempalace-pi-session`; `None` when nothing by that name is found.
pub fn resolve_feed_bin(env: &Env) -> Option<PathBuf> {
    let name = feed_bin_name(env);
    if name.contains('/') {
        let p = PathBuf::from(name);
        return p.is_file().then_some(p);
    }
    mpt_base::which::which(name, env)
}

/// `MEMPALACE_FEED_BIN` as the bridge reads it (unset or empty: the default name).
pub fn feed_bin_name(env: &Env) -> &str {
    env.get("MEMPALACE_FEED_BIN")
        .filter(|v| !v.is_empty())
        .unwrap_or(HELPER_NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helper_name_is_read_off_argv0_whatever_the_folder() {
        assert!(invoked_as_helper(OsStr::new("mempalace-pi-session")));
        assert!(invoked_as_helper(OsStr::new(
            "/home/u/.local/bin/mempalace-pi-session"
        )));
        assert!(!invoked_as_helper(OsStr::new("/usr/bin/mpt")));
        assert!(!invoked_as_helper(OsStr::new("mempalace-pi-session.bak")));
    }

    /// A temp folder with a fake `mpt` to link to, and the folder the link goes in.
    fn exe_and_dir() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("mpt");
        std::fs::write(&exe, "binary").unwrap();
        let dir = tmp.path().join("bin");
        (tmp, exe, dir)
    }

    #[test]
    fn install_links_once_refuses_a_stranger_and_force_keeps_it() {
        let (_tmp, exe, dir) = exe_and_dir();
        let first = install(&dir, &exe, false).unwrap();
        assert_eq!(first.action, Action::Created);
        assert!(same_file(&first.path, &exe));
        assert_eq!(
            install(&dir, &exe, false).unwrap().action,
            Action::Unchanged
        );

        std::fs::remove_file(&first.path).unwrap();
        std::fs::write(&first.path, "#!/usr/bin/env python3\n").unwrap();
        let e = install(&dir, &exe, false).unwrap_err();
        assert_eq!(e.kind, mpt_base::error::ErrorKind::Refused);
        let forced = install(&dir, &exe, true).unwrap();
        assert_eq!(forced.action, Action::Replaced);
        assert_eq!(forced.replaced, Some(Found::File { bytes: 23 }));
        let bak = forced.backup.unwrap();
        assert_eq!(
            std::fs::read_to_string(&bak).unwrap(),
            "#!/usr/bin/env python3\n"
        );
        assert!(same_file(&forced.path, &exe));

        // A second stranger, forced: its backup is another, the first one kept.
        std::fs::remove_file(&forced.path).unwrap();
        std::fs::write(&forced.path, "second").unwrap();
        let again = install(&dir, &exe, true).unwrap();
        let bak2 = again.backup.unwrap();
        assert_ne!(bak2, bak);
        assert_eq!(
            std::fs::read_to_string(&bak).unwrap(),
            "#!/usr/bin/env python3\n"
        );
        assert_eq!(std::fs::read_to_string(&bak2).unwrap(), "second");

        // A link is replaced and named; nothing to back up.
        std::fs::remove_file(&again.path).unwrap();
        std::os::unix::fs::symlink("/elsewhere/feeder", &again.path).unwrap();
        let relinked = install(&dir, &exe, true).unwrap();
        assert_eq!(
            relinked.replaced,
            Some(Found::Symlink {
                to: "/elsewhere/feeder".into()
            })
        );
        assert_eq!(relinked.backup, None);
    }

    #[test]
    fn a_directory_at_the_target_is_called_one_and_never_moved() {
        let (_tmp, exe, dir) = exe_and_dir();
        let there = dir.join(HELPER_NAME);
        std::fs::create_dir_all(there.join("inside")).unwrap();
        for force in [false, true] {
            let e = install(&dir, &exe, force).unwrap_err();
            assert_eq!(e.kind, mpt_base::error::ErrorKind::Refused);
            assert!(e.message.contains("is a directory"), "{}", e.message);
            assert!(!e.message.contains("file"), "{}", e.message);
            assert!(there.join("inside").is_dir(), "left where it was");
        }
    }

    #[test]
    fn the_feed_bin_resolves_by_path_or_name() {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join(HELPER_NAME);
        std::fs::write(&bin, "").unwrap();
        std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let path = tmp.path().display().to_string();
        let with =
            |pairs: &[(&str, &str)]| resolve_feed_bin(&Env::from_pairs(pairs.iter().copied()));
        assert_eq!(with(&[("PATH", &path)]), Some(bin.clone()));
        assert_eq!(
            with(&[("PATH", &path), ("MEMPALACE_FEED_BIN", "")]),
            Some(bin.clone())
        );
        assert_eq!(
            with(&[("MEMPALACE_FEED_BIN", bin.to_str().unwrap())]),
            Some(bin.clone())
        );
        assert_eq!(with(&[("PATH", "/nonexistent")]), None);
        assert_eq!(
            with(&[("PATH", &path), ("MEMPALACE_FEED_BIN", "other-feeder")]),
            None
        );
    }
}
