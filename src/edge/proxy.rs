//! One MCP request from a harness, answered: `initialize`/`ping`/`tools/list` locally, tools
//! routed by our fail-closed table — reads fanned out (merged, or primary-first with local
//! fallback), writes applied on the child then queued for the primary, the rest child-only.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::health::Health;
use super::merge::{self, ReadKind};
use super::policy::Policy;
use super::retry_advice::{self, Applied};
use super::stamp::Stamper;
use crate::error::MptError;
use crate::log_debug;
use crate::mcp::stdio::StdioClient;
use crate::mcp::{CallError, Deadline, Handshake, McpClient, ToolReply, jsonrpc};
use crate::outbox::replay;
use crate::palace::catalog::{self, Patience, ToolClass};

/// The request that wakes the owner's pull of the primary's log (not an MCP method: mpt's own
/// clients send it over the owner's socket).
pub const PULL_METHOD: &str = "mpt/pull";

/// Protocol versions MemPalace 3.11 knows (`schemas.py:1153`), newest first.
const KNOWN_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Where replicated writes go once the child accepted them (the outbox).
pub trait WriteLog: Send + Sync {
    /// Durably records the op; returns its id. `local_reply`: the child's reply payload when it
    /// applied the write (its minted ids map to the primary's later); `maybe_applied`: a send
    /// to the primary got no complete answer (checked before it is sent again).
    fn record(
        &self,
        tool: &str,
        args: &Value,
        local_reply: Option<&Value>,
        maybe_applied: bool,
    ) -> Result<String, MptError>;

    /// Rewrites references in `args` to ids this device minted into the primary's ids, for ops
    /// that landed; `false` when one references an op that has not (the call must queue behind it).
    fn resolve(&self, args: &mut Value) -> Result<bool, MptError>;

    /// The primary's id for an id this device minted, once its op landed (merged reads show
    /// one event for the two copies).
    fn landed(&self, _local_id: &str) -> Option<String> {
        None
    }
}

/// The primary side: its client and health.
pub struct Primary {
    pub client: McpClient,
    pub health: Health,
    /// The primary's embedder identity once learned (or declared in the config).
    pub embedder: std::sync::RwLock<Option<String>>,
    /// The local palace's embedder sidecar.
    pub local_sidecar: std::path::PathBuf,
    pub read_deadline: Duration,
    /// The local palace (its log, its replica id).
    pub palace: std::path::PathBuf,
    /// Wakes the owner's pull of the primary's log (a flush landed, a read saw events it lacks).
    pub pull_wake: Arc<tokio::sync::Notify>,
}

impl Primary {
    /// Why search results may not be merged now (`None`: both identities known and equal).
    pub fn merge_gate(&self) -> Option<String> {
        let local = crate::palace::files::embedder_identity(&self.local_sidecar)
            .ok()
            .flatten()
            .map(|e| e.model_name);
        let remote = self.embedder.read().unwrap().clone();
        match (local, remote) {
            (Some(l), Some(r)) if l == r => None,
            (Some(l), Some(r)) => Some(format!("embedders differ: local {l}, primary {r}: distances are not comparable")),
            (None, _) => Some("the local palace's embedder identity is not known yet".into()),
            (_, None) => Some("the primary's embedder identity is unknown (declare primary_embedder in the mpt config)".into()),
        }
    }
}

pub struct Proxy {
    pub child: Arc<StdioClient>,
    pub handshake: Handshake,
    pub primary: Option<Primary>,
    pub policy: Policy,
    pub log: Option<Arc<dyn WriteLog>>,
}

impl Proxy {
    /// The same palace without the primary: reads answered by the child alone, writes applied
    /// there and never queued.
    pub fn without_primary(&self) -> Proxy {
        Proxy {
            child: Arc::clone(&self.child),
            handshake: self.handshake.clone(),
            primary: None,
            policy: self.policy.clone(),
            log: None,
        }
    }

    /// The reply to one incoming message (`None` for notifications and stray responses).
    /// `stamper` is the connection's own (its harness name), when both gates hold.
    pub async fn handle(&self, msg: Value, stamper: Option<&Stamper>) -> Option<Value> {
        match jsonrpc::classify(&msg) {
            jsonrpc::Kind::Notification | jsonrpc::Kind::Response => None,
            jsonrpc::Kind::Invalid(why) => {
                let id = msg
                    .get("id")
                    .filter(|i| i.is_string() || i.is_number())
                    .cloned()
                    .unwrap_or(Value::Null);
                Some(jsonrpc::error_response(
                    &id,
                    -32600,
                    &format!("Invalid Request: {why}"),
                ))
            }
            jsonrpc::Kind::Request => {
                let id = msg["id"].clone();
                let method = msg["method"].as_str().unwrap_or("").to_string();
                let params = msg.get("params").cloned();
                Some(match self.request(&method, params, stamper).await {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Err(e) => error_reply(&id, e),
                })
            }
        }
    }

