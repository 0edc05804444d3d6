//! The outbox file: opening it (0600 in a 0700 directory, WAL, schema) and the durable enqueue
//! every writer shares. Claims live in `lease`, what operators do in `admin`.

use std::fs::{self, OpenOptions as FsOpen};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde_json::Value;

use super::schema::{self, Synchronous, sql};
pub use super::short;
use super::{Op, OpState, Origin, util};
use mpt_base::config::Env;
use mpt_base::error::{MptError, Result};
use mpt_palace::catalog::{self, ToolClass};

#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    pub synchronous: Synchronous,
    /// How long a writer waits for another process's transaction.
    pub busy_timeout: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            synchronous: Synchronous::Full,
            busy_timeout: Duration::from_secs(10),
        }
    }
}

/// One open outbox. Several processes may hold one each on the same file.
pub struct Outbox {
    pub(super) conn: Connection,
    path: PathBuf,
    /// The configured durability of commits that make a promise (enqueue, claim).
    pub(super) sync: Synchronous,
}

/// A write to queue. `dedupe_key`, when given, admits at most one active op per key.
#[derive(Debug, Clone, Copy)]
pub struct NewOp<'a> {
    pub tool: &'a str,
    pub payload: &'a Value,
    pub dedupe_key: Option<&'a str>,
    /// The local palace's reply when the write was applied there first: the ids it minted are
    /// mapped to the primary's when the op lands (`refs`).
    pub local_reply: Option<&'a Value>,
    /// The primary may already hold it (a send got no complete answer): checked before sending.
    pub maybe_applied: bool,
}

/// What an enqueue did. `deduped`: an active op with the same key already existed (returned).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enqueued {
    pub op_id: String,
    pub local_seq: i64,
    pub deduped: bool,
}

pub(super) const COLS: &str = "id, op_id, local_seq, origin_device, origin_host, tool_name, \
    payload_json, dedupe_key, state, attempts, sends, unconfirmed, next_attempt_at, lease_token, \
    lease_expires_at, first_sent_at, created_at, updated_at, flushed_at, outcome, primary_ref, \
    error_json";

pub(super) fn row_to_op(r: &rusqlite::Row<'_>) -> rusqlite::Result<Op> {
    let json_col = |i: usize| -> rusqlite::Result<Option<Value>> {
        let t: Option<String> = r.get(i)?;
        Ok(t.map(|t| serde_json::from_str(&t).unwrap_or(Value::String(t))))
    };
    let state: String = r.get(8)?;
    Ok(Op {
        id: r.get(0)?,
        op_id: r.get(1)?,
        local_seq: r.get(2)?,
        origin_device: r.get(3)?,
        origin_host: r.get(4)?,
        tool_name: r.get(5)?,
        payload: json_col(6)?.unwrap_or(Value::Null),
        dedupe_key: r.get(7)?,
        state: OpState::parse(&state).unwrap_or(OpState::Failed),
        attempts: r.get(9)?,
        sends: r.get(10)?,
        unconfirmed: r.get::<_, i64>(11)? != 0,
        next_attempt_at: r.get(12)?,
        lease_token: r.get(13)?,
        lease_expires_at: r.get(14)?,
        first_sent_at: r.get(15)?,
        created_at: r.get(16)?,
        updated_at: r.get(17)?,
        flushed_at: r.get(18)?,
        outcome: r.get(19)?,
        primary_ref: r.get(20)?,
        error: json_col(21)?,
    })
}

impl Outbox {
    /// Opens (creating with mode 0600 in a 0700 directory) the outbox at `path`.
    pub fn open(path: &Path, opts: OpenOptions) -> Result<Outbox> {
        create_private(path)?;
        let mut conn = Connection::open(path)
            .map_err(|e| sql(&format!("opening the outbox {}", path.display()), &e))?;
        schema::prepare(&mut conn, opts.synchronous, opts.busy_timeout)?;
        Ok(Outbox {
            conn,
            path: path.to_path_buf(),
            sync: opts.synchronous,
        })
    }

