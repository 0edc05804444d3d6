//! The requests a shim relayed to the owner and has not seen answered: each with its tool and the
//! deadline the owner has for it. The shim answers them itself when the owner dies or is stuck.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex as StdMutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::retry_advice;
use mpt_mcp::jsonrpc;

/// How long the owner may take over one request, as the shim sees it.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// `MEMPALACE_MCP_TIMEOUT_MS`: the child's per-call default (`None`: disabled).
    pub call: Option<Duration>,
    /// `MPT_EDGE_READ_DEADLINE_MS`: the primary's share of a call (a read's fan-out, a
    /// coordination write sent there first).
    pub read: Duration,
    /// The outbox's commits and the relay's own hops, on a loaded machine.
    pub slack: Duration,
}

impl Deadlines {
    pub fn new(call: Option<Duration>, read: Duration) -> Deadlines {
        Deadlines {
            call,
            read,
            slack: Duration::from_secs(5),
        }
    }

    /// The owner's budget for `method` (a `tools/call` of `tool(args)`): the deadline the owner
    /// gives the call (`proxy::call_deadline`, the child's table) plus the primary's share and
    /// some slack. `None`: no deadline (disabled, and not a call with one of its own).
    pub fn for_request(&self, method: &str, tool: Option<&str>, args: &Value) -> Option<Duration> {
        let own = match tool {
            Some(t) if method == "tools/call" => {
                super::proxy::call_deadline(t, args, self.call, self.read)
            }
            _ => self.call,
        };
        own.map(|d| d + self.read + self.slack)
    }
}

struct Pending {
    id: Value,
    tool: Option<String>,
    args: Value,
    due: Option<Instant>,
}

/// The in-flight set, shared by the stdin reader, the reply pump and the deadline watch.
#[derive(Default)]
pub struct Inflight {
    pending: StdMutex<HashMap<String, Pending>>,
    /// Requests the shim answered itself: the owner's late reply is dropped (one reply per id).
    answered: StdMutex<HashSet<String>>,
}

