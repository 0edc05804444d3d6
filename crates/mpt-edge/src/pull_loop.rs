//! The owner's schedule for pulling the primary's log (`coord::puller` does a round): while the
//! primary answers, at start, on an interval, after a flush and after a read saw events the local log lacks.

use std::sync::Arc;

use serde_json::json;

use super::proxy::Proxy;
use mpt_base::{log_debug, log_warn};
use mpt_coord::pull::PullError;
use mpt_coord::puller::{Puller, load_record, round};
use mpt_mcp::Deadline;

/// Starts the schedule on the owner's runtime (a pull is a child process: nothing blocks).
pub fn spawn(proxy: Arc<Proxy>, puller: Puller) {
    tokio::spawn(async move { run(proxy, puller).await });
}

async fn run(proxy: Arc<Proxy>, p: Puller) {
    let Some(primary) = &proxy.primary else {
        return;
    };
    let mut rec = load_record(&p.paths, &p.spec.base_url);
    let mut primed = false;
    let mut failing = false;
    loop {
        if primary.health.usable() {
            // The child opens its log first: it mints the palace's replica id, not the pull.
            primed = primed || prime(&proxy).await;
            let pulled = if primed {
                round(&p.spec, &p.paths, &mut rec).await
            } else {
                None
            };
            match pulled {
                None => {}
                Some(Ok(pulled)) => {
                    log_debug!(
                        "edge pulled {} event(s), {} artifact(s) of the primary's log in {} ms",
                        pulled.pulled_events,
                        pulled.pulled_artifacts,
                        pulled.elapsed_ms
                    );
                    failing = false;
                }
                Some(Err(e @ PullError::Unsupported(_))) => {
                    return log_warn!(
                        "the edge does not pull the primary's coordination log: {e}; offline, asks seen online cannot be answered and `mpt mailbox` has no last-known view"
                    );
                }
                Some(Err(e)) => {
                    if !failing {
                        log_warn!(
                            "{e}: the local copy of the coordination log is as of the last pull; it is tried again"
                        );
                    } else {
                        log_debug!("pull: {e}");
                    }
                    failing = true;
                }
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(p.interval) => {}
            _ = primary.pull_wake.notified() => {}
        }
    }
}

/// Opens the child's log (a one-event list) so the child, not the pull, creates it.
async fn prime(proxy: &Proxy) -> bool {
    let r = proxy
        .child
        .request(
            "tools/call",
            Some(json!({"name": "mempalace_event_list", "arguments": {"limit": 1}})),
            Deadline::Default,
        )
        .await;
    r.is_ok()
}