    async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        stamper: Option<&Stamper>,
    ) -> Result<Value, CallError> {
        match method {
            "initialize" => Ok(self.initialize(params.as_ref())),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": self.handshake.tools})),
            // mpt's own: `mpt mailbox` read the primary's log and wants the local copy current
            // (offline, an ask seen online can then be answered).
            PULL_METHOD => Ok(match &self.primary {
                Some(p) => {
                    p.pull_wake.notify_one();
                    json!({"woken": true})
                }
                None => json!({"woken": false}),
            }),
            "tools/call" => {
                let p = params.unwrap_or(Value::Null);
                let Some(name) = p.get("name").and_then(Value::as_str) else {
                    return Err(CallError::Rpc {
                        code: -32602,
                        message: "tools/call needs a tool name".into(),
                        data: None,
                    });
                };
                let args = p
                    .get("arguments")
                    .cloned()
                    .filter(|a| !a.is_null())
                    .unwrap_or_else(|| json!({}));
                self.call(name, args, stamper).await
            }
            other => self.child.request(other, params, Deadline::Default).await,
        }
    }

    /// Answered as the child answers: a version it knows is echoed, an unknown one gets its newest,
    /// none gets the oldest.
    fn initialize(&self, params: Option<&Value>) -> Value {
        let asked = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        let version = match asked {
            Some(v) if KNOWN_VERSIONS.contains(&v) => v,
            Some(_) => KNOWN_VERSIONS[0],
            None => KNOWN_VERSIONS[KNOWN_VERSIONS.len() - 1],
        };
        let mut r = self.handshake.init.clone();
        r["protocolVersion"] = json!(version);
        r
    }

    async fn call(
        &self,
        name: &str,
        args: Value,
        stamper: Option<&Stamper>,
    ) -> Result<Value, CallError> {
        let args = stamper.map_or(args.clone(), |s| s.stamp(name, args));
        match catalog::classify(name) {
            ToolClass::Read => self.read(name, args).await,
            ToolClass::Write => self.write(name, args).await,
            // mine, sync, reconnect and delete_*: this palace only, never the primary.
            ToolClass::Maintenance | ToolClass::Destructive => {
                self.child_call(name, args, deadline_for(name)).await
            }
        }
    }

    pub(super) async fn child_call(
        &self,
        name: &str,
        args: Value,
        deadline: Deadline,
    ) -> Result<Value, CallError> {
        self.child
            .request(
                "tools/call",
                Some(json!({"name": name, "arguments": args})),
                deadline,
            )
            .await
    }

    async fn write(&self, name: &str, args: Value) -> Result<Value, CallError> {
        let mut maybe_applied = false;
        let mut args = args;
        // The coordination log lives on the primary and its ids are minted by whichever palace
        // applies the call: while the primary answers, these go straight there (no local copy
        // whose ids the fleet would never see); when it does not, local first and queued, the
        // ids the local palace minted mapped to the primary's when the op lands.
        if is_coordination(name)
            && let Some(primary) = &self.primary
        {
            // One key in the local original and the primary's copy: one event, whichever way.
            if replay::declares_object(&self.handshake.tools, name, "metadata") {
                replay::stamp_key(&mut args, &crate::outbox::util::lease_token());
            }
            // An id this device minted offline: the primary's own once its op landed; until
            // then the primary does not know it, and the call queues behind that op. (The local
            // palace and the outbox keep the local ids.)
            let mut remote_args = args.clone();
            let landed = match &self.log {
                Some(log) => log.resolve(&mut remote_args).map_err(|e| CallError::Rpc {
                    code: -32000,
                    message: format!(
                        "nothing was written: the outbox's id map could not be read ({})",
                        e.message
                    ),
                    data: None,
                })?,
                None => true,
            };
            if landed && primary.health.usable() {
                let sent = primary
                    .client
                    .request(
                        "tools/call",
                        Some(json!({"name": name, "arguments": remote_args})),
                        // As a read's: a black-holed link must not stall the agent for minutes.
                        Deadline::After(primary.read_deadline),
                    )
                    .await;
                match sent {
                    Ok(result) => {
                        primary.health.ok();
                        return Ok(result);
                    }
                    Err(e) if !e.is_transient() => return Err(e),
                    Err(e) => {
                        // Dropped mid-call, it may have applied: applied locally all the same (the
                        // agent needs an id now), queued, and checked on the primary before resending.
                        maybe_applied = e.is_ambiguous()
                            || matches!(
                                e,
                                CallError::Http {
                                    failure: crate::mcp::HttpFailure::Server,
                                    ..
                                }
                            );
                        primary.health.failed_call(&e);
                    }
                }
            }
        }
        let result = match self.child_call(name, args.clone(), Deadline::Default).await {
            Ok(r) => r,
            Err(e) if maybe_applied => {
                log_debug!("the local palace refused {name} ({e}): queued for the primary only");
                return self.queue_only(name, args, true, MID_CALL).await;
            }
            Err(e) => return Err(e),
        };
        let local = ToolReply::from_result(&result);
        if !local.ok() {
            if maybe_applied {
                return self.queue_only(name, args, true, MID_CALL).await;
            }
            // A write the child rejects is not replicated, with one exception: an ack of an
            // event the local log lacks (an ask seen on the primary, not pulled yet) is queued
            // for the primary, which validates it.
            if self.primary.is_some() && acks_an_unknown_event(name, &local) {
                return self.queue_only(name, args, false, UNKNOWN_EVENT).await;
            }
            return Ok(result);
        }
        if self.primary.is_some()
            && let Some(log) = &self.log
            && self.policy.replicates(name, &args)
        {
            let (log, tool, a, reply) = (
                Arc::clone(log),
                name.to_string(),
                args.clone(),
                local.payload,
            );
            let recorded = tokio::task::spawn_blocking(move || {
                log.record(&tool, &a, Some(&reply), maybe_applied)
            })
            .await;
            match recorded {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Err(not_queued(name, &args, Applied::Locally, &e.message)),
                Err(e) => {
                    return Err(not_queued(name, &args, Applied::Locally, &e.to_string()));
                }
            }
        }
        Ok(result)
    }

    /// An op the local palace could not apply, queued for the primary alone; `maybe_applied`: the
    /// primary may already hold it (replay-checked before it is sent). `note` says why.
    async fn queue_only(
        &self,
        name: &str,
        args: Value,
        maybe_applied: bool,
        note: &str,
    ) -> Result<Value, CallError> {
        let Some(log) = &self.log else {
            return Err(not_queued(
                name,
                &args,
                Applied::MaybeOnPrimary,
                "no outbox is configured",
            ));
        };
        let (log, tool, a) = (Arc::clone(log), name.to_string(), args.clone());
        let op =
            tokio::task::spawn_blocking(move || log.record(&tool, &a, None, maybe_applied)).await;
        match op {
            Ok(Ok(op_id)) => Ok(
                json!({"content": [{"type": "text", "text": serde_json::to_string_pretty(&json!({
                "success": true,
                "queued": op_id,
                "note": note,
            })).unwrap_or_default()}]}),
            ),
            Ok(Err(e)) => Err(not_queued(name, &args, Applied::MaybeOnPrimary, &e.message)),
            Err(e) => Err(not_queued(
                name,
                &args,
                Applied::MaybeOnPrimary,
                &e.to_string(),
            )),
        }
    }

    async fn read(&self, name: &str, args: Value) -> Result<Value, CallError> {
        let Some(primary) = &self.primary else {
            return self.child_call(name, args, Deadline::Default).await;
        };
        if merge::read_kind(name) == ReadKind::Events {
            return self.coordination_read(primary, name, args).await;
        }
        if !primary.health.usable() {
            let why = primary
                .health
                .last_error()
                .unwrap_or_else(|| "the primary is unreachable".into());
            return self.local_degraded(name, args, &why).await;
        }
        let remote = async {
            let r = primary
                .client
                .request(
                    "tools/call",
                    Some(json!({"name": name, "arguments": args.clone()})),
                    Deadline::After(primary.read_deadline),
                )
                .await;
            match &r {
                Ok(_) => primary.health.ok(),
                Err(e) if !matches!(e, CallError::Rpc { .. }) => primary.health.failed_call(e),
                Err(_) => {}
            }
            r
        };
        let (local, remote) = tokio::join!(
            self.child_call(name, args.clone(), Deadline::Default),
            remote
        );
        let remote_payload = remote
            .as_ref()
            .ok()
            .map(ToolReply::from_result)
            .filter(ToolReply::ok);
        let Some(rp) = remote_payload else {
            let why = match &remote {
                Err(e) => e.to_string(),
                Ok(r) => format!(
                    "the primary reported: {}",
                    ToolReply::from_result(r).failure.unwrap_or_default()
                ),
            };
            let local = local?;
            let lp = ToolReply::from_result(&local);
            return Ok(merge::with_payload(
                &local,
                &merge::degraded(lp.payload, &why),
            ));
        };
        let remote = remote.expect("checked above");
        let lp = match &local {
            Ok(l) => ToolReply::from_result(l),
            Err(_) => return Ok(remote),
        };
        if !lp.ok() {
            return Ok(remote);
        }
        let merged = match merge::read_kind(name) {
            ReadKind::Search => match primary.merge_gate() {
                Some(why) => merge::merge_disabled(rp.payload, &why),
                None => merge::search(
                    &lp.payload,
                    &rp.payload,
                    args.get("limit").and_then(Value::as_u64).unwrap_or(5) as usize,
                ),
            },
            ReadKind::Drawers => merge::drawers(&lp.payload, &rp.payload),
            ReadKind::Counts => merge::counts(&lp.payload, &rp.payload),
            ReadKind::Diary => merge::diary(
                &lp.payload,
                &rp.payload,
                args.get("last_n").and_then(Value::as_u64).unwrap_or(10) as usize,
            ),
            ReadKind::PrimaryFirst | ReadKind::Events => return Ok(remote),
        };
        Ok(merge::with_payload(&remote, &merged))
    }

    async fn local_degraded(&self, name: &str, args: Value, why: &str) -> Result<Value, CallError> {
        let local = self.child_call(name, args, Deadline::Default).await?;
        let p = ToolReply::from_result(&local);
        Ok(merge::with_payload(
            &local,
            &merge::degraded(p.payload, why),
        ))
    }
}

