//! One flusher per outbox: the pid lock (`crate::lock`) on `<outbox>.flush.lock`, released by
//! the kernel when the holder exits, however it exits; the outbox's path and busy message.

use std::path::{Path, PathBuf};

use crate::error::{ErrorKind, MptError, Result};
use crate::lock::{self, PidLock};

/// What a flusher records in the lock beside its pid.
const WHAT: &str = "outbox flush";

/// Held while flushing (and while an operator retries or drops an op). Dropping it unlocks.
#[derive(Debug)]
pub struct FlushLock(PidLock);

impl FlushLock {
    pub fn path_for(outbox: &Path) -> PathBuf {
        super::store::sidecar(outbox, ".flush.lock")
    }

    /// The lock, or `None` at once when another process holds it.
    pub fn try_acquire(outbox: &Path) -> Result<Option<FlushLock>> {
        let path = prepare(outbox)?;
        lock::try_acquire(&path, WHAT)
            .map(|l| l.map(FlushLock))
            .map_err(|e| MptError::io(format!("locking {}", path.display()), &e))
    }

    /// The lock, waiting for the holder to finish.
    pub fn acquire(outbox: &Path) -> Result<FlushLock> {
        let path = prepare(outbox)?;
        lock::acquire(&path, WHAT)
            .map(FlushLock)
            .map_err(|e| MptError::io(format!("locking {}", path.display()), &e))
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
        let path = prepare(outbox)?;
        match lock::acquire_within(&path, WHAT, patience)
            .map_err(|e| MptError::io(format!("locking {}", path.display()), &e))?
        {
            Some(l) => Ok(FlushLock(l)),
            None => Err(busy(outbox, what)),
        }
    }

    /// The pid written by the current holder, when someone holds the lock (0: it wrote none).
    /// Read-only (`lock::holder`): asking never gets in a flusher's way.
    pub fn holder(outbox: &Path) -> Result<Option<u32>> {
        let path = FlushLock::path_for(outbox);
        lock::holder(&path)
            .map(|h| h.map(|h| h.pid.unwrap_or(0)))
            .map_err(|e| MptError::io(format!("reading {}", path.display()), &e))
    }

    pub fn path(&self) -> &Path {
        self.0.path()
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

/// The lock's path, its folder created beside the outbox, private as its folder is (store.rs
/// creates it the same way).
fn prepare(outbox: &Path) -> Result<PathBuf> {
    let path = FlushLock::path_for(outbox);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
            .create(dir)
            .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    }
    Ok(path)
}
