//! The flush engine: claims ops in queue order, resolves an earlier unanswered send before
//! resending, sends, classifies, and stops the drain on a transient failure or a failed op.

// This file is the drain (windows claimed and acked, what ends it); one op's check, send and
// verdict are `send`, the waits between tries `pace`.

mod pace;
mod send;

use std::collections::{HashSet, VecDeque};
use std::time::{Duration, Instant};

use super::classify::{self, Verdict};
use super::lease::Ack;
use super::replay::Schemas;
use super::report::{Counts, FlushReport, Stop};
use super::{FlushLock, Op, Outbox, error_json, util};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_mcp::{Deadline, McpClient};

/// Ops claimed per commit: one durable commit per window marks them in flight and records the
/// previous window's acks. A crash leaves at most one window to check or resend.
pub const WINDOW: usize = 32;

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
