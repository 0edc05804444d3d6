//! Reading opencode's database: read-only (`mode=ro`, a plain WAL reader), one deferred
//! read transaction per run that holds no lock a writer waits on and ends as soon as the rows are
//! in memory, so a running opencode never blocks and its WAL checkpoints are never starved.

use super::schema::{self, Key};
use rusqlite::{Connection, OpenFlags};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

/// One row of `session`, with what the fast path and the quiet period need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    /// Set for a subagent's session (the `task` tool's child).
    pub parent_id: Option<String>,
    pub directory: String,
    pub title: String,
    /// `revert`: an undo in progress; the messages from its `messageID` on are not the conversation.
    pub revert: Option<String>,
    /// The latest `time_updated` of the session, its messages and its parts (ms since the epoch):
    /// opencode's own update time, for the quiet period.
    pub updated_ms: i64,
    /// A hash of the session's row counts, latest update times and revert: unchanged while the
    /// conversation is.
    pub fingerprint: u64,
}

/// One `message` row with its `part` rows (each `data` is opencode's JSON, as stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRow {
    pub id: String,
    pub data: String,
    pub parts: Vec<String>,
}

/// What one read of the database found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// A known schema: every session, and the messages of those the caller asked for.
    Sessions(Vec<(SessionRow, Option<Vec<MessageRow>>)>),
    /// A schema this build does not know (or none): nothing was read.
    UnknownSchema(Option<Key>),
}

const INDEX: &str = "
SELECT s.id, s.parent_id, s.directory, s.title, s.revert, s.time_updated,
  (SELECT count(*) FROM message m WHERE m.session_id = s.id),
  (SELECT ifnull(max(m.time_updated), 0) FROM message m WHERE m.session_id = s.id),
  (SELECT count(*) FROM part p WHERE p.session_id = s.id),
  (SELECT ifnull(max(p.time_updated), 0) FROM part p WHERE p.session_id = s.id)
FROM session s ORDER BY s.id";

const MESSAGES: &str =
    "SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id";
const PARTS: &str =
    "SELECT message_id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id";

/// How long a read waits on a lock before the database is skipped as busy (a WAL reader waits only
/// while opencode recovers its WAL or a rollback-journal writer holds the file).
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

/// Reads the database at `path`: `Ok(None)` when it does not exist; `Err` with SQLite's reason when
/// it cannot be read (locked, damaged, not a database). `wanted` picks the sessions whose messages
/// are loaded, inside the same transaction as the index.
///
/// `mode=ro` without `readonly_shm`: the connection is a plain WAL reader (it takes a read mark in
/// the `-shm`, creating the `-shm` and an empty `-wal` when opencode is not running, as any reader
/// would), so it sees a consistent snapshot, never writes the database, and never blocks opencode.
pub fn read(path: &Path, wanted: &dyn Fn(&SessionRow) -> bool) -> Result<Option<Read>, String> {
    if !path.exists() {
        return Ok(None);
    }
    open(path)
        .and_then(|c| read_in(&c, wanted))
        .map(Some)
        .map_err(|e| e.to_string())
}

/// The database's schema key alone (for doctor): `Ok(None)` when it has no migration journal.
pub fn schema_key(path: &Path) -> Result<Option<Key>, String> {
    open(path)
        .and_then(|c| schema::key(&c))
        .map_err(|e| e.to_string())
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    let c = Connection::open_with_flags(
        format!("file:{}?mode=ro", crate::palace::sqlite::uri_path(path)),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(BUSY_WAIT)?;
    Ok(c)
}

fn read_in(c: &Connection, wanted: &dyn Fn(&SessionRow) -> bool) -> rusqlite::Result<Read> {
    let tx = c.unchecked_transaction()?;
    let key = schema::key(&tx)?;
    if key.as_ref().and_then(schema::known).is_none() {
        return Ok(Read::UnknownSchema(key));
    }
    let mut index = tx.prepare(INDEX)?;
    let rows = index.query_map([], |r| {
        let revert: Option<String> = r.get(4)?;
        let counts: [i64; 5] = [r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?];
        let mut h = DefaultHasher::new();
        (counts, &revert).hash(&mut h);
        Ok(SessionRow {
            id: r.get(0)?,
            parent_id: r.get(1)?,
            directory: r.get(2)?,
            title: r.get(3)?,
            revert,
            updated_ms: [counts[0], counts[2], counts[4]]
                .into_iter()
                .max()
                .unwrap_or(0),
            fingerprint: h.finish(),
        })
    })?;
    let sessions: Vec<SessionRow> = rows.collect::<rusqlite::Result<_>>()?;
    drop(index);
    let mut messages = tx.prepare(MESSAGES)?;
    let mut parts = tx.prepare(PARTS)?;
    let mut out = Vec::with_capacity(sessions.len());
    for s in sessions {
        if !wanted(&s) {
            out.push((s, None));
            continue;
        }
        let mut msgs: Vec<MessageRow> = messages
            .query_map([&s.id], |r| {
                Ok(MessageRow {
                    id: r.get(0)?,
                    data: r.get(1)?,
                    parts: Vec::new(),
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        let at: std::collections::HashMap<String, usize> = msgs
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.clone(), i))
            .collect();
        let mut rows = parts.query([&s.id])?;
        while let Some(r) = rows.next()? {
            let mid: String = r.get(0)?;
            if let Some(&i) = at.get(&mid) {
                msgs[i].parts.push(r.get(1)?);
            }
        }
        out.push((s, Some(msgs)));
    }
    drop((messages, parts));
    tx.commit()?;
    Ok(Read::Sessions(out))
}
