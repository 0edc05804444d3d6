//! Whether the primary still answers while a call waits on it: `/healthz` probes with a 2 s
//! deadline on connections of their own (a black hole answers nothing and sends no RST either).

use std::sync::Mutex as StdMutex;
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// How long a probe may take before it counts as unanswered.
pub const PROBE_DEADLINE: Duration = Duration::from_secs(2);
/// A call that has waited this long (or its connect deadline, if longer: a connect is bounded
/// by that already) gets a probe beside it, then one every `PROBE_EVERY` (at once again after an
/// unanswered one). Probes are connections too: a busy primary sees them only beside slow calls.
pub const PROBE_AFTER: Duration = Duration::from_millis(1000);
pub const PROBE_EVERY: Duration = Duration::from_secs(2);
/// Unanswered probes in a row, since a call began, that make the primary silent and abandon the
/// call. One is not enough: a busy primary's accept backlog (it closes every connection, so
/// each probe is a new one) can hold a single probe past its deadline.
pub const SILENT_AFTER: usize = 2;

/// Probes of one primary. One runs at a time for waiting calls; a call waiting beside another's
/// probe takes its verdict. Any HTTP answer, whatever its status, is life: the path works.
pub struct Liveness {
    /// Its own client with no idle pool: every probe opens a new connection, so a connection
    /// the black hole holds (or silenced) is never what a probe waits on.
    client: reqwest::Client,
    url: reqwest::Url,
    /// When a waiting call gets its first probe.
    first_after: Duration,
    gate: tokio::sync::Mutex<()>,
    state: StdMutex<State>,
    /// Bumped at every probe's end: waiting calls look at `State` again.
    probed: watch::Sender<u64>,
}

#[derive(Default)]
struct State {
    /// The latest probe to end: when it started, and whether it was answered.
    last: Option<(Instant, bool)>,
    /// When each unanswered probe since the last answered one started.
    silent: Vec<Instant>,
    /// A probe went unanswered since the HTTP client last renewed its pool.
    stale_pool: bool,
}

impl Liveness {
    /// `connect`: the client's connect deadline (zero: none).
    pub fn new(client: reqwest::Client, url: reqwest::Url, connect: Duration) -> Liveness {
        Liveness {
            client,
            url,
            first_after: PROBE_AFTER.max(connect),
            gate: tokio::sync::Mutex::new(()),
            state: StdMutex::new(State::default()),
            probed: watch::channel(0).0,
        }
    }

    /// One probe of its own, now: whether the primary answered within `PROBE_DEADLINE`.
    pub async fn probe(&self) -> bool {
        let started = Instant::now();
        let answered = matches!(
            tokio::time::timeout(PROBE_DEADLINE, self.client.get(self.url.clone()).send()).await,
            Ok(Ok(_))
        );
        {
            let mut s = self.state.lock().unwrap();
            s.last = Some((started, answered));
            if answered {
                s.silent.clear();
            } else {
                s.silent.push(started);
                let old = s.silent.len().saturating_sub(8);
                s.silent.drain(..old);
                s.stale_pool = true;
            }
        }
        self.probed.send_modify(|n| *n += 1);
        answered
    }

    /// The verdict of a probe that started at or after `since` (another waiting call's), else
    /// of a new one.
    async fn answered_since(&self, since: Instant) -> bool {
        let _one_at_a_time = self.gate.lock().await;
        if let Some((started, answered)) = self.state.lock().unwrap().last
            && started >= since
        {
            return answered;
        }
        self.probe().await
    }

    /// Whether `SILENT_AFTER` probes in a row, all started at or after `since`, went unanswered.
    fn silent_since(&self, since: Instant) -> bool {
        let s = self.state.lock().unwrap();
        s.silent.iter().filter(|t| **t >= since).count() >= SILENT_AFTER
    }

    /// Resolves once the primary is silent for a call waiting since `since`: probing beside it
    /// after `first_after`, then every `PROBE_EVERY` (at once after an unanswered probe), and
    /// heeding other callers' probes too.
    pub async fn silence(&self, since: Instant) {
        let mut probed = self.probed.subscribe();
        let mut next = since + self.first_after;
        let mut asked = since;
        loop {
            if self.silent_since(since) {
                return;
            }
            tokio::select! {
                _ = tokio::time::sleep_until(next.into()) => {
                    let now = Instant::now();
                    let answered = self.answered_since(asked).await;
                    asked = now;
                    next = if answered { Instant::now() + PROBE_EVERY } else { Instant::now() };
                }
                changed = probed.changed() => {
                    if changed.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
            }
        }
    }

    /// Whether a probe went unanswered since the last time this was asked: idle connections
    /// may be ones a black hole holds.
    pub fn take_stale_pool(&self) -> bool {
        std::mem::take(&mut self.state.lock().unwrap().stale_pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listener that accepts and never answers (a black hole), and one that answers 404.
    fn servers(rt: &tokio::runtime::Runtime) -> (reqwest::Url, reqwest::Url) {
        rt.block_on(async {
            let hole = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let live = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let url = |l: &tokio::net::TcpListener| {
                reqwest::Url::parse(&format!("http://{}/healthz", l.local_addr().unwrap())).unwrap()
            };
            let (h, l) = (url(&hole), url(&live));
            tokio::spawn(async move {
                let mut held = Vec::new();
                while let Ok((c, _)) = hole.accept().await {
                    held.push(c);
                }
            });
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                while let Ok((mut c, _)) = live.accept().await {
                    let mut buf = [0u8; 1024];
                    let _ = c.read(&mut buf).await;
                    let _ = c
                        .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .await;
                }
            });
            (h, l)
        })
    }

    #[test]
    fn a_waiting_call_is_abandoned_only_after_probes_in_a_row_go_unanswered() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (hole, live) = servers(&rt);
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap();
        rt.block_on(async {
            // Any HTTP answer is life: a waiting call beside it is never abandoned.
            let alive = Liveness::new(client.clone(), live, Duration::ZERO);
            assert!(alive.probe().await);
            let waited =
                tokio::time::timeout(PROBE_AFTER + PROBE_EVERY * 2, alive.silence(Instant::now()))
                    .await;
            assert!(waited.is_err(), "a primary that answers is not silent");
            // A black hole: one unanswered probe is not yet silence, two in a row are.
            let dark = Liveness::new(client, hole, Duration::ZERO);
            let since = Instant::now();
            assert!(!dark.probe().await);
            assert!(!dark.silent_since(since) && dark.take_stale_pool());
            assert!(!dark.take_stale_pool(), "taken once");
            dark.silence(since).await;
            assert!(dark.silent_since(since));
        });
    }
}
