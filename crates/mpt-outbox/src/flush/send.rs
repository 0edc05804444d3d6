//! One claimed op through the flush: the check of an earlier unanswered send, the send, and what
//! each verdict does to the op (settled, back to the queue, failed) and to the drain.

use std::time::Duration;

use super::{Next, Run, taken_over, unless_taken_over};
use crate::classify::{self, Sent, Verdict};
use crate::lease::{Ack, Nack};
use crate::replay::{self, Check, Schemas};
use crate::report::Stop;
use crate::{Op, OpState, error_json, refs, util};
use mpt_base::error::{ErrorKind, MptError, Result};

impl Run<'_> {
    /// Sends one claimed op (after checking the primary if an earlier send went unanswered).
    pub(super) async fn one(&mut self, op: Op, schemas: &Schemas) -> Result<Next> {
        let mut args = None;
        let mut found_ref = None;
        if op.unconfirmed {
            // The check must see every effect this run already owns.
            self.commit_acks()?;
            let confirmed = self.store.confirmed_refs(
                &replay::ref_tools(&op.tool_name),
                replay::window_start(&op),
                op.id,
            )?;
            let checked = unless_taken_over(
                self.lock,
                replay::check(self.client, &op, schemas, &confirmed),
            )
            .await;
            let Some(checked) = checked else {
                return self.let_go(&op, false).await;
            };
            match checked {
                Ok(Check::Present(r, found)) => {
                    self.counts.verified_present += 1;
                    let landed = found.map(|e| refs::landed_from_found(&op.tool_name, &e));
                    return self.settle(&op, "verified_present", r.as_deref(), landed);
                }
                Ok(Check::Resend {
                    args: a,
                    primary_ref,
                }) => {
                    args = Some(a);
                    found_ref = primary_ref;
                }
                Ok(Check::Absent | Check::NotNeeded) => {}
                Ok(Check::Unverifiable(why)) => {
                    let e = MptError::new(ErrorKind::CheckFailed, format!(
                        "op {} may have reached the primary in an unanswered send, and {why}",
                        crate::store::short(&op.op_id)
                    ))
                    .with_hint("look on the primary: `mpt outbox retry OP` resends it, `mpt outbox drop OP --yes` gives it up");
                    self.store.fail_now(&op, &self.token, error_json(&e))?;
                    self.failed.push(op.op_id.clone());
                    return Ok(Next::Continue);
                }
                // The check could not be made: nothing was sent, the op stays unconfirmed.
                Err(e) => {
                    return self
                        .failed_attempt(&op, classify::classify_error(e), true)
                        .await;
                }
            }
        }
        let args = args.unwrap_or_else(|| replay::send_args(&op, schemas));
        self.counts.sent += 1;
        let sent = self
            .client
            .call_tool(&op.tool_name, args, self.opts.call_deadline);
        let Some(result) = unless_taken_over(self.lock, sent).await else {
            return self.let_go(&op, true).await;
        };
        match classify::classify(&op.tool_name, result) {
            Verdict::Applied {
                already,
                primary_ref,
                reply,
            } => {
                if already {
                    self.counts.already_there += 1;
                } else {
                    self.counts.applied += 1;
                }
                let r = primary_ref.or(found_ref);
                self.settle(
                    &op,
                    if already { "already_there" } else { "applied" },
                    r.as_deref(),
                    Some(reply),
                )
            }
            failure => self.failed_attempt(&op, failure, false).await,
        }
    }

    /// Another flusher asked this one to let go: the op goes back to the queue at once (checked
    /// before it is resent when `sent`: the abandoned send may have applied), and the drain ends.
    async fn let_go(&mut self, op: &Op, sent: bool) -> Result<Next> {
        self.commit_acks()?;
        let err = taken_over();
        self.nack_back(op, false, op.unconfirmed || sent, 0, &err)?;
        Ok(Next::Finish(Stop::TakenOver, Some(err)))
    }

    /// `op` back to the queue (or failed, when `hard` and out of attempts) with `err` on it,
    /// due at `retry_at`; its state after.
    fn nack_back(
        &mut self,
        op: &Op,
        hard: bool,
        unconfirmed: bool,
        retry_at: i64,
        err: &MptError,
    ) -> Result<OpState> {
        self.store.nack(
            op,
            &self.token,
            &Nack {
                hard,
                unconfirmed,
                retry_at,
                error: error_json(err),
            },
        )
    }

    /// Done: recorded with the next commit (the next window's claim, or the end of the run).
    fn settle(
        &mut self,
        op: &Op,
        outcome: &str,
        primary_ref: Option<&str>,
        landed: Option<serde_json::Value>,
    ) -> Result<Next> {
        self.streak = 0;
        self.pending
            .push(Ack::new(op, outcome, primary_ref).with_landed(landed));
        if self.opts.limit.is_some_and(|l| self.settled() >= l) {
            return Ok(Next::Finish(Stop::Limit, None));
        }
        Ok(Next::Continue)
    }

    /// A send (or a check) that did not land.
    async fn failed_attempt(
        &mut self,
        op: &Op,
        verdict: Verdict,
        check_failed: bool,
    ) -> Result<Next> {
        self.commit_acks()?;
        // An earlier unanswered send stays unconfirmed unless a check ran and found nothing.
        let earlier_unknown = op.unconfirmed && check_failed;
        match verdict {
            Verdict::Applied { .. } => unreachable!("handled by the caller"),
            Verdict::Transient { sent, error } => {
                self.counts.transient_failures += 1;
                self.streak += 1;
                self.unreachable = error.is_unreachable();
                let wait = self.backoff().max(if sent == Sent::Maybe {
                    Duration::from_secs(2)
                } else {
                    Duration::ZERO
                });
                let err: MptError = error.into();
                self.nack_back(
                    op,
                    false,
                    earlier_unknown || sent == Sent::Maybe,
                    util::now_ms() + wait.as_millis() as i64,
                    &err,
                )?;
                self.release_window()?;
                self.store
                    .record_flush_end(Stop::Unavailable, Some(&error_json(&err)))?;
                if self.pause(wait).await {
                    return Ok(Next::Continue);
                }
                Ok(Next::Finish(Stop::Unavailable, Some(err)))
            }
            Verdict::Hard { sent, error } => {
                self.counts.hard_failures += 1;
                let err: MptError = error.into();
                let wait = Duration::from_secs(u64::from(op.attempts.clamp(0, 4) as u32 + 1));
                let state = self.nack_back(
                    op,
                    true,
                    earlier_unknown || sent == Sent::Maybe,
                    util::now_ms() + wait.as_millis() as i64,
                    &err,
                )?;
                if state == OpState::Failed {
                    // Loud (the report, `mpt outbox`, doctor, edge status), and it holds back
                    // only the ops that depend on it: the drain goes on.
                    self.failed.push(op.op_id.clone());
                } else {
                    // Bounded: MAX_ATTEMPTS tries, a second or two apart, then failed.
                    self.retrying.insert(op.id);
                }
                Ok(Next::Continue)
            }
            Verdict::Denied { error } => {
                // The gateway's policy: this send applied nothing and every resend would be
                // refused alike. Failed now, loud, holding back only what depends on it.
                self.counts.denied += 1;
                let err: MptError = error.into();
                self.store.fail_denied(op, &self.token, error_json(&err))?;
                self.failed.push(op.op_id.clone());
                Ok(Next::Continue)
            }
            Verdict::RateLimited { retry_after, error } => {
                // Not a failure: nothing applied, no attempt counted; the op waits its turn.
                self.counts.rate_limited += 1;
                let err: MptError = error.into();
                self.nack_back(
                    op,
                    false,
                    earlier_unknown,
                    util::now_ms() + retry_after.as_millis() as i64,
                    &err,
                )?;
                self.release_window()?;
                if self.wait_out(retry_after).await {
                    return Ok(Next::Continue);
                }
                self.store
                    .record_flush_end(Stop::Backoff, Some(&error_json(&err)))?;
                Ok(Next::Finish(Stop::Backoff, Some(err)))
            }
            Verdict::Stop { error } => {
                let err: MptError = error.into();
                self.nack_back(op, false, earlier_unknown, 0, &err)?;
                self.store
                    .record_flush_end(Stop::Refused, Some(&error_json(&err)))?;
                Ok(Next::Finish(Stop::Refused, Some(err)))
            }
        }
    }

    /// The handshake failed: the error goes on the op the flush set out to send and becomes the
    /// outbox's last flush error; the drain ends.
    pub(super) fn stopped_before_sending(
        &mut self,
        stop: Stop,
        err: MptError,
    ) -> Result<(Stop, Option<MptError>)> {
        self.store.note_stop(stop, &error_json(&err))?;
        Ok((stop, Some(err)))
    }
}
