//! Reading opencode's database: read-only (`mode=ro`, a plain WAL reader), one deferred
//! read transaction per run that holds no lock a writer waits on and ends as soon as the rows are
//! read, so a running opencode never blocks and its WAL checkpoints are never starved.

// Two reads inside that transaction, chosen by [`scans`]: the session index, then a query per
// session that needs exporting (here: a re-run, where few changed); or one pass over each table
// ([`super::scan`]: a first export, where nearly every session is read).

use super::part::MessageData;
use super::rows::Head;
pub use super::rows::{Delivered, MessageRow, PartRow, Read, SessionRow, SessionRows};
use super::schema::{self, Key};
use rusqlite::{Connection, OpenFlags};
use std::collections::HashMap;
use std::path::Path;

/// The session index: each session's row, and for its messages and its parts the row count and the
/// latest `time_updated` (`"<count> <max>"`: one pass over each table's rows for both).
const INDEX: &str = "
SELECT s.id, s.parent_id, s.directory, s.title, s.revert, s.time_updated,
  (SELECT count(*) || ' ' || ifnull(max(m.time_updated), 0) FROM message m WHERE m.session_id = s.id),
  (SELECT count(*) || ' ' || ifnull(max(p.time_updated), 0) FROM part p WHERE p.session_id = s.id)
FROM session s ORDER BY s.id";

const MESSAGES: &str =
    "SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id";
/// A session's parts in the order of `part_session_idx` (insertion order, which is id order within a
/// message as opencode writes them): no sort, so SQLite never copies the rows into a sorter.
const PARTS: &str = "SELECT message_id, id, data FROM part WHERE session_id = ?1";
/// The same in the order the export needs, for a session whose parts [`PARTS`] lent out of order.
const PARTS_ORDERED: &str =
    "SELECT message_id, id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id";

/// How long a read waits on a lock before the database is skipped as busy (a WAL reader waits only
/// while opencode recovers its WAL or a rollback-journal writer holds the file).
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

/// Reads the database at `path`: `Ok(None)` when it does not exist; `Err` with SQLite's reason when
/// it cannot be read (locked, damaged, not a database). `known` is how many of its sessions the
/// caller's state already has a record of (it picks the read, [`scans`]). `wanted` picks the sessions whose messages
/// are loaded, inside the same transaction as the index; `each` gets every session as soon as it
/// is read, with the number of sessions (so a caller can convert one while the next is read). An
/// `Err` can come after some sessions were delivered: the caller must discard them.
///
/// `mode=ro` without `readonly_shm`: the connection is a plain WAL reader (it takes a read mark in
/// the `-shm`, creating the `-shm` and an empty `-wal` when opencode is not running, as any reader
/// would), so it sees a consistent snapshot, never writes the database, and never blocks opencode.
pub fn read(
    path: &Path,
    known: usize,
    wanted: &dyn Fn(&SessionRow) -> bool,
    each: &mut dyn FnMut(usize, Delivered),
) -> Result<Option<Read>, String> {
    if !path.exists() {
        return Ok(None);
    }
    open(path)
        .and_then(|c| read_in(&c, known, wanted, each))
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
        format!("file:{}?mode=ro", mpt_palace::sqlite::uri_path(path)),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(BUSY_WAIT)?;
    Ok(c)
}

/// The read that costs less for this run: one pass over each table when the caller's state knows
/// fewer than half of the database's sessions (a first export, or a database mostly new to it:
/// nearly every session is read, and a scan reads each row once, in the order it is stored); else
/// the index, then a query per session that needs it (a re-run reads only what changed).
pub fn scans(sessions: usize, known: usize) -> bool {
    known.saturating_mul(2) < sessions
}

fn read_in(
    c: &Connection,
    known: usize,
    wanted: &dyn Fn(&SessionRow) -> bool,
    each: &mut dyn FnMut(usize, Delivered),
) -> rusqlite::Result<Read> {
    let tx = c.unchecked_transaction()?;
    let key = schema::key(&tx)?;
    if key.as_ref().and_then(schema::known).is_none() {
        return Ok(Read::UnknownSchema(key));
    }
    let sessions: i64 = tx.query_row("SELECT count(*) FROM session", [], |r| r.get(0))?;
    let read = if scans(usize::try_from(sessions).unwrap_or(0), known) {
        super::scan::read_in(&tx, wanted, each)?
    } else {
        by_session(&tx, wanted, each)?
    };
    tx.commit()?;
    Ok(read)
}

/// The index, then each wanted session's rows by a query of its own.
fn by_session(
    tx: &rusqlite::Transaction<'_>,
    wanted: &dyn Fn(&SessionRow) -> bool,
    each: &mut dyn FnMut(usize, Delivered),
) -> rusqlite::Result<Read> {
    let mut index = tx.prepare(INDEX)?;
    let rows = index.query_map([], |r| {
        Ok(Head::read(r)?.row(count_and_latest(r, 6)?, count_and_latest(r, 7)?))
    })?;
    let sessions: Vec<SessionRow> = rows.collect::<rusqlite::Result<_>>()?;
    drop(index);
    let total = sessions.len();
    let mut messages = tx.prepare(MESSAGES)?;
    let mut parts = [tx.prepare(PARTS)?, tx.prepare(PARTS_ORDERED)?];
    for s in sessions {
        if !wanted(&s) {
            each(total, (s, None));
            continue;
        }
        let msgs = messages_of(&s.id, &mut messages, &mut parts)?;
        each(total, (s, Some(msgs)));
    }
    Ok(Read::Sessions(total))
}

