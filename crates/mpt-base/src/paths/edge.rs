//! The edge's folder and every file in it (owner lock, log and socket name, pull record, the
//! outbox by default): `~/.mempalace/edge`, else on a read-only HOME `<palace>/.mpt-edge`.
//!
//! A container often mounts HOME read-only and only the palace on a volume. The state then lives
//! inside the palace's folder (MemPalace's own scans pass over dot-folders): the palace's parent
//! may be the container's own layer, and a runtime folder is a tmpfs, where queued writes would
//! die with the container. Every process on the machine sees the same HOME, so all agree.

use std::path::{Path, PathBuf};

use crate::config::{Config, Env};
use crate::error::Result;

/// The state folder inside a palace, for a HOME that cannot be written.
pub const IN_PALACE: &str = ".mpt-edge";

/// `<key>.<suffix>` in the state folder `dir`, the key naming `palace` (the first 8 bytes of the
/// sha256 of its real path, in hex): the owner's lock, log and socket name, the pull's record.
pub fn palace_file(dir: &Path, palace: &Path, suffix: &str) -> PathBuf {
    dir.join(format!("{}.{suffix}", palace_key(palace)))
}

/// The name every per-palace file of the edge starts with.
pub fn palace_key(palace: &Path) -> String {
    use sha2::{Digest, Sha256};
    let real = super::real::realpath(palace);
    crate::hex::hex(&Sha256::digest(real.to_string_lossy().as_bytes())[..8])
}

/// Where the outbox lives: `MPT_OUTBOX`, else `outbox` in the config file, else
/// `outbox.sqlite3` in the edge's state folder (`~/.mempalace/edge`, under the MemPalace home
/// the edge-mode volume persists; on a read-only HOME `<palace>/.mpt-edge`: `EdgeDir`). The
/// palace is `palace`, only asked for when HOME cannot be written (the caller gives the one
/// MemPalace would pick, `edge_outbox` in mpt-palace): the edge, `mpt outbox` and doctor resolve
/// the same file.
pub fn outbox(
    env: &Env,
    config: &Config,
    palace: impl FnOnce() -> Result<PathBuf>,
) -> Result<PathBuf> {
    if let Some(p) = crate::config::values::env_path(env, "MPT_OUTBOX")? {
        return Ok(p);
    }
    if let Some(p) = &config.file.outbox {
        return Ok(p.clone());
    }
    let state = EdgeDir::resolve(env, palace)?;
    Ok(state.path.join("outbox.sqlite3"))
}

/// Which of the two places holds the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// `~/.mempalace/edge`.
    Home,
    /// `<palace>/.mpt-edge`: HOME's folder cannot be written.
    Palace,
    /// Neither can be written: `path` is HOME's, and whatever needs it fails naming it.
    Nowhere,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeDir {
    pub path: PathBuf,
    pub place: Place,
    /// `~/.mempalace/edge`, whichever place was chosen (for the messages that explain why).
    pub home_dir: PathBuf,
}

impl EdgeDir {
    /// The state folder for `palace`: HOME's when it can be written, else the palace's own.
    pub fn for_palace(home: &Path, palace: &Path) -> EdgeDir {
        let home_dir = home_dir(home);
        if writable(&home_dir) {
            return EdgeDir {
                path: home_dir.clone(),
                place: Place::Home,
                home_dir,
            };
        }
        let beside = palace.join(IN_PALACE);
        let (path, place) = if writable(&beside) {
            (beside, Place::Palace)
        } else {
            (home_dir.clone(), Place::Nowhere)
        };
        EdgeDir {
            path,
            place,
            home_dir,
        }
    }

    /// The state folder as a command resolves it: HOME's, else that of the palace `palace`
    /// gives (only asked for when HOME cannot be written).
    pub fn resolve(env: &Env, palace: impl FnOnce() -> Result<PathBuf>) -> Result<EdgeDir> {
        let home = env.home()?;
        if writable(&home_dir(&home)) {
            return Ok(EdgeDir::for_palace(&home, Path::new("/")));
        }
        Ok(EdgeDir::for_palace(&home, &palace()?))
    }

    /// Why the state is not in HOME, for the one warning the edge gives (`None`: it is).
    pub fn note(&self) -> Option<String> {
        match self.place {
            Place::Home => None,
            Place::Palace => Some(format!(
                "{} cannot be written (a read-only HOME?): the edge keeps its state and outbox in {}, on the palace's own volume",
                self.home_dir.display(),
                self.path.display()
            )),
            Place::Nowhere => Some(format!(
                "neither {} nor the palace's {IN_PALACE} folder can be written: the edge has nowhere to keep its state",
                self.home_dir.display()
            )),
        }
    }
}

fn home_dir(home: &Path) -> PathBuf {
    home.join(".mempalace").join("edge")
}

