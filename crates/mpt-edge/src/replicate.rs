//! The edge's replication: writes recorded in the outbox before the child applies them and
//! queued once it did (durable before the harness hears back), and one background flusher
//! draining it whenever the primary answers.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Notify;

use super::proxy::{Proxy, WriteLog};
use mpt_base::error::{MptError, Result};
use mpt_base::{log_debug, log_warn};
use mpt_mcp::McpClient;
use mpt_outbox::flush::flush;
use mpt_outbox::intent::Intent;
use mpt_outbox::{FlushLock, FlushOptions, OpState, OpenOptions, Origin, Outbox, Stop};

/// How often the flusher looks again when no write woke it (the primary may be back).
const POLL: Duration = Duration::from_secs(2);

pub struct OutboxLog {
    store: Mutex<Outbox>,
    origin: Origin,
    /// The local palace's real path: the intents this edge records and settles are its own.
    palace: String,
    pub path: PathBuf,
    pub opts: OpenOptions,
    pub wake: Arc<Notify>,
}

impl OutboxLog {
    pub fn open(
        path: PathBuf,
        opts: OpenOptions,
        origin: Origin,
        palace: &std::path::Path,
    ) -> Result<OutboxLog> {
        let store = Outbox::open(&path, opts)?;
        Ok(OutboxLog {
            store: Mutex::new(store),
            origin,
            palace: mpt_palace::paths::realpath(palace)
                .to_string_lossy()
                .into_owned(),
            path,
            opts,
            wake: Arc::new(Notify::new()),
        })
    }

    /// An intent moved into the queue by `f`: the flusher is woken; the op's id.
    fn queue(
        &self,
        f: impl FnOnce(&mut Outbox, &Origin) -> Result<mpt_outbox::Enqueued>,
    ) -> Result<String> {
        let done = f(&mut self.store.lock().unwrap(), &self.origin)?;
        self.wake.notify_one();
        Ok(done.op_id)
    }
}

impl WriteLog for OutboxLog {
    fn intend(&self, tool: &str, args: &Value, maybe_applied: bool) -> Result<i64, MptError> {
        self.store
            .lock()
            .unwrap()
            .intend(&self.palace, tool, args, maybe_applied)
    }

    fn confirm(&self, intent: i64, local_reply: Option<&Value>) -> Result<String, MptError> {
        self.queue(|o, origin| o.confirm(origin, intent, local_reply))
    }

    fn cancel(&self, intent: i64) -> Result<(), MptError> {
        self.store.lock().unwrap().cancel(intent)
    }

    fn confirm_failed(&self, intent: i64, error: &Value) -> Result<String, MptError> {
        self.queue(|o, origin| o.confirm_failed(origin, intent, error))
    }

    fn intents(&self) -> Result<Vec<Intent>, MptError> {
        self.store.lock().unwrap().intents(&self.palace)
    }

    fn resolve(&self, args: &mut Value) -> Result<bool, MptError> {
        Ok(self.store.lock().unwrap().resolve_args(args)? == 0)
    }

    fn landed(&self, local_id: &str) -> Option<String> {
        self.store
            .lock()
            .unwrap()
            .primary_id(local_id)
            .ok()
            .flatten()
    }
}

/// After the last shim: keeps the process (and its flusher) alive while the outbox holds ops
/// that may still flush, up to `limit` (`MPT_EDGE_LINGER_MS`), or until SIGTERM. Failed ops,
/// and the ops that wait for them, need an operator, not a flusher: they end the linger.
pub async fn linger(log: &OutboxLog, limit: Duration) {
    let Ok(store) = Outbox::open(&log.path, log.opts) else {
        return;
    };
    let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    else {
        return;
    };
    let until = tokio::time::Instant::now() + limit;
    loop {
        // A queued feed mine (its own lane, `mine_lane`) counts too: a session's last trigger
        // queues one just before the shims go.
        let mines = store.apart_open().map_or(0, |ops| {
            ops.iter().filter(|op| op.state != OpState::Failed).count() as i64
        });
        let pending = match store.backlog(mpt_outbox::util::now_ms(), i64::MAX) {
            Ok(b) => b.sendable + b.leased + mines,
            Err(e) => {
                log_warn!("the edge cannot read its outbox: {}", e.message);
                return;
            }
        };
        if pending == 0 {
            log_debug!("edge owner: the outbox has nothing left to flush; exiting");
            return;
        }
        log_debug!("edge owner: lingering for {pending} open op(s)");
        tokio::select! {
            _ = tokio::time::sleep(POLL) => {}
            _ = tokio::time::sleep_until(until) => {
                log_warn!(
                    "the edge owner exits with {pending} op(s) still queued (MPT_EDGE_LINGER_MS passed): the next `mpt edge` or `mpt outbox flush` sends them"
                );
                return;
            }
            _ = term.recv() => return,
        }
    }
}

