//! The outbox's lane apart: queued feed mines (`catalog::runs_apart`), minutes long each, sent one
//! at a time under a lock of their own and never the flush lock, so no write waits behind them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::params;

use super::classify::{self, Verdict};
use super::lease::{CLAIM, Nack};
use super::schema::sql;
use super::store::{COLS, Outbox, row_to_op, sidecar};
use super::{Op, OpState, error_json, util};
use mpt_base::error::{MptError, Result};
use mpt_base::lock::{self, PidLock};
use mpt_mcp::{Deadline, McpClient};
use mpt_palace::catalog::{self, Patience};

/// A transient failure (the primary unreachable, or busy with another mine) is tried again no
/// sooner than this.
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// What one pass of the lane did.
#[derive(Debug, Default)]
pub struct ApartReport {
    /// Another process runs the lane: nothing was sent by this one.
    pub busy: bool,
    pub sent: u64,
    pub applied: u64,
    /// Ops failed for good in this pass (`MAX_ATTEMPTS` hard failures).
    pub failed: Vec<String>,
    /// Open ops of the lane left when the pass ended.
    pub remaining: i64,
    /// Why the pass stopped early (the primary unreachable, refused).
    pub error: Option<MptError>,
}

/// The lane's own lock, beside the outbox: one sender of mines at a time per outbox.
pub fn lock_path(outbox: &Path) -> PathBuf {
    sidecar(outbox, ".apart.lock")
}

impl Outbox {
    /// The lane's open ops (queued, leased, failed), in queue order. Only the lane's tools are
    /// read: the edge asks every 2 s, and a backfill may have queued thousands of drawers.
    pub fn apart_open(&self) -> Result<Vec<Op>> {
        let names: Vec<String> = catalog::all()
            .iter()
            .filter(|t| catalog::runs_apart(t.name))
            .flat_map(|t| [t.name.to_string(), catalog::full_name(t.name)])
            .collect();
        let marks = vec!["?"; names.len()].join(", ");
        let ops = self
            .conn
            .prepare_cached(&format!(
                "SELECT {COLS} FROM ops WHERE state IN ('queued', 'leased', 'failed') \
                 AND tool_name IN ({marks}) ORDER BY id"
            ))
            .and_then(|mut st| {
                st.query_map(rusqlite::params_from_iter(names.iter()), row_to_op)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(|e| sql("reading the queue", &e))?;
        Ok(ops)
    }

    /// Claims the lane's op `id` under a lease of `lease_ms`, if it is still sendable.
    fn claim_apart(&mut self, token: &str, id: i64, lease_ms: i64) -> Result<Option<Op>> {
        let now = util::now_ms();
        let tx = self.write_tx("claiming")?;
        let op = match tx
            .prepare_cached(&format!("{CLAIM} RETURNING {COLS}"))
            .and_then(|mut st| st.query_row(params![token, now, now + lease_ms, id], row_to_op))
        {
            Ok(op) => Some(op),
            Err(rusqlite::Error::QueryReturnedNoRows) => None,
            Err(e) => return Err(sql("claiming", &e)),
        };
        tx.commit().map_err(|e| sql("claiming", &e))?;
        Ok(op)
    }
}

/// The deadline of one call of the lane's `tool`: the catalog's (the mine's minutes).
fn deadline_of(tool: &str) -> Duration {
    match catalog::tool(tool).patience {
        Patience::Fixed(d) => d,
        _ => Duration::from_secs(300),
    }
}

/// Sends the lane's due ops to the primary behind `client`, one at a time, each with its own
/// per-tool deadline and a lease that outlives it. `honour_backoff`: skip ops not yet due (a
/// timer's pass; an operator's flush tries now). Holds the lane's lock throughout, never the
/// flush lock; a held lane lock is `busy` (its holder sends them).
pub async fn run(
    store: &mut Outbox,
    client: &McpClient,
    honour_backoff: bool,
) -> Result<ApartReport> {
    let mut report = ApartReport::default();
    let lock_file = lock_path(store.path());
    let _lock: PidLock = match lock::try_acquire(&lock_file, "outbox mine lane") {
        Ok(Some(l)) => l,
        Ok(None) => {
            report.busy = true;
            report.remaining = open_count(store)?;
            return Ok(report);
        }
        Err(e) => return Err(MptError::io(format!("locking {}", lock_file.display()), &e)),
    };
    let token = util::lease_token();
    let mut connected = false;
    for op in store.apart_open()? {
        if !due(&op, util::now_ms(), honour_backoff) {
            continue;
        }
        if !connected {
            if let Err(e) = client.connect().await {
                report.error = Some(MptError::from(e));
                break;
            }
            connected = true;
        }
        let deadline = deadline_of(&op.tool_name);
        let lease = (deadline + Duration::from_secs(60)).as_millis() as i64;
        let Some(op) = store.claim_apart(&token, op.id, lease)? else {
            continue;
        };
        report.sent += 1;
        let result = client
            .call_tool(&op.tool_name, op.payload.clone(), Deadline::After(deadline))
            .await;
        match classify::classify(&op.tool_name, result) {
            Verdict::Applied {
                already,
                primary_ref,
                ..
            } => {
                let outcome = if already { "already_there" } else { "applied" };
                store.ack(&op, &token, outcome, primary_ref.as_deref())?;
                report.applied += 1;
            }
            Verdict::Hard { error, .. } => {
                let err: MptError = error.into();
                let state = store.nack(&op, &token, &nack(true, &err))?;
                if state == OpState::Failed {
                    report.failed.push(op.op_id.clone());
                }
            }
            Verdict::Denied { error } => {
                // The gateway's policy refused this mine: it ran nothing, and a resend is refused
                // alike (gateway (1b)): failed at once, its rule in the op's error.
                let err: MptError = error.into();
                store.fail_denied(&op, &token, error_json(&err))?;
                report.failed.push(op.op_id.clone());
            }
            Verdict::RateLimited { retry_after, error } => {
                // Another mine runs across the gateway (429): not a failure; due again after
                // Retry-After, and the lane stops for this round.
                let err: MptError = error.into();
                store.nack(
                    &op,
                    &token,
                    &Nack {
                        hard: false,
                        unconfirmed: false,
                        retry_at: util::now_ms() + retry_after.as_millis() as i64,
                        error: error_json(&err),
                    },
                )?;
                break;
            }
            Verdict::Transient { error, .. } | Verdict::Stop { error } => {
                let err: MptError = error.into();
                store.nack(&op, &token, &nack(false, &err))?;
                report.error = Some(err);
                break;
            }
        }
    }
    report.remaining = open_count(store)?;
    Ok(report)
}

/// Whether the lane may send `op` now: queued (and due, when `honour_backoff`), or leased by a
/// sender whose lease expired (it died mid-mine; the mine is idempotent).
pub fn due(op: &Op, now: i64, honour_backoff: bool) -> bool {
    match op.state {
        OpState::Queued => !honour_backoff || op.next_attempt_at <= now,
        OpState::Leased => op.lease_expires_at.unwrap_or(0) <= now,
        _ => false,
    }
}

/// A failed attempt: the op back in the queue (idempotent, so resent as it is), due again later.
fn nack(hard: bool, err: &MptError) -> Nack {
    Nack {
        hard,
        unconfirmed: false,
        retry_at: util::now_ms() + RETRY_AFTER.as_millis() as i64,
        error: error_json(err),
    }
}

fn open_count(store: &Outbox) -> Result<i64> {
    Ok(store.apart_open()?.len() as i64)
}
