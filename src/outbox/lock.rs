//! One flusher (`<outbox>.flush.lock`) and one backfill (`<outbox>.backfill.lock`) per outbox:
//! pid locks (`crate::lock`) the kernel releases however the holder exits; their busy messages.

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

/// One backfill per outbox at a time, the feed's kind of lock (non-blocking: exit 6 at once,
/// naming the holder), held from the read of the palace to the last enqueue.
pub fn backfill_lock(outbox: &Path) -> Result<PidLock> {
    let path = beside(outbox, ".backfill.lock")?;
    match lock::try_acquire(&path, "outbox backfill") {
        Ok(Some(held)) => Ok(held),
        Ok(None) => Err(MptError::new(
            ErrorKind::Busy,
            format!(
                "another backfill is running ({}; lock {})",
                lock::describe_holder(&path),
                path.display()
            ),
        )
        .with_hint("let it finish: it reads the same palace and queues the same records; a run after it queues nothing twice")),
        Err(e) => Err(MptError::io(format!("locking {}", path.display()), &e)),
    }
}

/// The flush lock's path, its folder created beside the outbox.
fn prepare(outbox: &Path) -> Result<PathBuf> {
    beside(outbox, ".flush.lock")
}

/// A lock file beside the outbox, its folder created private as the outbox's is (store.rs
/// creates it the same way).
fn beside(outbox: &Path, suffix: &str) -> Result<PathBuf> {
    let path = super::store::sidecar(outbox, suffix);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
            .create(dir)
            .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    }
    Ok(path)
}
