//! The outbox file's schema and connection settings: WAL, the chosen `synchronous`, a busy
//! timeout, and migrations keyed on `PRAGMA user_version`.

use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use mpt_base::error::{ErrorKind, MptError, Result};

/// The schema this build writes. A file with a higher version was made by a newer mpt.
pub const SCHEMA_VERSION: i64 = 5;

/// How hard a commit waits for the disk (docs/outbox.md: what an enqueue survives).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synchronous {
    /// fsync of the WAL at every commit: a returned enqueue survives a process kill and a
    /// power loss or OS crash.
    Full,
    /// No fsync at commit: survives a process kill; a power loss may roll back the last commits.
    Normal,
}

impl Synchronous {
    pub fn as_str(self) -> &'static str {
        match self {
            Synchronous::Full => "FULL",
            Synchronous::Normal => "NORMAL",
        }
    }
}

const V1: &str = "
CREATE TABLE ops (
    -- Queue order. No AUTOINCREMENT: its sqlite_sequence write would cost a page per enqueue;
    -- a reused id (after a purge of the newest rows) still sorts after every open op.
    id               INTEGER PRIMARY KEY,
    op_id            TEXT NOT NULL UNIQUE,
    local_seq        INTEGER NOT NULL,
    origin_device    TEXT NOT NULL,
    origin_host      TEXT NOT NULL,
    tool_name        TEXT NOT NULL,
    payload_json     TEXT NOT NULL,
    dedupe_key       TEXT,
    state            TEXT NOT NULL DEFAULT 'queued'
                     CHECK (state IN ('queued', 'leased', 'done', 'failed', 'dropped')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    sends            INTEGER NOT NULL DEFAULT 0,
    inflight         INTEGER NOT NULL DEFAULT 0,
    unconfirmed      INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL DEFAULT 0,
    lease_token      TEXT,
    lease_expires_at INTEGER,
    first_sent_at    INTEGER,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    flushed_at       INTEGER,
    outcome          TEXT,
    primary_ref      TEXT,
    error_json       TEXT
) STRICT;
-- (origin_device, local_seq) is unique by construction: allocated from `seqs` inside the
-- enqueuing transaction. No index for it: every index is a page written per enqueue.
-- RFC 001 §4.3 (daemon.py's idx_jobs_dedupe_active): at most one active op per dedupe key.
CREATE UNIQUE INDEX idx_ops_dedupe_active ON ops(dedupe_key)
    WHERE state IN ('queued', 'leased') AND dedupe_key IS NOT NULL;
-- The head of the queue: the first op not yet done or dropped.
CREATE INDEX idx_ops_open ON ops(id) WHERE state IN ('queued', 'leased', 'failed');
CREATE INDEX idx_ops_closed ON ops(flushed_at) WHERE state IN ('done', 'dropped');
-- The per-device counter: allocated inside the enqueuing transaction, never reused.
CREATE TABLE seqs (
    origin_device TEXT PRIMARY KEY,
    last          INTEGER NOT NULL
) STRICT;
-- What operators did (retry, drop, purge): kept when the ops themselves are purged.
CREATE TABLE audit (
    id          INTEGER PRIMARY KEY,
    at          INTEGER NOT NULL,
    action      TEXT NOT NULL,
    op_id       TEXT,
    detail_json TEXT NOT NULL
) STRICT;
";

/// Version 2: references between ops (`refs`). `minted`: each id a palace minted for an op,
/// from the local reply, and the primary's id for it once the op landed. `deps`: which op's
/// minted id another op references (it waits for that op to land).
const V2: &str = "
CREATE TABLE minted (
    local_id   TEXT PRIMARY KEY,
    op_row     INTEGER NOT NULL,
    pointer    TEXT NOT NULL,
    primary_id TEXT
) STRICT;
CREATE INDEX idx_minted_op ON minted(op_row);
CREATE TABLE deps (
    op_row   INTEGER NOT NULL,
    on_row   INTEGER NOT NULL,
    local_id TEXT NOT NULL,
    PRIMARY KEY (op_row, local_id)
) STRICT;
";

/// Version 3: the backfill ledger (`backfill::ledger`). One row per record of the local palace
/// that `mpt outbox backfill` enqueued, written in the enqueue's transaction and never purged:
/// the dedupe key alone admits a second op once the first is done (and done ops are purged).
const V3: &str = "
CREATE TABLE backfill (
    key      TEXT PRIMARY KEY,
    kind     TEXT NOT NULL,
    local_id TEXT NOT NULL,
    op_id    TEXT NOT NULL,
    at       INTEGER NOT NULL
) STRICT;
";

/// Version 4: the outbox's `last_flush_error` (`last_error`). One row: how the last flush that
/// reached for the primary ended, and its error (a refused token, an unreachable host) until a
/// flush gets through.
const V4: &str = "
CREATE TABLE flush_state (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    at         INTEGER NOT NULL,
    stop       TEXT NOT NULL,
    error_json TEXT
) STRICT;
";

/// Version 5, the intents step: a write is recorded in `intents` before the edge's child applies
/// it, moved into `ops` when the child applied it (one transaction), deleted when it refused it.
/// An intent an owner left when it died is settled against the local palace by the next owner
/// (`edge::settle`).
const INTENTS_STEP: &str = "
CREATE TABLE IF NOT EXISTS intents (
    id            INTEGER PRIMARY KEY,
    -- The local palace the child applies it to (its real path): one owner per palace settles.
    palace        TEXT NOT NULL,
    tool_name     TEXT NOT NULL,
    payload_json  TEXT NOT NULL,
    -- The primary may already hold it (a send got no complete answer): never cancelled.
    maybe_applied INTEGER NOT NULL DEFAULT 0,
    owner_pid     INTEGER NOT NULL,
    created_at    INTEGER NOT NULL
) STRICT;
";

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}

/// WAL, `synchronous`, busy timeout; then the schema, created or checked, in one writer
/// transaction so several processes opening a new file at once agree.
pub fn prepare(conn: &mut Connection, sync: Synchronous, busy: Duration) -> Result<()> {
    conn.busy_timeout(busy)
        .map_err(|e| sql("setting the busy timeout", &e))?;
    // Switching a new file to WAL takes an exclusive lock, and SQLite can answer BUSY there
    // without consulting the busy handler when several processes open the file at once: retry
    // within the same budget.
    let started = std::time::Instant::now();
    let mode: String = loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0)) {
            Ok(m) => break m,
            Err(e) if is_busy(&e) && started.elapsed() < busy => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Err(e) => return Err(sql("switching the outbox to WAL", &e)),
        }
    };
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(MptError::new(
            ErrorKind::Io,
            format!("the outbox could not switch to WAL (journal_mode is {mode})"),
        )
        .with_hint("put the outbox on a local filesystem (MPT_OUTBOX); WAL needs shared memory"));
    }
    conn.pragma_update(None, "synchronous", sync.as_str())
        .map_err(|e| sql("setting synchronous", &e))?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| sql("opening the outbox", &e))?;
    let version: i64 = tx
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| sql("reading the schema version", &e))?;
    match version {
        0..=4 => {
            if version == 0 {
                tx.execute_batch(V1)
                    .map_err(|e| sql("creating the outbox schema", &e))?;
            }
            if version <= 1 {
                tx.execute_batch(V2)
                    .map_err(|e| sql("upgrading the outbox schema to version 2", &e))?;
            }
            if version <= 2 {
                tx.execute_batch(V3)
                    .map_err(|e| sql("upgrading the outbox schema to version 3", &e))?;
            }
            if version <= 3 {
                tx.execute_batch(V4)
                    .map_err(|e| sql("upgrading the outbox schema to version 4", &e))?;
            }
            tx.execute_batch(INTENTS_STEP)
                .map_err(|e| sql("upgrading the outbox schema to version 5 (intents)", &e))?;
            tx.pragma_update(None, "user_version", SCHEMA_VERSION)
                .map_err(|e| sql("stamping the schema version", &e))?;
        }
        SCHEMA_VERSION => {}
        newer => {
            return Err(MptError::new(
                ErrorKind::Io,
                format!("the outbox has schema version {newer}; this mpt knows {SCHEMA_VERSION}"),
            )
            .with_hint("a newer mpt wrote this outbox: use that version (never edit it by hand)"));
        }
    }
    tx.commit().map_err(|e| sql("opening the outbox", &e))
}

/// A SQLite failure as an `MptError`: busy beyond the timeout is exit 6, the rest exit 1.
pub fn sql(context: &str, e: &rusqlite::Error) -> MptError {
    let busy = matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    );
    if busy {
        MptError::new(
            ErrorKind::Busy,
            format!("{context}: the outbox stayed locked: {e}"),
        )
        .with_hint("another process held the outbox for longer than the busy timeout; try again")
    } else {
        MptError::new(ErrorKind::Io, format!("{context}: {e}"))
            .with_hint("check the outbox file with `sqlite3 <file> 'PRAGMA integrity_check'`")
    }
}
