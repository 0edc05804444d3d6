//! The first export's read: `message` and `part` each in one pass in the order they are stored (no
//! query per session, no sort), each session delivered, and its rows let go, as soon as its last part is read.

// Inside the caller's read transaction, so every statement sees one snapshot: the part counts read
// first (from `part_session_idx` alone) are the counts the scan meets. All messages are read first
// (small: their `data` parsed to role and summary at once), sorted per session by
// `(time_created, id)` as the index's read orders them. Then the parts: a session whose parts are
// all read is delivered. A session left waiting while another's parts come (two opencode windows
// writing at once) is held with its parts parsed down to the fields the export reads, never as stored.

use super::part::{MessageData, PartData};
use super::rows::{
    Delivered, Head, Loose, MessageRow, PartRow, Read, SessionRow, SessionRows, Stored, utf8,
};
use rusqlite::Transaction;
use rusqlite::types::{FromSqlError, ValueRef};
use std::collections::HashMap;

const SESSIONS: &str =
    "SELECT id, parent_id, directory, title, revert, time_updated FROM session ORDER BY id";
/// Counted over `part_session_idx` alone (a covering index: no table row visited).
const PART_COUNTS: &str = "SELECT session_id, count(*) FROM part GROUP BY session_id";
const MESSAGES: &str = "SELECT session_id, id, time_created, time_updated, data FROM message";
const PARTS: &str = "SELECT session_id, message_id, id, time_updated, data FROM part";

/// One session while the scan reads it.
#[derive(Default)]
struct Held {
    /// Its `session` row, until it is delivered.
    head: Option<Head>,
    /// Its messages, with their `time_created` until they are sorted.
    messages: Vec<(i64, MessageRow)>,
    /// Rows counted and the latest `time_updated` (messages, then parts), for its fingerprint.
    message_rows: (i64, i64),
    part_rows: (i64, i64),
    /// How many part rows it has (the count read first).
    parts_expected: i64,
    /// Its parts as read: (message index, id range in `ids`, data).
    parts: Vec<Loose>,
    /// The parts' ids as stored (compared as bytes: the order of `ORDER BY id`, and no UTF-8 check).
    ids: Vec<u8>,
    rows: SessionRows,
    /// The message of the part read last, and the ids of its messages (made on a first miss).
    cur: usize,
    at: Option<HashMap<String, usize>>,
    /// Held while another session's parts came: its parts are parsed as they arrive.
    parsed: bool,
}

impl Held {
    /// The message `id` of this session, looked up from the last one (parts come message by message).
    fn message(&mut self, id: &[u8]) -> Option<usize> {
        let is = |i: usize| {
            self.messages
                .get(i)
                .is_some_and(|m| m.1.id.as_bytes() == id)
        };
        if is(self.cur) {
            return Some(self.cur);
        }
        if is(self.cur + 1) {
            return Some(self.cur + 1);
        }
        let messages = &self.messages;
        let at = self.at.get_or_insert_with(|| {
            messages
                .iter()
                .enumerate()
                .map(|(i, m)| (m.1.id.clone(), i))
                .collect()
        });
        at.get(std::str::from_utf8(id).ok()?).copied()
    }

    /// Room for `expected` parts of `part_bytes` data and `id_bytes` of id each, at once: the
    /// session's buffers then grow by no copy (when the estimate, the run's mean so far, holds).
    fn reserve(&mut self, expected: usize, (part_bytes, id_bytes): (usize, usize)) {
        let room = |n: usize| n.saturating_mul(expected).saturating_mul(5) / 4;
        self.parts.reserve_exact(expected);
        self.ids.reserve(room(id_bytes));
        self.rows.stored.reserve(room(part_bytes));
    }

    /// Parses every message and part still as stored (each part checked for UTF-8 in the order
    /// read, as the read checks it) and lets the stored copies go.
    fn park(&mut self) -> rusqlite::Result<()> {
        let stored = &self.rows.stored;
        for (_, _, p) in &mut self.parts {
            if let PartRow::Raw(r) = p {
                *p = PartRow::Parsed(PartData::parse(utf8(&stored[r.clone()])?));
            }
        }
        for (_, m) in &mut self.messages {
            if let Stored::Raw(r) = &m.data {
                m.data = Stored::Parsed(MessageData::parse(utf8(&stored[r.clone()])?));
            }
        }
        self.rows.stored = Vec::new();
        self.parsed = true;
        Ok(())
    }

