//! How long a flush waits: the backoff between transient failures, a gateway's `Retry-After`
//! within the deadline, and the pause that probes `/healthz` so a heal ends it at once.

use std::time::Duration;

use super::{Run, unless_taken_over};

/// The longest `Retry-After` (a gateway's 429) a flush without a deadline waits out; past it the
/// drain ends (exit 7) and the op waits, unfailed, for the next flush.
const RATE_WAIT_CAP: Duration = Duration::from_secs(30);

impl Run<'_> {
    /// Exponential: 0.5 s doubled per consecutive transient failure, capped at 30 s.
    pub(super) fn backoff(&self) -> Duration {
        let ms = 500u64.saturating_mul(1 << self.streak.min(6));
        Duration::from_millis(ms.min(30_000))
    }

    pub(super) fn time_left(&self) -> Duration {
        self.opts
            .deadline
            .map_or(Duration::ZERO, |d| d.saturating_sub(self.started.elapsed()))
    }

    /// Waits out a gateway's `Retry-After`: within the deadline, or without one when it is at
    /// most `RATE_WAIT_CAP`; false = the drain ends here.
    pub(super) async fn wait_out(&self, d: Duration) -> bool {
        let fits = match self.opts.deadline {
            Some(_) => self.time_left() > d,
            None => d <= RATE_WAIT_CAP,
        };
        if fits {
            tokio::time::sleep(d).await;
        }
        fits
    }

    /// Sleeps `d` if the deadline leaves room for it and another try; false = give up now.
    /// After a network failure the pause probes `/healthz` every 2 s: the first answer ends it
    /// and the backoff (a heal is seen within seconds, not after a 30 s backoff).
    pub(super) async fn pause(&mut self, d: Duration) -> bool {
        if self.time_left() <= d {
            return false;
        }
        let until = tokio::time::Instant::now() + d;
        let lock = self.lock;
        let sleep = |t| async move {
            unless_taken_over(lock, tokio::time::sleep_until(t))
                .await
                .is_some()
        };
        if !self.unreachable {
            return sleep(until).await;
        }
        loop {
            let next = tokio::time::Instant::now() + mpt_mcp::liveness::PROBE_EVERY;
            if next >= until {
                return sleep(until).await;
            }
            if !sleep(next).await {
                return false;
            }
            if self.client.probe().await == Some(true) {
                self.streak = 0;
                self.unreachable = false;
                // What this run backed off is due again (the primary answers).
                if self.store.reset_backoff().is_err() {
                    return false;
                }
                return true;
            }
        }
    }
}
