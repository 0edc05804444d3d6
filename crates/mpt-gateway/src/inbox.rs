//! `PUT /inbox/<path>`: one staged transcript written under the device's `mine.source_prefix` on
//! the primary host (no ssh between a device and it): the path held inside the prefix (no `..`,
//! no symlink in the way), the file written whole by a rename, capped per file and per device.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::decide::policy::MineScope;

/// A file at most this big unless the policy says less (`mine.max_file_bytes`); the body's own cap
/// (16 MiB) is the ceiling.
pub const DEFAULT_MAX_FILE: u64 = 8 << 20;
/// A device's inbox at most this big in all unless the policy says otherwise (`mine.max_bytes`).
pub const DEFAULT_MAX_TOTAL: u64 = 1 << 30;
/// At most this many folders deep.
const MAX_DEPTH: usize = 6;

/// What an upload did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Stored {
    /// Where it is on the primary host (what a scoped mine names).
    pub path: PathBuf,
    pub bytes: u64,
    pub sha256: String,
    /// `false`: an identical file was there already (a retry), nothing written.
    pub written: bool,
}

/// Why an upload was refused: its rule and its HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    pub rule: &'static str,
    pub status: u16,
}

const fn refused(rule: &'static str, status: u16) -> Refused {
    Refused { rule, status }
}

/// The components of a path under the prefix: 1 to 6 names of letters, digits and `._-+@=,`, none
/// starting with `.` (in-flight temps and `..`), none empty; anything else could be read two ways.
pub fn components(rel: &str) -> Result<Vec<&str>, Refused> {
    let bad = refused("inbox:bad_path", 400);
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.is_empty() || parts.len() > MAX_DEPTH || rel.len() > 1024 {
        return Err(bad);
    }
    for p in &parts {
        let ok = !p.is_empty()
            && p.len() <= 255
            && !p.starts_with('.')
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-+@=,".contains(&b));
        if !ok {
            return Err(bad);
        }
    }
    Ok(parts)
}

/// The caps of a device's inbox: per file, and in all.
pub fn caps(scope: &MineScope) -> (u64, u64) {
    (
        scope.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE),
        scope.max_bytes.unwrap_or(DEFAULT_MAX_TOTAL),
    )
}

/// Writes `bytes` at `rel` under `scope`'s prefix: folders made (0700) where missing, a symlink or
/// a non-folder in the way refused, an identical file left as it is, any other replaced whole.
pub fn store(scope: &MineScope, rel: &str, bytes: &[u8]) -> Result<Stored, Refused> {
    let parts = components(rel)?;
    let (max_file, max_total) = caps(scope);
    if bytes.len() as u64 > max_file {
        return Err(refused("inbox:file_too_large", 413));
    }
    let broken = refused("inbox:write_failed", 500);
    let prefix = Path::new(&scope.source_prefix);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(prefix)
        .map_err(|_| broken)?;
    let mut dir = std::fs::canonicalize(prefix).map_err(|_| broken)?;
    let (name, folders) = parts.split_last().ok_or(refused("inbox:bad_path", 400))?;
    for f in folders {
        dir.push(f);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(refused("inbox:path_blocked", 409)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::DirBuilder::new()
                    .mode(0o700)
                    .create(&dir)
                    .map_err(|_| broken)?;
            }
            Err(_) => return Err(broken),
        }
    }
    let target = dir.join(name);
    let sha256 = mpt_base::hex::hex(&Sha256::digest(bytes));
    let before = match std::fs::symlink_metadata(&target) {
        Ok(m) if m.is_file() => {
            let old = std::fs::read(&target).map_err(|_| broken)?;
            if mpt_base::hex::hex(&Sha256::digest(&old)) == sha256 {
                return Ok(Stored {
                    path: target,
                    bytes: bytes.len() as u64,
                    sha256,
                    written: false,
                });
            }
            m.len()
        }
        Ok(_) => return Err(refused("inbox:path_blocked", 409)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(_) => return Err(broken),
    };
    let used = usage(Path::new(&scope.source_prefix));
    if used.saturating_sub(before) + bytes.len() as u64 > max_total {
        return Err(refused("inbox:quota", 507));
    }
    // Written beside it under a dot name (never mined, never served) and renamed over it: a
    // reader sees the old file or the new one, never half of one.
    let temp = dir.join(format!(".{name}.mpt-{}", std::process::id()));
    let wrote = (|| -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&temp, &target)
    })();
    if wrote.is_err() {
        let _ = std::fs::remove_file(&temp);
        return Err(broken);
    }
    Ok(Stored {
        path: target,
        bytes: bytes.len() as u64,
        sha256,
        written: true,
    })
}

/// The bytes of the regular files under `dir` (symlinks not followed).
fn usage(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => usage(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(dir: &Path) -> MineScope {
        MineScope {
            source_prefix: dir.join("inbox/lap").to_string_lossy().into(),
            max_file_bytes: Some(100),
            max_bytes: Some(110),
        }
    }

    #[test]
    fn only_plain_names_inside_the_prefix() {
        for bad in [
            "",
            "/abs",
            "a//b",
            "../x",
            "a/../b",
            ".hidden",
            "a/.b",
            "a\0b",
            "a b",
            "a%2fb",
            "a\\b",
            "1/2/3/4/5/6/7",
        ] {
            assert!(components(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            components("pi/2026-12-06T03-00-00_a1b2.md").unwrap(),
            ["pi", "2026-12-06T03-00-00_a1b2.md"]
        );
    }

    #[test]
    fn written_whole_a_retry_is_a_no_op_and_the_caps_hold() {
        let root = tempfile::tempdir().unwrap();
        let s = scope(root.path());
        let first = store(&s, "pi/a.md", b"hello").unwrap();
        assert!(first.written);
        assert_eq!(std::fs::read(&first.path).unwrap(), b"hello");
        let again = store(&s, "pi/a.md", b"hello").unwrap();
        assert!(!again.written, "identical: nothing written");
        assert!(store(&s, "pi/b.md", b"hello, longer").unwrap().written);
        assert_eq!(
            store(&s, "pi/big.md", &[b'x'; 101]).unwrap_err().rule,
            "inbox:file_too_large"
        );
        assert_eq!(
            store(&s, "pi/c.md", &[b'x'; 100]).unwrap_err().rule,
            "inbox:quota",
            "5 + 13 + 100 bytes past the device's 110 in all"
        );
        // No temp left beside them.
        let names: Vec<_> = std::fs::read_dir(first.path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    }

    #[test]
    fn a_symlink_in_the_way_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let s = scope(root.path());
        let prefix = PathBuf::from(&s.source_prefix);
        std::fs::create_dir_all(&prefix).unwrap();
        let outside = root.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, prefix.join("pi")).unwrap();
        assert_eq!(
            store(&s, "pi/a.md", b"x").unwrap_err().rule,
            "inbox:path_blocked"
        );
        std::os::unix::fs::symlink(outside.join("f"), prefix.join("f.md")).unwrap();
        assert_eq!(
            store(&s, "f.md", b"x").unwrap_err().rule,
            "inbox:path_blocked"
        );
        assert!(std::fs::read_dir(&outside).unwrap().next().is_none());
    }
}
