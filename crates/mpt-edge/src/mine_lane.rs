//! The edge's sender of queued feed mines (`outbox::apart`): its own thread, connection and
//! client, polling the outbox, so a minutes-long mine never holds the flusher's lock or writes.

use std::sync::Arc;
use std::time::Duration;

use super::proxy::Proxy;
use super::replicate::OutboxLog;
use mpt_base::{log_debug, log_warn};
use mpt_mcp::McpClient;
use mpt_outbox::{Outbox, apart, util};

/// How often the lane looks for a due mine (a SQLite read).
const POLL: Duration = Duration::from_secs(2);

/// Starts the lane on its own thread (a SQLite connection is not `Send`) with its own runtime.
pub fn spawn(proxy: Arc<Proxy>, log: Arc<OutboxLog>, client: McpClient) {
    std::thread::spawn(move || {
        let rt = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt,
            Err(e) => return log_warn!("the edge cannot start its mine lane: {e}"),
        };
        rt.block_on(run(proxy, log, client));
    });
}

async fn run(proxy: Arc<Proxy>, log: Arc<OutboxLog>, client: McpClient) {
    let Some(primary) = &proxy.primary else {
        return;
    };
    let mut store = match Outbox::open(&log.path, log.opts) {
        Ok(s) => s,
        Err(e) => return log_warn!("the edge's mine lane cannot open the outbox: {}", e.message),
    };
    loop {
        tokio::time::sleep(POLL).await;
        if !primary.health.usable() || !due(&store) {
            continue;
        }
        match apart::run(&mut store, &client, true).await {
            Ok(r) if r.applied > 0 => {
                log_debug!("edge: {} feed mine(s) ran on the primary", r.applied);
            }
            Ok(r) => {
                if let Some(e) = r.error {
                    log_debug!("edge: a queued feed mine waits: {}", e.message);
                }
            }
            Err(e) => log_warn!("sending the queued feed mines failed: {}", e.message),
        }
    }
}

/// Whether a queued mine is due now.
fn due(store: &Outbox) -> bool {
    let now = util::now_ms();
    store
        .apart_open()
        .is_ok_and(|ops| ops.iter().any(|op| apart::due(op, now, true)))
}
