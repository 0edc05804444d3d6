//! What a read of opencode's database delivers, whichever read made it: each session's row (with
//! its fingerprint) and, when asked for, its messages and their parts.

use super::part::{MessageData, PartData};
use super::schema::Key;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;

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

/// One `message` row: its `data` as stored (the scan: parsed by the caller, off the read's thread)
/// or parsed while the row was borrowed from SQLite (the index's read, and a session the scan held),
/// and its `part` rows in order.
pub struct MessageRow {
    pub id: String,
    pub data: Stored<MessageData>,
    /// Its parts in order (the scan's are in [`SessionRows::loose`] until [`SessionRows::placed`]).
    pub parts: Vec<PartRow>,
}

/// One row's `data`: as stored (a range of [`SessionRows::stored`], parsed by the caller), or
/// already parsed down to the fields the export reads (`None` when the `data` is not a JSON object).
pub enum Stored<T> {
    Raw(Range<usize>),
    Parsed(Option<T>),
}

/// One `part` row's `data`: parsed already by the scan for a session it held while another's rows
/// came between its own, else as stored.
pub type PartRow = Stored<PartData>;

impl Stored<PartData> {
    /// The part's fields, parsed from `stored` (its session's [`SessionRows::stored`], checked) when
    /// it is still as stored.
    pub fn parse(self, stored: &str) -> Option<PartData> {
        match self {
            Stored::Raw(r) => PartData::parse(&stored[r]),
            Stored::Parsed(d) => d,
        }
    }
}

impl Stored<MessageData> {
    /// The message's fields, parsed from `stored` when still as stored.
    pub fn parse(self, stored: &str) -> Option<MessageData> {
        match self {
            Stored::Raw(r) => MessageData::parse(&stored[r]),
            Stored::Parsed(d) => d,
        }
    }
}

impl<T> Stored<T> {
    fn raw(&self) -> Option<&Range<usize>> {
        match self {
            Stored::Raw(r) => Some(r),
            Stored::Parsed(_) => None,
        }
    }
}

/// A part the scan read and has not put in its message: its message's index, the range of its id
/// in [`SessionRows::ids`], its `data`.
pub type Loose = (usize, Range<usize>, PartRow);

/// One session's messages in order, and the `data` of its rows as stored in one buffer (one
/// allocation per session, not per row).
#[derive(Default)]
pub struct SessionRows {
    pub messages: Vec<MessageRow>,
    /// The stored `data` of its rows as stored, in the order read, and nothing else: bytes, the
    /// scan's parts not yet checked for UTF-8 ([`checked`] does it, off the read's thread).
    pub stored: Vec<u8>,
    /// The scan's parts, in the order read, and their ids as stored (compared as bytes: the order
    /// of `ORDER BY id`); [`SessionRows::placed`] puts them in their messages.
    pub loose: Vec<Loose>,
    pub ids: Vec<u8>,
    /// The bytes of every message's and part's `data` (what the read took from the database).
    pub bytes: u64,
}

impl SessionRows {
    /// Its messages, each with its parts in id order (the loose parts sorted into them, stably).
    pub fn placed(&mut self) -> Vec<MessageRow> {
        let mut messages = std::mem::take(&mut self.messages);
        let mut loose = std::mem::take(&mut self.loose);
        let ids = &self.ids;
        loose.sort_by(|a, b| (a.0, &ids[a.1.clone()]).cmp(&(b.0, &ids[b.1.clone()])));
        for (m, _, p) in loose {
            messages[m].parts.push(p);
        }
        messages
    }
}

/// `stored` as text, once every row of `messages` still as stored is UTF-8; else the error the
/// read gave before it read bytes (SQLite's conversion error, the same text) for the first such
/// row in the order read (the rows lie in `stored` in that order).
pub fn checked<'a>(stored: &'a [u8], messages: &[MessageRow]) -> Result<&'a str, String> {
    let raw = || {
        messages.iter().flat_map(|m| {
            m.data
                .raw()
                .into_iter()
                .chain(m.parts.iter().filter_map(Stored::raw))
        })
    };
    // The whole buffer at once: a slice of UTF-8 between two character boundaries is UTF-8.
    if let Ok(text) = std::str::from_utf8(stored)
        && raw().all(|r| text.is_char_boundary(r.start) && text.is_char_boundary(r.end))
    {
        return Ok(text);
    }
    let mut rows: Vec<&Range<usize>> = raw().collect();
    rows.sort_by_key(|r| r.start);
    for r in rows {
        if let Err(e) = utf8(&stored[r.clone()]) {
            return Err(e.to_string());
        }
    }
    unreachable!("`stored` holds the rows' data and nothing else, and each row is UTF-8")
}

/// Stored text checked for UTF-8, failing as the read's `as_str` fails (the same error text).
pub(super) fn utf8(t: &[u8]) -> rusqlite::Result<&str> {
    Ok(rusqlite::types::ValueRef::Text(t).as_str()?)
}

/// One session as the read delivers it: its row, and its messages when the caller asked for them.
pub type Delivered = (SessionRow, Option<SessionRows>);

/// What one read of the database found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// A known schema: this many sessions were delivered (in id order by the index's read, in the
    /// order they completed by the scan).
    Sessions(usize),
    /// A schema this build does not know (or none): nothing was read.
    UnknownSchema(Option<Key>),
}

/// A session's `session` columns: the first six columns of both reads' session queries.
pub(super) struct Head {
    id: String,
    parent_id: Option<String>,
    directory: String,
    title: String,
    revert: Option<String>,
    updated_ms: i64,
}

impl Head {
    pub(super) fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<Head> {
        Ok(Head {
            id: r.get(0)?,
            parent_id: r.get(1)?,
            directory: r.get(2)?,
            title: r.get(3)?,
            revert: r.get(4)?,
            updated_ms: r.get(5)?,
        })
    }

    /// The session's row, with its messages' and parts' row counts and latest `time_updated` (0
    /// for none) as either read found them: the same fingerprint whichever read made it.
    pub(super) fn row(self, messages: (i64, i64), parts: (i64, i64)) -> SessionRow {
        let counts: [i64; 5] = [self.updated_ms, messages.0, messages.1, parts.0, parts.1];
        let mut h = DefaultHasher::new();
        (counts, &self.revert).hash(&mut h);
        SessionRow {
            id: self.id,
            parent_id: self.parent_id,
            directory: self.directory,
            title: self.title,
            revert: self.revert,
            updated_ms: [counts[0], counts[2], counts[4]]
                .into_iter()
                .max()
                .unwrap_or(0),
            fingerprint: h.finish(),
        }
    }
}
