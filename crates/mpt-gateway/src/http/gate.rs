//! The per-upstream limit on exchanges under way and its short queue: past both, a request is
//! answered 503 with `Retry-After` at once, never held while `serve`'s threads are all taken.

use std::sync::Arc;
use std::time::Duration;

/// Exchanges with the upstream at once (each holds a `serve` thread); more wait in the queue.
pub const MAX_IN_FLIGHT: usize = 32;
/// Requests that may wait for an exchange; past it, the answer is 503 at once.
pub const QUEUE: usize = 64;
/// How long a queued request waits before it gets its 503.
pub const QUEUE_WAIT: Duration = Duration::from_secs(5);

/// Every place is taken and the queue is full (or waited long enough).
#[derive(Debug)]
pub struct Full;

/// The per-upstream limit on exchanges under way, and its short queue.
pub struct Gate {
    permits: Arc<tokio::sync::Semaphore>,
    waiting: std::sync::atomic::AtomicUsize,
}

impl Default for Gate {
    fn default() -> Gate {
        Gate {
            permits: Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT)),
            waiting: Default::default(),
        }
    }
}

impl Gate {
    /// A place for one exchange, held until its reply's body ends: at once, after a wait in
    /// the queue, or [`Full`].
    pub async fn enter(&self) -> Result<tokio::sync::OwnedSemaphorePermit, Full> {
        use std::sync::atomic::Ordering::SeqCst;
        if let Ok(p) = Arc::clone(&self.permits).try_acquire_owned() {
            return Ok(p);
        }
        if self.waiting.fetch_add(1, SeqCst) >= QUEUE {
            self.waiting.fetch_sub(1, SeqCst);
            return Err(Full);
        }
        let got = tokio::time::timeout(QUEUE_WAIT, Arc::clone(&self.permits).acquire_owned()).await;
        self.waiting.fetch_sub(1, SeqCst);
        match got {
            Ok(Ok(p)) => Ok(p),
            _ => Err(Full),
        }
    }
}
