//! A path as Python's `os.path` reads it (MemPalace's own rules for naming a palace): absolute with
//! `..` collapsed lexically, and real (symlinks resolved for the part that exists).

use std::path::{Component, Path, PathBuf};

/// `os.path.abspath`: absolute and `..` collapsed lexically (no symlinks resolved).
pub fn absolute(p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `os.path.realpath` (non-strict): symlinks resolved for the part that exists, the rest appended.
pub fn realpath(p: &Path) -> PathBuf {
    let abs = absolute(p);
    let mut existing = abs.clone();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return abs,
        }
    }
}
