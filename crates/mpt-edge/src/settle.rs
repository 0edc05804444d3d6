//! Intents left unsettled (an owner killed while its child applied a write, a child that stalled)
//! settled against the local palace with the replay checks: there → queued, absent → cancelled.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::proxy::{Proxy, WriteLog, on_log};
use mpt_base::{log_debug, log_warn};
use mpt_mcp::stdio::StdioClient;
use mpt_mcp::{Deadline, McpClient, ToolReply};
use mpt_outbox::intent::Intent;
use mpt_outbox::replay::{self, Check, Schemas, Strategy};
use mpt_outbox::{Op, OpState, refs};

/// How long an owner waits, at its start, for a dead owner's child to finish what it was given.
const ORPHAN_WAIT: Duration = Duration::from_secs(60);
/// How often an intent that could not be settled is tried again.
const RETRY: Duration = Duration::from_secs(5);

/// What settling an intent did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The palace holds it (or applied it again, harmlessly): queued for the primary.
    Queued,
    /// The palace does not hold it: nothing to replicate.
    Cancelled,
    /// It cannot be told: queued failed, for an operator.
    Failed,
}

pub struct Settler {
    child: Arc<StdioClient>,
    log: Arc<dyn WriteLog>,
    schemas: Schemas,
    palace: PathBuf,
}

impl Settler {
    /// The settler of this edge's intents (`None` without an outbox or a primary).
    pub fn of(proxy: &Proxy) -> Option<Settler> {
        let primary = proxy.primary.as_ref()?;
        Some(Settler {
            child: Arc::clone(&proxy.child),
            log: Arc::clone(proxy.log.as_ref()?),
            schemas: Schemas::from_tools(&proxy.handshake.tools),
            palace: primary.palace.clone(),
        })
    }

    /// At an owner's start, before it serves: every intent a dead owner left for this palace,
    /// once that owner's child is gone (it may still be applying what it was given). What cannot
    /// be settled now is tried again in the background.
    pub async fn at_start(self) {
        let intents = match on_log(&self.log, |l| l.intents()).await {
            Ok(i) => i,
            Err(why) => return log_warn!("the edge cannot read its intents: {why}"),
        };
        let left: Vec<&Intent> = intents.iter().filter(|i| !owned_elsewhere(i)).collect();
        if left.is_empty() {
            return;
        }
        log_debug!(
            "edge: {} write(s) a dead owner left unsettled: settling them against the palace",
            left.len()
        );
        let gone = self.orphans_gone().await;
        let mut unsettled = Vec::new();
        for i in left {
            if !gone {
                unsettled.push(i.id);
                continue;
            }
            match self.settle(i).await {
                Ok(s) => log_debug!("edge: intent {} ({}) {s:?}", i.id, i.tool_name),
                Err(why) => {
                    log_warn!(
                        "edge: intent {} ({}) not settled yet: {why}",
                        i.id,
                        i.tool_name
                    );
                    unsettled.push(i.id);
                }
            }
        }
        if !unsettled.is_empty() {
            let me = Arc::new(self);
            for id in unsettled {
                Arc::clone(&me).retry(id);
            }
        }
    }

    /// Settles intent `id` in the background, again every few seconds until it is settled.
    pub fn later(self, id: i64) {
        Arc::new(self).retry(id);
    }