    /// Its rows, the parts loose as read (the caller puts each message's in id order, off the
    /// read's thread: [`SessionRows::placed`]).
    fn take(&mut self) -> SessionRows {
        self.at = None;
        let mut rows = std::mem::take(&mut self.rows);
        rows.messages = std::mem::take(&mut self.messages)
            .into_iter()
            .map(|m| m.1)
            .collect();
        rows.loose = std::mem::take(&mut self.parts);
        rows.ids = std::mem::take(&mut self.ids);
        rows
    }
}

/// The sessions' rows in one pass per table; see the module's comment. A part count that the scan
/// does not meet is an error (it cannot happen inside one read transaction; were it to, the run
/// skips the database with that reason rather than export a session cut short). A part read as
/// stored whose `data` is not UTF-8 fails the read as SQLite's conversion error, whatever error
/// came after it: the sessions delivered are checked by the caller ([`super::rows::checked`]),
/// the one being read here, before any error.
pub(super) fn read_in(
    tx: &Transaction<'_>,
    wanted: &dyn Fn(&SessionRow) -> bool,
    each: &mut dyn FnMut(usize, Delivered),
) -> rusqlite::Result<Read> {
    let mut held: Vec<Held> = Vec::new();
    scan(tx, wanted, each, &mut held).or_else(|e| {
        for h in held.iter_mut().filter(|h| h.head.is_some() && !h.parsed) {
            h.park()?;
        }
        Err(e)
    })
}

fn scan(
    tx: &Transaction<'_>,
    wanted: &dyn Fn(&SessionRow) -> bool,
    each: &mut dyn FnMut(usize, Delivered),
    held: &mut Vec<Held>,
) -> rusqlite::Result<Read> {
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut heads = tx.prepare(SESSIONS)?;
    let mut q = heads.query([])?;
    while let Some(r) = q.next()? {
        let head = Head::read(r)?;
        at.insert(r.get(0)?, held.len());
        held.push(Held {
            head: Some(head),
            ..Held::default()
        });
    }
    let total = held.len();
    let mut lookup = Lookup::default();
    let mut counts = tx.prepare(PART_COUNTS)?;
    let mut q = counts.query([])?;
    while let Some(r) = q.next()? {
        if let Some(i) = lookup.find(&at, r.get_ref(0)?.as_bytes()?) {
            held[i].parts_expected = r.get(1)?;
        }
    }
    let mut messages = tx.prepare(MESSAGES)?;
    let mut q = messages.query([])?;
    while let Some(r) = q.next()? {
        let Some(i) = lookup.find(&at, r.get_ref(0)?.as_bytes()?) else {
            continue;
        };
        let h = &mut held[i];
        let data = r.get_ref(4)?.as_str()?;
        h.rows.bytes += data.len() as u64;
        h.message_rows = counted(h.message_rows, r.get(3)?);
        let start = h.rows.stored.len();
        h.rows.stored.extend_from_slice(data.as_bytes());
        h.messages.push((
            r.get(2)?,
            MessageRow {
                id: r.get(1)?,
                data: Stored::Raw(start..h.rows.stored.len()),
                parts: Vec::new(),
            },
        ));
    }
    let mut deliver = |h: &mut Held| {
        let rows = h.take();
        let head = h.head.take().expect("a session is delivered once");
        let row = head.row(h.message_rows, h.part_rows);
        let rows = wanted(&row).then_some(rows);
        each(total, (row, rows));
    };
    for h in held.iter_mut() {
        h.messages
            .sort_by(|a, b| (a.0, &a.1.id).cmp(&(b.0, &b.1.id)));
        if h.parts_expected == 0 {
            deliver(h);
        }
    }
    let mut parts = tx.prepare(PARTS)?;
    let mut q = parts.query([])?;
    // The session whose part was read last; the part rows read so far, and their data and id bytes.
    let mut last: Option<usize> = None;
    let mut seen = (0usize, 0usize, 0usize);
    while let Some(r) = q.next()? {
        let Some(i) = lookup.find(&at, r.get_ref(0)?.as_bytes()?) else {
            continue;
        };
        if let Some(l) = last.filter(|&l| l != i)
            && held[l].head.is_some()
            && !held[l].parsed
        {
            held[l].park()?;
        }
        last = Some(i);
        let h = &mut held[i];
        if h.head.is_none() {
            return Err(changed());
        }
        h.part_rows = counted(h.part_rows, r.get(3)?);
        if let Some(m) = h.message(r.get_ref(1)?.as_bytes()?) {
            h.cur = m;
            if h.parts.capacity() == 0
                && let Some(mean) = mean(seen)
            {
                h.reserve(usize::try_from(h.parts_expected).unwrap_or(0), mean);
            }
            let id = r.get_ref(2)?.as_bytes()?;
            let start = h.ids.len();
            h.ids.extend_from_slice(id);
            let ids = start..h.ids.len();
            let data = text(r.get_ref(4)?)?;
            h.rows.bytes += data.len() as u64;
            seen = (seen.0 + 1, seen.1 + data.len(), seen.2 + id.len());
            let part = if h.parsed {
                PartRow::Parsed(PartData::parse(utf8(data)?))
            } else {
                let start = h.rows.stored.len();
                h.rows.stored.extend_from_slice(data);
                PartRow::Raw(start..h.rows.stored.len())
            };
            h.parts.push((m, ids, part));
        }
        if h.part_rows.0 == h.parts_expected {
            deliver(h);
        }
    }
    if held.iter().any(|h| h.head.is_some()) {
        return Err(changed());
    }
    Ok(Read::Sessions(total))
}

