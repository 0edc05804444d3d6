//! One MCP request from a harness, answered: `initialize`/`ping`/`tools/list` locally, tools
//! routed by our fail-closed table — reads fanned out (merged, or primary-first with local
//! fallback), writes applied on the child then queued for the primary, the rest child-only.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::health::Health;
use super::merge::{self, ReadKind};
use super::stamp::Stamper;
use mpt_base::error::MptError;
use mpt_mcp::era::{self, Scope};
use mpt_mcp::stdio::StdioClient;
use mpt_mcp::{CallError, Deadline, DeniedAnswer, Handshake, McpClient, ToolReply, jsonrpc};
use mpt_outbox::policy::Policy;
use mpt_palace::catalog::{self, Patience, ToolClass};

/// The request that wakes the owner's pull of the primary's log (not an MCP method: mpt's own
/// clients send it over the owner's socket).
pub const PULL_METHOD: &str = "mpt/pull";

/// Where replicated writes go (the outbox), intent first: recorded before the child applies
/// them, queued once it did, cancelled when it refused (`write`); settled by the next owner when
/// this one dies in between (`settle`).
pub trait WriteLog: Send + Sync {
    /// Records the write about to be applied to the local palace, durably; the intent's id.
    /// `maybe_applied`: a send to the primary got no complete answer (checked before resending).
    fn intend(&self, tool: &str, args: &Value, maybe_applied: bool) -> Result<i64, MptError>;

    /// Queues the intent's op: the child applied it (`local_reply`, the ids it minted map to the
    /// primary's later), or the primary may hold it (`None`). Returns the op's id.
    fn confirm(&self, intent: i64, local_reply: Option<&Value>) -> Result<String, MptError>;

    /// The child refused it (or never applied it): nothing to replicate.
    fn cancel(&self, intent: i64) -> Result<(), MptError>;

    /// Queued as failed for an operator: whether the child applied it cannot be told.
    fn confirm_failed(&self, intent: i64, error: &Value) -> Result<String, MptError>;

    /// This palace's intents, oldest first (at an owner's start: a dead owner's).
    fn intents(&self) -> Result<Vec<mpt_outbox::intent::Intent>, MptError>;

    /// Rewrites references in `args` to ids this device minted into the primary's ids, for ops
    /// that landed; `false` when one references an op that has not (the call must queue behind it).
    fn resolve(&self, args: &mut Value) -> Result<bool, MptError>;

    /// The primary's id for an id this device minted, once its op landed (merged reads show
    /// one event for the two copies).
    fn landed(&self, _local_id: &str) -> Option<String> {
        None
    }
}

/// `f` on the outbox, off the async threads (SQLite blocks); the error's message.
pub(super) async fn on_log<T: Send + 'static>(
    log: &Arc<dyn WriteLog>,
    f: impl FnOnce(&dyn WriteLog) -> Result<T, MptError> + Send + 'static,
) -> Result<T, String> {
    let log = Arc::clone(log);
    match tokio::task::spawn_blocking(move || f(log.as_ref())).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.message),
        Err(e) => Err(e.to_string()),
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
    /// The device's one live log stream, shared by its `mailbox watch`es (`log_fanout`).
    pub log_stream: Option<Arc<super::log_fanout::Fanout>>,
    /// Who the primary's gateway takes this edge for (`/whoami`), once it answered.
    pub identity: std::sync::RwLock<Option<mpt_mcp::whoami::Whoami>>,
    /// That gateway's policy for this device: a write it refuses stays local, never queued.
    pub judge: std::sync::RwLock<Option<Arc<mpt_gateway::decide::policy::OwnJudge>>>,
}

