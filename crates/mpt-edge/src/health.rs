//! The primary's health as the edge sees it: after a failure it is skipped (reads answer locally
//! at once, marked degraded) until a backoff passes, doubling to a cap; a gateway's 429 pauses it
//! for its Retry-After; a success resets it. An unreachable primary is probed every 2 s instead.

use std::sync::Mutex;
use std::time::{Duration, Instant};

const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

#[derive(Debug, Default)]
struct State {
    retry_at: Option<Instant>,
    backoff: Duration,
    last_error: Option<String>,
    /// The network failed (not the server): the flusher's probe decides when it is back.
    unreachable: bool,
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
        self.record(why, false);
    }

    /// The network failed: skipped like any failure, and probed until it answers (`awaits_probe`).
    pub fn unreachable(&self, why: &str) {
        self.record(why, true);
    }

    /// A failed call to the primary: unreachable when the network failed, else failed.
    pub fn failed_call(&self, e: &mpt_mcp::CallError) {
        self.record(&e.to_string(), e.is_unreachable());
    }

    /// Down because the network failed: the flusher probes `/healthz` every 2 s until it answers.
    pub fn awaits_probe(&self) -> bool {
        self.state.lock().unwrap().unreachable
    }

    /// The primary's gateway asked for a pause (429, `Retry-After`): skipped until it passes,
    /// with no backoff growth (it answers; this device is only past its rate).
    pub fn wait(&self, d: Duration, why: &str) {
        let mut s = self.state.lock().unwrap();
        s.retry_at = Some(Instant::now() + d);
        s.last_error = Some(why.to_string());
        s.rate_limited = true;
        s.unreachable = false;
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
    pub fn observe<T>(&self, r: &Result<T, mpt_mcp::CallError>) {
        match r {
            Ok(_) => self.ok(),
            Err(mpt_mcp::CallError::Rpc { .. } | mpt_mcp::CallError::Denied { .. }) => {}
            Err(e) => match e.rate_limited() {
                Some(d) => self.wait(d, &e.to_string()),
                None => self.failed_call(e),
            },
        }
    }

    fn record(&self, why: &str, unreachable: bool) {
        let mut s = self.state.lock().unwrap();
        s.unreachable = unreachable;
        s.rate_limited = false;
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

    #[test]
    fn an_unreachable_primary_awaits_a_probe_and_a_good_one_ends_even_a_long_backoff() {
        let h = Health::default();
        for _ in 0..10 {
            h.unreachable("silent");
        }
        assert!(
            !h.usable() && h.awaits_probe(),
            "backing off, probed meanwhile"
        );
        h.ok();
        assert!(
            h.usable() && !h.awaits_probe(),
            "the good probe ends the 30 s backoff"
        );
        h.failed("HTTP 500");
        assert!(
            !h.awaits_probe(),
            "a failing server is not probed for: it answers"
        );
    }

    #[test]
    fn a_rate_limit_pauses_for_its_retry_after_and_a_denial_is_an_answer() {
        use mpt_mcp::{CallError, HttpFailure};
        let h = Health::default();
        h.observe::<()>(&Err(CallError::Denied {
            message: "refused".into(),
            fields: Box::new(serde_json::json!({"rule": "needs:member"})),
            answer: Box::new(mpt_mcp::DeniedAnswer::Error(serde_json::json!({}))),
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
