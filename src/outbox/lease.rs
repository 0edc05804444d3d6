//! Claims under a lease (goqite-style: one `UPDATE … RETURNING` of the head of the queue), and
//! ack / nack that only the holder of the lease token can make. An expired lease is reclaimable.

use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::schema::sql;
use super::store::{COLS, Outbox, row_to_op};
use super::{MAX_ATTEMPTS, Op, OpState, util};
use crate::error::{ErrorKind, MptError, Result};

/// Claims the head of the queue, if it may be sent now: queued (and, with `gate`, due), or
/// leased by someone whose lease expired. A failed head blocks: nothing behind it is claimed.
/// The claim marks the op in flight, durably, before anything is sent; a claim of an op whose
/// previous send never settled turns that into `unconfirmed` (check the primary first).
pub(super) const CLAIM: &str = "
UPDATE ops SET state = 'leased', lease_token = ?1, lease_expires_at = ?2 + ?4,
       sends = sends + 1, unconfirmed = (unconfirmed OR inflight), inflight = 1,
       first_sent_at = COALESCE(first_sent_at, ?2), updated_at = ?2
 WHERE id = (SELECT id FROM ops WHERE state IN ('queued', 'leased', 'failed') ORDER BY id LIMIT 1)
   AND (state = 'queued' OR (state = 'leased' AND lease_expires_at <= ?2))
   AND next_attempt_at <= ?3";

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

/// What the head of the queue is doing when nothing could be claimed.
#[derive(Debug, Clone)]
pub enum Head {
    Empty,
    Failed(Op),
    Leased(Op),
    Waiting(Op),
}

impl Outbox {
    /// Claims the head under a fresh lease of `lease_ms`. `gate`: only if due by then
    /// (`i64::MAX` ignores the backoff schedule).
    pub fn claim(&mut self, token: &str, now: i64, gate: i64, lease_ms: i64) -> Result<Option<Op>> {
        let tx = self.write_tx("claiming")?;
        let op = claim_in(&tx, token, now, gate, lease_ms)?;
        tx.commit().map_err(|e| sql("claiming", &e))?;
        Ok(op)
    }

    /// Marks the leased op done (only with its lease token).
    pub fn ack(
        &mut self,
        op: &Op,
        token: &str,
        outcome: &str,
        primary_ref: Option<&str>,
    ) -> Result<()> {
        let tx = self.write_tx("acknowledging")?;
        ack_in(&tx, op, token, outcome, primary_ref)?;
        tx.commit().map_err(|e| sql("acknowledging", &e))
    }

    /// Marks the op done and claims the next one in a single commit: one fsync per op, and the
    /// next op is durably in flight before it is sent.
    pub fn ack_and_claim(
        &mut self,
        op: &Op,
        token: &str,
        outcome: &str,
        primary_ref: Option<&str>,
        gate: i64,
        lease_ms: i64,
    ) -> Result<Option<Op>> {
        let tx = self.write_tx("acknowledging")?;
        ack_in(&tx, op, token, outcome, primary_ref)?;
        let next = claim_in(&tx, token, util::now_ms(), gate, lease_ms)?;
        tx.commit().map_err(|e| sql("acknowledging", &e))?;
        Ok(next)
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
        let state = state.ok_or_else(|| lease_lost(op))?;
        tx.commit().map_err(|e| sql("recording the failure", &e))?;
        Ok(OpState::parse(&state).unwrap_or(OpState::Failed))
    }