/// Why a write was queued without a local copy: the primary stopped answering mid-call.
const MID_CALL: &str = "the primary stopped answering mid-call and the local palace could not apply it: the op is queued and checked against the primary before it is resent";
/// ... or the ack answers an event only the primary holds.
const UNKNOWN_EVENT: &str = "the local copy of the coordination log lacks this event (an ask seen on the primary): the ack is queued for the primary, which validates it when it lands";

/// `event_ack` refused by the local palace because its log has no such event (MemPalace's
/// `ValueError: event '<id>' not found`).
fn acks_an_unknown_event(name: &str, local: &ToolReply) -> bool {
    catalog::bare(name) == "event_ack"
        && local
            .failure
            .as_deref()
            .is_some_and(|f| f.starts_with("event ") && f.ends_with(" not found"))
}

/// Writes to the coordination log (RFC 003): primary-first.
fn is_coordination(name: &str) -> bool {
    catalog::tool(name).coordination
}

/// The catalog's deadline for a tool the child alone answers (the mine needs minutes).
fn deadline_for(name: &str) -> Deadline {
    match catalog::tool(name).patience {
        Patience::Fixed(d) => Deadline::After(d),
        Patience::Default | Patience::LongPoll { .. } => Deadline::Default,
    }
}

/// The write could not be queued: the advice follows the tool's replay class (a diary entry or
/// a coordination write must not be retried, it would land twice).
fn not_queued(tool: &str, args: &Value, applied: Applied, why: &str) -> CallError {
    CallError::Rpc {
        code: -32000,
        message: retry_advice::not_queued_message(tool, args, applied, why),
        data: None,
    }
}

/// A JSON-RPC error reply for a failed request: a server error keeps its code; a transport
/// failure becomes -32000 with the fix in `data.hint`.
fn error_reply(id: &Value, e: CallError) -> Value {
    match e {
        CallError::Rpc {
            code,
            message,
            data,
        } => {
            let mut err = json!({"code": code, "message": message});
            if let Some(d) = data {
                err["data"] = d;
            }
            json!({"jsonrpc": "2.0", "id": id, "error": err})
        }
        other => {
            let m = MptError::from(other);
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": m.message, "data": {"kind": m.kind.as_str(), "hint": m.hint}}})
        }
    }
}
