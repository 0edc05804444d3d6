//! Following the primary's live stream (`stream`) for the mailbox's wake-ups: a frame wakes the
//! derivation; a refusal or a dead stream falls back to polling, said with why, and is retried.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::stream::{self, Refusal};
use mpt_base::{log_debug, log_warn};
use mpt_mcp::http::HttpClient;

/// The first retry of a stream that could not be opened; doubled up to [`BACKOFF_MAX`].
pub const BACKOFF_START: Duration = Duration::from_secs(1);
pub const BACKOFF_MAX: Duration = Duration::from_secs(60);

/// How `watch` learns of new asks now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Mode {
    /// Subscribed: a frame wakes the derivation within a second of its append.
    Live { resumed_from: Option<String> },
    /// Polling at the interval; `reason` is a [`Refusal::kind`] or `unreachable`/`dropped`.
    Polling {
        reason: String,
        why: String,
        retry_in_ms: u64,
    },
}

impl Mode {
    /// One line for people.
    pub fn line(&self, interval_ms: u64) -> String {
        match self {
            Mode::Live { resumed_from: None } => {
                "live: subscribed to the primary's /logstream/stream (asks are announced as they are appended)".into()
            }
            Mode::Live {
                resumed_from: Some(id),
            } => format!("live again: the stream resumed after {id}"),
            Mode::Polling {
                why, retry_in_ms, ..
            } => format!(
                "polling every {interval_ms} ms: {why}; the stream is tried again in {} s",
                retry_in_ms.div_ceil(1000)
            ),
        }
    }
}

/// What the follower tells the watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wake {
    /// An event was appended (its id): derive again.
    Frame(String),
    /// The stream restarted without a cursor (its id was unknown): events may have been missed,
    /// so derive again from the whole log.
    Rederive,
    /// The mode changed.
    Mode(Mode),
}

/// What the follower needs: the primary's HTTP client and its deadlines.
pub struct Follow {
    pub client: Arc<HttpClient>,
    /// How long the GET's reply head may take (the primary's connect + handshake deadline).
    pub head_deadline: Duration,
    /// `MPT_MAILBOX_STREAM_SILENCE_MS`: a stream silent this long is dead.
    pub silence: Duration,
}

/// Follows the stream until the receiver is dropped. Starts without a cursor (the first
/// derivation reads the whole log), then resumes from the last id it saw.
pub fn spawn(f: Follow) -> mpsc::UnboundedReceiver<Wake> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move { follow(f, tx).await });
    rx
}

async fn follow(f: Follow, tx: mpsc::UnboundedSender<Wake>) {
    let mut cursor: Option<String> = None;
    let mut backoff = BACKOFF_START;
    let mut was_live = false;
    loop {
        let opened = stream::open(&f.client, cursor.as_deref(), f.head_deadline).await;
        let (reason, why, wait) = match opened {
            Ok(Ok(mut sub)) => {
                backoff = BACKOFF_START;
                let resumed_from = if was_live { cursor.clone() } else { None };
                // Resubscribed without a cursor (no event seen yet): what was appended during
                // the drop is not replayed, so the watch derives again.
                let gap = was_live && cursor.is_none();
                if tx.send(Wake::Mode(Mode::Live { resumed_from })).is_err()
                    || (gap && tx.send(Wake::Rederive).is_err())
                {
                    return;
                }
                was_live = true;
                let opened_at = std::time::Instant::now();
                let ended = loop {
                    match sub.next(f.silence).await {
                        Ok(ev) => {
                            let Some(id) = ev.id.clone().filter(|i| !i.is_empty()) else {
                                continue;
                            };
                            if tx.send(Wake::Frame(id)).is_err() {
                                return;
                            }
                        }
                        Err(e) => break e,
                    }
                };
                cursor = sub.last_id.clone();
                log_debug!("mailbox: {ended}; resuming after {cursor:?}");
                // A drop is resumed at once; a stream that keeps dropping as it opens backs off.
                if opened_at.elapsed() < BACKOFF_START {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
                continue;
            }
            Ok(Err(Refusal::UnknownCursor { detail })) => {
                log_warn!(
                    "mailbox: the primary does not know the stream's cursor {} ({detail}): restarting the stream without one and deriving again",
                    cursor.as_deref().unwrap_or("?")
                );
                cursor = None;
                if tx.send(Wake::Rederive).is_err() {
                    return;
                }
                continue;
            }
            Ok(Err(r)) => {
                let wait = match &r {
                    Refusal::Full {
                        retry_after: Some(s),
                    } => Duration::from_secs(*s).max(backoff),
                    _ => backoff,
                };
                (r.kind().to_string(), r.why(), wait)
            }
            Err(e) => (
                "unreachable".to_string(),
                format!("the primary's stream cannot be reached: {e}"),
                backoff,
            ),
        };
        let mode = Mode::Polling {
            reason,
            why,
            retry_in_ms: wait.as_millis() as u64,
        };
        if tx.send(Wake::Mode(mode)).is_err() {
            return;
        }
        tokio::time::sleep(wait).await;
        backoff = (backoff * 2).min(BACKOFF_MAX);
        if tx.is_closed() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_lines_say_which_and_why() {
        let live = Mode::Live { resumed_from: None };
        assert!(live.line(300_000).starts_with("live:"));
        let p = Mode::Polling {
            reason: "route_absent".into(),
            why: "route absent: x".into(),
            retry_in_ms: 1500,
        };
        assert_eq!(
            p.line(300_000),
            "polling every 300000 ms: route absent: x; the stream is tried again in 2 s"
        );
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(
            mpt_base::schema::field_names(&v),
            ["mode", "reason", "why", "retry_in_ms"]
        );
    }
}
