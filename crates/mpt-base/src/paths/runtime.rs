//! Where mpt's sockets live: a short private folder (`$XDG_RUNTIME_DIR/mpt`, else
//! `/tmp/mpt-<uid>`), so a socket path fits `sun_path` whatever HOME's length.

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::config::Env;

/// A socket path is at most 107 bytes (`sun_path` holds 108 with its NUL); a base folder this
/// short leaves room for `/mpt/<16 hex>.sock`.
const MAX_SOCKET_BASE: usize = 80;

/// The effective uid: whose private folders these are.
pub fn euid() -> u32 {
    crate::sys::euid()
}

/// The folders an owner's socket may live in, preferred first: `$XDG_RUNTIME_DIR/mpt` when that
/// is a short private folder of ours, then `/tmp/mpt-<uid>` (`XDG_RUNTIME_DIR` read from the
/// snapshot `env`, as every setting is).
fn socket_dirs(env: &Env) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(x) = env.get("XDG_RUNTIME_DIR").map(PathBuf::from)
        && x.is_absolute()
        && x.as_os_str().len() <= MAX_SOCKET_BASE
        && is_private(&x)
    {
        dirs.push(x.join("mpt"));
    }
    dirs.push(PathBuf::from(format!("/tmp/mpt-{}", euid())));
    dirs
}

/// Where the socket called `name` lives: where one already is (an owner started with another
/// environment put it there), else the preferred folder.
pub fn socket_path(env: &Env, name: &str) -> PathBuf {
    let dirs = socket_dirs(env);
    dirs.iter()
        .map(|d| d.join(name))
        .find(|p| {
            std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_socket())
                && p.parent().is_some_and(is_private)
        })
        .unwrap_or_else(|| dirs[0].join(name))
}

/// True when `dir` is a real folder (not a symlink) owned by us that no one else may enter.
pub fn is_private(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| {
        m.file_type().is_dir() && m.uid() == euid() && m.permissions().mode() & 0o077 == 0
    })
}
