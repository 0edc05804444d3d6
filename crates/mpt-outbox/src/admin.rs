//! What operators do to the outbox: list, find, summary, retry, drop (recorded), purge, the
//! audit trail and an integrity check. Retry and drop expect the caller to hold the flush lock.

use std::time::Duration;

use rusqlite::params;
use serde::Serialize;
use serde_json::Value;

use super::schema::sql;
use super::store::{COLS, Outbox, row_to_op, short};
use super::{Op, OpState, replay, util};
use mpt_base::error::{MptError, Result};

/// One operator action on the outbox, as `outbox show` prints it. `detail` is as it was stored
/// (an outbox written by an older mpt may hold other fields): [`Retried`], [`Dropped`], [`Purged`].
#[derive(Debug, Serialize)]
pub struct AuditEntry {
    pub at: String,
    pub action: String,
    pub op_id: Option<String>,
    pub detail: Value,
}

/// A retry's record: the state and attempts the op had, and its last error.
#[derive(Serialize)]
struct Retried<'a> {
    from: OpState,
    attempts: i64,
    error: Option<&'a Value>,
}

/// A drop's record (also the dropped op's error): who dropped it and why.
#[derive(Serialize)]
struct Dropped<'a> {
    from: OpState,
    attempts: i64,
    reason: Option<&'a str>,
    by: &'a str,
    error: Option<&'a Value>,
}

/// A purge's record: how many settled ops went, older than what.
#[derive(Serialize)]
struct Purged {
    deleted: i64,
    older_than_s: u64,
}

/// Counts by state and what sits at the head of the queue.
#[derive(Debug, Clone)]
pub struct Summary {
    pub counts: Vec<(OpState, i64)>,
    pub oldest_queued_at: Option<i64>,
    pub head: Option<Op>,
    pub last_seq: Option<i64>,
}

impl Summary {
    pub fn count(&self, st: OpState) -> i64 {
        count_in(&self.counts, st)
    }

    /// Ops not settled yet: queued, leased or failed.
    pub fn open(&self) -> i64 {
        self.counts
            .iter()
            .filter(|(s, _)| s.is_open())
            .map(|(_, n)| n)
            .sum()
    }
}

/// The count of `st` among counts by state (0 when it has none).
pub(super) fn count_in(counts: &[(OpState, i64)], st: OpState) -> i64 {
    counts.iter().find(|(s, _)| *s == st).map_or(0, |(_, n)| *n)
}

