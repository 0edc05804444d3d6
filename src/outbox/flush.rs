//! The flush engine: claims ops in queue order, resolves an earlier unanswered send before
//! resending, sends, classifies, and stops the drain on a transient failure or a failed op.

use std::collections::{HashSet, VecDeque};
use std::time::{Duration, Instant};

use super::classify::{self, Sent, Verdict};
use super::lease::{Ack, Nack};
use super::replay::{self, Check, Schemas};
use super::report::{Counts, FlushReport, Stop};
use super::{FlushLock, Op, OpState, Outbox, error_json, refs, util};
use crate::error::{ErrorKind, MptError, Result};
use crate::mcp::{Deadline, McpClient};

/// Ops claimed per commit: one durable commit per window marks them in flight and records the
/// previous window's acks. A crash leaves at most one window to check or resend.
pub const WINDOW: usize = 32;

/// The longest `Retry-After` (a gateway's 429) a flush without a deadline waits out; past it the
/// drain ends (exit 7) and the op waits, unfailed, for the next flush.
const RATE_WAIT_CAP: Duration = Duration::from_secs(30);

#[derive(Debug, Clone)]
pub struct FlushOptions {
    /// Settle at most this many ops, then stop (exit 0).
    pub limit: Option<u64>,
    /// Keep retrying transient failures with backoff until this much time has passed. `None`:
    /// stop at the first transient failure (a timer runs the flush again later).
    pub deadline: Option<Duration>,
    /// Each call's own deadline.
    pub call_deadline: Deadline,
    /// How long a claim stays ours: longer than any call can take.
    pub lease: Duration,
    /// Honour the backoff recorded on ops (`next_attempt_at`). An explicit flush does not: it
    /// is the signal to try now.
    pub honour_backoff: bool,
}

impl Default for FlushOptions {
    fn default() -> Self {
        FlushOptions {
            limit: None,
            deadline: None,
            call_deadline: Deadline::Default,
            lease: Duration::from_secs(120),
            honour_backoff: false,
        }
    }
}

/// After each settled or failed op.
#[derive(Debug, Clone)]
pub struct Progress {
    pub settled: u64,
    /// Open ops when the flush started.
    pub total: i64,
}

/// Drains `store` to the primary behind `client`. The caller holds the flush lock.
pub async fn flush(
    store: &mut Outbox,
    lock: &FlushLock,
    client: &McpClient,
    opts: &FlushOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<FlushReport> {
    let started = Instant::now();
    lock.beat();
    let recovered = store.recover_leases(lock)?;
    let mut run = Run {
        lock,
        store,
        client,
        opts,
        started,
        token: util::lease_token(),
        counts: Counts::default(),
        failed: Vec::new(),
        total: 0,
        streak: 0,
        window: VecDeque::new(),
        pending: Vec::new(),
        retrying: HashSet::new(),
        held_back: 0,
        reached: false,
        unreachable: false,
    };
    let (stop, error) = run.drain(progress).await?;
    if run.reached && matches!(stop, Stop::Drained | Stop::Limit | Stop::Blocked) {
        // It got through: an earlier refusal or outage no longer stands.
        run.store.record_flush_end(stop, None)?;
    }
    let blocked_by = match stop {
        Stop::Blocked => run.store.failed()?.into_iter().next(),
        _ => None,
    };
    Ok(FlushReport {
        stop,
        counts: run.counts,
        failed: run.failed,
        blocked_by,
        held_back: run.held_back,
        recovered_leases: recovered,
        remaining: run.store.open_count()?,
        elapsed: started.elapsed(),
        error,
        unreachable: run.unreachable,
    })
}

struct Run<'a> {
    /// Beaten at each sign of progress; another flusher may ask its holder to let go.
    lock: &'a FlushLock,
    store: &'a mut Outbox,
    client: &'a McpClient,
    opts: &'a FlushOptions,
    started: Instant,
    token: String,
    counts: Counts,
    failed: Vec<String>,
    total: i64,
    /// Consecutive transient failures (the backoff exponent).
    streak: u32,
    /// Claimed, not yet sent, in queue order.
    window: VecDeque<Op>,
    /// Settled on the primary, not yet marked done: committed with the next window's claim
    /// (or before a check, a failure or the end). A crash before that commit leaves them
    /// leased and in flight: the next flush checks or (for idempotent tools) resends them.
    pending: Vec<Ack>,
    /// Ops a hard failure of this run sent back for another attempt.
    retrying: HashSet<i64>,
    /// Ops left waiting for a failed op (or one that has not landed) when the drain ended.
    held_back: i64,
    /// The handshake with the primary succeeded.
    reached: bool,
    /// The last transient failure was the network's (not the server's): a pause probes
    /// `/healthz` and ends at the first answer.
    unreachable: bool,
}

