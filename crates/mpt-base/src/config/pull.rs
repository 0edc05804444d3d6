//! The knobs of the edge's pull of the primary's log: how often (`MPT_EDGE_PULL_MS`), and the
//! bounds of one pull's process: its wall clock and its address space (`RLIMIT_AS`).

use std::time::Duration;

use super::Env;
use crate::error::Result;

/// The address space a pull's Python may map by default: MemPalace's sync reads each reply whole,
/// so an endless one would otherwise grow it until the machine runs out.
pub const DEFAULT_MEMORY_BYTES: u64 = 1 << 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PullKnobs {
    /// `MPT_EDGE_PULL_MS` (default 60000): how often an owner pulls; `None` (0): never.
    pub interval: Option<Duration>,
    /// `MPT_EDGE_PULL_DEADLINE_MS` (default 120000, at least 1 s): one pull's wall clock.
    pub deadline: Duration,
    /// `MPT_EDGE_PULL_MEMORY_BYTES` (default 1 GiB): one pull's `RLIMIT_AS`; `None` (0): none.
    pub memory: Option<u64>,
}

impl Default for PullKnobs {
    fn default() -> Self {
        PullKnobs {
            interval: Some(Duration::from_millis(60_000)),
            deadline: Duration::from_millis(120_000),
            memory: Some(DEFAULT_MEMORY_BYTES),
        }
    }
}

impl PullKnobs {
    pub fn from_env(env: &Env) -> Result<PullKnobs> {
        Ok(PullKnobs {
            interval: super::optional_ms(env.millis("MPT_EDGE_PULL_MS", 60_000)?),
            deadline: Duration::from_millis(env.millis("MPT_EDGE_PULL_DEADLINE_MS", 120_000)?)
                .max(Duration::from_secs(1)),
            memory: Some(env.bytes("MPT_EDGE_PULL_MEMORY_BYTES", DEFAULT_MEMORY_BYTES)?)
                .filter(|b| *b > 0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_zero_and_bad_values() {
        let k = PullKnobs::from_env(&Env::from_pairs([("HOME", "/h")])).unwrap();
        assert_eq!(k, PullKnobs::default());
        let k = PullKnobs::from_env(&Env::from_pairs([
            ("MPT_EDGE_PULL_MS", "0"),
            ("MPT_EDGE_PULL_DEADLINE_MS", "0"),
            ("MPT_EDGE_PULL_MEMORY_BYTES", "0"),
        ]))
        .unwrap();
        assert_eq!(
            (k.interval, k.deadline, k.memory),
            (None, Duration::from_secs(1), None)
        );
        let k = PullKnobs::from_env(&Env::from_pairs([(
            "MPT_EDGE_PULL_MEMORY_BYTES",
            "268435456",
        )]))
        .unwrap();
        assert_eq!(k.memory, Some(256 << 20));
        for key in [
            "MPT_EDGE_PULL_MS",
            "MPT_EDGE_PULL_DEADLINE_MS",
            "MPT_EDGE_PULL_MEMORY_BYTES",
        ] {
            let e = PullKnobs::from_env(&Env::from_pairs([(key, "1G")])).unwrap_err();
            assert_eq!(e.exit().code(), 2, "{key}");
            assert!(e.message.contains(&format!("{key}='1G'")), "{}", e.message);
        }
    }
}
