//! The primary's health as the edge sees it: after a failure it is skipped (reads answer locally
//! at once, marked degraded) until a backoff passes, doubling to a cap; a success resets it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

#[derive(Debug, Default)]
struct State {
    retry_at: Option<Instant>,
    backoff: Duration,
    last_error: Option<String>,
}

#[derive(Debug, Default)]
pub struct Health {
    state: Mutex<State>,
}

impl Health {
    /// Worth trying now: never failed, or the backoff has passed.
    pub fn usable(&self) -> bool {
        self.state
            .lock()
            .unwrap()
            .retry_at
            .is_none_or(|t| Instant::now() >= t)
    }

    pub fn ok(&self) {
        let mut s = self.state.lock().unwrap();
        *s = State::default();
    }

    pub fn failed(&self, why: &str) {
        let mut s = self.state.lock().unwrap();
        s.backoff = if s.backoff.is_zero() {
            FIRST_BACKOFF
        } else {
            (s.backoff * 2).min(MAX_BACKOFF)
        };
        s.retry_at = Some(Instant::now() + s.backoff);
        s.last_error = Some(why.to_string());
    }

    pub fn last_error(&self) -> Option<String> {
        self.state.lock().unwrap().last_error.clone()
    }

    pub fn is_down(&self) -> bool {
        self.state.lock().unwrap().retry_at.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_backs_off_and_a_success_resets() {
        let h = Health::default();
        assert!(h.usable());
        h.failed("refused");
        assert!(!h.usable());
        assert_eq!(h.last_error().as_deref(), Some("refused"));
        h.ok();
        assert!(h.usable() && !h.is_down());
    }
}
