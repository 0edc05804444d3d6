//! Intent first: a write recorded (durably) before the edge's child applies it, then confirmed
//! into the queue when the child applied it, or cancelled when the child refused it.

use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::schema::sql;
use super::store::{Enqueued, NewOp, Outbox, insert_op, payload_texts};
use super::{MAX_ATTEMPTS, Origin, util};
use mpt_base::error::{ErrorKind, MptError, Result};

/// A write the local palace may or may not have applied yet (`pending_local`).
#[derive(Debug, Clone)]
pub struct Intent {
    pub id: i64,
    /// The real path of the palace whose child applies it.
    pub palace: String,
    pub tool_name: String,
    pub payload: Value,
    /// The primary may already hold it: it is queued (checked there first), never cancelled.
    pub maybe_applied: bool,
    /// The process that recorded it (the owner whose child applies it).
    pub owner_pid: u32,
    pub created_at: i64,
}

impl Outbox {
    /// Records `tool(payload)` as about to be applied to `palace`'s child, committed with the
    /// configured `synchronous` before it returns: from here a kill -9 leaves it for the next
    /// owner to settle. Refused as an enqueue is (exit 4 / 2).
    pub fn intend(
        &mut self,
        palace: &str,
        tool: &str,
        payload: &Value,
        maybe_applied: bool,
    ) -> Result<i64> {
        let text = payload_texts(&[NewOp {
            tool,
            payload,
            dedupe_key: None,
            local_reply: None,
            maybe_applied,
        }])?
        .remove(0);
        let tx = self.write_tx("recording the write")?;
        tx.execute(
            "INSERT INTO intents (palace, tool_name, payload_json, maybe_applied, owner_pid, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                palace,
                tool,
                text,
                maybe_applied,
                std::process::id(),
                util::now_ms()
            ],
        )
        .map_err(|e| sql("recording the write", &e))?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(|e| sql("recording the write", &e))?;
        Ok(id)
    }

    /// The child applied it: the op enters the queue (the ids `local_reply` minted recorded), and
    /// the intent goes, in one commit.
    pub fn confirm(
        &mut self,
        origin: &Origin,
        id: i64,
        local_reply: Option<&Value>,
    ) -> Result<Enqueued> {
        self.confirm_with(origin, id, local_reply, None)
    }

    /// Queued as failed at once, with `error`: mpt cannot tell whether the child applied it (a
    /// tool it cannot check); an operator retries or drops it.
    pub fn confirm_failed(&mut self, origin: &Origin, id: i64, error: &Value) -> Result<Enqueued> {
        self.confirm_with(origin, id, None, Some(error))
    }

    fn confirm_with(
        &mut self,
        origin: &Origin,
        id: i64,
        local_reply: Option<&Value>,
        failed: Option<&Value>,
    ) -> Result<Enqueued> {
        let tx = self.write_tx("queueing the write")?;
        let Some(intent) = read(&tx, id)? else {
            return Err(MptError::new(
                ErrorKind::Io,
                format!("the outbox holds no intent {id}: it was settled already"),
            ));
        };
        let op = NewOp {
            tool: &intent.tool_name,
            payload: &intent.payload,
            dedupe_key: None,
            local_reply,
            maybe_applied: intent.maybe_applied,
        };
        let text = payload_texts(&[op])?.remove(0);
        let done = insert_op(&tx, origin, &op, &text, util::now_ms())?;
        if let Some(error) = failed {
            tx.execute(
                "UPDATE ops SET state = 'failed', attempts = ?2, unconfirmed = 1, error_json = ?3
                  WHERE op_id = ?1",
                params![done.op_id, MAX_ATTEMPTS, error.to_string()],
            )
            .map_err(|e| sql("queueing the write", &e))?;
        }
        tx.execute("DELETE FROM intents WHERE id = ?1", [id])
            .map_err(|e| sql("queueing the write", &e))?;
        tx.commit().map_err(|e| sql("queueing the write", &e))?;
        Ok(done)
    }

    /// The child refused it (or never applied it): nothing to replicate.
    pub fn cancel(&mut self, id: i64) -> Result<()> {
        self.conn
            .execute("DELETE FROM intents WHERE id = ?1", [id])
            .map(|_| ())
            .map_err(|e| sql("cancelling the write", &e))
    }

    /// The intents recorded for `palace`, oldest first.
    pub fn intents(&self, palace: &str) -> Result<Vec<Intent>> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {INTENT_COLS} FROM intents WHERE palace = ?1 ORDER BY id"
            ))
            .and_then(|mut st| {
                st.query_map([palace], row_to_intent)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(|e| sql("reading the intents", &e))
    }

    /// Intents of every palace: writes an edge recorded and has not settled yet.
    pub fn intent_count(&self) -> Result<i64> {
        self.conn
            .query_row("SELECT COUNT(*) FROM intents", [], |r| r.get(0))
            .map_err(|e| sql("counting the intents", &e))
    }
}

