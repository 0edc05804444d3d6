//! Rate limits: one token bucket per device (`rate: {per_s, burst}` in the policy; none:
//! unlimited); past it a request waits for no one, it is answered 429 with when to come back.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::decide::policy::Rate;

#[derive(Debug)]
struct Bucket {
    rate: Rate,
    tokens: f64,
    at: Instant,
}

/// `POST /join` attempts per source address: 5 at once, then one each 12 s (a code is ~154 bits:
/// this keeps a mistyping person moving and a guesser nowhere).
pub const JOIN: Rate = Rate {
    per_s: 1.0 / 12.0,
    burst: 5,
};

/// Every device's bucket, made on its first request and refilled as time passes.
#[derive(Debug, Default)]
pub struct Buckets {
    by_device: HashMap<String, Bucket>,
}

impl Buckets {
    /// Takes one request from `device`'s bucket; `Err(retry_after)` when it is empty. A device
    /// whose rate changed starts a full bucket of the new rate.
    pub fn take(&mut self, device: &str, rate: Option<Rate>, now: Instant) -> Result<(), Duration> {
        let Some(rate) = rate else {
            self.by_device.remove(device);
            return Ok(());
        };
        let b = self
            .by_device
            .entry(device.to_string())
            .or_insert_with(|| Bucket {
                rate,
                tokens: f64::from(rate.burst),
                at: now,
            });
        if b.rate != rate {
            *b = Bucket {
                rate,
                tokens: f64::from(rate.burst),
                at: now,
            };
        }
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * rate.per_s).min(f64::from(rate.burst));
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.tokens) / rate.per_s))
        }
    }
}

/// `Retry-After` in whole seconds, rounded up, at least 1.
pub fn retry_after_secs(wait: Duration) -> u64 {
    (wait.as_nanos().div_ceil(1_000_000_000) as u64).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_steady_rate() {
        let mut b = Buckets::default();
        let rate = Some(Rate {
            per_s: 2.0,
            burst: 3,
        });
        let t0 = Instant::now();
        for _ in 0..3 {
            b.take("lap", rate, t0).unwrap();
        }
        let wait = b.take("lap", rate, t0).unwrap_err();
        assert!((wait.as_secs_f64() - 0.5).abs() < 1e-6, "{wait:?}");
        assert_eq!(retry_after_secs(wait), 1);
        b.take("lap", rate, t0 + Duration::from_millis(500))
            .unwrap();
        assert!(
            b.take("lap", rate, t0 + Duration::from_millis(500))
                .is_err()
        );
        b.take("desk", rate, t0).unwrap();
        b.take("free", None, t0).unwrap();
    }

    #[test]
    fn retry_after_rounds_up() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(2)), 2);
        assert_eq!(retry_after_secs(Duration::from_millis(2001)), 3);
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
    }
}
