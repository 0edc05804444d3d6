//! Whether the primary still answers while a call waits on it: a `/healthz` probe with a 2 s
//! deadline on a connection of its own (a black hole answers nothing and sends no RST either).

use std::sync::Mutex as StdMutex;
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// How long a probe may take before the primary counts as silent.
pub const PROBE_DEADLINE: Duration = Duration::from_secs(2);
/// A call that has waited this long gets a probe beside it, then one every `PROBE_EVERY`.
pub const PROBE_AFTER: Duration = Duration::from_millis(1000);
pub const PROBE_EVERY: Duration = Duration::from_secs(2);

/// Probes of one primary. One runs at a time; a call waiting beside another's probe takes its
/// verdict. Any HTTP answer, whatever its status, is life: the path to the server works.
pub struct Liveness {
    /// Its own client with no idle pool: every probe opens a new connection, so a connection
    /// the black hole holds (or silenced) is never what a probe waits on.
    client: reqwest::Client,
    url: reqwest::Url,
    last: tokio::sync::Mutex<Option<Probe>>,
    /// When the latest failed probe started: a call waiting since before it abandons.
    failed: watch::Sender<Option<Instant>>,
    /// The newest failure not yet acted on by the HTTP client (its pool is renewed).
    stale_pool: StdMutex<bool>,
}

#[derive(Debug, Clone, Copy)]
struct Probe {
    started: Instant,
    alive: bool,
}

impl Liveness {
    pub fn new(client: reqwest::Client, url: reqwest::Url) -> Liveness {
        Liveness {
            client,
            url,
            last: tokio::sync::Mutex::new(None),
            failed: watch::channel(None).0,
            stale_pool: StdMutex::new(false),
        }
    }

    /// Whether the primary answers: the verdict of a probe that started at or after `since`
    /// (another caller's), else a new probe.
    pub async fn alive(&self, since: Instant) -> bool {
        let mut last = self.last.lock().await;
        if let Some(p) = *last
            && p.started >= since
        {
            return p.alive;
        }
        let started = Instant::now();
        let alive = matches!(
            tokio::time::timeout(PROBE_DEADLINE, self.client.get(self.url.clone()).send()).await,
            Ok(Ok(_))
        );
        *last = Some(Probe { started, alive });
        if !alive {
            *self.stale_pool.lock().unwrap() = true;
            self.failed.send_replace(Some(started));
        }
        alive
    }

    /// Resolves when a probe that started after `since` found the primary silent, probing
    /// beside the waiting call itself after `PROBE_AFTER` and then every `PROBE_EVERY`.
    pub async fn silent_since(&self, since: Instant) {
        let mut failures = self.failed.subscribe();
        let mut next = since + PROBE_AFTER;
        let mut asked = since;
        loop {
            if failures.borrow_and_update().is_some_and(|f| f >= since) {
                return;
            }
            tokio::select! {
                _ = tokio::time::sleep_until(next.into()) => {
                    let now = Instant::now();
                    if !self.alive(asked).await {
                        return;
                    }
                    asked = now;
                    next = Instant::now() + PROBE_EVERY;
                }
                changed = failures.changed() => {
                    if changed.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
            }
        }
    }

    /// Whether a probe failed since the last time this was asked: idle connections may be dead.
    pub fn take_stale_pool(&self) -> bool {
        std::mem::take(&mut *self.stale_pool.lock().unwrap())
    }
}