/// A text value's bytes, unchecked: anything else is the error `as_str` gives it.
fn text(v: ValueRef<'_>) -> rusqlite::Result<&[u8]> {
    match v {
        ValueRef::Text(t) => Ok(t),
        _ => Err(FromSqlError::InvalidType.into()),
    }
}

/// The scan met other part counts than it read first (not possible inside one read transaction).
fn changed() -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ABORT),
        Some(
            "the part rows changed while they were read: the counts read first do not match".into(),
        ),
    )
}

/// The mean data and id bytes of the `(rows, data bytes, id bytes)` read so far.
fn mean((rows, data, id): (usize, usize, usize)) -> Option<(usize, usize)> {
    (rows > 0).then(|| (data / rows, id / rows))
}

/// A session's index from its id as stored, remembering the last one (rows come session by
/// session: the id is checked for UTF-8 and looked up only when it changes; an id that is not
/// UTF-8 is no session's).
#[derive(Default)]
struct Lookup {
    last: Vec<u8>,
    index: Option<usize>,
}

impl Lookup {
    fn find(&mut self, at: &HashMap<String, usize>, id: &[u8]) -> Option<usize> {
        if self.index.is_none() || self.last != id {
            self.last.clear();
            self.last.extend_from_slice(id);
            self.index = std::str::from_utf8(id)
                .ok()
                .and_then(|id| at.get(id))
                .copied();
        }
        self.index
    }
}

/// A row more, and the latest `time_updated` with this one's.
fn counted((n, latest): (i64, i64), updated: i64) -> (i64, i64) {
    (n + 1, if n == 0 { updated } else { latest.max(updated) })
}

#[cfg(test)]
mod tests {
    use super::super::db::{self, Read};
    use rusqlite::Connection;
    use std::path::{Path, PathBuf};

    const SCHEMA: &str = include_str!("../../../../tests/fixtures/feed/opencode-1.18.33.sql");