    /// An outbox over a connection opened elsewhere (`reader`: read-only).
    pub(super) fn from_connection(conn: Connection, path: &Path, opts: OpenOptions) -> Outbox {
        Outbox {
            conn,
            path: path.to_path_buf(),
            sync: opts.synchronous,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Queues one write, durably (committed with the configured `synchronous`) before it
    /// returns. `local_seq` is allocated inside the same `BEGIN IMMEDIATE` transaction, so it is
    /// strictly monotonic per device across every process sharing this file. Maintenance and
    /// destructive tools are refused (exit 4); reads have no business here (exit 2).
    pub fn enqueue(&mut self, origin: &Origin, op: NewOp<'_>) -> Result<Enqueued> {
        let mut done = self.enqueue_batch(origin, &[op])?;
        Ok(done.remove(0))
    }

    /// Queues several writes in one transaction, in order: all or none, durable together with
    /// one commit. For a process that gathers concurrent writers (group commit).
    pub fn enqueue_batch(&mut self, origin: &Origin, ops: &[NewOp<'_>]) -> Result<Vec<Enqueued>> {
        let texts = payload_texts_from(Some(origin), ops)?;
        let now = util::now_ms();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql("enqueueing", &e))?;
        let mut out = Vec::with_capacity(ops.len());
        for (op, payload_text) in ops.iter().zip(texts) {
            out.push(insert_op(&tx, origin, op, &payload_text, now)?);
        }
        tx.commit().map_err(|e| sql("committing the enqueue", &e))?;
        Ok(out)
    }

    /// Runs `f` with commits at synchronous=NORMAL (no fsync), then restores the configured
    /// setting. For acks only: a process kill cannot lose them (they are in the OS), and the
    /// next window claim's commit makes them durable against power loss too.
    pub(super) fn relaxed<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let set = |c: &Connection, s: Synchronous| {
            c.pragma_update(None, "synchronous", s.as_str())
                .map_err(|e| sql("setting synchronous", &e))
        };
        if self.sync == Synchronous::Normal {
            return f(self);
        }
        set(&self.conn, Synchronous::Normal)?;
        let r = f(self);
        set(&self.conn, self.sync)?;
        r
    }

    pub(super) fn write_tx(&mut self, what: &str) -> Result<rusqlite::Transaction<'_>> {
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql(what, &e))
    }
}

