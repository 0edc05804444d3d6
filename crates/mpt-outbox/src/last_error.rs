//! The outbox's `last_flush_error`: how the last flush that reached for the primary ended and
//! why (a refused token, an unreachable host), kept until a flush gets through (schema v4).

use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::Value;

use super::schema::sql;
use super::{Outbox, Stop, util};
use mpt_base::error::Result;

/// The last flush that reached for the primary: when, how it ended, and its error (none: it got
/// through).
#[derive(Debug, Clone)]
pub struct LastFlush {
    pub at: i64,
    pub stop: String,
    pub error: Option<Value>,
}

impl LastFlush {
    /// The error's kind (`auth` for a token or Host the primary refused, `unavailable`, ...).
    pub fn kind(&self) -> Option<&str> {
        self.error.as_ref()?.get("kind")?.as_str()
    }

    /// The primary refused the credentials (401/403): nothing flushes until they are fixed.
    pub fn refused(&self) -> bool {
        self.kind() == Some("auth")
    }

    /// The first line of the error's message.
    pub fn message(&self) -> Option<&str> {
        let m = self.error.as_ref()?.get("message")?.as_str()?;
        m.lines().next()
    }

    /// The error's hint: the one fix.
    pub fn hint(&self) -> Option<&str> {
        self.error.as_ref()?.get("hint")?.as_str()
    }

    /// Its document: when (RFC 3339), how the flush stopped, and the error.
    pub fn doc(&self) -> LastFlushDoc<'_> {
        LastFlushDoc {
            at: util::rfc3339(self.at),
            stop: &self.stop,
            error: self.error.as_ref(),
        }
    }
}

/// `last_flush_error` in `mpt outbox --json` and `mpt edge status --json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LastFlushDoc<'a> {
    pub at: String,
    pub stop: &'a str,
    pub error: Option<&'a Value>,
}

impl Outbox {
    /// Records how a flush that reached for the primary ended (`error` `None`: it got through,
    /// which clears an earlier error). One relaxed commit: it is a report, not a promise.
    pub fn record_flush_end(&mut self, stop: Stop, error: Option<&Value>) -> Result<()> {
        self.relaxed(|s| {
            let tx = s.write_tx("recording the flush's end")?;
            write_in(&tx, stop, error)?;
            tx.commit()
                .map_err(|e| sql("recording the flush's end", &e))
        })
    }

    /// The last flush that reached for the primary, if any did.
    pub fn last_flush(&self) -> Result<Option<LastFlush>> {
        self.conn
            .query_row(
                "SELECT at, stop, error_json FROM flush_state WHERE id = 1",
                [],
                |r| {
                    let error: Option<String> = r.get(2)?;
                    Ok(LastFlush {
                        at: r.get(0)?,
                        stop: r.get(1)?,
                        error: error.map(|t| serde_json::from_str(&t).unwrap_or(Value::String(t))),
                    })
                },
            )
            .optional()
            .map_err(|e| sql("reading the last flush", &e))
    }

    /// The last flush's error, while it stands.
    pub fn last_flush_error(&self) -> Result<Option<LastFlush>> {
        Ok(self.last_flush()?.filter(|l| l.error.is_some()))
    }
}

/// The `flush_state` row, written inside `tx`.
pub(super) fn write_in(tx: &Transaction<'_>, stop: Stop, error: Option<&Value>) -> Result<()> {
    let stop = serde_json::to_value(stop)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    tx.execute(
        "INSERT INTO flush_state (id, at, stop, error_json) VALUES (1, ?1, ?2, ?3)
         ON CONFLICT(id) DO UPDATE SET at = excluded.at, stop = excluded.stop,
                                       error_json = excluded.error_json",
        params![util::now_ms(), stop, error.map(Value::to_string)],
    )
    .map(|_| ())
    .map_err(|e| sql("recording the flush's end", &e))
}