/// Starts the flusher on its own thread (a SQLite connection is not `Send`), with its own
/// runtime and its own client for the primary; the proxy's health is shared with it.
pub fn spawn_flusher(proxy: Arc<Proxy>, log: Arc<OutboxLog>, client: McpClient) {
    std::thread::spawn(move || {
        let rt = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt,
            Err(e) => return log_warn!("the edge cannot start its flusher: {e}"),
        };
        rt.block_on(run_flusher(proxy, log, client));
    });
}

/// Drains the outbox to the primary until the process ends. One flusher per outbox at a time:
/// when `mpt outbox flush` (or another owner) holds the flush lock, this one waits its turn.
async fn run_flusher(proxy: Arc<Proxy>, log: Arc<OutboxLog>, client: McpClient) {
    let Some(primary) = &proxy.primary else {
        return;
    };
    let mut store = match Outbox::open(&log.path, log.opts) {
        Ok(s) => s,
        Err(e) => {
            log_warn!(
                "the edge cannot open its outbox for flushing: {}",
                e.message
            );
            return;
        }
    };
    let mut warned_blocked = false;
    let mut probe_at = tokio::time::Instant::now();
    loop {
        let mut healed = false;
        if primary.health.awaits_probe() {
            // Unreachable: a probe every 2 s (writes do not make it answer sooner), so the heal
            // is seen within seconds; a good probe ends the health's backoff and the ops'.
            tokio::time::sleep_until(probe_at).await;
            probe_at = tokio::time::Instant::now() + mpt_mcp::liveness::PROBE_EVERY;
            if client.probe().await == Some(false) {
                primary
                    .health
                    .unreachable("the primary does not answer /healthz");
                continue;
            }
            log_debug!("the primary answers /healthz again: flushing");
            primary.health.ok();
            healed = true;
        } else {
            let _ = tokio::time::timeout(POLL, log.wake.notified()).await;
            if !primary.health.usable() {
                continue;
            }
        }
        // An operator's flush taking over from a stuck flusher goes first.
        if FlushLock::taking_over(&log.path) {
            continue;
        }
        let lock = match FlushLock::try_acquire(&log.path) {
            Ok(Some(l)) => l,
            _ => continue,
        };
        let opts = FlushOptions {
            honour_backoff: !healed,
            ..Default::default()
        };
        match flush(&mut store, &lock, &client, &opts, &mut |_| {}).await {
            Ok(report) => {
                if report.settled() > 0 {
                    // The primary's copies of what landed, into the local log.
                    primary.pull_wake.notify_one();
                    log_debug!(
                        "edge flushed {} op(s); {} remaining",
                        report.settled(),
                        report.remaining
                    );
                }
                match report.stop {
                    // Backing off after an earlier failure: the schedule, not the primary's health;
                    // or an operator's flush took over from this one, found stuck.
                    Stop::Backoff | Stop::TakenOver => {}
                    Stop::Drained | Stop::Limit => {
                        primary.health.ok();
                        warned_blocked = false;
                    }
                    Stop::Unavailable | Stop::Deadline => {
                        let why = report
                            .error
                            .as_ref()
                            .map_or("the primary did not answer".to_string(), |e| {
                                e.message.clone()
                            });
                        if report.unreachable {
                            primary.health.unreachable(&why);
                        } else {
                            primary.health.failed(&why);
                        }
                    }
                    Stop::Blocked => {
                        primary.health.ok();
                        if !warned_blocked || !report.failed.is_empty() {
                            warned_blocked = true;
                            let first = report.blocked_by.as_ref().map_or(String::new(), |op| {
                                format!(
                                    " (op {} {}: {})",
                                    mpt_outbox::store::short(&op.op_id),
                                    op.short_tool(),
                                    op.error_line().unwrap_or_default()
                                )
                            });
                            log_warn!(
                                "the outbox holds a failed op{first}; {} op(s) wait for it, every other write still flows: `mpt outbox list --state failed` shows it, `mpt outbox retry|drop` settles it",
                                report.held_back
                            );
                        }
                    }
                    // Refused (a revoked token): backed off, doubling to its cap, not retried every
                    // POLL; a token file that changes is read again by the client's next 401.
                    Stop::Refused => {
                        primary
                            .health
                            .failed("the primary refused this device's token or path");
                        log_warn!(
                            "the primary refused the outbox's credentials or path: fix it, then ops flush again"
                        );
                    }
                }
            }
            Err(e) => log_warn!("flushing the outbox failed: {}", e.message),
        }
        drop(lock);
    }
}