impl Primary {
    /// Why search results may not be merged now (`None`: both identities known and equal).
    pub fn merge_gate(&self) -> Option<String> {
        let local = mpt_palace::files::embedder_identity(&self.local_sidecar)
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
    /// Whose diary entries and events the reads show (`trusted_devices`).
    pub trusted: super::trust::Trusted,
    /// Why a configured primary is not used (its token could not be read): every tool reply says
    /// so, and writes stay on this palace.
    pub cut_off: Option<String>,
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
            trusted: self.trusted.clone(),
            cut_off: self.cut_off.clone(),
        }
    }

    /// The reply to one incoming message (`None` for notifications and stray responses).
    /// `stamper` is the connection's own (its harness name), when both gates hold.
    pub async fn handle(&self, mut msg: Value, stamper: Option<&Stamper>) -> Option<Value> {
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
                // Taken apart, not copied: the message is only relayed.
                let id = msg["id"].take();
                let method = msg["method"].as_str().unwrap_or("").to_string();
                let params = msg.get_mut("params").map(Value::take);
                if era::is_modern(&method, params.as_ref()) {
                    return Some(self.modern(&id, &method, params, stamper).await);
                }
                Some(match self.request(&method, params, stamper).await {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Err(e) => error_reply(&id, e),
                })
            }
        }
    }

    /// A 2026-07-28 request: its envelope checked, `server/discover` answered from the child's
    /// handshake, the rest answered as a handshake-era request is (the child sees its own era),
    /// and the result in the shape the modern era reads.
    async fn modern(
        &self,
        id: &Value,
        method: &str,
        mut params: Option<Value>,
        stamper: Option<&Stamper>,
    ) -> Value {
        if let Err(r) = era::envelope(params.as_ref()) {
            return r.response(id);
        }
        if let Err(r) = era::served(method) {
            return r.response(id);
        }
        if let Some(p) = params.as_mut() {
            era::to_handshake(p);
        }
        let server = self.handshake.init.get("serverInfo");
        let mut reply = match method {
            "server/discover" => {
                let r = era::discover(&self.handshake.init, Scope::Public);
                json!({"jsonrpc": "2.0", "id": id, "result": r})
            }
            _ => match self.request(method, params, stamper).await {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(e) => error_reply(id, e),
            },
        };
        // A tool's refusal is a result too (the model reads it): shaped as every result is.
        if let Some(r) = reply.get_mut("result") {
            era::shape(method, r, Scope::Public, server);
        }
        reply
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
            // mpt's own: a `mailbox watch` asks what the device's one live stream saw.
            super::log_fanout::LOG_SINCE_METHOD => Ok(
                match self.primary.as_ref().and_then(|p| p.log_stream.as_ref()) {
                    Some(f) => f.answer(params.as_ref()),
                    None => json!({"mode": null, "seq": 0, "wakes": [], "gap": false}),
                },
            ),
            "tools/call" => {
                let mut p = params.unwrap_or(Value::Null);
                let args = p
                    .get_mut("arguments")
                    .map(Value::take)
                    .filter(|a| !a.is_null())
                    .unwrap_or_else(|| json!({}));
                let Some(name) = p.get("name").and_then(Value::as_str) else {
                    return Err(CallError::Rpc {
                        code: -32602,
                        message: "tools/call needs a tool name".into(),
                        data: None,
                    });
                };
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
            Some(v) if era::HANDSHAKE_VERSIONS.contains(&v) => v,
            Some(_) => era::HANDSHAKE_VERSIONS[0],
            None => era::HANDSHAKE_VERSIONS[era::HANDSHAKE_VERSIONS.len() - 1],
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
        let args = match stamper {
            Some(s) => s.stamp(name, args),
            None => args,
        };
        let class = catalog::classify(name);
        let reply = match class {
            ToolClass::Read => self.trusted.withhold(name, self.read(name, args).await),
            ToolClass::Write => match self.fleet_refusal(name, &args) {
                // The coordination log is the fleet's: a local-only event would be an ask no one
                // receives. Answered as the gateway answers it, applied nowhere.
                Some(r) if catalog::tool(name).coordination => Ok(r.tool_result(name)),
                Some(r) => self.refused_by_fleet(name, args, &r.rule).await,
                None => self.write(name, args).await,
            },
            // mine, sync, reconnect and delete_*: this palace only, never the primary.
            ToolClass::Maintenance | ToolClass::Destructive => {
                self.child_call(name, args, deadline_for(name)).await
            }
        };
        match &self.cut_off {
            Some(why) => reply.map(|r| cut_off_reply(&r, why, class == ToolClass::Write)),
            None => reply,
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
            primary.health.observe(&r);
            r
        };
        let (local, remote) = tokio::join!(
            self.child_call(name, args.clone(), Deadline::Default),
            remote
        );
        // The gateway's policy refused this device the read: its answer, not a local stand-in.
        if let Err(e) = &remote
            && e.denial().is_some()
        {
            return remote;
        }
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

    /// Why the primary's gateway refuses this device `name` with `args`, as its own policy code
    /// judges it here (`None`: allowed, not known yet, or no gateway).
    fn fleet_refusal(
        &self,
        name: &str,
        args: &Value,
    ) -> Option<mpt_gateway::decide::policy::Refusal> {
        let judge = self.primary.as_ref()?.judge.read().unwrap().clone()?;
        judge.refusal(name, args)
    }

    /// A write the fleet refuses this device, applied to this palace alone and not queued (the
    /// gateway would refuse every send): the reply says so, so the agent knows it is not shared.
    async fn refused_by_fleet(
        &self,
        name: &str,
        args: Value,
        rule: &str,
    ) -> Result<Value, CallError> {
        let local = self.child_call(name, args, Deadline::Default).await?;
        let mut payload = ToolReply::from_result(&local).payload;
        if let Some(o) = payload.as_object_mut() {
            o.insert("fleet".into(), json!(format!("local only: {rule}")));
        }
        Ok(merge::with_payload(&local, &payload))
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

/// A reply of an edge cut off from its primary: marked degraded with the reason, and a write
/// marked as kept on this palace (`fleet`), so the agent knows the fleet does not see it.
fn cut_off_reply(result: &Value, why: &str, write: bool) -> Value {
    let mut payload = merge::degraded(ToolReply::from_result(result).payload, why);
    if write && let Some(o) = payload.as_object_mut() {
        o.insert("fleet".into(), json!(format!("local only: {why}")));
    }
    merge::with_payload(result, &payload)
}

/// The catalog's deadline for a tool the child alone answers (the mine needs minutes).
fn deadline_for(name: &str) -> Deadline {
    match catalog::tool(name).patience {
        Patience::Fixed(d) => Deadline::After(d),
        Patience::Default | Patience::LongPoll { .. } => Deadline::Default,
    }
}

/// How long the owner may spend on one call of `name`: the child's deadline for it
/// (`deadline_for`; `default` is `MEMPALACE_MCP_TIMEOUT_MS`), or for `event_wait` its own wait
/// on the primary (`coord`: `timeout_ms`, at most 300 s, plus the read deadline). The shim's
/// deadline for the relayed request starts from it.
pub fn call_deadline(
    name: &str,
    args: &Value,
    default: Option<Duration>,
    read_deadline: Duration,
) -> Option<Duration> {
    if name.ends_with("event_wait") {
        let wait = args
            .get("timeout_ms")
            .and_then(Value::as_u64)
            .unwrap_or(60_000)
            .min(300_000);
        let own = Duration::from_millis(wait) + read_deadline;
        return Some(default.map_or(own, |d| d.max(own)));
    }
    deadline_for(name).resolve(default)
}

/// A JSON-RPC error reply for a failed request: a server error keeps its code; a gateway's
/// denial goes back as it came (a refused tool call as its `isError` result, which the model
/// reads); a transport failure becomes -32000 with the fix in `data.hint`.
fn error_reply(id: &Value, e: CallError) -> Value {
    match e {
        CallError::Denied { answer, .. } => match *answer {
            DeniedAnswer::ToolResult(result) => {
                json!({"jsonrpc": "2.0", "id": id, "result": result})
            }
            DeniedAnswer::Error(err) => json!({"jsonrpc": "2.0", "id": id, "error": err}),
        },
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