const INTENT_COLS: &str =
    "id, palace, tool_name, payload_json, maybe_applied, owner_pid, created_at";

fn read(conn: &rusqlite::Connection, id: i64) -> Result<Option<Intent>> {
    conn.query_row(
        &format!("SELECT {INTENT_COLS} FROM intents WHERE id = ?1"),
        [id],
        row_to_intent,
    )
    .optional()
    .map_err(|e| sql("reading the intent", &e))
}

fn row_to_intent(r: &rusqlite::Row<'_>) -> rusqlite::Result<Intent> {
    let text: String = r.get(3)?;
    Ok(Intent {
        id: r.get(0)?,
        palace: r.get(1)?,
        tool_name: r.get(2)?,
        payload: serde_json::from_str(&text).unwrap_or(Value::String(text)),
        maybe_applied: r.get::<_, i64>(4)? != 0,
        owner_pid: r.get::<_, i64>(5)? as u32,
        created_at: r.get(6)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{OpState, OpenOptions};
    use serde_json::json;

    fn origin() -> Origin {
        Origin {
            device: "lap".into(),
            host: "h".into(),
            inbox: None,
        }
    }

    #[test]
    fn an_intent_is_queued_when_confirmed_and_gone_when_cancelled() {
        let d = tempfile::tempdir().unwrap();
        let mut o = Outbox::open(&d.path().join("o.sqlite3"), OpenOptions::default()).unwrap();
        let args = json!({"agent_name": "pi", "entry": "x"});
        let a = o
            .intend("/p", "mempalace_diary_write", &args, false)
            .unwrap();
        let b = o
            .intend("/p", "mempalace_kg_add", &json!({"subject": "s"}), false)
            .unwrap();
        let other = o
            .intend("/q", "mempalace_kg_add", &json!({}), true)
            .unwrap();
        assert_eq!(o.intent_count().unwrap(), 3);
        assert_eq!(o.open_count().unwrap(), 0, "an intent is not in the queue");
        let mine: Vec<i64> = o.intents("/p").unwrap().iter().map(|i| i.id).collect();
        assert_eq!(mine, [a, b]);
        let q = o.confirm(&origin(), a, None).unwrap();
        assert_eq!(q.local_seq, 1);
        o.cancel(b).unwrap();
        assert!(o.intents("/p").unwrap().is_empty());
        let op = o.head().unwrap().unwrap();
        assert_eq!((op.op_id, op.payload), (q.op_id, args));
        assert!(o.confirm(&origin(), a, None).is_err(), "settled once");
        let err = json!({"message": "cannot tell"});
        o.confirm_failed(&origin(), other, &err).unwrap();
        let failed = o.failed().unwrap();
        assert_eq!(failed.len(), 1);
        assert_eq!(
            (failed[0].state, failed[0].unconfirmed),
            (OpState::Failed, true)
        );
        assert_eq!(o.intent_count().unwrap(), 0);
    }

    #[test]
    fn a_version_4_outbox_gains_the_intents_in_place() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("o.sqlite3");
        drop(Outbox::open(&path, OpenOptions::default()).unwrap());
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            c.execute_batch("DROP TABLE intents; PRAGMA user_version = 4;")
                .unwrap();
        }
        let mut o = Outbox::open(&path, OpenOptions::default()).unwrap();
        let id = o
            .intend("/p", "mempalace_kg_add", &json!({}), false)
            .unwrap();
        assert_eq!(o.intents("/p").unwrap()[0].id, id);
        let v: i64 = o
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, crate::schema::SCHEMA_VERSION);
    }

    #[test]
    fn what_the_outbox_refuses_is_refused_as_an_intent_too() {
        let d = tempfile::tempdir().unwrap();
        let mut o = Outbox::open(&d.path().join("o.sqlite3"), OpenOptions::default()).unwrap();
        let e = o
            .intend("/p", "mempalace_delete_drawer", &json!({}), false)
            .unwrap_err();
        assert_eq!(e.exit().code(), 4);
    }
}
