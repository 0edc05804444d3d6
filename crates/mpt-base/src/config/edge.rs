//! The edge's knobs, read once: how long an idle owner waits for a shim and lingers to flush, how
//! long a read waits for the primary, how the outbox syncs; and the mailbox's poll floor.

use std::time::Duration;

use super::Env;
use crate::error::{MptError, Result};

/// `MPT_OUTBOX_SYNC`: what a returned enqueue survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutboxSync {
    /// `full` (the default): a power loss.
    Full,
    /// `normal`: a process kill (for slow disks).
    Normal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeKnobs {
    /// `MPT_EDGE_GRACE_MS` (default 30000): how long an owner with no shim left waits for one.
    pub grace: Duration,
    /// `MPT_EDGE_LINGER_MS` (default 900000): how long a stopped owner lingers to flush.
    pub linger: Duration,
    /// `MPT_EDGE_READ_DEADLINE_MS` (default 5000): how long a read waits for the primary before
    /// answering locally.
    pub read_deadline: Duration,
    /// `MPT_OUTBOX_SYNC` (default full).
    pub outbox_sync: OutboxSync,
}

pub const DEFAULT_MAILBOX_POLL_MS: u64 = 300_000;

impl Default for EdgeKnobs {
    fn default() -> Self {
        EdgeKnobs {
            grace: Duration::from_millis(30_000),
            linger: Duration::from_millis(900_000),
            read_deadline: Duration::from_millis(5_000),
            outbox_sync: OutboxSync::Full,
        }
    }
}

impl EdgeKnobs {
    /// Each knob from the environment; a malformed value is exit 2 naming it.
    pub fn from_env(env: &Env) -> Result<EdgeKnobs> {
        let d = EdgeKnobs::default();
        let ms = |key: &str, default: Duration| {
            env.millis(key, default.as_millis() as u64)
                .map(Duration::from_millis)
        };
        Ok(EdgeKnobs {
            grace: ms("MPT_EDGE_GRACE_MS", d.grace)?,
            linger: ms("MPT_EDGE_LINGER_MS", d.linger)?,
            read_deadline: ms("MPT_EDGE_READ_DEADLINE_MS", d.read_deadline)?,
            outbox_sync: outbox_sync(env)?,
        })
    }
}

/// `MEMPALACE_MAILBOX_POLL_MS` (default 300000): `mpt mailbox watch`'s poll floor. Read by the
/// watch alone, not with the rest: the bridge reads it too, and doctor's config check reports a
/// malformed one beside its other findings.
pub fn mailbox_poll_floor(env: &Env) -> Result<u64> {
    env.millis("MEMPALACE_MAILBOX_POLL_MS", DEFAULT_MAILBOX_POLL_MS)
}

/// `MPT_MAILBOX_STREAM_SILENCE_MS` (default 25000: `serve`'s 15 s ping plus 10 s of margin): how
/// long the live stream may say nothing (no frame, no ping) before `mailbox watch` takes it as dead.
pub fn mailbox_stream_silence(env: &Env) -> Result<Duration> {
    env.millis("MPT_MAILBOX_STREAM_SILENCE_MS", DEFAULT_STREAM_SILENCE_MS)
        .map(Duration::from_millis)
}

pub const DEFAULT_STREAM_SILENCE_MS: u64 = 25_000;

/// `MPT_OUTBOX_SYNC`: `full` or `normal` (any case); anything else is exit 2 naming it.
pub fn outbox_sync(env: &Env) -> Result<OutboxSync> {
    match env
        .get("MPT_OUTBOX_SYNC")
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("full") => Ok(OutboxSync::Full),
        Some("normal") => Ok(OutboxSync::Normal),
        Some(other) => Err(MptError::usage(format!(
            "MPT_OUTBOX_SYNC='{other}' is neither full nor normal"
        ))
        .with_hint("unset it for full (the default), or set normal")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_malformed_values() {
        let k = EdgeKnobs::from_env(&Env::from_pairs([("HOME", "/h")])).unwrap();
        assert_eq!(k, EdgeKnobs::default());
        let k = EdgeKnobs::from_env(&Env::from_pairs([
            ("MPT_EDGE_READ_DEADLINE_MS", " 250 "),
            ("MPT_OUTBOX_SYNC", "NORMAL"),
        ]))
        .unwrap();
        assert_eq!(k.read_deadline, Duration::from_millis(250));
        assert_eq!(k.outbox_sync, OutboxSync::Normal);
        for key in [
            "MPT_EDGE_GRACE_MS",
            "MPT_EDGE_LINGER_MS",
            "MPT_EDGE_READ_DEADLINE_MS",
            "MPT_OUTBOX_SYNC",
        ] {
            let e = EdgeKnobs::from_env(&Env::from_pairs([(key, "abc")])).unwrap_err();
            assert_eq!(e.exit().code(), 2, "{key}");
            assert!(e.message.contains(&format!("{key}='abc'")), "{}", e.message);
        }
        let e = mailbox_poll_floor(&Env::from_pairs([("MEMPALACE_MAILBOX_POLL_MS", "soon")]));
        assert_eq!(e.unwrap_err().exit().code(), 2);
        let e = mailbox_stream_silence(&Env::from_pairs([("MPT_MAILBOX_STREAM_SILENCE_MS", "x")]));
        assert_eq!(e.unwrap_err().exit().code(), 2);
        let d = mailbox_stream_silence(&Env::from_pairs([("HOME", "/h")])).unwrap();
        assert_eq!(d, Duration::from_secs(25));
    }
}