impl Outbox {
    /// When an op last reached the primary (`None`: never).
    pub fn last_flushed_at(&self) -> Result<Option<i64>> {
        self.conn
            .query_row(
                "SELECT MAX(flushed_at) FROM ops WHERE state = 'done'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| sql("reading the last flush", &e))
    }

    /// Ops in queue order. `states` empty = every state. `newest`: the last `limit` rather than
    /// the first (for done/dropped history); the result is still in queue order.
    pub fn list(&self, states: &[OpState], limit: usize, newest: bool) -> Result<Vec<Op>> {
        let filter = if states.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = states.iter().map(|s| format!("'{}'", s.as_str())).collect();
            format!("WHERE state IN ({})", names.join(", "))
        };
        let order = if newest { "DESC" } else { "ASC" };
        let q = format!("SELECT {COLS} FROM ops {filter} ORDER BY id {order} LIMIT ?1");
        let mut stmt = self.conn.prepare(&q).map_err(|e| sql("listing", &e))?;
        let mut ops = stmt
            .query_map([limit as i64], row_to_op)
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| sql("listing", &e))?;
        if newest {
            ops.reverse();
        }
        Ok(ops)
    }

    /// The op whose `op_id` starts with `prefix` (at least 4 hex digits; unique).
    pub fn find(&self, prefix: &str) -> Result<Op> {
        let p = prefix.trim().to_ascii_lowercase();
        if p.len() < 4 || !p.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(
                MptError::usage(format!("'{prefix}' is not an op id")).with_hint(
                    "give the op_id, or at least its first 4 hex digits (`mpt outbox list`)",
                ),
            );
        }
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {COLS} FROM ops WHERE op_id >= ?1 AND op_id < ?1 || 'g' ORDER BY id LIMIT 2"
            ))
            .map_err(|e| sql("finding the op", &e))?;
        let found = stmt
            .query_map([&p], row_to_op)
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| sql("finding the op", &e))?;
        match found.len() {
            0 => Err(MptError::usage(format!("no op {p} in the outbox"))
                .with_hint("`mpt outbox list --state all` lists every op still kept")),
            1 => Ok(found.into_iter().next().unwrap()),
            _ => Err(MptError::usage(format!("'{p}' matches more than one op"))
                .with_hint("give more digits of the op_id")),
        }
    }

    pub fn summary(&self) -> Result<Summary> {
        let mut stmt = self
            .conn
            .prepare("SELECT state, COUNT(*) FROM ops GROUP BY state")
            .map_err(|e| sql("counting", &e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| sql("counting", &e))?;
        let counts = OpState::ALL
            .into_iter()
            .map(|st| {
                let n = rows
                    .iter()
                    .find(|(s, _)| s == st.as_str())
                    .map_or(0, |(_, n)| *n);
                (st, n)
            })
            .collect();
        let oldest_queued_at = self
            .conn
            .query_row(
                "SELECT MIN(created_at) FROM ops WHERE state IN ('queued', 'leased', 'failed')",
                [],
                |r| r.get(0),
            )
            .map_err(|e| sql("counting", &e))?;
        let last_seq = self
            .conn
            .query_row("SELECT MAX(last) FROM seqs", [], |r| r.get(0))
            .map_err(|e| sql("counting", &e))?;
        Ok(Summary {
            counts,
            oldest_queued_at,
            head: self.head()?,
            last_seq,
        })
    }

    /// Puts a failed (or backing-off queued) op back at the front of the line with a fresh
    /// attempt budget. Hold the flush lock while calling (no flusher may be mid-send).
    pub fn retry(&mut self, op: &Op) -> Result<bool> {
        if !matches!(op.state, OpState::Failed | OpState::Queued) {
            return Ok(false);
        }
        // For a tool whose replay cannot be checked, an operator's retry is the decision to send.
        let clear = !replay::can_verify(&op.tool_name, &op.payload);
        let now = util::now_ms();
        let tx = self.write_tx("retrying")?;
        let n = tx
            .execute(
                "UPDATE ops SET state = 'queued', attempts = 0, next_attempt_at = 0,
                        unconfirmed = CASE WHEN ?2 THEN 0 ELSE unconfirmed END, updated_at = ?3
                 WHERE id = ?1 AND state IN ('failed', 'queued')",
                params![op.id, clear, now],
            )
            .map_err(|e| sql("retrying", &e))?;
        if n == 1 {
            audit(
                &tx,
                now,
                "retry",
                Some(&op.op_id),
                Retried {
                    from: op.state,
                    attempts: op.attempts,
                    error: op.error.as_ref(),
                },
            )?;
        }
        tx.commit().map_err(|e| sql("retrying", &e))?;
        Ok(n == 1)
    }

    /// Every failed op, in queue order.
    pub fn failed(&self) -> Result<Vec<Op>> {
        self.list(&[OpState::Failed], usize::MAX >> 1, false)
    }

    /// Gives up on an op: it is never sent, and the record (with who and why) stays until
    /// purged; the audit entry stays for good. Hold the flush lock while calling.
    pub fn drop_op(&mut self, op: &Op, reason: Option<&str>) -> Result<()> {
        if !op.state.is_open() {
            return Err(MptError::usage(format!(
                "op {} is {}: only queued, leased or failed ops can be dropped",
                short(&op.op_id),
                op.state.as_str()
            )));
        }
        let now = util::now_ms();
        let who = format!(
            "{}@{} pid {}",
            std::env::var("USER").unwrap_or_else(|_| "?".into()),
            util::hostname(),
            std::process::id()
        );
        let detail = serde_json::to_value(Dropped {
            from: op.state,
            attempts: op.attempts,
            reason,
            by: &who,
            error: op.error.as_ref(),
        })
        .unwrap_or_default();
        let tx = self.write_tx("dropping")?;
        let n = tx
            .execute(
                "UPDATE ops SET state = 'dropped', outcome = 'dropped', flushed_at = ?2, updated_at = ?2,
                        lease_token = NULL, lease_expires_at = NULL, inflight = 0, error_json = ?3
                 WHERE id = ?1 AND state IN ('queued', 'leased', 'failed')",
                params![op.id, now, detail.to_string()],
            )
            .map_err(|e| sql("dropping", &e))?;
        if n != 1 {
            return Err(MptError::usage(format!(
                "op {} changed meanwhile; look again",
                short(&op.op_id)
            )));
        }
        audit(&tx, now, "drop", Some(&op.op_id), detail)?;
        tx.commit().map_err(|e| sql("dropping", &e))
    }

    /// Deletes done and dropped ops settled before `older_than` ago. Open ops are never touched.
    pub fn purge(&mut self, older_than: Duration) -> Result<i64> {
        let now = util::now_ms();
        let cutoff = now - older_than.as_millis() as i64;
        let tx = self.write_tx("purging")?;
        let n = tx
            .execute(
                "DELETE FROM ops WHERE state IN ('done', 'dropped') AND flushed_at <= ?1",
                [cutoff],
            )
            .map_err(|e| sql("purging", &e))? as i64;
        if n > 0 {
            audit(
                &tx,
                now,
                "purge",
                None,
                Purged {
                    deleted: n,
                    older_than_s: older_than.as_secs(),
                },
            )?;
        }
        tx.commit().map_err(|e| sql("purging", &e))?;
        Ok(n)
    }

    /// Operator actions on one op (or, with `None`, every action), oldest first.
    pub fn audit_trail(&self, op_id: Option<&str>) -> Result<Vec<AuditEntry>> {
        let mut stmt = self
            .conn
            .prepare("SELECT at, action, op_id, detail_json FROM audit WHERE ?1 IS NULL OR op_id = ?1 ORDER BY id")
            .map_err(|e| sql("reading the audit trail", &e))?;
        stmt.query_map([op_id], |r| {
            let detail: String = r.get(3)?;
            Ok(AuditEntry {
                at: util::rfc3339(r.get(0)?),
                action: r.get(1)?,
                op_id: r.get(2)?,
                detail: serde_json::from_str(&detail).unwrap_or(Value::Null),
            })
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(|e| sql("reading the audit trail", &e))
    }

    /// `PRAGMA integrity_check`: "ok" or the problems SQLite found.
    pub fn integrity_check(&self) -> Result<String> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| sql("checking integrity", &e))?;
        let lines = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| sql("checking integrity", &e))?;
        Ok(lines.join("\n"))
    }
}

fn audit(
    tx: &rusqlite::Transaction<'_>,
    at: i64,
    action: &str,
    op_id: Option<&str>,
    detail: impl serde::Serialize,
) -> Result<()> {
    let mut detail = serde_json::to_value(detail).unwrap_or_default();
    // An operator's reason or a stored error never carries a known secret into the file.
    mpt_base::secrets::scrub_json(&mut detail);
    tx.execute(
        "INSERT INTO audit (at, action, op_id, detail_json) VALUES (?1, ?2, ?3, ?4)",
        params![at, action, op_id, detail.to_string()],
    )
    .map(|_| ())
    .map_err(|e| sql("recording the audit entry", &e))
}