    /// Fails the op at once (an ambiguous send mpt cannot check): an operator decides.
    pub fn fail_now(&mut self, op: &Op, token: &str, error: Value) -> Result<()> {
        let tx = self.write_tx("failing the op")?;
        let n = tx
            .execute(
                "UPDATE ops SET state = 'failed', attempts = MAX(attempts, ?3), lease_token = NULL,
                        lease_expires_at = NULL, inflight = 0, unconfirmed = 1, error_json = ?4, updated_at = ?5
                  WHERE id = ?1 AND lease_token = ?2 AND state = 'leased'",
                params![op.id, token, MAX_ATTEMPTS, error.to_string(), util::now_ms()],
            )
            .map_err(|e| sql("failing the op", &e))?;
        if n != 1 {
            return Err(lease_lost(op));
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

    /// The first op not yet done or dropped.
    pub fn head(&self) -> Result<Option<Op>> {
        self.conn
            .query_row(
                &format!("SELECT {COLS} FROM ops WHERE state IN ('queued', 'leased', 'failed') ORDER BY id LIMIT 1"),
                [],
                row_to_op,
            )
            .optional()
            .map_err(|e| sql("reading the head of the queue", &e))
    }

    /// Why nothing can be claimed right now.
    pub fn head_status(&self, now: i64) -> Result<Head> {
        Ok(match self.head()? {
            None => Head::Empty,
            Some(op) if op.state == OpState::Failed => Head::Failed(op),
            Some(op) if op.state == OpState::Leased && op.lease_expires_at.unwrap_or(0) > now => {
                Head::Leased(op)
            }
            Some(op) => Head::Waiting(op),
        })
    }

    /// Ops not yet done or dropped.
    pub fn open_count(&self) -> Result<i64> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM ops WHERE state IN ('queued', 'leased', 'failed')",
                [],
                |r| r.get(0),
            )
            .map_err(|e| sql("counting", &e))
    }

    /// The primary's ids for effects already confirmed by other ops of these tools since
    /// `since` (unix ms): a replay check never claims one of those as its own.
    pub fn confirmed_refs(&self, tools: &[&str], since: i64, except: i64) -> Result<Vec<String>> {
        let placeholders: Vec<String> = (0..tools.len()).map(|i| format!("?{}", i + 3)).collect();
        let q = format!(
            "SELECT primary_ref FROM ops WHERE state = 'done' AND primary_ref IS NOT NULL
               AND flushed_at >= ?1 AND id != ?2 AND tool_name IN ({})",
            placeholders.join(", ")
        );
        let mut stmt = self
            .conn
            .prepare(&q)
            .map_err(|e| sql("reading confirmed ops", &e))?;
        let mut args: Vec<rusqlite::types::Value> = vec![since.into(), except.into()];
        args.extend(
            tools
                .iter()
                .map(|t| rusqlite::types::Value::from(t.to_string())),
        );
        stmt.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| sql("reading confirmed ops", &e))
    }
}

fn claim_in(
    tx: &rusqlite::Transaction<'_>,
    token: &str,
    now: i64,
    gate: i64,
    lease_ms: i64,
) -> Result<Option<Op>> {
    tx.query_row(
        &format!("{CLAIM} RETURNING {COLS}"),
        params![token, now, gate, lease_ms],
        row_to_op,
    )
    .optional()
    .map_err(|e| sql("claiming", &e))
}

fn ack_in(
    tx: &rusqlite::Transaction<'_>,
    op: &Op,
    token: &str,
    outcome: &str,
    primary_ref: Option<&str>,
) -> Result<()> {
    let now = util::now_ms();
    let n = tx
        .execute(
            "UPDATE ops SET state = 'done', outcome = ?3, primary_ref = ?4, flushed_at = ?5, updated_at = ?5,
                    lease_token = NULL, lease_expires_at = NULL, inflight = 0, unconfirmed = 0,
                    next_attempt_at = 0
              WHERE id = ?1 AND lease_token = ?2 AND state = 'leased'",
            params![op.id, token, outcome, primary_ref, now],
        )
        .map_err(|e| sql("acknowledging", &e))?;
    if n != 1 {
        return Err(lease_lost(op));
    }
    Ok(())
}

fn lease_lost(op: &Op) -> MptError {
    MptError::new(
        ErrorKind::Busy,
        format!(
            "the lease on op {} was lost: another flusher reclaimed it",
            super::store::short(&op.op_id)
        ),
    )
    .with_hint("only one flusher may run per outbox; this one stops here")
}
