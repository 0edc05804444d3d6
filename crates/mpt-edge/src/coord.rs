//! Coordination reads through the edge (event_list, event_wait): the primary's log and this
//! palace's own events not yet on it, each event once; offline the local log alone, degraded.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::merge;
use super::proxy::{Primary, Proxy};
use mpt_coord::union::{self, Order};
use mpt_mcp::{CallError, Deadline, ToolReply};

/// Arguments that may name an event by an id this palace minted.
const ID_ARGS: &[&str] = &["since_event_id", "before_event_id", "correlation_id"];

impl Proxy {
    pub(super) async fn coordination_read(
        &self,
        primary: &Primary,
        name: &str,
        args: Value,
    ) -> Result<Value, CallError> {
        let patience = mpt_palace::catalog::tool(name).patience;
        let wait = patience.poll_wait(&args).is_some();
        if !primary.health.usable() {
            let local = self
                .child_call(name, at_once(&args, wait), Deadline::Default)
                .await;
            return self.local_only(primary, &args, wait, local, None);
        }
        let remote_args = self.for_primary(&args);
        let (local, remote) = if wait {
            // What the local log holds now (own events, pulled copies) answers at once, with the
            // primary asked at once too; otherwise the wait is the primary's (whose log it is).
            let local = self
                .child_call(name, at_once(&args, true), Deadline::Default)
                .await;
            let remote = if has_events(&local) {
                let d = Deadline::After(primary.read_deadline);
                self.ask_primary(primary, name, at_once(&remote_args, true), d)
                    .await
            } else {
                let wait = patience.poll_wait(&args).unwrap_or_default();
                let d = Deadline::After(wait + primary.read_deadline);
                self.ask_primary(primary, name, remote_args, d).await
            };
            (local, remote)
        } else {
            let d = Deadline::After(primary.read_deadline);
            tokio::join!(
                self.child_call(name, args.clone(), Deadline::Default),
                self.ask_primary(primary, name, remote_args, d)
            )
        };
        // The gateway's policy refused this device the read: its answer, not a local stand-in.
        if let Err(e) = &remote
            && e.denial().is_some()
        {
            return remote;
        }
        let Some((payload, theirs)) = remote.as_ref().ok().and_then(events_of) else {
            let why = match &remote {
                Err(e) => e.to_string(),
                Ok(r) => format!(
                    "the primary reported: {}",
                    ToolReply::from_result(r).failure.unwrap_or_default()
                ),
            };
            // A primary error with a local one too: the primary's words (whose log it is).
            if let (Ok(r), false) = (
                &remote,
                local.as_ref().ok().is_some_and(|l| events_of(l).is_some()),
            ) {
                return Ok(r.clone());
            }
            return self.local_only(primary, &args, wait, local, Some(why));
        };
        let mine = local.as_ref().ok().and_then(events_of).map(|(_, e)| e);
        let full = mine
            .as_ref()
            .is_some_and(|m| m.len() >= union::limit_of(&args));
        let (pulled, own) =
            union::split_local(mine.unwrap_or_default(), self.replica(primary).as_deref());
        if lacks_newer(&theirs, &pulled, &own, full) {
            primary.pull_wake.notify_one();
        }
        let n_primary = theirs.len();
        let m = union::merge(
            theirs.into_iter().chain(pulled).collect(),
            own,
            &|id| self.landed(id),
            Order::of(&args, wait),
            union::limit_of(&args),
        );
        let mut out = payload;
        out["merged"] = json!({"local": m.own, "primary": n_primary});
        let result = remote.expect("checked above");
        Ok(merge::with_payload(
            &result,
            &with_events(out, m.events, wait),
        ))
    }

    /// The local answer alone: its own events and the pulled copies as one list, marked degraded.
    fn local_only(
        &self,
        primary: &Primary,
        args: &Value,
        wait: bool,
        local: Result<Value, CallError>,
        why: Option<String>,
    ) -> Result<Value, CallError> {
        let local = local?;
        let Some((payload, mine)) = events_of(&local) else {
            return Ok(local);
        };
        let (pulled, own) = union::split_local(mine, self.replica(primary).as_deref());
        let m = union::merge(
            pulled,
            own,
            &|id| self.landed(id),
            Order::of(args, wait),
            union::limit_of(args),
        );
        let why = why
            .or_else(|| primary.health.last_error())
            .unwrap_or_else(|| "the primary is unreachable".into());
        let payload = merge::degraded(with_events(payload, m.events, wait), &why);
        Ok(merge::with_payload(&local, &payload))
    }

    /// A tools/call to the primary; its health follows the transport's answer.
    async fn ask_primary(
        &self,
        primary: &Primary,
        name: &str,
        args: Value,
        deadline: Deadline,
    ) -> Result<Value, CallError> {
        let r = primary
            .client
            .request(
                "tools/call",
                Some(json!({"name": name, "arguments": args})),
                deadline,
            )
            .await;
        primary.health.observe(&r);
        r
    }

    /// The arguments as the primary knows them: ids this palace minted, once landed, the primary's.
    fn for_primary(&self, args: &Value) -> Value {
        let mut a = args.clone();
        for k in ID_ARGS {
            if let Some(p) = a
                .get(*k)
                .and_then(Value::as_str)
                .and_then(|id| self.landed(id))
            {
                a[*k] = json!(p);
            }
        }
        a
    }

    /// The primary's id for an id this palace minted, once its op landed.
    fn landed(&self, local_id: &str) -> Option<String> {
        self.log.as_ref()?.landed(local_id)
    }

    /// This palace's replica id (`replica.json`, written by the child's log).
    fn replica(&self, primary: &Primary) -> Option<String> {
        mpt_palace::files::replica_id(&primary.palace)
    }
}

/// The arguments for an answer now: event_wait with `timeout_ms` 0.
fn at_once(args: &Value, wait: bool) -> Value {
    let mut a = args.clone();
    if wait {
        a["timeout_ms"] = json!(0);
    }
    a
}

/// A good reply's payload and its events.
fn events_of(result: &Value) -> Option<(Value, Vec<Value>)> {
    let reply = ToolReply::from_result(result);
    if !reply.ok() {
        return None;
    }
    let events = reply.payload.get("events")?.as_array()?.clone();
    Some((reply.payload, events))
}

fn has_events(local: &Result<Value, CallError>) -> bool {
    local
        .as_ref()
        .ok()
        .and_then(events_of)
        .is_some_and(|(_, e)| !e.is_empty())
}

fn with_events(mut payload: Value, events: Vec<Value>, wait: bool) -> Value {
    payload["count"] = json!(events.len());
    if wait {
        payload["timed_out"] = json!(events.is_empty());
    }
    payload["events"] = Value::Array(events);
    payload
}

/// Whether the primary showed events the local log lacks (then a pull is due): any, when the
/// local answer was complete; else only those newer than everything the local answer held.
fn lacks_newer(theirs: &[Value], pulled: &[Value], own: &[Value], local_full: bool) -> bool {
    let have: HashSet<&str> = pulled
        .iter()
        .chain(own)
        .filter_map(|e| e.get("id").and_then(Value::as_str))
        .collect();
    let newest = pulled
        .iter()
        .chain(own)
        .filter_map(|e| e.get("hlc").and_then(Value::as_str))
        .max()
        .unwrap_or("");
    theirs.iter().any(|e| {
        let id = e.get("id").and_then(Value::as_str).unwrap_or("");
        let hlc = e.get("hlc").and_then(Value::as_str).unwrap_or("");
        !have.contains(id) && (!local_full || hlc > newest)
    })
}
