//! `mempalace-pi-session`, the pi bridge's feeder, as another name of mpt: how mpt knows it was
//! started under that name, and the link `mpt feed install-helper` makes (never over a stranger).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Env;
use crate::error::{MptError, Result};

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
    /// `--force`: another link or file was there; a file is kept as `<path>.bak`.
    Replaced,
}

#[derive(Debug, Clone, Serialize)]
pub struct Installed {
    pub path: PathBuf,
    pub target: PathBuf,
    pub action: Action,
    /// Where a replaced regular file was moved.
    pub backup: Option<PathBuf>,
}

/// Makes `dir/mempalace-pi-session` a link to `exe`. Another file or link there is left alone
/// unless `force` (then a file is kept as `.bak` and a link replaced).
pub fn install(dir: &Path, exe: &Path, force: bool) -> Result<Installed> {
    std::fs::create_dir_all(dir)
        .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    let path = dir.join(HELPER_NAME);
    let installed = |action, backup| Installed {
        path: path.clone(),
        target: exe.to_path_buf(),
        action,
        backup,
    };
    let existing = std::fs::symlink_metadata(&path).ok();
    let mut backup = None;
    if let Some(meta) = &existing {
        if same_file(&path, exe) {
            return Ok(installed(Action::Unchanged, None));
        }
        if !force {
            let what = if meta.file_type().is_symlink() {
                format!(
                    "a link to {}",
                    std::fs::read_link(&path).unwrap_or_default().display()
                )
            } else {
                "a file that is not mpt (the original helper?)".into()
            };
            return Err(MptError::refused(format!(
                "{} is already {what}: the pi bridge would run it, not mpt",
                path.display()
            ))
            .with_hint("`mpt feed install-helper --force` replaces it (a file is kept as .bak)"));
        }
        if meta.file_type().is_symlink() {
            remove(&path)?;
        } else {
            let bak = path.with_extension("bak");
            std::fs::rename(&path, &bak)
                .map_err(|e| MptError::io(format!("moving {} aside", path.display()), &e))?;
            backup = Some(bak);
        }
    }
    std::os::unix::fs::symlink(exe, &path)
        .map_err(|e| MptError::io(format!("linking {}", path.display()), &e))?;
    let action = if existing.is_some() {
        Action::Replaced
    } else {
        Action::Created
    };
    Ok(installed(action, backup))
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
    crate::which::which(name, env)
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

    #[test]
    fn install_links_once_refuses_a_stranger_and_force_keeps_it() {
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("mpt");
        std::fs::write(&exe, "binary").unwrap();
        let dir = tmp.path().join("bin");
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
        assert_eq!(e.kind, crate::error::ErrorKind::Refused);
        let forced = install(&dir, &exe, true).unwrap();
        assert_eq!(forced.action, Action::Replaced);
        let bak = forced.backup.unwrap();
        assert_eq!(
            std::fs::read_to_string(bak).unwrap(),
            "#!/usr/bin/env python3\n"
        );
        assert!(same_file(&forced.path, &exe));
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