/// Whether `dir` could be created and written: the nearest folder that exists (itself or an
/// ancestor) is one we may write in, on a file system mounted writable. `access(2)` answers
/// both, for root too (EROFS).
pub fn writable(dir: &Path) -> bool {
    let mut at = dir;
    loop {
        match std::fs::metadata(at) {
            Ok(m) => return m.is_dir() && may_write(at),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match at.parent() {
                Some(up) => at = up,
                None => return false,
            },
            Err(_) => return false,
        }
    }
}

fn may_write(dir: &Path) -> bool {
    use rustix::fs::Access;
    rustix::fs::access(dir, Access::WRITE_OK | Access::EXEC_OK).is_ok()
}

/// Where the owner of one palace lives: `<state dir>/<sha256(realpath(palace))[:16]>.*` (the
/// state dir is `~/.mempalace/edge`, or `<palace>/.mpt-edge` on a read-only HOME),
/// its socket in a short private folder (`socket_path`) whatever the HOME's length.
#[derive(Debug, Clone)]
pub struct OwnerPaths {
    pub socket: PathBuf,
    pub lock: PathBuf,
    pub log: PathBuf,
    /// Held (with its pid) by an owner that stopped serving and lingers to flush the outbox.
    pub linger: PathBuf,
}

impl OwnerPaths {
    /// `env`: the environment snapshot (`Env`) whose `XDG_RUNTIME_DIR` places the socket.
    pub fn new(env: &Env, home: &Path, palace: &Path) -> OwnerPaths {
        OwnerPaths::in_dir(env, &EdgeDir::for_palace(home, palace).path, palace)
    }

    /// The owner's paths in the state folder `dir` (`EdgeDir`, resolved once by the caller).
    pub fn in_dir(env: &Env, dir: &Path, palace: &Path) -> OwnerPaths {
        let key = palace_key(palace);
        OwnerPaths {
            socket: super::runtime::socket_path(env, &format!("{key}.sock")),
            lock: palace_file(dir, palace, "owner.lock"),
            log: palace_file(dir, palace, "owner.log"),
            linger: palace_file(dir, palace, "linger.lock"),
        }
    }
}

/// Where a palace's pulls keep their record and lock: `<key>.pull.json` and `<key>.pull.lock`
/// in the edge's state folder, beside the owner's `<key>.owner.lock`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullPaths {
    pub record: PathBuf,
    pub lock: PathBuf,
}

impl PullPaths {
    /// The paths for `palace` in the state folder `dir` (resolved once by the caller).
    pub fn in_dir(dir: &Path, palace: &Path) -> PullPaths {
        PullPaths {
            record: palace_file(dir, palace, "pull.json"),
            lock: palace_file(dir, palace, "pull.lock"),
        }
    }

    /// The paths beside an owner's lock (`<state dir>/<key>.owner.lock`), an owner's own.
    pub fn beside(owner_lock: &Path) -> PullPaths {
        let name = owner_lock
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let key = name.strip_suffix(".owner.lock").unwrap_or(&name);
        PullPaths {
            record: owner_lock.with_file_name(format!("{key}.pull.json")),
            lock: owner_lock.with_file_name(format!("{key}.pull.lock")),
        }
    }

    /// The paths for `palace` in this HOME's state folder.
    pub fn new(home: &Path, palace: &Path) -> PullPaths {
        PullPaths::in_dir(&EdgeDir::for_palace(home, palace).path, palace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn home_first_then_the_palace_then_nowhere() {
        let t = tempfile::tempdir().unwrap();
        let (home, palace) = (t.path().join("home"), t.path().join("vol/palace"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&palace).unwrap();
        let s = EdgeDir::for_palace(&home, &palace);
        assert_eq!(
            (s.place, s.path),
            (Place::Home, home.join(".mempalace/edge"))
        );
        assert_eq!(s.home_dir, home.join(".mempalace/edge"));
        // Root writes anywhere a mode forbids: the rest is for everyone else (the tests in
        // tests/it use a read-only mount, which binds root too).
        if crate::sys::euid() == 0 {
            return;
        }
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o555)).unwrap();
        let s = EdgeDir::for_palace(&home, &palace);
        assert_eq!((s.place, &s.path), (Place::Palace, &palace.join(IN_PALACE)));
        assert!(s.note().unwrap().contains(".mpt-edge"));
        std::fs::set_permissions(&palace, std::fs::Permissions::from_mode(0o555)).unwrap();
        let s = EdgeDir::for_palace(&home, &palace);
        assert_eq!(
            (s.place, s.path),
            (Place::Nowhere, home.join(".mempalace/edge"))
        );
        for d in [&home, &palace] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    #[test]
    fn a_missing_folder_is_judged_by_its_nearest_ancestor() {
        let t = tempfile::tempdir().unwrap();
        assert!(writable(&t.path().join("a/b/c")));
        let file = t.path().join("f");
        std::fs::write(&file, "").unwrap();
        assert!(
            !writable(&file.join("below")),
            "a file is no folder to create in"
        );
    }
}
