//! The primary's health as the edge sees it: after a failure it is skipped (reads answer locally
//! at once, marked degraded) until a backoff passes, doubling to a cap; a gateway's 429 pauses
//! it for its Retry-After; a success resets it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

#[derive(Debug, Default)]
struct State {
    retry_at: Option<Instant>,
    backoff: Duration,
    last_error: Option<String>,
    /// The pause is a gateway's 429, not an outage.
    rate_limited: bool,
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
        s.rate_limited = false;
    }

    /// The primary's gateway asked for a pause (429, `Retry-After`): skipped until it passes,
    /// with no backoff growth (it answers; this device is only past its rate).
    pub fn wait(&self, d: Duration, why: &str) {
        let mut s = self.state.lock().unwrap();
        s.retry_at = Some(Instant::now() + d);
        s.last_error = Some(why.to_string());
        s.rate_limited = true;
    }

    /// While a gateway's 429 pauses the primary: what it said (the calls skipping it are flagged).
    pub fn rate_paused(&self) -> Option<String> {
        let s = self.state.lock().unwrap();
        let paused = s.retry_at.is_some_and(|t| Instant::now() < t);
        (paused && s.rate_limited)
            .then(|| s.last_error.clone())
            .flatten()
    }

    /// Follows the primary's answer to a direct call: a success resets the health; a 429 pauses
    /// it; a transport failure backs off; a JSON-RPC error (a gateway's denial among them) is an
    /// answer, and says nothing against it.
    pub fn observe<T>(&self, r: &Result<T, crate::mcp::CallError>) {
        match r {
            Ok(_) => self.ok(),
            Err(crate::mcp::CallError::Rpc { .. }) => {}
            Err(e) => match e.rate_limited() {
                Some(d) => self.wait(d, &e.to_string()),
                None => self.failed(&e.to_string()),
            },
        }
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

    #[test]
    fn a_rate_limit_pauses_for_its_retry_after_and_a_denial_is_an_answer() {
        use crate::mcp::{CallError, HttpFailure};
        let h = Health::default();
        h.observe::<()>(&Err(CallError::Rpc {
            code: -32020,
            message: "refused".into(),
            data: None,
        }));
        assert!(
            h.usable(),
            "a denial says nothing against the primary's health"
        );
        h.observe::<()>(&Err(CallError::Http {
            failure: HttpFailure::RateLimited {
                retry_after_s: Some(30),
            },
            status: Some(429),
            detail: "429, retry after 30 s".into(),
        }));
        assert!(!h.usable());
        assert!(h.last_error().unwrap().contains("429"));
        assert!(h.rate_paused().unwrap().contains("429"));
        h.observe(&Ok(()));
        assert!(h.usable());
    }
}
