//! A write through the edge, intent first (DESIGN: durably enqueued, applied to the child,
//! acknowledged): recorded, applied to the child, then queued for the primary or cancelled.

use std::sync::Arc;

use serde_json::{Value, json};

use super::merge;
use super::proxy::{Proxy, WriteLog, on_log};
use super::retry_advice::{self, Applied};
use super::settle::Settler;
use mpt_base::log_debug;
use mpt_mcp::{CallError, Deadline, ToolReply};
use mpt_outbox::classify::{self, Sent};
use mpt_outbox::replay;
use mpt_palace::catalog;

impl Proxy {
    pub(super) async fn write(&self, name: &str, args: Value) -> Result<Value, CallError> {
        let mut maybe_applied = false;
        let mut rate_limited = None;
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
                replay::stamp_key(&mut args, &mpt_outbox::util::lease_token());
            }
            // An id this device minted offline: the primary's own once its op landed; until
            // then the primary does not know it, and the call queues behind that op. (The local
            // palace and the outbox keep the local ids.)
            // (Off the owner's one thread: the id map is SQLite.)
            let (landed, remote_args) = match &self.log {
                Some(log) => {
                    let mut remote_args = args.clone();
                    on_log(log, move |l| {
                        Ok((l.resolve(&mut remote_args)?, remote_args))
                    })
                    .await
                    .map_err(|why| CallError::Rpc {
                        code: -32000,
                        message: format!(
                            "nothing was written: the outbox's id map could not be read ({why})"
                        ),
                        data: None,
                    })?
                }
                None => (true, args.clone()),
            };
            if let Some(why) = primary.health.rate_paused() {
                rate_limited = Some(format!("{why}: applied locally and queued"));
            }
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
                primary.health.observe(&sent);
                match sent {
                    Ok(result) => return Ok(result),
                    // A gateway's 429: nothing reached the primary; local first and queued
                    // (the flusher waits out Retry-After), and the reply says so.
                    Err(e) if e.rate_limited().is_some() => {
                        rate_limited = Some(format!("{e}: applied locally and queued"));
                    }
                    // A gateway's denial among them: back to the harness, never applied
                    // locally nor queued (the primary would refuse every resend alike).
                    Err(e) if !e.is_transient() => return Err(e),
                    Err(e) => {
                        // Dropped mid-call, it may have applied: applied locally all the same (the
                        // agent needs an id now), queued, and checked on the primary before resending.
                        maybe_applied = e.is_ambiguous()
                            || matches!(
                                e,
                                CallError::Http {
                                    failure: mpt_mcp::HttpFailure::Server,
                                    ..
                                }
                            );
                    }
                }
            }
        }
        let log = self
            .log
            .as_ref()
            .filter(|_| self.primary.is_some() && self.policy.replicates(name, &args));
        let Some(log) = log else {
            return self.child_call(name, args, Deadline::Default).await;
        };
        // Intent first: recorded before the child applies it, so an owner killed in between
        // leaves it for the next owner to settle, never applied here and lost to the primary.
        let (tool, a) = (name.to_string(), args.clone());
        let intent = match on_log(log, move |l| l.intend(&tool, &a, maybe_applied)).await {
            Ok(id) => id,
            Err(why) => {
                let applied = if maybe_applied {
                    Applied::MaybeOnPrimary
                } else {
                    Applied::Nowhere
                };
                return Err(not_queued(name, &args, applied, &why));
            }
        };
        let result = match self.child_call(name, args.clone(), Deadline::Default).await {
            Ok(r) => r,
            Err(e) if maybe_applied => {
                log_debug!("the local palace refused {name} ({e}): queued for the primary only");
                return self.queue_only(log, intent, name, &args, MID_CALL).await;
            }
            Err(e) => {
                match classify::classify_error(e.clone()) {
                    // Refused before it ran (bad arguments, the writer lease held elsewhere).
                    classify::Verdict::Hard { sent: Sent::No, .. }
                    | classify::Verdict::Transient { sent: Sent::No, .. } => {
                        let _ = on_log(log, move |l| l.cancel(intent)).await;
                    }
                    // A stall or a crash: it may have applied. Settled against the palace.
                    _ => self.settle_later(intent),
                }
                return Err(e);
            }
        };
        let local = ToolReply::from_result(&result);
        if !local.ok() {
            if maybe_applied {
                return self.queue_only(log, intent, name, &args, MID_CALL).await;
            }
            // A write the child rejects is not replicated, with one exception: an ack of an
            // event the local log lacks (an ask seen on the primary, not pulled yet) is queued
            // for the primary, which validates it.
            if acks_an_unknown_event(name, &local) {
                return self
                    .queue_only(log, intent, name, &args, UNKNOWN_EVENT)
                    .await;
            }
            // (Should the cancel fail, the intent is settled later: absent from the palace, it
            // is cancelled then.)
            if on_log(log, move |l| l.cancel(intent)).await.is_err() {
                self.settle_later(intent);
            }
            return Ok(result);
        }
        let reply = local.payload.clone();
        match on_log(log, move |l| l.confirm(intent, Some(&reply))).await {
            Ok(_) => Ok(match rate_limited {
                Some(why) => merge::with_payload(&result, &merge::degraded(local.payload, &why)),
                None => result,
            }),
            Err(why) => {
                self.settle_later(intent);
                Err(not_queued(name, &args, Applied::Locally, &why))
            }
        }
    }

    /// An op the local palace could not apply, queued for the primary alone (replay-checked
    /// first when the intent says the primary may already hold it). `note` says why.
    async fn queue_only(
        &self,
        log: &Arc<dyn WriteLog>,
        intent: i64,
        name: &str,
        args: &Value,
        note: &str,
    ) -> Result<Value, CallError> {
        match on_log(log, move |l| l.confirm(intent, None)).await {
            Ok(op_id) => Ok(
                json!({"content": [{"type": "text", "text": serde_json::to_string_pretty(&json!({
                "success": true,
                "queued": op_id,
                "note": note,
            })).unwrap_or_default()}]}),
            ),
            Err(why) => {
                self.settle_later(intent);
                Err(not_queued(name, args, Applied::MaybeOnPrimary, &why))
            }
        }
    }

    /// Settles the intent in the background once the child answers (`settle`).
    fn settle_later(&self, intent: i64) {
        if let Some(s) = Settler::of(self) {
            s.later(intent);
        }
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

/// The write could not be queued: the advice follows the tool's replay class (a diary entry or
/// a coordination write must not be retried, it would land twice).
fn not_queued(tool: &str, args: &Value, applied: Applied, why: &str) -> CallError {
    CallError::Rpc {
        code: -32000,
        message: retry_advice::not_queued_message(tool, args, applied, why),
        data: None,
    }
}