/// What to do after one op.
enum Next {
    Continue,
    Finish(Stop, Option<MptError>),
}

/// What to do when nothing could be claimed.
enum Idle {
    /// An op is due again (a retry of this run, or a backoff within the deadline): claim again.
    Again,
    End(Stop, Option<MptError>),
}

impl Run<'_> {
    async fn drain(
        &mut self,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(Stop, Option<MptError>)> {
        self.total = self.store.open_count()?;
        if !self.opts.honour_backoff {
            // An explicit flush is the signal to try now; backoffs set in this run still hold.
            self.store.reset_backoff()?;
        }
        if self.store.backlog(util::now_ms(), self.gate())?.sendable == 0
            && let Idle::End(stop, err) = self.idle().await?
        {
            return Ok((stop, err));
        }
        if self.opts.limit == Some(0) {
            return Ok((Stop::Limit, None));
        }
        let schemas = loop {
            let Some(connected) = unless_taken_over(self.lock, self.client.connect()).await else {
                return Ok((Stop::TakenOver, Some(taken_over())));
            };
            match connected {
                Ok(hs) => {
                    self.lock.beat();
                    break Schemas::from_tools(&hs.tools);
                }
                // Each stop says why on the op it set out to send and as the outbox's last
                // flush error (`mpt outbox`, doctor, edge status), without counting an attempt.
                Err(e) => match classify::classify_error(e) {
                    Verdict::Transient { error, .. } => {
                        self.streak += 1;
                        self.unreachable = error.is_unreachable();
                        if !self.pause(self.backoff()).await {
                            return self.stopped_before_sending(Stop::Unavailable, error.into());
                        }
                    }
                    Verdict::Stop { error } | Verdict::Denied { error } => {
                        return self.stopped_before_sending(Stop::Refused, error.into());
                    }
                    Verdict::RateLimited { retry_after, error } => {
                        self.counts.rate_limited += 1;
                        if !self.wait_out(retry_after).await {
                            return self.stopped_before_sending(Stop::Unavailable, error.into());
                        }
                    }
                    // Not a MemPalace at that URL, or one that cannot speak: not worth retrying.
                    Verdict::Hard { error, .. } => {
                        let err: MptError = error.into();
                        self.store.note_stop(Stop::Refused, &error_json(&err))?;
                        return Err(err);
                    }
                    Verdict::Applied { .. } => unreachable!("a failed handshake applied nothing"),
                },
            }
        };
        self.streak = 0;
        self.reached = true;
        loop {
            let Some(op) = self.next_op()? else {
                self.commit_acks()?;
                match self.idle().await? {
                    Idle::Again => continue,
                    Idle::End(stop, err) => return Ok((stop, err)),
                }
            };
            let next = self.one(op, &schemas).await?;
            self.lock.beat();
            progress(&Progress {
                settled: self.settled(),
                total: self.total,
            });
            if let Next::Finish(stop, err) = next {
                self.commit_acks()?;
                self.release_window()?;
                return Ok((stop, err));
            }
        }
    }

    /// The next claimed op, claiming a new window when the last one is used up.
    fn next_op(&mut self) -> Result<Option<Op>> {
        if self.window.is_empty() {
            let room = self.opts.limit.map_or(WINDOW, |l| {
                (l.saturating_sub(self.settled()) as usize).clamp(1, WINDOW)
            });
            let ops = self.store.claim_window(
                &self.token,
                util::now_ms(),
                self.gate(),
                self.lease_ms(),
                room,
                &self.pending,
            )?;
            self.pending.clear();
            self.window.extend(ops);
        }
        // References to ids minted by ops that landed since it was queued: the primary's ids.
        self.window
            .pop_front()
            .map(|op| self.store.resolve_refs(op))
            .transpose()
    }

    fn commit_acks(&mut self) -> Result<()> {
        self.store.ack_many(&self.pending, &self.token)?;
        self.pending.clear();
        Ok(())
    }

    /// Claimed ops that were never sent go back to the queue as they were.
    fn release_window(&mut self) -> Result<()> {
        let rest: Vec<Op> = self.window.drain(..).collect();
        self.store.release(&rest, &self.token)
    }

    /// Sends one claimed op (after checking the primary if an earlier send went unanswered).
    async fn one(&mut self, op: Op, schemas: &Schemas) -> Result<Next> {
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
                        super::store::short(&op.op_id)
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
    fn stopped_before_sending(
        &mut self,
        stop: Stop,
        err: MptError,
    ) -> Result<(Stop, Option<MptError>)> {
        self.store.note_stop(stop, &error_json(&err))?;
        Ok((stop, Some(err)))
    }

    /// Nothing could be claimed: wait for an op this run is retrying, or say why the drain ends.
    async fn idle(&mut self) -> Result<Idle> {
        let b = self.store.backlog(util::now_ms(), self.gate())?;
        self.held_back = b.held_back;
        if b.sendable > 0 {
            return Ok(Idle::Again);
        }
        if let Some(op) = &b.next_due {
            let wait = Duration::from_millis((op.next_attempt_at - util::now_ms()).max(0) as u64);
            // A hard failure of this run is retried a second or two later (bounded by its
            // attempts); another backoff is waited out only within a deadline.
            let ours = self.retrying.contains(&op.id) && self.opts.deadline.is_none();
            if ours || self.time_left() > wait {
                if unless_taken_over(self.lock, tokio::time::sleep(wait))
                    .await
                    .is_none()
                {
                    return Ok(Idle::End(Stop::TakenOver, Some(taken_over())));
                }
                return Ok(Idle::Again);
            }
            let stop = if self.opts.deadline.is_some() {
                Stop::Deadline
            } else {
                Stop::Backoff
            };
            return Ok(Idle::End(
                stop,
                Some(MptError::new(
                    ErrorKind::Unavailable,
                    format!(
                        "op {} is backing off until {}",
                        super::store::short(&op.op_id),
                        util::rfc3339(op.next_attempt_at)
                    ),
                )),
            ));
        }
        if b.leased > 0 {
            return Ok(Idle::End(
                Stop::Unavailable,
                Some(MptError::new(
                    ErrorKind::Busy,
                    format!("{} op(s) are leased by another flusher", b.leased),
                )),
            ));
        }
        if !b.failed.is_empty() || b.held_back > 0 {
            return Ok(Idle::End(Stop::Blocked, None));
        }
        Ok(Idle::End(Stop::Drained, None))
    }

    /// Backoff is honoured within a run; an explicit flush reset it at the start.
    fn gate(&self) -> i64 {
        util::now_ms()
    }

    fn lease_ms(&self) -> i64 {
        self.opts.lease.as_millis() as i64
    }

    fn settled(&self) -> u64 {
        self.counts.applied + self.counts.already_there + self.counts.verified_present
    }

    /// Exponential: 0.5 s doubled per consecutive transient failure, capped at 30 s.
    fn backoff(&self) -> Duration {
        let ms = 500u64.saturating_mul(1 << self.streak.min(6));
        Duration::from_millis(ms.min(30_000))
    }

    fn time_left(&self) -> Duration {
        self.opts
            .deadline
            .map_or(Duration::ZERO, |d| d.saturating_sub(self.started.elapsed()))
    }

    /// Waits out a gateway's `Retry-After`: within the deadline, or without one when it is at
    /// most `RATE_WAIT_CAP`; false = the drain ends here.
    async fn wait_out(&self, d: Duration) -> bool {
        let fits = match self.opts.deadline {
            Some(_) => self.time_left() > d,
            None => d <= RATE_WAIT_CAP,
        };
        if fits {
            tokio::time::sleep(d).await;
        }
        fits
    }

    /// Sleeps `d` if the deadline leaves room for it and another try; false = give up now.
    /// After a network failure the pause probes `/healthz` every 2 s: the first answer ends it
    /// and the backoff (a heal is seen within seconds, not after a 30 s backoff).
    async fn pause(&mut self, d: Duration) -> bool {
        if self.time_left() <= d {
            return false;
        }
        let until = tokio::time::Instant::now() + d;
        let lock = self.lock;
        let sleep = |t| async move {
            unless_taken_over(lock, tokio::time::sleep_until(t))
                .await
                .is_some()
        };
        if !self.unreachable {
            return sleep(until).await;
        }
        loop {
            let next = tokio::time::Instant::now() + crate::mcp::liveness::PROBE_EVERY;
            if next >= until {
                return sleep(until).await;
            }
            if !sleep(next).await {
                return false;
            }
            if self.client.probe().await == Some(true) {
                self.streak = 0;
                self.unreachable = false;
                // What this run backed off is due again (the primary answers).
                if self.store.reset_backoff().is_err() {
                    return false;
                }
                return true;
            }
        }
    }
}

/// `fut`, unless another flusher asks this one to let go first (`None`).
async fn unless_taken_over<T>(lock: &FlushLock, fut: impl Future<Output = T>) -> Option<T> {
    tokio::select! {
        v = fut => Some(v),
        () = lock.asked_to_let_go() => None,
    }
}

fn taken_over() -> MptError {
    MptError::new(
        ErrorKind::Busy,
        "another flusher found this one making no progress and took over: the send in flight was abandoned (it is checked on the primary before it is sent again)",
    )
    .with_hint("nothing to do: the flusher that took over carries on")
}
