//! The backfill ledger: which records of the local palace a backfill already enqueued, written in
//! the same transaction as their ops, so a rerun (or one after a kill at any point) sends each once.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::Record;
use crate::schema::sql;
use crate::store::{self, NewOp};
use crate::{Origin, Outbox, util};
use mpt_base::error::Result;

/// What became of a record a backfill enqueued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ledgered {
    /// Its op is queued, being sent, landed, or failed (an operator's to retry or drop).
    Enqueued,
    /// An operator dropped its op (`mpt outbox drop`), even if the op was purged since (the
    /// audit trail keeps the drop): the record is not on the primary through it.
    Dropped,
}

/// The ledger row's state: its op dropped, or dropped and purged since (the audit remembers).
const LEDGERED: &str = "SELECT CASE
        WHEN o.state = 'dropped' THEN 1
        WHEN o.op_id IS NULL AND EXISTS
            (SELECT 1 FROM audit a WHERE a.action = 'drop' AND a.op_id = b.op_id) THEN 1
        ELSE 0 END
     FROM backfill b LEFT JOIN ops o ON o.op_id = b.op_id WHERE b.key = ?1";

fn ledgered(conn: &rusqlite::Connection, key: &str) -> Result<Option<Ledgered>> {
    conn.prepare_cached(LEDGERED)
        .and_then(|mut st| st.query_row([key], |r| r.get::<_, i64>(0)).optional())
        .map(|hit| {
            hit.map(|dropped| {
                if dropped == 1 {
                    Ledgered::Dropped
                } else {
                    Ledgered::Enqueued
                }
            })
        })
        .map_err(|e| sql("reading the backfill ledger", &e))
}

impl Outbox {
    /// The ledger keys already recorded, of those asked, with what became of their ops.
    pub fn backfilled(&self, keys: &[&str]) -> Result<HashMap<String, Ledgered>> {
        let mut out = HashMap::new();
        for k in keys {
            if let Some(state) = ledgered(&self.conn, k)? {
                out.insert((*k).to_string(), state);
            }
        }
        Ok(out)
    }

    /// Backfill ops still open (queued, leased or failed): the runbook's step is done without them.
    pub fn backfill_open(&self) -> Result<i64> {
        self.conn
            .query_row(
                "SELECT count(*) FROM backfill b JOIN ops o ON o.op_id = b.op_id
                  WHERE o.state IN ('queued', 'leased', 'failed')",
                [],
                |r| r.get(0),
            )
            .map_err(|e| sql("reading the backfill ledger", &e))
    }

    /// Enqueues `records` in order, each with its ledger row, in one transaction; records whose
    /// key is already in the ledger are passed over, unless `redo_dropped` and an operator
    /// dropped its op (then the row points at the new op). Returns how many were enqueued.
    pub fn enqueue_backfill(
        &mut self,
        origin: &Origin,
        records: &[Record],
        redo_dropped: bool,
    ) -> Result<usize> {
        let ops: Vec<NewOp<'_>> = records.iter().map(Record::new_op).collect();
        let texts = store::payload_texts(&ops)?;
        let now = util::now_ms();
        let tx = self.write_tx("enqueueing the backfill")?;
        let mut enqueued = 0;
        for ((rec, op), text) in records.iter().zip(&ops).zip(texts) {
            match ledgered(&tx, &rec.key)? {
                None => {}
                Some(Ledgered::Dropped) if redo_dropped => {}
                Some(_) => continue,
            }
            let done = store::insert_op(&tx, origin, op, &text, now)?;
            tx.prepare_cached(
                "INSERT OR REPLACE INTO backfill (key, kind, local_id, op_id, at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    rec.key,
                    rec.kind.as_str(),
                    rec.local_id,
                    done.op_id,
                    now
                ])
            })
            .map_err(|e| sql("writing the backfill ledger", &e))?;
            enqueued += 1;
        }
        tx.commit()
            .map_err(|e| sql("committing the backfill", &e))?;
        Ok(enqueued)
    }

    /// The payloads of this outbox's open ops (queued, leased, failed) of these tools that no
    /// backfill queued: what the live edge (or an operator) queued and has not landed yet.
    pub fn open_payloads(&self, tools: &[&str]) -> Result<Vec<(String, Value)>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT tool_name, payload_json FROM ops
                  WHERE state IN ('queued', 'leased', 'failed')
                    AND op_id NOT IN (SELECT op_id FROM backfill) ORDER BY id",
            )
            .map_err(|e| sql("reading open ops", &e))?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| sql("reading open ops", &e))?;
        Ok(rows
            .into_iter()
            .filter(|(t, _)| tools.contains(&t.as_str()))
            .filter_map(|(t, p)| Some((t, serde_json::from_str(&p).ok()?)))
            .collect())
    }

    /// The primary's id for an id the local palace minted, once the op that sent it landed.
    pub fn landed_id(&self, local_id: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT primary_id FROM minted WHERE local_id = ?1",
                [local_id],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(|e| sql("reading the id map", &e))
    }

    /// Whether an op in this outbox (any state but dropped) minted `local_id`: the live edge
    /// queued that record, and its op carries it to the primary.
    pub fn minted_by_an_op(&self, local_id: &str) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT 1 FROM minted m LEFT JOIN ops o ON o.id = m.op_row
                  WHERE m.local_id = ?1 AND (o.state IS NULL OR o.state != 'dropped')",
                [local_id],
                |_| Ok(()),
            )
            .optional()
            .map(|o| o.is_some())
            .map_err(|e| sql("reading the id map", &e))
    }
}
