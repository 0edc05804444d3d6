//! The device's one subscription to the primary's live log stream, held by the edge owner and
//! shared by every `mailbox watch` on it (`mpt/log_since`, answered at once: never a long wait).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use mpt_coord::follow::{self, Follow, Mode, Wake};
use mpt_mcp::http::HttpClient;

/// What a watcher asks the owner: `{"after": SEQ}` → `{"mode", "seq", "wakes", "gap"}`. Not an
/// MCP method: mpt's own clients send it over the owner's socket, as they send `mpt/pull`.
pub const LOG_SINCE_METHOD: &str = "mpt/log_since";

/// What a watcher says it is in its hello: a listener (it never holds the owner alive).
pub const LISTENER_HARNESS: &str = "mailbox-watch";

/// How many wake-ups are kept for watchers that ask late; older ones are a `gap` (derive again).
const KEPT: usize = 1024;

/// How often a watcher asks (a local socket round trip, no load on the primary).
pub const ASK_EVERY: Duration = Duration::from_millis(200);

#[derive(Default)]
struct State {
    mode: Option<Mode>,
    seq: u64,
    /// `(seq, event id)`; `None`: the stream restarted without a cursor (derive again).
    recent: VecDeque<(u64, Option<String>)>,
}

/// Started on the first watcher's ask, so an owner with no watcher takes none of the primary's
/// stream slots (it allows 8 in all).
pub struct Fanout {
    follow: Mutex<Option<Follow>>,
    state: Arc<Mutex<State>>,
}

impl Fanout {
    /// For the configured primary (its connect and handshake deadlines bound the GET's head; the
    /// default silence deadline, `MPT_MAILBOX_STREAM_SILENCE_MS`'s).
    pub fn for_config(config: &mpt_base::config::Config) -> Option<Arc<Fanout>> {
        let remote = config.remote.as_ref()?;
        let opts = mpt_mcp::http::HttpOptions::for_remote(remote, config);
        let head = opts.connect_timeout + opts.init_timeout.unwrap_or(Duration::from_secs(10));
        let client = HttpClient::new(opts).ok()?;
        let silence = Duration::from_millis(mpt_base::config::edge::DEFAULT_STREAM_SILENCE_MS);
        Some(Arc::new(Fanout::new(Arc::new(client), head, silence)))
    }

    pub fn new(client: Arc<HttpClient>, head_deadline: Duration, silence: Duration) -> Fanout {
        Fanout {
            follow: Mutex::new(Some(Follow {
                client,
                head_deadline,
                silence,
            })),
            state: Arc::default(),
        }
    }

    /// The wake-ups after `after` (the stream started, if it was not yet).
    pub fn answer(&self, params: Option<&Value>) -> Value {
        if let Some(f) = self.follow.lock().unwrap().take() {
            let mut rx = follow::spawn(f);
            let state = Arc::clone(&self.state);
            tokio::spawn(async move {
                while let Some(w) = rx.recv().await {
                    let mut s = state.lock().unwrap();
                    let id = match w {
                        Wake::Mode(m) => {
                            s.mode = Some(m);
                            continue;
                        }
                        Wake::Frame(id) => Some(id),
                        Wake::Rederive => None,
                    };
                    s.seq += 1;
                    let seq = s.seq;
                    s.recent.push_back((seq, id));
                    if s.recent.len() > KEPT {
                        s.recent.pop_front();
                    }
                }
            });
        }
        let after = params.and_then(|p| p.get("after")).and_then(Value::as_u64);
        let s = self.state.lock().unwrap();
        let oldest = s.recent.front().map_or(s.seq + 1, |(q, _)| *q);
        let (wakes, gap) = match after {
            // A first ask: from now on.
            None => (Vec::new(), false),
            Some(a) => (
                s.recent
                    .iter()
                    .filter(|(q, _)| *q > a)
                    .map(|(q, id)| json!({"seq": q, "id": id}))
                    .collect(),
                a + 1 < oldest && a < s.seq,
            ),
        };
        json!({"mode": s.mode, "seq": s.seq, "wakes": wakes, "gap": gap})
    }
}
