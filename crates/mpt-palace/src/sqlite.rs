//! Opening MemPalace's SQLite files strictly read-only. A WAL database whose `-shm` is missing (or
//! in a folder we may not write) is copied aside with its `-wal` and read there; never written.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use mpt_base::error::{ErrorKind, MptError, Result};

/// Runs `f` on a read-only view of the database at `path`; `None` when the file is absent.
pub fn with_reader<T>(
    path: &Path,
    f: impl Fn(&Connection) -> rusqlite::Result<T>,
) -> Result<Option<T>> {
    if !path.exists() {
        return Ok(None);
    }
    match open_read_only(path).and_then(|c| f(&c)) {
        Ok(v) => Ok(Some(v)),
        Err(first) => {
            let copy = PrivateCopy::new(path).map_err(|e| read_error(path, &e.to_string()))?;
            let c = Connection::open(&copy.db)
                .map_err(|e| read_error(path, &format!("{first}; then {e}")))?;
            f(&c)
                .map(Some)
                .map_err(|e| read_error(path, &format!("{first}; then {e}")))
        }
    }
}

/// Read-only, and `readonly_shm`: the `-shm` is mapped read-only too, so not even a reader's
/// read-mark is written (a plain read-only connection still writes into a WAL's `-shm`).
fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let c = Connection::open_with_flags(
        format!("file:{}?mode=ro&readonly_shm=1", uri_path(path)),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(std::time::Duration::from_millis(2000))?;
    Ok(c)
}

/// `path` percent-encoded for a `file:` URI.
pub fn uri_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for b in path.as_os_str().as_bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                out.push(*b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn read_error(path: &Path, msg: &str) -> MptError {
    MptError::new(
        ErrorKind::Io,
        format!("cannot read {}: {msg}", path.display()),
    )
    .with_hint("check that the file is a MemPalace database and readable by this user")
}

/// A throwaway copy of a database and its `-wal`, removed on drop.
struct PrivateCopy {
    dir: PathBuf,
    db: PathBuf,
}

impl PrivateCopy {
    fn new(src: &Path) -> std::io::Result<Self> {
        let dir =
            std::env::temp_dir().join(format!("mpt-sqlite-{}-{}", std::process::id(), nanos()));
        std::fs::create_dir_all(&dir)?;
        let db = dir.join("copy.sqlite3");
        std::fs::copy(src, &db)?;
        let wal = sidecar(src, "-wal");
        if wal.exists() {
            std::fs::copy(&wal, sidecar(&db, "-wal"))?;
        }
        Ok(PrivateCopy { dir, db })
    }
}

impl Drop for PrivateCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn sidecar(db: &Path, suffix: &str) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

pub(crate) fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}
