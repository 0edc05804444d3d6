//! The outbox's reads of the id map (`refs.rs` records it): what an op waits for, and its
//! references rewritten to the primary's ids once the ops that minted them have landed.

use rusqlite::OptionalExtension;
use serde_json::Value;

use super::refs::{Wait, references, rewrite, waits_in};
use super::schema::sql;
use super::store::Outbox;
use super::{Op, OpState};
use mpt_base::error::Result;

impl Outbox {
    /// What `op` waits for before it may be sent (empty: nothing).
    pub fn waits(&self, op: &Op) -> Result<Vec<Wait>> {
        if !op.state.is_open() {
            return Ok(Vec::new());
        }
        waits_in(&self.conn, op.id)
    }

    /// `op` with every reference to an id minted by a landed op replaced by the primary's id.
    pub fn resolve_refs(&self, mut op: Op) -> Result<Op> {
        self.resolve_args(&mut op.payload)?;
        Ok(op)
    }

    /// Rewrites the references in `args` to ids minted by landed ops; returns how many
    /// references name ids whose ops have not landed yet (such a call must wait for them).
    pub fn resolve_args(&self, args: &mut Value) -> Result<usize> {
        let mut lookup = self
            .conn
            .prepare_cached(
                "SELECT m.primary_id, o.state FROM minted m LEFT JOIN ops o ON o.id = m.op_row
                  WHERE m.local_id = ?1",
            )
            .map_err(|e| sql("resolving references", &e))?;
        let mut found = Vec::new();
        let mut pending = 0;
        for id in references(args) {
            let row: Option<(Option<String>, Option<String>)> = lookup
                .query_row([&id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()
                .map_err(|e| sql("resolving references", &e))?;
            match row {
                Some((Some(p), _)) => found.push((id, p)),
                Some((None, Some(state)))
                    if OpState::parse(&state).is_some_and(OpState::is_open) =>
                {
                    pending += 1
                }
                _ => {}
            }
        }
        if !found.is_empty() {
            rewrite(args, |id| {
                found.iter().find(|(l, _)| l == id).map(|(_, p)| p.clone())
            });
        }
        Ok(pending)
    }

    /// The primary's id for an id this device minted (`None`: not known or not landed).
    pub fn primary_id(&self, local_id: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT primary_id FROM minted WHERE local_id = ?1",
                [local_id],
                |r| r.get(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(|e| sql("reading the id map", &e))
    }
}
