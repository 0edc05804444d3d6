//! The claim protocol: claims under a lease (goqite-style: one `UPDATE … RETURNING` of the head
//! of the queue), ack / nack that only the lease's holder can make; an expired lease is reclaimable.

// Which op may be claimed, and what holds the rest back, is the queue's order (`order`).

use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::order::{Order, Standing, open_page};
use super::schema::sql;
use super::store::{COLS, Outbox, row_to_op};
use super::{MAX_ATTEMPTS, Op, OpState, Stop, util};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_palace::catalog;

/// Claims one op, if it may be sent now: queued, or leased by someone whose lease expired.
/// The claim marks the op in flight; a claim of an op whose previous send never settled turns
/// that into `unconfirmed` (check the primary first). Candidates come from the head of the
/// queue (`claim_window`); a failed head blocks: nothing behind it is claimed.
pub(super) const CLAIM: &str = "
UPDATE ops SET state = 'leased', lease_token = ?1, lease_expires_at = ?3,
       sends = sends + 1, unconfirmed = (unconfirmed OR inflight), inflight = 1,
       first_sent_at = COALESCE(first_sent_at, ?2), updated_at = ?2
 WHERE id = ?4 AND (state = 'queued' OR (state = 'leased' AND lease_expires_at <= ?2))";

/// How an attempt that did not land ends.
#[derive(Debug, Clone)]
pub struct Nack {
    /// Counts toward `MAX_ATTEMPTS` (a hard failure); transient failures do not.
    pub hard: bool,
    /// Whether an earlier or this send may have reached the primary unseen.
    pub unconfirmed: bool,
    /// Not before this instant (unix ms) for a flusher that honours backoff.
    pub retry_at: i64,
    pub error: Value,
}

/// An op settled on the primary, to be marked done.
#[derive(Debug, Clone)]
pub struct Ack {
    pub id: i64,
    pub op_id: String,
    pub outcome: String,
    pub primary_ref: Option<String>,
    /// The primary's reply (or the record a replay check found, in the reply's shape): the ids
    /// it holds are mapped to the ones the local palace minted for this op (`refs`).
    pub landed: Option<Value>,
}

impl Ack {
    pub fn new(op: &Op, outcome: &str, primary_ref: Option<&str>) -> Ack {
        Ack {
            id: op.id,
            op_id: op.op_id.clone(),
            outcome: outcome.to_string(),
            primary_ref: primary_ref.map(str::to_string),
            landed: None,
        }
    }

    pub fn with_landed(mut self, landed: Option<Value>) -> Ack {
        self.landed = landed;
        self
    }
}

impl Outbox {
    /// Claims the head under a fresh lease of `lease_ms`. `gate`: only if due by then
    /// (`i64::MAX` ignores the backoff schedule).
    pub fn claim(&mut self, token: &str, now: i64, gate: i64, lease_ms: i64) -> Result<Option<Op>> {
        Ok(self
            .claim_window(token, now, gate, lease_ms, 1, &[])?
            .into_iter()
            .next())
    }

