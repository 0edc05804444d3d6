//! The queue's order: where each open op stands (failed, waiting for the ids an earlier op
//! mints, behind an earlier write to the same fact, backing off), and the reads built on it.

use rusqlite::OptionalExtension;
use serde_json::Value;

use super::refs::Wait;
use super::schema::sql;
use super::store::{COLS, Outbox, row_to_op};
use super::{Op, OpState};
use mpt_base::error::Result;
use mpt_palace::catalog;

/// What the head of the queue is doing when nothing could be claimed.
#[derive(Debug, Clone)]
pub enum Head {
    Empty,
    Failed(Op),
    Leased(Op),
    Waiting(Op),
}

impl Outbox {
    /// Where every open op stands now (`gate`: backoff due by then), in queue order; the ops of the
    /// lane apart (`apart`) are not in it.
    pub fn backlog(&self, now: i64, gate: i64) -> Result<Backlog> {
        let mut order = Order::default();
        let mut b = Backlog::default();
        let mut after = 0;
        loop {
            let page = open_page(&self.conn, after)?;
            let Some(last) = page.last() else { break };
            after = last.id;
            for op in page
                .into_iter()
                .filter(|op| !catalog::runs_apart(&op.tool_name))
            {
                match order.standing(&self.conn, &op, now, gate)? {
                    Standing::Sendable => b.sendable += 1,
                    Standing::Failed => b.failed.push(op),
                    Standing::Waits(_) | Standing::KgBehind => b.held_back += 1,
                    Standing::Backoff => {
                        if b.next_due
                            .as_ref()
                            .is_none_or(|d| op.next_attempt_at < d.next_attempt_at)
                        {
                            b.next_due = Some(op);
                        }
                    }
                    Standing::LeasedElsewhere => {
                        b.leased += 1;
                    }
                }
            }
        }
        Ok(b)
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
    pub fn confirmed_refs(&self, tools: &[String], since: i64, except: i64) -> Result<Vec<String>> {
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
                .map(|t| rusqlite::types::Value::from(t.clone())),
        );
        stmt.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| sql("reading confirmed ops", &e))
    }
}

/// Open ops after `after` (queue order), a page at a time: claims update rows as they go.
pub(super) fn open_page(conn: &rusqlite::Connection, after: i64) -> Result<Vec<Op>> {
    conn.prepare_cached(&format!(
        "SELECT {COLS} FROM ops WHERE state IN ('queued', 'leased', 'failed') AND id > ?1 ORDER BY id LIMIT 256"
    ))
    .and_then(|mut st| {
        st.query_map([after], row_to_op)?
            .collect::<rusqlite::Result<Vec<_>>>()
    })
    .map_err(|e| sql("reading the queue", &e))
}

/// Why an open op can or cannot be sent now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    Sendable,
    /// Failed: an operator retries or drops it.
    Failed,
    /// It references ids minted by ops that have not landed.
    Waits(Vec<Wait>),
    /// An earlier knowledge-graph write to the same subject and predicate has not landed.
    KgBehind,
    /// Backing off until `next_attempt_at`.
    Backoff,
    /// Another flusher holds its lease.
    LeasedElsewhere,
}

/// The open ops of one pass in queue order, remembering which knowledge-graph facts an
/// earlier op still holds.
#[derive(Default)]
pub(super) struct Order {
    held_facts: std::collections::HashSet<String>,
}

impl Order {
    pub(super) fn standing(
        &mut self,
        conn: &rusqlite::Connection,
        op: &Op,
        now: i64,
        gate: i64,
    ) -> Result<Standing> {
        let fact = kg_fact_key(op);
        let standing = if fact.as_ref().is_some_and(|f| self.held_facts.contains(f)) {
            Standing::KgBehind
        } else {
            match op.state {
                OpState::Failed => Standing::Failed,
                OpState::Leased if op.lease_expires_at.unwrap_or(0) > now => {
                    Standing::LeasedElsewhere
                }
                _ => {
                    let waits = super::refs::waits_in(conn, op.id)?;
                    if !waits.is_empty() {
                        Standing::Waits(waits)
                    } else if op.next_attempt_at > gate {
                        Standing::Backoff
                    } else {
                        Standing::Sendable
                    }
                }
            }
        };
        // Whatever it is, a later write to the same fact comes after it.
        if let Some(f) = fact {
            self.held_facts.insert(f);
        }
        Ok(standing)
    }
}

/// Where the open ops stand: what a flush that found nothing to claim reports.
#[derive(Debug, Default)]
pub struct Backlog {
    pub sendable: i64,
    /// Failed ops, in queue order.
    pub failed: Vec<Op>,
    /// Ops that wait for an op that has not landed (a failed one, or one still queued).
    pub held_back: i64,
    /// The op whose backoff ends first.
    pub next_due: Option<Op>,
    pub leased: i64,
}

/// Knowledge-graph writes to one subject and predicate are order-sensitive on replay.
fn kg_fact_key(op: &Op) -> Option<String> {
    if !catalog::tool(&op.tool_name).kg_fact {
        return None;
    }
    let field = |k: &str| {
        op.payload
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_lowercase()
    };
    Some(format!(
        "{}\u{1f}{}",
        field("subject").replace(' ', "_"),
        field("predicate").replace(' ', "_")
    ))
}