    /// A database (in a temp folder, kept while the first is) with the real schema and three
    /// sessions, messages `(id, session, time_created)` and parts `(id, message, session)` in this
    /// insertion (so storage) order. A part's `data` is a text part whose text is its id.
    fn database(
        messages: &[(&str, &str, i64)],
        parts: &[(&str, &str, &str)],
    ) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("opencode.db");
        let c = Connection::open(&path).unwrap();
        c.pragma_update(None, "journal_mode", "wal").unwrap();
        c.execute_batch(SCHEMA).unwrap();
        c.execute_batch("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('prj', '/p', 0, 0, '[]')").unwrap();
        for s in ["ses_1", "ses_2", "ses_3"] {
            c.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?1, 'prj', 's', '/p', 't', '1.18.33', 1, 1)", [s]).unwrap();
        }
        for (id, s, t) in messages {
            c.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, '{\"role\":\"user\"}')", rusqlite::params![id, s, t]).unwrap();
        }
        for (id, m, s) in parts {
            add_part(&c, id, m, s);
        }
        (dir, path)
    }

    fn add_part(c: &Connection, id: &str, m: &str, s: &str) {
        let data = format!(r#"{{"type":"text","text":"{id}"}}"#);
        c.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, 5, 5, ?4)", [id, m, s, &data]).unwrap();
    }

    /// What a read delivered, one line per session by id: its messages and their parts' texts, and
    /// its fingerprint and update time (`known` picks the read: 0 the scan, `usize::MAX` the index's).
    fn delivered(
        path: &Path,
        known: usize,
        wanted: &dyn Fn(&db::SessionRow) -> bool,
    ) -> Vec<String> {
        let mut got = Vec::new();
        let read = db::read(path, known, wanted, &mut |total, (row, rows)| {
            assert_eq!(total, 3);
            let mut line = format!("{} {:x} {}:", row.id, row.fingerprint, row.updated_ms);
            for m in rows
                .map(|mut r| {
                    let ms = r.placed();
                    let stored = super::super::rows::checked(&r.stored, &ms).unwrap();
                    ms.into_iter()
                        .map(|m| {
                            let texts: Vec<String> = m
                                .parts
                                .into_iter()
                                .map(|p| p.parse(stored).and_then(|d| d.text.0).unwrap_or_default())
                                .collect();
                            format!(" {} [{}]", m.id, texts.join(" "))
                        })
                        .collect::<Vec<_>>()
                })
                .into_iter()
                .flatten()
            {
                line.push_str(&m);
            }
            got.push(line);
        })
        .unwrap();
        assert_eq!(read, Some(Read::Sessions(3)));
        got.sort();
        got
    }

    /// The scan gives what the index's read gives, with every session's fingerprint the same (so a
    /// state written by one matches the other), and `expected` without the fingerprints.
    fn both_reads(path: &Path, expected: &[&str]) {
        let scan = delivered(path, 0, &|_| true);
        assert_eq!(scan, delivered(path, usize::MAX, &|_| true));
        let without: Vec<String> = scan
            .iter()
            .map(|l| {
                let (id, rest) = l.split_once(' ').unwrap();
                format!("{id}{}", &rest[rest.find(' ').unwrap()..])
            })
            .collect();
        assert_eq!(without, expected);
    }

    /// Two sessions written at once (their parts interleave in storage), parts stored out of id
    /// order and across messages, and messages stored out of time order: each session comes out
    /// whole, its messages by time and each message's parts by id, as the index's read gives them.
    #[test]
    fn interleaved_sessions_and_parts_out_of_order_come_out_sorted() {
        let (_dir, path) = database(
            &[
                ("msg_2", "ses_1", 2),
                ("msg_1", "ses_1", 1),
                ("msg_3", "ses_2", 1),
                ("msg_4", "ses_3", 1),
            ],
            &[
                ("prt_2b", "msg_2", "ses_1"),
                ("prt_3b", "msg_3", "ses_2"),
                ("prt_1a", "msg_1", "ses_1"),
                ("prt_3a", "msg_3", "ses_2"),
                ("prt_2a", "msg_2", "ses_1"),
                ("prt_4a", "msg_4", "ses_3"),
                ("prt_4c", "msg_4", "ses_3"),
                ("prt_4b", "msg_4", "ses_3"),
            ],
        );
        both_reads(
            &path,
            &[
                "ses_1 5: msg_1 [prt_1a] msg_2 [prt_2a prt_2b]",
                "ses_2 5: msg_3 [prt_3a prt_3b]",
                "ses_3 5: msg_4 [prt_4a prt_4b prt_4c]",
            ],
        );
    }

    /// A session with messages but no part, and one with neither, are delivered like the others.
    #[test]
    fn sessions_without_parts_or_messages_are_delivered() {
        let (_dir, path) = database(
            &[("msg_1", "ses_1", 3), ("msg_2", "ses_2", 1)],
            &[("prt_2a", "msg_2", "ses_2")],
        );
        both_reads(
            &path,
            &["ses_1 3: msg_1 []", "ses_2 5: msg_2 [prt_2a]", "ses_3 1:"],
        );
    }

    /// Rows opencode writes while the read runs (here, between the part counts and the last
    /// session's parts: from inside `wanted`, called as the first session completes) are not seen:
    /// the whole read is one snapshot, so the counts read first are the counts the scan meets.
    #[test]
    fn rows_written_during_the_read_are_not_seen() {
        let (_dir, path) = database(
            &[("msg_1", "ses_1", 1), ("msg_2", "ses_2", 1)],
            &[("prt_1a", "msg_1", "ses_1"), ("prt_2a", "msg_2", "ses_2")],
        );
        for known in [0, usize::MAX] {
            let before = delivered(&path, 0, &|_| true);
            let writer = Connection::open(&path).unwrap();
            let n = std::cell::Cell::new(0);
            let got = delivered(&path, known, &|_| {
                n.set(n.get() + 1);
                add_part(
                    &writer,
                    &format!("prt_2z{}{known}", n.get()),
                    "msg_2",
                    "ses_2",
                );
                add_part(
                    &writer,
                    &format!("prt_1z{}{known}", n.get()),
                    "msg_1",
                    "ses_1",
                );
                true
            });
            assert_eq!(got, before, "known {known}");
            // The rows were written: the next read sees them.
            assert_ne!(delivered(&path, 0, &|_| true), before);
        }
    }
}