    fn retry(self: Arc<Self>, id: i64) {
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(RETRY).await;
                let intents = match on_log(&self.log, |l| l.intents()).await {
                    Ok(i) => i,
                    Err(_) => continue,
                };
                let Some(i) = intents.into_iter().find(|i| i.id == id) else {
                    return;
                };
                match self.settle(&i).await {
                    Ok(s) => return log_debug!("edge: intent {id} ({}) {s:?}", i.tool_name),
                    Err(why) => log_debug!("edge: intent {id} not settled yet: {why}"),
                }
            }
        });
    }

    /// Settles one intent: applied again where a replay is harmless (the server dedupes it),
    /// else looked for in the palace with the replay check the flusher uses on the primary.
    pub async fn settle(&self, i: &Intent) -> Result<Settled, String> {
        let client = McpClient::Shared(Arc::clone(&self.child));
        let id = i.id;
        if replay::strategy(&i.tool_name, &i.payload) == Strategy::Idempotent {
            let r = client
                .request(
                    "tools/call",
                    Some(json!({"name": i.tool_name, "arguments": i.payload})),
                    Deadline::Default,
                )
                .await
                .map_err(|e| e.to_string())?;
            let reply = ToolReply::from_result(&r);
            if reply.ok() || i.maybe_applied {
                let local = reply.ok().then_some(reply.payload);
                on_log(&self.log, move |l| l.confirm(id, local.as_ref())).await?;
                return Ok(Settled::Queued);
            }
            on_log(&self.log, move |l| l.cancel(id)).await?;
            return Ok(Settled::Cancelled);
        }
        let check = replay::check(&client, &as_op(i), &self.schemas, &[])
            .await
            .map_err(|e| e.to_string())?;
        let tool = i.tool_name.clone();
        match check {
            Check::Present(_, found) => {
                let local = found.map(|e| refs::landed_from_found(&tool, &e));
                on_log(&self.log, move |l| l.confirm(id, local.as_ref())).await?;
                Ok(Settled::Queued)
            }
            // The primary may hold it even so, or a replay is harmless (an orphan artifact at
            // worst), or part of it is there: queued, and checked on the primary first.
            Check::Absent if !i.maybe_applied => {
                on_log(&self.log, move |l| l.cancel(id)).await?;
                Ok(Settled::Cancelled)
            }
            Check::Absent | Check::NotNeeded | Check::Resend { .. } => {
                on_log(&self.log, move |l| l.confirm(id, None)).await?;
                Ok(Settled::Queued)
            }
            Check::Unverifiable(why) => {
                let error = json!({"kind": "check_failed", "message": format!(
                    "the edge owner stopped while the local palace applied this {tool}, and {why}: look in the palace, then `mpt outbox retry` sends it or `mpt outbox drop --yes` gives it up"
                )});
                on_log(&self.log, move |l| l.confirm_failed(id, &error)).await?;
                Ok(Settled::Failed)
            }
        }
    }

    /// Waits (bounded) until no other MemPalace child serves this palace: a dead owner's child
    /// applies what was already written to its stdin before it sees the end of it.
    async fn orphans_gone(&self) -> bool {
        let ours = self.child.pid().await;
        let until = Instant::now() + ORPHAN_WAIT;
        loop {
            let all = mpt_palace::procs::list();
            let others = mpt_palace::procs::serving(&all, &self.palace)
                .into_iter()
                .filter(|p| Some(p.pid) != ours)
                .filter(|p| p.role == Some(mpt_palace::procs::Role::Child))
                .count();
            if others == 0 {
                return true;
            }
            if Instant::now() > until {
                log_warn!(
                    "edge: another MemPalace child still serves {} after {} s: the writes a dead owner left are settled later",
                    self.palace.display(),
                    ORPHAN_WAIT.as_secs()
                );
                return false;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// An intent recorded by a process that is still alive and not this one (another owner of the
/// same palace through another HOME): not ours to settle.
fn owned_elsewhere(i: &Intent) -> bool {
    i.owner_pid != std::process::id()
        && std::path::Path::new(&format!("/proc/{}", i.owner_pid)).exists()
        && mpt_palace::procs::list()
            .iter()
            .any(|p| p.pid == i.owner_pid && p.role == Some(mpt_palace::procs::Role::Edge))
}

/// The intent in the shape the replay check reads (only the tool, payload and time count).
fn as_op(i: &Intent) -> Op {
    Op {
        id: 0,
        op_id: String::new(),
        local_seq: 0,
        origin_device: String::new(),
        origin_host: String::new(),
        tool_name: i.tool_name.clone(),
        payload: i.payload.clone(),
        dedupe_key: None,
        state: OpState::Queued,
        attempts: 0,
        sends: 0,
        unconfirmed: true,
        next_attempt_at: 0,
        lease_token: None,
        lease_expires_at: None,
        first_sent_at: None,
        created_at: i.created_at,
        updated_at: i.created_at,
        flushed_at: None,
        outcome: None,
        primary_ref: None,
        error: None::<Value>,
    }
}