/// Each op admitted (`admit`) and its payload as the text stored.
pub(super) fn payload_texts(ops: &[NewOp<'_>]) -> Result<Vec<String>> {
    payload_texts_from(None, ops)
}

/// [`payload_texts`] for ops queued by `origin` (whose feed inbox a queued mine may read).
pub(super) fn payload_texts_from(
    origin: Option<&Origin>,
    ops: &[NewOp<'_>],
) -> Result<Vec<String>> {
    ops.iter()
        .map(|op| {
            admit_from(origin, op.tool, op.payload)?;
            serde_json::to_string(op.payload)
                .map_err(|e| MptError::usage(format!("the payload is not serialisable: {e}")))
        })
        .collect()
}

/// One op into the queue inside the caller's `BEGIN IMMEDIATE` transaction: `local_seq`
/// allocated there, its references recorded (`refs`). An active op with the same dedupe key is
/// returned instead (`deduped`).
pub(super) fn insert_op(
    tx: &rusqlite::Transaction<'_>,
    origin: &Origin,
    op: &NewOp<'_>,
    payload_text: &str,
    now: i64,
) -> Result<Enqueued> {
    if let Some(key) = op.dedupe_key {
        let existing = tx
            .prepare_cached(
                "SELECT op_id, local_seq FROM ops WHERE dedupe_key = ?1 AND state IN ('queued', 'leased')",
            )
            .and_then(|mut st| {
                st.query_row([key], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
                    .optional()
            })
            .map_err(|e| sql("enqueueing", &e))?;
        if let Some((op_id, local_seq)) = existing {
            return Ok(Enqueued {
                op_id,
                local_seq,
                deduped: true,
            });
        }
    }
    let local_seq: i64 = tx
        .prepare_cached(
            "INSERT INTO seqs (origin_device, last) VALUES (?1, 1)
             ON CONFLICT (origin_device) DO UPDATE SET last = last + 1 RETURNING last",
        )
        .and_then(|mut st| st.query_row([&origin.device], |r| r.get(0)))
        .map_err(|e| sql("allocating local_seq", &e))?;
    let op_id = util::op_id(&origin.device, local_seq, op.tool, op.payload);
    tx.prepare_cached(
        "INSERT INTO ops (op_id, local_seq, origin_device, origin_host, tool_name, payload_json,
                          dedupe_key, created_at, updated_at, unconfirmed, first_sent_at,
                          next_attempt_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, CASE WHEN ?9 THEN ?8 END,
                 CASE WHEN ?9 THEN ?8 + 2000 ELSE 0 END)",
        // (a maybe-applied op is checked no sooner than 2 s after its send: `flush`)
    )
    .and_then(|mut st| {
        st.execute(params![
            op_id,
            local_seq,
            origin.device,
            origin.host,
            op.tool,
            payload_text,
            op.dedupe_key,
            now,
            op.maybe_applied
        ])
    })
    .map_err(|e| sql("enqueueing", &e))?;
    super::refs::record(tx, tx.last_insert_rowid(), op.payload, op.local_reply)?;
    Ok(Enqueued {
        op_id,
        local_seq,
        deduped: false,
    })
}

/// What may enter the outbox: writes only, as a JSON object (exit 4 for maintenance and
/// destructive tools, exit 2 for reads and non-objects).
pub fn admit(tool: &str, payload: &Value) -> Result<()> {
    admit_from(None, tool, payload)
}

/// [`admit`], plus the one maintenance call the outbox carries: `origin`'s feed mine, a
/// `mempalace_mine` in `convos` mode of a source under its own inbox on the primary's host
/// (idempotent: the miner dedupes by source file). Any other mine stays refused (exit 4).
pub fn admit_from(origin: Option<&Origin>, tool: &str, payload: &Value) -> Result<()> {
    if !tool.starts_with("mempalace_") || tool.len() <= "mempalace_".len() {
        return Err(MptError::usage(format!(
            "'{tool}' is not a MemPalace tool name (mempalace_*)"
        )));
    }
    let inbox = origin.and_then(|o| o.inbox.as_deref());
    match catalog::classify(tool) {
        ToolClass::Maintenance if catalog::bare(tool) == "mine" => {
            if let Err(why) = feed_mine(payload, inbox) {
                return Err(MptError::refused(format!(
                    "{tool} is queued for the shared primary only as this device's feed mine: {why}"
                ))
                .with_hint(
                    "`mpt feed prepare` queues it (mode convos, a source under MEMPALACE_PI_REMOTE_PATH); run any other mine on the palace host itself",
                ));
            }
        }
        ToolClass::Maintenance | ToolClass::Destructive => {
            return Err(MptError::refused(format!(
                "{tool} is a {} tool: it is never queued for the shared primary",
                if catalog::classify(tool) == ToolClass::Maintenance {
                    "maintenance"
                } else {
                    "destructive"
                }
            ))
            .with_hint(
                "run it on the palace host itself; the outbox carries only replicated writes",
            ));
        }
        ToolClass::Read => {
            return Err(MptError::usage(format!(
                "{tool} only reads: there is nothing to replicate"
            ))
            .with_hint("call it directly with `mpt call`"));
        }
        ToolClass::Write => {}
    }
    if !payload.is_object() {
        return Err(MptError::usage("the tool arguments must be a JSON object"));
    }
    if mpt_base::secrets::json_contains_known(payload) {
        return Err(MptError::refused(format!(
            "the arguments to {tool} contain the remote token: it never enters the outbox"
        ))
        .with_hint("remove the token from the arguments"));
    }
    Ok(())
}

/// Why `payload` is not a feed mine of a source under `inbox` (`Ok` when it is).
fn feed_mine(payload: &Value, inbox: Option<&str>) -> std::result::Result<(), String> {
    let Some(inbox) = inbox else {
        return Err("no feed inbox is known for this device".into());
    };
    if payload.get("mode").and_then(Value::as_str) != Some("convos") {
        return Err("its mode is not convos".into());
    }
    let Some(source) = payload.get("source").and_then(Value::as_str) else {
        return Err("it names no source".into());
    };
    let root = inbox.trim_end_matches('/');
    // Each harness's inbox (pi's, and opencode's beside it).
    let under = mpt_base::config::feed::INBOX_HARNESSES.iter().any(|h| {
        let root = mpt_base::config::feed::harness_inbox(root, h);
        source == root
            || source
                .strip_prefix(&root)
                .is_some_and(|rest| rest.starts_with('/'))
    });
    let climbs = source.split('/').any(|seg| seg == "..");
    if !under || climbs || root.is_empty() {
        return Err(format!(
            "its source {source} is not under this device's inbox {inbox}"
        ));
    }
    Ok(())
}

/// Creates the file 0600 (and its directory 0700) before SQLite opens it; SQLite gives its
/// `-wal` and `-shm` files the database's mode. An existing file open to others is tightened.
fn create_private(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.exists()
    {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    }
    FsOpen::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| MptError::io(format!("creating the outbox {}", path.display()), &e))?;
    for p in [
        path.to_path_buf(),
        sidecar(path, "-wal"),
        sidecar(path, "-shm"),
    ] {
        if let Ok(meta) = fs::metadata(&p)
            && meta.permissions().mode() & 0o077 != 0
        {
            fs::set_permissions(&p, fs::Permissions::from_mode(0o600))
                .map_err(|e| MptError::io(format!("making {} private", p.display()), &e))?;
        }
    }
    Ok(())
}

pub fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// How this invocation opens the outbox: `MPT_OUTBOX_SYNC` = `full` (the default: a returned
/// enqueue survives a power loss) or `normal` (it survives a process kill; for slow disks).
pub fn open_options(env: &Env) -> Result<OpenOptions> {
    let synchronous = match mpt_base::config::edge::outbox_sync(env)? {
        mpt_base::config::edge::OutboxSync::Full => Synchronous::Full,
        mpt_base::config::edge::OutboxSync::Normal => Synchronous::Normal,
    };
    Ok(OpenOptions {
        synchronous,
        ..OpenOptions::default()
    })
}
