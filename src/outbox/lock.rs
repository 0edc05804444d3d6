//! One flusher per outbox: an exclusive lock on `<outbox>.flush.lock` (std `File::try_lock`),
//! released by the kernel when the holder exits, however it exits. Holds the holder's pid.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::error::{ErrorKind, MptError, Result};

/// Held while flushing (and while an operator retries or drops an op). Dropping it unlocks.
#[derive(Debug)]
pub struct FlushLock {
    _file: File,
    path: PathBuf,
}

impl FlushLock {
    pub fn path_for(outbox: &Path) -> PathBuf {
        super::store::sidecar(outbox, ".flush.lock")
    }

    /// The lock, or `None` at once when another process holds it.
    pub fn try_acquire(outbox: &Path) -> Result<Option<FlushLock>> {
        let (path, mut file) = open(outbox)?;
        match file.try_lock() {
            Ok(()) => {
                stamp(&mut file);
                Ok(Some(FlushLock { _file: file, path }))
            }
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => {
                Err(MptError::io(format!("locking {}", path.display()), &e))
            }
        }
    }

    /// The lock, waiting for the holder to finish.
    pub fn acquire(outbox: &Path) -> Result<FlushLock> {
        let (path, mut file) = open(outbox)?;
        file.lock()
            .map_err(|e| MptError::io(format!("locking {}", path.display()), &e))?;
        stamp(&mut file);
        Ok(FlushLock { _file: file, path })
    }

    /// `try_acquire`, or the busy error (exit 6) naming the holder.
    pub fn acquire_or_busy(outbox: &Path, what: &str) -> Result<FlushLock> {
        match FlushLock::try_acquire(outbox)? {
            Some(l) => Ok(l),
            None => Err(busy(outbox, what)),
        }
    }

    /// The lock once a running flusher lets go of it (an edge's flusher holds it a moment at a
    /// time), within `patience`; else the busy error (exit 6). For operator actions.
    pub fn acquire_within(
        outbox: &Path,
        patience: std::time::Duration,
        what: &str,
    ) -> Result<FlushLock> {
        let until = std::time::Instant::now() + patience;
        loop {
            if let Some(l) = FlushLock::try_acquire(outbox)? {
                return Ok(l);
            }
            if std::time::Instant::now() >= until {
                return Err(busy(outbox, what));
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// The pid written by the current holder, when someone holds the lock.
    pub fn holder(outbox: &Path) -> Result<Option<u32>> {
        let path = FlushLock::path_for(outbox);
        if !path.exists() {
            return Ok(None);
        }
        // Read-only: a shared lock is refused while a flusher holds the exclusive one; nothing
        // is written (a full disk must not stop `mpt outbox` from reading).
        let mut file = File::open(&path)
            .map_err(|e| MptError::io(format!("opening {}", path.display()), &e))?;
        match file.try_lock_shared() {
            Ok(()) => Ok(None),
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                Ok(Some(text.trim().parse().unwrap_or(0)))
            }
            Err(TryLockError::Error(e)) => {
                Err(MptError::io(format!("locking {}", path.display()), &e))
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

pub fn busy(outbox: &Path, what: &str) -> MptError {
    let pid = FlushLock::holder(outbox).ok().flatten();
    MptError::new(
        ErrorKind::Busy,
        format!(
            "another flusher holds {}{}: {what} skipped",
            FlushLock::path_for(outbox).display(),
            pid.filter(|p| *p > 0)
                .map(|p| format!(" (pid {p})"))
                .unwrap_or_default()
        ),
    )
    .with_hint("not an error for a timer; `mpt outbox flush --wait` waits for it")
}

fn open(outbox: &Path) -> Result<(PathBuf, File)> {
    let path = FlushLock::path_for(outbox);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Beside the outbox, private as its folder is (store.rs creates it the same way).
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
            .create(dir)
            .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .map_err(|e| MptError::io(format!("opening {}", path.display()), &e))?;
    Ok((path, file))
}

/// Records our pid for `mpt outbox` to show (best effort: the lock itself is what counts).
fn stamp(file: &mut File) {
    let _ = file.set_len(0);
    let _ = file.seek(SeekFrom::Start(0));
    let _ = writeln!(file, "{}", std::process::id());
}