/// An index column's `"<count> <max>"` as two integers.
fn count_and_latest(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<(i64, i64)> {
    let text = r.get_ref(i)?.as_str()?;
    text.split_once(' ')
        .and_then(|(n, t)| Some((n.parse().ok()?, t.parse().ok()?)))
        .ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                i,
                rusqlite::types::Type::Text,
                format!("not a row count and a time: {text:?}").into(),
            )
        })
}

/// One session's messages in order, each message's `data` parsed from the borrowed row, the parts'
/// copied as stored. The parts are read unsorted first; should a message's parts come out of id
/// order (or interleaved with another message's), the session's parts are read again sorted.
fn messages_of(
    session: &str,
    messages: &mut rusqlite::Statement<'_>,
    parts: &mut [rusqlite::Statement<'_>; 2],
) -> rusqlite::Result<SessionRows> {
    let mut out = SessionRows::default();
    let mut rows = messages.query([session])?;
    while let Some(r) = rows.next()? {
        let data = r.get_ref(1)?.as_str()?;
        out.bytes += data.len() as u64;
        out.messages.push(MessageRow {
            id: r.get(0)?,
            data: super::rows::Stored::Parsed(MessageData::parse(data)),
            parts: Vec::new(),
        });
    }
    let message_bytes = out.bytes;
    if !parts_of(session, &mut parts[0], &mut out, true)? {
        out.messages.iter_mut().for_each(|m| m.parts.clear());
        out.stored.clear();
        out.bytes = message_bytes;
        parts_of(session, &mut parts[1], &mut out, false)?;
    }
    Ok(out)
}

/// Reads the session's parts into their messages; with `check_order`, `Ok(false)` (and the parts
/// read so far left in place) as soon as a message's part comes after a later-id one of the same
/// message or after another message's parts.
fn parts_of(
    session: &str,
    parts: &mut rusqlite::Statement<'_>,
    out: &mut SessionRows,
    check_order: bool,
) -> rusqlite::Result<bool> {
    let msgs = &mut out.messages;
    let mut rows = parts.query([session])?;
    let mut at: Option<HashMap<String, usize>> = None;
    // The message of the part read last, and that part's id.
    let (mut cur, mut prev_id) = (0, String::new());
    while let Some(r) = rows.next()? {
        let mid = r.get_ref(0)?.as_str()?;
        let i = if msgs.get(cur).is_some_and(|m| m.id == mid) {
            cur
        } else if msgs.get(cur + 1).is_some_and(|m| m.id == mid) {
            cur + 1
        } else {
            let at = at.get_or_insert_with(|| {
                msgs.iter()
                    .enumerate()
                    .map(|(i, m)| (m.id.clone(), i))
                    .collect()
            });
            match at.get(mid) {
                Some(&i) => i,
                None => continue,
            }
        };
        let id = r.get_ref(1)?.as_str()?;
        if check_order {
            if !msgs[i].parts.is_empty() && (i != cur || id < prev_id.as_str()) {
                return Ok(false);
            }
            prev_id.clear();
            prev_id.push_str(id);
        }
        let data = r.get_ref(2)?.as_str()?;
        let start = out.stored.len();
        out.stored.extend_from_slice(data.as_bytes());
        msgs[i].parts.push(PartRow::Raw(start..out.stored.len()));
        out.bytes += data.len() as u64;
        cur = i;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = include_str!("../../../../tests/fixtures/feed/opencode-1.18.33.sql");

    /// Parts written out of id order and interleaved across messages come out of the read in id
    /// order within each message, as `ORDER BY message_id, id` gives them.
    #[test]
    fn parts_out_of_order_are_read_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        let c = Connection::open(&path).unwrap();
        c.execute_batch(SCHEMA).unwrap();
        c.execute_batch(
            "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('prj', '/p', 0, 0, '[]');
             INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
               VALUES ('ses_1', 'prj', 's', '/p', 't', '1.18.33', 1, 1), ('ses_2', 'prj', 's', '/p', 't', '1.18.33', 1, 1);
             INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES
               ('msg_1', 'ses_1', 1, 1, '{}'), ('msg_2', 'ses_1', 2, 2, '{}'), ('msg_3', 'ses_2', 1, 1, '{}');",
        )
        .unwrap();
        let part = |id: &str, m: &str, s: &str| {
            c.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, 1, 1, ?1)",
                [id, m, s],
            )
            .unwrap();
        };
        // ses_1: interleaved and out of order; ses_2: in order.
        for (id, m, s) in [
            ("prt_2b", "msg_2", "ses_1"),
            ("prt_1a", "msg_1", "ses_1"),
            ("prt_3a", "msg_3", "ses_2"),
            ("prt_2a", "msg_2", "ses_1"),
            ("prt_3b", "msg_3", "ses_2"),
        ] {
            part(id, m, s);
        }
        drop(c);
        let mut got = Vec::new();
        // The index's read (the state knows every session); the scan has its own tests.
        read(&path, usize::MAX, &|_| true, &mut |_, (_, rows)| {
            let rows = rows.unwrap();
            for m in &rows.messages {
                let parts: Vec<&str> = m
                    .parts
                    .iter()
                    .map(|p| match p {
                        PartRow::Raw(r) => std::str::from_utf8(&rows.stored[r.clone()]).unwrap(),
                        PartRow::Parsed(_) => panic!("the index's read parses no part"),
                    })
                    .collect();
                got.push(format!("{}: {}", m.id, parts.join(" ")));
            }
            assert_eq!(
                rows.bytes,
                rows.stored.len() as u64 + 2 * rows.messages.len() as u64
            );
        })
        .unwrap();
        assert_eq!(
            got,
            [
                "msg_1: prt_1a",
                "msg_2: prt_2a prt_2b",
                "msg_3: prt_3a prt_3b"
            ]
        );
    }
}
