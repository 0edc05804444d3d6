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

/// One `message` row, its `data` parsed for the fields the export reads while the row is borrowed
/// from SQLite, with its `part` rows' `data` as stored (parsed by the caller, off the read's thread).
#[derive(Default)]
pub struct MessageRow {
    pub id: String,
    /// `None` when the message's `data` is not a JSON object.
    pub data: Option<MessageData>,
    /// Its parts in order.
    pub parts: Vec<PartRow>,
}

/// One `part` row's `data`: as stored (a range of [`SessionRows::parts`], parsed by the caller), or
/// already parsed down to the fields the export reads (a session the scan held while another's rows
/// came between its own; `None` when the `data` is not a JSON object).
pub enum PartRow {
    Raw(Range<usize>),
    Parsed(Option<PartData>),
}

impl PartRow {
    /// The part's fields, parsed from `stored` (its session's [`SessionRows::parts`]) when it is
    /// still as stored.
    pub fn parse(self, stored: &str) -> Option<PartData> {
        match self {
            PartRow::Raw(r) => PartData::parse(&stored[r]),
            PartRow::Parsed(d) => d,
        }
    }
}

/// One session's messages in order, and the `data` of all its parts in one buffer (one allocation
/// per session, not per part).
#[derive(Default)]
pub struct SessionRows {
    pub messages: Vec<MessageRow>,
    pub parts: String,
    /// The bytes of every message's and part's `data` (what the read took from the database).
    pub bytes: u64,
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