    /// Claims up to `max` sendable ops, in queue order, under one lease, in one commit made
    /// with the configured `synchronous` (FULL: the in-flight marks are on disk before any of
    /// them is sent). An op that is not sendable is passed over, and holds back only what
    /// depends on it (`Standing`): an op referencing an id it minted, or a later
    /// knowledge-graph write to the same subject and predicate (whose order matters). A second
    /// such write waits for the next window too: replaying a window after a power loss then
    /// never replays an add after its own invalidate. `acks` (done ops of the previous window)
    /// are committed in the same transaction, before the candidates are read.
    pub fn claim_window(
        &mut self,
        token: &str,
        now: i64,
        gate: i64,
        lease_ms: i64,
        max: usize,
        acks: &[Ack],
    ) -> Result<Vec<Op>> {
        let tx = self.write_tx("claiming")?;
        for a in acks {
            ack_in(&tx, a, token)?;
        }
        let mut order = Order::default();
        let mut claimed = Vec::new();
        let mut after = 0;
        'pages: loop {
            let page = open_page(&tx, after)?;
            let Some(last) = page.last() else { break };
            after = last.id;
            for op in page {
                // A feed's mine runs in its own lane (`apart`): it never holds this one back.
                if catalog::runs_apart(&op.tool_name) {
                    continue;
                }
                if order.standing(&tx, &op, now, gate)? != Standing::Sendable {
                    continue;
                }
                let expires = now + lease_ms.saturating_mul(claimed.len() as i64 + 1);
                let op = tx
                    .prepare_cached(&format!("{CLAIM} RETURNING {COLS}"))
                    .and_then(|mut st| st.query_row(params![token, now, expires, op.id], row_to_op))
                    .map_err(|e| sql("claiming", &e))?;
                claimed.push(op);
                if claimed.len() >= max.max(1) {
                    break 'pages;
                }
            }
        }
        tx.commit().map_err(|e| sql("claiming", &e))?;
        Ok(claimed)
    }

    /// Marks leased ops done (only with their lease token), in one relaxed commit (see
    /// `Outbox::relaxed`).
    pub fn ack_many(&mut self, acks: &[Ack], token: &str) -> Result<()> {
        if acks.is_empty() {
            return Ok(());
        }
        self.relaxed(|s| {
            let tx = s.write_tx("acknowledging")?;
            for a in acks {
                ack_in(&tx, a, token)?;
            }
            tx.commit().map_err(|e| sql("acknowledging", &e))
        })
    }

    pub fn ack(
        &mut self,
        op: &Op,
        token: &str,
        outcome: &str,
        primary_ref: Option<&str>,
    ) -> Result<()> {
        self.ack_many(&[Ack::new(op, outcome, primary_ref)], token)
    }

    /// Returns claimed ops that were never sent to the queue, as they were.
    pub fn release(&mut self, ops: &[Op], token: &str) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let tx = self.write_tx("releasing")?;
        for op in ops {
            tx.prepare_cached(
                "UPDATE ops SET state = 'queued', inflight = 0, lease_token = NULL, lease_expires_at = NULL
                  WHERE id = ?1 AND lease_token = ?2 AND state = 'leased'",
            )
            .and_then(|mut st| st.execute(params![op.id, token]))
            .map_err(|e| sql("releasing", &e))?;
        }
        tx.commit().map_err(|e| sql("releasing", &e))
    }

    /// Returns the op to the queue (or fails it at `MAX_ATTEMPTS` hard failures). Returns its
    /// new state.
    pub fn nack(&mut self, op: &Op, token: &str, nack: &Nack) -> Result<OpState> {
        let now = util::now_ms();
        let tx = self.write_tx("recording the failure")?;
        let state: Option<String> = tx
            .query_row(
                "UPDATE ops SET attempts = attempts + ?3,
                        state = CASE WHEN attempts + ?3 >= ?4 THEN 'failed' ELSE 'queued' END,
                        lease_token = NULL, lease_expires_at = NULL, inflight = 0,
                        unconfirmed = ?5, next_attempt_at = ?6, error_json = ?7, updated_at = ?8
                  WHERE id = ?1 AND lease_token = ?2 AND state = 'leased'
                 RETURNING state",
                params![
                    op.id,
                    token,
                    i64::from(nack.hard),
                    MAX_ATTEMPTS,
                    nack.unconfirmed,
                    nack.retry_at,
                    nack.error.to_string(),
                    now
                ],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| sql("recording the failure", &e))?;
        let state = state.ok_or_else(|| lease_lost(&op.op_id))?;
        tx.commit().map_err(|e| sql("recording the failure", &e))?;
        Ok(OpState::parse(&state).unwrap_or(OpState::Failed))
    }

    /// A flush that stopped before sending (its handshake failed): `error` is recorded on the op
    /// it set out to send (the first sendable one), neither claimed nor counted as an attempt,
    /// and as the outbox's last flush error, in one relaxed commit (a report, not a promise).
    /// Returns that op's id.
    pub fn note_stop(&mut self, stop: Stop, error: &Value) -> Result<Option<String>> {
        self.relaxed(|s| s.note_stop_in(stop, error))
    }

    fn note_stop_in(&mut self, stop: Stop, error: &Value) -> Result<Option<String>> {
        let now = util::now_ms();
        let tx = self.write_tx("recording the flush's error")?;
        let mut order = Order::default();
        let mut after = 0;
        let mut next = None;
        'pages: loop {
            let page = open_page(&tx, after)?;
            let Some(last) = page.last() else { break };
            after = last.id;
            for op in page {
                if order.standing(&tx, &op, now, now)? == Standing::Sendable {
                    next = Some(op);
                    break 'pages;
                }
            }
        }
        if let Some(op) = &next {
            tx.execute(
                "UPDATE ops SET error_json = ?2, updated_at = ?3 WHERE id = ?1",
                params![op.id, error.to_string(), now],
            )
            .map_err(|e| sql("recording the flush's error", &e))?;
        }
        super::last_error::write_in(&tx, stop, Some(error))?;
        tx.commit()
            .map_err(|e| sql("recording the flush's error", &e))?;
        Ok(next.map(|o| o.op_id))
    }

    /// Fails the op at once (an ambiguous send mpt cannot check): an operator decides.
    pub fn fail_now(&mut self, op: &Op, token: &str, error: Value) -> Result<()> {
        self.fail_leased(op, token, error, true, MAX_ATTEMPTS)
    }

    /// Fails the op at once because the primary's gateway refused it by its policy: that send
    /// applied nothing (an earlier unanswered one stays `unconfirmed`); one attempt counted.
    pub fn fail_denied(&mut self, op: &Op, token: &str, error: Value) -> Result<()> {
        self.fail_leased(op, token, error, op.unconfirmed, op.attempts + 1)
    }

    fn fail_leased(
        &mut self,
        op: &Op,
        token: &str,
        error: Value,
        unconfirmed: bool,
        attempts: i64,
    ) -> Result<()> {
        let tx = self.write_tx("failing the op")?;
        let n = tx
            .execute(
                "UPDATE ops SET state = 'failed', attempts = MAX(attempts, ?3), lease_token = NULL,
                        lease_expires_at = NULL, inflight = 0, unconfirmed = ?6, error_json = ?4, updated_at = ?5
                  WHERE id = ?1 AND lease_token = ?2 AND state = 'leased'",
                params![op.id, token, attempts, error.to_string(), util::now_ms(), unconfirmed],
            )
            .map_err(|e| sql("failing the op", &e))?;
        if n != 1 {
            return Err(lease_lost(&op.op_id));
        }
        tx.commit().map_err(|e| sql("failing the op", &e))
    }

    /// Returns every leased op to the queue. Only for the holder of the flush lock: with the lock
    /// held no other flusher is alive, so every lease is a dead flusher's. An op that was in
    /// flight becomes unconfirmed.
    pub fn recover_leases(&mut self, _lock: &super::FlushLock) -> Result<usize> {
        let tx = self.write_tx("recovering leases")?;
        let n = tx
            .execute(
                "UPDATE ops SET state = 'queued', unconfirmed = (unconfirmed OR inflight), inflight = 0,
                        lease_token = NULL, lease_expires_at = NULL, updated_at = ?1
                  WHERE state = 'leased'",
                [util::now_ms()],
            )
            .map_err(|e| sql("recovering leases", &e))?;
        tx.commit().map_err(|e| sql("recovering leases", &e))?;
        Ok(n)
    }

    /// Makes every queued op due now (an explicit flush: try now, whatever the backoff said).
    pub fn reset_backoff(&mut self) -> Result<()> {
        self.conn
            .execute(
                "UPDATE ops SET next_attempt_at = 0 WHERE state = 'queued' AND next_attempt_at > 0",
                [],
            )
            .map(|_| ())
            .map_err(|e| sql("resetting backoff", &e))
    }
}

fn ack_in(tx: &rusqlite::Transaction<'_>, a: &Ack, token: &str) -> Result<()> {
    let now = util::now_ms();
    let n = tx
        .prepare_cached(
            "UPDATE ops SET state = 'done', outcome = ?3, primary_ref = ?4, flushed_at = ?5, updated_at = ?5,
                    lease_token = NULL, lease_expires_at = NULL, inflight = 0, unconfirmed = 0,
                    next_attempt_at = 0
              WHERE id = ?1 AND lease_token = ?2 AND state = 'leased'",
        )
        .and_then(|mut st| st.execute(params![a.id, token, a.outcome, a.primary_ref, now]))
        .map_err(|e| sql("acknowledging", &e))?;
    if n == 1
        && let Some(landed) = &a.landed
    {
        super::refs::map_landed(tx, a.id, landed)?;
    }
    if n != 1 {
        return Err(lease_lost(&a.op_id));
    }
    Ok(())
}

fn lease_lost(op_id: &str) -> MptError {
    MptError::new(
        ErrorKind::Busy,
        format!(
            "the lease on op {} was lost: another flusher reclaimed it",
            super::store::short(op_id)
        ),
    )
    .with_hint("only one flusher may run per outbox; this one stops here")
}
