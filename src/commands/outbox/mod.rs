//! `mpt outbox [list|show|enqueue|flush|retry|drop|purge|backfill]`: argument handling and printing for
//! the outbox engine (`mpt_outbox`), no SQL here; what only reads it is in `view`.

mod backfill;
mod docs;
mod flush;
mod view;

use std::path::Path;

use clap::{Args, Subcommand};
use serde_json::Value;

use crate::commands::Ctx;
use backfill::OutboxBackfillArgs;
use flush::OutboxFlushArgs;
use mpt_base::config::Config;
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::log_warn;
use mpt_base::secrets;
use mpt_outbox::{
    self as outbox, FlushLock, NewOp, Op, OpState, OpenOptions, Origin, Outbox, util,
};
use mpt_palace::PalacePaths;

#[derive(Debug, Args)]
#[command(after_help = "\
Without a subcommand: counts by state, the oldest open op's age, the primary it targets.
The outbox is MPT_OUTBOX, else `outbox` in the mpt config, else ~/.mempalace/edge/outbox.sqlite3
(on a read-only HOME: <palace>/.mpt-edge/outbox.sqlite3, the palace's own volume).
flush exits 0 drained, 3 failed ops remain (everything that does not depend on them was sent),
6 another flusher runs, 7 the primary could not be reached (the ops stay queued).")]
pub struct OutboxArgs {
    #[command(subcommand)]
    pub command: Option<OutboxCommand>,
}

#[derive(Debug, Subcommand)]
pub enum OutboxCommand {
    /// List ops in queue order (default: the open ones, head first)
    List(OutboxListArgs),
    /// Show one op: payload, attempts, last error, what operators did to it
    Show(OutboxOpArg),
    /// Queue one write for the primary (for scripts and tests; the edge queues its own)
    Enqueue(OutboxEnqueueArgs),
    /// Send the queued ops to the primary, in order, each effect exactly once
    Flush(OutboxFlushArgs),
    /// Put a failed op (or every failed op) back in the queue with a fresh attempt budget
    Retry(OutboxRetryArgs),
    /// Give up on one op; it is recorded, never silent
    Drop(OutboxDropArgs),
    /// Delete done and dropped ops older than the retention (open ops are never touched)
    Purge(OutboxPurgeArgs),
    /// Queue this device's existing memory for the primary, once (a dry run without --yes)
    Backfill(OutboxBackfillArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutboxStateFilter {
    /// queued, leased and failed
    Open,
    Queued,
    Leased,
    Done,
    Failed,
    Dropped,
    All,
}

#[derive(Debug, Args)]
pub struct OutboxListArgs {
    /// Which ops
    #[arg(long, value_enum, default_value_t = OutboxStateFilter::Open)]
    pub state: OutboxStateFilter,
    /// At most this many (done, dropped and all: the most recent)
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct OutboxOpArg {
    /// The op_id, or its first hex digits (at least 4)
    pub op: String,
}

#[derive(Debug, Args)]
pub struct OutboxEnqueueArgs {
    /// The write tool, e.g. kg_add (the mempalace_ prefix may be left out)
    pub tool: String,
    /// Its arguments as a JSON object
    pub args: String,
    /// At most one open op per key: a second enqueue with the same key returns the first
    #[arg(long, value_name = "KEY")]
    pub dedupe_key: Option<String>,
}

#[derive(Debug, Args)]
pub struct OutboxRetryArgs {
    /// The failed op
    #[arg(required_unless_present = "failed", conflicts_with = "failed")]
    pub op: Option<String>,
    /// Every failed op
    #[arg(long)]
    pub failed: bool,
}

#[derive(Debug, Args)]
pub struct OutboxDropArgs {
    /// The op to give up
    pub op: String,
    /// Confirm: the op will never reach the primary
    #[arg(long)]
    pub yes: bool,
    /// Why, for the record
    #[arg(long)]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct OutboxPurgeArgs {
    /// Settled longer ago than this (e.g. 7d, 12h, 0s)
    #[arg(long, value_name = "DURATION", default_value = "7d")]
    pub older_than: String,
}

/// How long `retry` and `drop` wait for a running flusher to let go of the lock.
const OPERATOR_PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

pub fn run(ctx: &Ctx, args: OutboxArgs) -> Result<Exit> {
    let config = ctx.config()?;
    // The outbox beside the palace a backfill reads, on a read-only HOME (else HOME's).
    let palace = match &args.command {
        Some(OutboxCommand::Backfill(a)) => match a.palace.path.as_deref() {
            Some(p) => Some(PalacePaths::chosen(&ctx.env, Some(p), Some(&config))?.palace),
            None => None,
        },
        _ => None,
    };
    let path = mpt_palace::edge_outbox(&ctx.env, &config, palace.as_deref())?;
    match args.command {
        None => view::summary(ctx, &config, &path),
        Some(OutboxCommand::List(a)) => view::list(ctx, &path, a.state, a.limit),
        Some(OutboxCommand::Show(a)) => view::show(ctx, &path, &a.op),
        Some(OutboxCommand::Enqueue(a)) => enqueue(
            ctx,
            &config,
            &path,
            &a.tool,
            &a.args,
            a.dedupe_key.as_deref(),
        ),
        Some(OutboxCommand::Flush(a)) => flush::run(ctx, &config, &path, a),
        Some(OutboxCommand::Retry(a)) => retry(ctx, &path, a.op.as_deref()),
        Some(OutboxCommand::Drop(a)) => drop_op(ctx, &path, &a.op, a.yes, a.reason.as_deref()),
        Some(OutboxCommand::Purge(a)) => purge(ctx, &path, &a.older_than),
        Some(OutboxCommand::Backfill(a)) => backfill::run(ctx, &config, &path, a),
    }
}

/// The outbox if it exists: reading commands never create one.
fn open_existing(path: &Path) -> Result<Option<Outbox>> {
    if !path.exists() {
        return Ok(None);
    }
    // Operator commands commit rarely: always with FULL, whatever MPT_OUTBOX_SYNC says.
    Outbox::open(path, OpenOptions::default()).map(Some)
}

fn open_or_missing(path: &Path) -> Result<Outbox> {
    open_existing(path)?.ok_or_else(|| missing(path))
}

fn missing(path: &Path) -> MptError {
    MptError::usage(format!("there is no outbox at {}", path.display())).with_hint(
        "nothing was ever queued here; MPT_OUTBOX (or `outbox` in the mpt config) names another",
    )
}

fn enqueue(
    ctx: &Ctx,
    config: &Config,
    path: &Path,
    tool: &str,
    args: &str,
    key: Option<&str>,
) -> Result<Exit> {
    let payload: Value = serde_json::from_str(args).map_err(|e| {
        MptError::usage(format!("the tool arguments are not JSON: {e}"))
            .with_hint(r#"pass one JSON object, e.g. '{"subject": "mpt", "predicate": "uses", "object": "sqlite"}'"#)
    })?;
    // Every token this process read counts, with or without a URL (`mpt_base::secrets`).
    if secrets::contains_known(args) || secrets::json_contains_known(&payload) {
        return Err(MptError::refused(
            "the arguments contain the remote token: it never enters the outbox",
        )
        .with_hint("remove the token from the payload"));
    }
    if key.is_some_and(secrets::contains_known) {
        return Err(MptError::refused(
            "the dedupe key is the remote token (or contains it): it never enters the outbox",
        )
        .with_hint("use a key that names the op, e.g. --dedupe-key note-2024-06-01"));
    }
    let tool = mpt_palace::catalog::full_name(tool);
    // Refused before the outbox is created or opened.
    let origin = Origin::from_config(config);
    outbox::store::admit_from(Some(&origin), &tool, &payload)?;
    let mut store = Outbox::open(path, outbox::open_options(&ctx.env)?)?;
    let e = store.enqueue(
        &origin,
        NewOp {
            tool: &tool,
            payload: &payload,
            dedupe_key: key,
            local_reply: None,
            maybe_applied: false,
        },
    )?;
    let doc = docs::Enqueued {
        schema: mpt_base::schema::OUTBOX_ENQUEUE,
        outbox: path,
        op_id: &e.op_id,
        local_seq: e.local_seq,
        tool: &tool,
        deduped: e.deduped,
    };
    let printed = ctx.out.emit_typed(&doc, |w| {
        let note = if e.deduped {
            "  (already queued under that key)"
        } else {
            ""
        };
        writeln!(w, "{}  #{}  {tool}{note}", e.op_id, e.local_seq)
    });
    // The op is stored whatever happens to stdout: running the command again would queue it
    // twice, so a failed print is reported, not failed.
    if let Err(err) = printed
        && err.kind != mpt_base::error::ErrorKind::BrokenPipe
    {
        log_warn!(
            "queued op {} (#{}, {tool}) but could not print the result: {}",
            e.op_id,
            e.local_seq,
            err.message
        );
    }
    Ok(Exit::Ok)
}

fn retry(ctx: &Ctx, path: &Path, op: Option<&str>) -> Result<Exit> {
    let mut store = open_or_missing(path)?;
    let _lock = FlushLock::acquire_within(path, OPERATOR_PATIENCE, "retry")?;
    let targets: Vec<Op> = match op {
        Some(p) => {
            let o = store.find(p)?;
            if !matches!(o.state, OpState::Failed | OpState::Queued) {
                return Err(MptError::usage(format!(
                    "op {} is {}: only failed or queued ops are retried",
                    short(&o),
                    o.state.as_str()
                )));
            }
            vec![o]
        }
        None => store.failed()?,
    };
    let mut retried = Vec::new();
    for o in &targets {
        if store.retry(o)? {
            retried.push(o.op_id.clone());
        }
    }
    let doc = docs::Retried {
        schema: mpt_base::schema::OUTBOX_RETRY,
        outbox: path,
        retried: &retried,
        count: retried.len(),
    };
    ctx.out.emit_typed(&doc, |w| {
        writeln!(
            w,
            "{} op(s) back in the queue; `mpt outbox flush` sends them",
            retried.len()
        )
    })?;
    Ok(Exit::Ok)
}

fn drop_op(ctx: &Ctx, path: &Path, op: &str, yes: bool, reason: Option<&str>) -> Result<Exit> {
    let mut store = open_or_missing(path)?;
    let o = store.find(op)?;
    if !yes {
        return Err(MptError::usage(format!(
            "dropping op {} ({}) means it never reaches the primary",
            short(&o),
            o.short_tool()
        ))
        .with_hint(format!(
            "confirm with `mpt outbox drop {} --yes [--reason TEXT]`",
            short(&o)
        )));
    }
    let _lock = FlushLock::acquire_within(path, OPERATOR_PATIENCE, "drop")?;
    store.drop_op(&o, reason)?;
    let dropped = store.find(&o.op_id)?;
    log_warn!(
        "dropped op {} ({}): it will never reach the primary; recorded in the outbox's audit trail",
        short(&o),
        o.short_tool()
    );
    let doc = docs::Dropped {
        schema: mpt_base::schema::OUTBOX_DROP,
        outbox: path,
        op: dropped.doc(true),
    };
    ctx.out.emit_typed(&doc, |w| {
        writeln!(w, "dropped {} ({})", dropped.op_id, dropped.short_tool())
    })?;
    Ok(Exit::Ok)
}

fn purge(ctx: &Ctx, path: &Path, older_than: &str) -> Result<Exit> {
    let age = util::parse_duration(older_than)?;
    let deleted = match open_existing(path)? {
        Some(mut s) => s.purge(age)?,
        None => 0,
    };
    let doc = docs::Purged {
        schema: mpt_base::schema::OUTBOX_PURGE,
        outbox: path,
        deleted,
        older_than_s: age.as_secs(),
    };
    ctx.out.emit_typed(&doc, |w| {
        writeln!(w, "purged {deleted} settled op(s) older than {older_than}")
    })?;
    Ok(Exit::Ok)
}

fn short(o: &Op) -> &str {
    outbox::store::short(&o.op_id)
}