impl Inflight {
    /// Tracks a request line the harness sent (notifications and responses are not tracked).
    pub fn track(&self, line: &[u8], deadlines: &Deadlines) {
        let Ok(e) = serde_json::from_slice::<Envelope>(line.trim_ascii()) else {
            return;
        };
        let (Some(method), Some(id)) = (e.method, e.id) else {
            return;
        };
        if !(id.is_string() || id.is_number()) {
            return;
        }
        let mut params = e.params.unwrap_or(Value::Null);
        let tool = (method == "tools/call")
            .then(|| {
                params
                    .get("name")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .flatten();
        let args = params
            .get_mut("arguments")
            .map(Value::take)
            .unwrap_or(Value::Null);
        let due = deadlines
            .for_request(&method, tool.as_deref(), &args)
            .map(|d| Instant::now() + d);
        let key = jsonrpc::id_key(&id);
        self.answered.lock().unwrap().remove(&key);
        self.pending.lock().unwrap().insert(
            key,
            Pending {
                id,
                tool,
                args,
                due,
            },
        );
    }

    /// A reply line from the owner: `false` when the shim answered that request already (the
    /// line is dropped).
    pub fn settle(&self, line: &[u8]) -> bool {
        let Some(key) = response_id(line) else {
            return true;
        };
        if self.pending.lock().unwrap().remove(&key).is_some() {
            return true;
        }
        !self.answered.lock().unwrap().remove(&key)
    }

    /// Error replies for every request in flight: the owner (`owner`: its pid) died before
    /// answering. Whether calling again is safe follows each tool's replay class.
    pub fn answer_lost(&self, owner: Option<u32>) -> Vec<Value> {
        let lost: Vec<(String, Pending)> = self.pending.lock().unwrap().drain().collect();
        let mut answered = self.answered.lock().unwrap();
        lost.into_iter()
            .map(|(k, p)| {
                // A request still queued for the owner reaches the next one: its reply is dropped.
                answered.insert(k);
                let msg = retry_advice::owner_lost_message(p.tool.as_deref(), &p.args, owner);
                jsonrpc::error_response(&p.id, -32000, &msg)
            })
            .collect()
    }

    /// Error replies for the requests whose deadline passed: the owner is alive but does not
    /// answer (stopped, or stuck). Its late replies to them are dropped.
    pub fn answer_overdue(&self, owner: Option<u32>) -> Vec<Value> {
        let now = Instant::now();
        let overdue: Vec<(String, Pending)> = {
            let mut pending = self.pending.lock().unwrap();
            let keys: Vec<String> = pending
                .iter()
                .filter(|(_, p)| p.due.is_some_and(|d| d <= now))
                .map(|(k, _)| k.clone())
                .collect();
            keys.into_iter()
                .filter_map(|k| pending.remove(&k).map(|p| (k, p)))
                .collect()
        };
        let mut answered = self.answered.lock().unwrap();
        overdue
            .into_iter()
            .map(|(k, p)| {
                answered.insert(k);
                let msg = retry_advice::owner_stuck_message(p.tool.as_deref(), &p.args, owner);
                jsonrpc::error_response(&p.id, -32000, &msg)
            })
            .collect()
    }
}

#[derive(serde::Deserialize)]
struct Envelope {
    id: Option<Value>,
    method: Option<String>,
    params: Option<Value>,
    result: Option<serde::de::IgnoredAny>,
    error: Option<serde::de::IgnoredAny>,
}

fn response_id(line: &[u8]) -> Option<String> {
    let e: Envelope = serde_json::from_slice(line.trim_ascii()).ok()?;
    if e.result.is_none() && e.error.is_none() {
        return None;
    }
    e.id.map(|i| jsonrpc::id_key(&i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(v: Value) -> Vec<u8> {
        v.to_string().into_bytes()
    }

    #[test]
    fn a_request_answered_by_the_shim_drops_the_owners_late_reply() {
        let f = Inflight::default();
        let now = Deadlines {
            call: Some(Duration::ZERO),
            read: Duration::ZERO,
            slack: Duration::ZERO,
        };
        let call = |id: u64| {
            line(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                        "params": {"name": "mempalace_kg_stats", "arguments": {}}}))
        };
        f.track(&call(7), &now);
        f.track(
            &line(json!({"jsonrpc": "2.0", "method": "notifications/x"})),
            &now,
        );
        let overdue = f.answer_overdue(Some(9));
        assert_eq!(overdue.len(), 1, "{overdue:?}");
        let msg = overdue[0]["error"]["message"].as_str().unwrap();
        assert!(msg.contains("pid 9") && msg.contains("kill 9"), "{msg}");
        let late = line(json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
        assert!(
            !f.settle(&late),
            "answered by the shim: the late reply is dropped"
        );
        // The same id asked again is a new request, relayed when answered.
        let later = Deadlines {
            call: Some(Duration::from_secs(60)),
            ..now
        };
        f.track(&call(7), &later);
        assert!(f.answer_overdue(Some(9)).is_empty());
        assert!(f.settle(&late), "answered by the owner in time: relayed");
        assert!(f.answer_lost(Some(9)).is_empty(), "nothing left in flight");
    }

    #[test]
    fn overdue_and_lost_requests_name_the_owner_and_their_tool() {
        let f = Inflight::default();
        let overdue = Deadlines::new(None, Duration::ZERO);
        // No call deadline at all, except a tool's own: the mine's minutes.
        assert_eq!(overdue.for_request("ping", None, &json!({})), None);
        f.track(
            &line(json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
                         "params": {"name": "mempalace_diary_write", "arguments": {"entry": "x"}}})),
            &overdue,
        );
        let lost = f.answer_lost(Some(41));
        assert_eq!(lost.len(), 1);
        let msg = lost[0]["error"]["message"].as_str().unwrap();
        assert!(
            msg.contains("pid 41") && msg.contains("diary_write"),
            "{msg}"
        );
        assert_eq!(lost[0]["id"], "a");
    }
}
