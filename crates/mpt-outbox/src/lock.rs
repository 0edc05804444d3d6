//! One flusher (`<outbox>.flush.lock`) and one backfill (`<outbox>.backfill.lock`) per outbox:
//! pid locks (`mpt_base::lock`) the kernel releases however the holder exits; the flusher's
//! heartbeat, a stuck flusher asked to let go (`<outbox>.flush.abandon`, never killed); their
//! busy messages.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_base::lock::{self, PidLock};

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

    /// The holder made progress (an op settled, a handshake done): see `stuck_for`.
    pub fn beat(&self) {
        self.0.beat();
    }

    /// How long the holder of the outbox's lock has made no progress (`None`: nobody holds it).
    pub fn stuck_for(outbox: &Path) -> Option<Duration> {
        let beat = lock::heartbeat(&FlushLock::path_for(outbox)).ok()??;
        Some(SystemTime::now().duration_since(beat).unwrap_or_default())
    }

    /// The lock, taken over from a holder whose heartbeat is older than `stale_after`: it is
    /// asked to abandon its drain (`asked_to_let_go`) and given `patience` to let go; it is never
    /// killed. A holder that is making progress is waited for with `wait`, else busy (exit 6).
    pub async fn acquire_or_take_over(
        outbox: &Path,
        stale_after: Duration,
        patience: Duration,
        wait: bool,
        what: &str,
    ) -> Result<FlushLock> {
        let mut asked: Option<(u32, Instant)> = None;
        loop {
            if let Some(l) = FlushLock::try_acquire(outbox)? {
                let _ = std::fs::remove_file(request_path(outbox));
                if let Some((pid, _)) = asked {
                    mpt_base::log_warn!(
                        "took the flush over from pid {pid}, which let go when asked"
                    );
                }
                return Ok(l);
            }
            let stuck = FlushLock::stuck_for(outbox).filter(|s| *s >= stale_after);
            match (asked, stuck, FlushLock::holder(outbox)?) {
                (None, Some(s), Some(pid)) if pid > 0 => {
                    mpt_base::log_warn!(
                        "the flusher pid {pid} made no progress for {} s (more than twice the primary's network deadline): asking it to abandon its drain",
                        s.as_secs()
                    );
                    ask_to_let_go(outbox, pid)?;
                    asked = Some((pid, Instant::now()));
                }
                (Some((pid, at)), _, Some(_)) if !wait && at.elapsed() > patience => {
                    return Err(MptError::new(
                        ErrorKind::Busy,
                        format!(
                            "the flusher pid {pid} made no progress and did not let go of {} when asked: {what} skipped",
                            FlushLock::path_for(outbox).display()
                        ),
                    )
                    .with_hint(format!(
                        "it was not killed: an older mpt cannot be asked; `kill {pid}` stops it (its ops are checked before they are resent)"
                    )));
                }
                (None, None, _) if !wait => return Err(busy(outbox, what)),
                _ => {}
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Resolves once another flusher asked this holder to let go (it found the heartbeat stale).
    pub async fn asked_to_let_go(&self) {
        let outbox = self.outbox();
        loop {
            if asked_of(&outbox, std::process::id()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Whether a live flusher waits to take over: the others leave the lock to it.
    pub fn taking_over(outbox: &Path) -> bool {
        std::fs::read_to_string(request_path(outbox))
            .ok()
            .and_then(|t| parse_request(&t))
            .is_some_and(|(_, by)| by != std::process::id() && alive(by))
    }

    fn outbox(&self) -> PathBuf {
        let p = self.0.path().as_os_str().to_string_lossy();
        PathBuf::from(p.strip_suffix(".flush.lock").unwrap_or(&p))
    }
}

/// `<outbox>.flush.abandon`: `<holder pid> <requester pid>`.
fn request_path(outbox: &Path) -> PathBuf {
    super::store::sidecar(outbox, ".flush.abandon")
}

fn ask_to_let_go(outbox: &Path, holder: u32) -> Result<()> {
    let path = request_path(outbox);
    std::fs::write(&path, format!("{holder} {}\n", std::process::id()))
        .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
}

fn parse_request(text: &str) -> Option<(u32, u32)> {
    let mut it = text.split_whitespace().map(|w| w.parse::<u32>().ok());
    Some((it.next()??, it.next()??))
}

/// Whether a live requester asked `holder` to let go.
fn asked_of(outbox: &Path, holder: u32) -> bool {
    std::fs::read_to_string(request_path(outbox))
        .ok()
        .and_then(|t| parse_request(&t))
        .is_some_and(|(of, by)| of == holder && alive(by))
}

fn alive(pid: u32) -> bool {
    mpt_base::sys::alive(pid)
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
