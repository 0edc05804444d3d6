//! The owner's side of `mpt edge stop` (`mpt/stop`, a sibling of `mpt/pull` on its socket): who is
//! attached, calls refused once stopping, the calls in flight counted until each is answered.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::watch;

use mpt_mcp::jsonrpc;

/// The request that asks the owner to stop (`{"dry_run": true}`: only who is attached). Not an
/// MCP method: mpt's own clients send it over the owner's socket, as they send `mpt/pull`.
pub const STOP_METHOD: &str = "mpt/stop";

/// One connection to the owner: a harness session (a shim, its pid and the harness above it)
/// or one of mpt's own tool clients (`mpt call`, doctor, backfill, this stop).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Attached {
    /// The connected process (the shim), from the socket's peer credentials.
    pub pid: Option<u32>,
    pub harness: String,
    /// Its parent: the harness process that runs the shim.
    pub parent_pid: Option<u32>,
    #[serde(skip)]
    session: bool,
}

/// The owner's side: every connection registered, a stop once none is a harness session, and
/// the calls in flight counted so the child stops only after each was answered (and queued).
pub struct Gate {
    next: AtomicU64,
    attached: Mutex<BTreeMap<u64, Attached>>,
    stopping: watch::Sender<bool>,
    inflight: watch::Sender<usize>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            next: AtomicU64::new(1),
            attached: Mutex::new(BTreeMap::new()),
            stopping: watch::Sender::new(false),
            inflight: watch::Sender::new(0),
        }
    }
}

/// Counts one call in flight until dropped (once its reply is written).
pub struct InFlight(Arc<Gate>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.inflight.send_modify(|n| *n -= 1);
    }
}

impl Gate {
    /// Registers a connection from `pid` (a harness session when its hello carried a shim's
    /// identity); the id to `detach` it with.
    pub fn attach(&self, pid: Option<u32>, harness: &str, session: bool) -> u64 {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let parent_pid = pid.and_then(parent_of);
        self.attached.lock().unwrap().insert(
            id,
            Attached {
                pid,
                harness: harness.to_string(),
                parent_pid,
                session,
            },
        );
        id
    }

    pub fn detach(&self, id: u64) {
        self.attached.lock().unwrap().remove(&id);
    }

    /// The harness sessions attached now.
    pub fn sessions(&self) -> Vec<Attached> {
        let all = self.attached.lock().unwrap();
        all.values().filter(|a| a.session).cloned().collect()
    }

    /// The reply the gate gives `msg` itself: the stop request, or a call refused while stopping
    /// (`None`: the proxy answers it).
    pub fn intercept(&self, msg: &Value) -> Option<Value> {
        if jsonrpc::classify(msg) != jsonrpc::Kind::Request {
            return None;
        }
        let id = &msg["id"];
        if msg["method"] == STOP_METHOD {
            let dry_run = msg.pointer("/params/dry_run") == Some(&Value::Bool(true));
            let result = self.ask_to_stop(dry_run);
            return Some(json!({"jsonrpc": "2.0", "id": id, "result": result}));
        }
        self.is_stopping().then(|| {
            jsonrpc::error_response(
                id,
                -32000,
                "the mpt edge owner is stopping (`mpt edge stop`): call again, and a new owner serves it",
            )
        })
    }

    fn ask_to_stop(&self, dry_run: bool) -> Value {
        let sessions = self.sessions();
        let stopping = !dry_run && sessions.is_empty();
        if stopping {
            self.stopping.send_replace(true);
        }
        json!({
            "stopping": stopping || self.is_stopping(),
            "owner_pid": std::process::id(),
            "sessions": sessions,
            "inflight": *self.inflight.borrow(),
        })
    }

    pub fn is_stopping(&self) -> bool {
        *self.stopping.borrow()
    }

    /// A call starts; it counts until the guard is dropped.
    pub fn enter(self: &Arc<Self>) -> InFlight {
        self.inflight.send_modify(|n| *n += 1);
        InFlight(Arc::clone(self))
    }

    /// Resolves once a stop was accepted.
    pub async fn stop_requested(&self) {
        let mut rx = self.stopping.subscribe();
        let _ = rx.wait_for(|s| *s).await;
    }

    /// Resolves once no call is in flight.
    pub async fn drained(&self) {
        let mut rx = self.inflight.subscribe();
        let _ = rx.wait_for(|n| *n == 0).await;
    }
}

/// The parent of `pid` (`/proc/<pid>/status`).
pub(super) fn parent_of(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))
        .and_then(|v| v.trim().parse().ok())
}
#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    }

    #[tokio::test]
    async fn a_session_keeps_the_owner_and_a_stop_refuses_calls_after_it() {
        let gate = Arc::new(Gate::default());
        let shim = gate.attach(Some(std::process::id()), "opencode", true);
        gate.attach(None, "doctor", false);
        let r = gate.intercept(&request(STOP_METHOD, json!({}))).unwrap();
        assert_eq!(r["result"]["stopping"], false, "{r}");
        assert_eq!(r["result"]["sessions"][0]["harness"], "opencode");
        let call = request("tools/call", json!({"name": "mempalace_status"}));
        assert!(gate.intercept(&call).is_none(), "served while not stopping");

        gate.detach(shim);
        let dry = gate.intercept(&request(STOP_METHOD, json!({"dry_run": true})));
        assert_eq!(
            dry.unwrap()["result"]["stopping"],
            false,
            "a dry run stops nothing"
        );
        let busy = gate.enter();
        let r = gate.intercept(&request(STOP_METHOD, json!({}))).unwrap();
        assert_eq!(r["result"]["stopping"], true);
        assert_eq!(r["result"]["inflight"], 1);
        gate.stop_requested().await;
        let refused = gate.intercept(&call).unwrap();
        assert_eq!(refused["error"]["code"], -32000, "{refused}");
        let waiter = Arc::clone(&gate);
        let drained = tokio::spawn(async move { waiter.drained().await });
        tokio::task::yield_now().await;
        assert!(!drained.is_finished());
        drop(busy);
        drained.await.unwrap();
    }
}
