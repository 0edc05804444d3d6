//! `mpt outbox [list|show|enqueue|flush|retry|drop|purge|backfill]`: argument handling and printing for
//! the outbox engine (`crate::outbox`); no SQL here. Flushing and backfill have their own files.

mod backfill;
mod flush;

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use crate::Ctx;
use crate::cli::{OutboxArgs, OutboxCommand, OutboxStateFilter};
use crate::config::Config;
use crate::error::{Exit, MptError, Result};
use crate::log_warn;
use crate::outbox::refs::Wait;
use crate::outbox::{self, FlushLock, NewOp, Op, OpState, OpenOptions, Origin, Outbox, util};
use crate::output::Style;
use crate::palace::PalacePaths;
use crate::secrets;

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
    let path = outbox::resolve_path(&ctx.env, &config, palace.as_deref())?;
    match args.command {
        None => summary(ctx, &config, &path),
        Some(OutboxCommand::List(a)) => list(ctx, &path, a.state, a.limit),
        Some(OutboxCommand::Show(a)) => show(ctx, &path, &a.op),
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

/// The outbox to look at, opened read-only: a full disk does not stop an operator reading it.
fn open_to_read(path: &Path) -> Result<Option<Outbox>> {
    if !path.exists() {
        return Ok(None);
    }
    Outbox::open_read_only(path, OpenOptions::default())
}

fn open_or_missing(path: &Path) -> Result<Outbox> {
    open_existing(path)?.ok_or_else(|| missing(path))
}

fn missing(path: &Path) -> MptError {
    MptError::usage(format!("there is no outbox at {}", path.display())).with_hint(
        "nothing was ever queued here; MPT_OUTBOX (or `outbox` in the mpt config) names another",
    )
}

fn summary(ctx: &Ctx, config: &Config, path: &Path) -> Result<Exit> {
    let now = util::now_ms();
    let status = outbox::status_at(path, OpenOptions::default(), now)?;
    let exists = status.is_some();
    let flusher = if exists {
        FlushLock::holder(path)?
    } else {
        None
    };
    let s = status.unwrap_or_default();
    let counts: serde_json::Map<String, Value> = OpState::ALL
        .iter()
        .map(|st| (st.as_str().to_string(), json!(s.count(*st))))
        .collect();
    let open = s.open;
    let head = s.shown_head();
    let blocked = s.blocked();
    let oldest = s.oldest_open_at;
    let last_error = s.last_flush_error.as_ref();
    let pending = s.pending_local;
    let doc = json!({
        "schema": crate::schema::OUTBOX_SUMMARY,
        "outbox": path,
        "exists": exists,
        "primary": config.remote.as_ref().map(|r| crate::secrets::redact_url(&r.url)),
        "device": Origin::from_config(config).device,
        "counts": counts,
        "open": open,
        "oldest_open_age_s": s.oldest_open_age_ms(now).map(|a| a / 1000),
        "blocked": blocked,
        "held_back": s.backlog.held_back,
        "head": head.map(|h| h.to_json(false)),
        "last_local_seq": s.last_seq,
        "flusher_pid": flusher,
        "last_flush_error": last_error.map(|l| l.to_json()),
        // Writes an edge recorded before its child applied them, not yet queued or cancelled.
        "pending_local": pending,
    });
    ctx.out.emit(&doc, |w| {
        let row = |w: &mut dyn Write, k: &str, v: String| writeln!(w, "{k:<10} {v}");
        row(
            w,
            "outbox",
            format!(
                "{}{}",
                path.display(),
                if exists { "" } else { "  (none yet)" }
            ),
        )?;
        row(
            w,
            "primary",
            config
                .remote
                .as_ref()
                .map_or("(MEMPALACE_REMOTE_URL unset)".into(), |r| {
                    crate::secrets::redact_url(&r.url)
                }),
        )?;
        let c = |st: OpState| s.count(st);
        row(
            w,
            "open",
            format!(
                "{open} (queued {}, leased {}, failed {}){}",
                c(OpState::Queued),
                c(OpState::Leased),
                c(OpState::Failed),
                oldest
                    .map(|t| format!(", oldest {}", util::human_age(now - t)))
                    .unwrap_or_default()
            ),
        )?;
        row(
            w,
            "settled",
            format!("{} done, {} dropped", c(OpState::Done), c(OpState::Dropped)),
        )?;
        if pending > 0 {
            row(
                w,
                "pending",
                format!(
                    "{pending} write(s) an edge recorded before its local palace applied them: queued or cancelled once the edge settles them"
                ),
            )?;
        }
        if let Some(h) = head {
            let state = if blocked {
                ctx.out.paint(Style::Fail, "failed")
            } else {
                h.state.as_str().to_string()
            };
            row(
                w,
                "head",
                format!(
                    "#{} {} {} {state} ({} attempts){}",
                    h.local_seq,
                    short(h),
                    h.short_tool(),
                    h.attempts,
                    h.error_line().map(|e| format!(": {e}")).unwrap_or_default()
                ),
            )?;
            if blocked {
                row(
                    w,
                    "",
                    format!(
                        "{1} op(s) wait for failed ops; the rest flows: `mpt outbox retry {0}` or `mpt outbox drop {0} --yes`",
                        short(h),
                        s.backlog.held_back
                    ),
                )?;
            }
        }
        if let Some(l) = last_error {
            let line = format!(
                "{} at {}: {}",
                l.stop,
                util::rfc3339(l.at),
                l.message().unwrap_or("")
            );
            let line = if l.refused() {
                ctx.out.paint(Style::Fail, &line)
            } else {
                line
            };
            row(w, "last flush", line)?;
            if let Some(h) = l.hint() {
                row(w, "", h.to_string())?;
            }
        }
        row(
            w,
            "flusher",
            flusher.map_or("none running".into(), |p| format!("pid {p}")),
        )
    })?;
    Ok(Exit::Ok)
}

fn list(ctx: &Ctx, path: &Path, filter: OutboxStateFilter, limit: usize) -> Result<Exit> {
    use OutboxStateFilter as F;
    let (states, newest): (Vec<OpState>, bool) = match filter {
        F::Open => (
            vec![OpState::Queued, OpState::Leased, OpState::Failed],
            false,
        ),
        F::Queued => (vec![OpState::Queued], false),
        F::Leased => (vec![OpState::Leased], false),
        F::Failed => (vec![OpState::Failed], false),
        F::Done => (vec![OpState::Done], true),
        F::Dropped => (vec![OpState::Dropped], true),
        F::All => (vec![], true),
    };
    let store = open_to_read(path)?;
    let ops = match &store {
        Some(s) => s.list(&states, limit, newest)?,
        None => vec![],
    };
    let waits: Vec<Vec<Wait>> = match &store {
        Some(s) => ops.iter().map(|o| s.waits(o)).collect::<Result<_>>()?,
        None => vec![],
    };
    let state_name = format!("{filter:?}").to_lowercase();
    let doc = json!({
        "schema": crate::schema::OUTBOX_LIST,
        "outbox": path,
        "state": state_name,
        "count": ops.len(),
        "ops": ops.iter().zip(&waits).map(|(o, w)| with_waits(o.to_json(false), w)).collect::<Vec<_>>(),
    });
    let now = util::now_ms();
    ctx.out.emit(&doc, |w| {
        writeln!(
            w,
            "{:>6}  {:<12}  {:<20} {:<8} {:>5}  {:>5}  note",
            "seq", "op", "tool", "state", "tries", "age"
        )?;
        for (o, waits) in ops.iter().zip(&waits) {
            let note = o
                .error_line()
                .or_else(|| waits.first().map(|w| format!("waits for {}", w.describe())))
                .or_else(|| o.outcome.clone())
                .unwrap_or_default();
            writeln!(
                w,
                "{:>6}  {:<12}  {:<20} {:<8} {:>5}  {:>5}  {}",
                o.local_seq,
                short(o),
                o.short_tool(),
                o.state.as_str(),
                o.attempts,
                util::human_age(now - o.created_at),
                note
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}

fn show(ctx: &Ctx, path: &Path, op: &str) -> Result<Exit> {
    let store = open_to_read(path)?.ok_or_else(|| missing(path))?;
    let o = store.find(op)?;
    let audit = store.audit_trail(Some(&o.op_id))?;
    let waits = store.waits(&o)?;
    let doc = json!({"schema": crate::schema::OUTBOX_OP, "outbox": path, "op": with_waits(o.to_json(true), &waits), "audit": audit});
    ctx.out.emit(&doc, |w| {
        for (k, v) in doc["op"].as_object().into_iter().flatten() {
            if k == "waits_on" {
                for wt in &waits {
                    writeln!(w, "{:<17} {}", "waits for", wt.describe())?;
                }
            } else if k != "payload" && !v.is_null() {
                writeln!(
                    w,
                    "{k:<17} {}",
                    v.as_str().map_or_else(|| v.to_string(), str::to_string)
                )?;
            }
        }
        writeln!(
            w,
            "payload\n{}",
            serde_json::to_string_pretty(&o.payload).unwrap_or_default()
        )?;
        for a in &audit {
            writeln!(
                w,
                "audit {} {} {}",
                a["at"].as_str().unwrap_or(""),
                a["action"].as_str().unwrap_or(""),
                a["detail"]
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
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
    // Every token this process read counts, with or without a URL (`crate::secrets`).
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
    let tool = crate::palace::catalog::full_name(tool);
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
    let doc = json!({
        "schema": crate::schema::OUTBOX_ENQUEUE,
        "outbox": path,
        "op_id": e.op_id,
        "local_seq": e.local_seq,
        "tool": tool,
        "deduped": e.deduped,
    });
    let printed = ctx.out.emit(&doc, |w| {
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
        && err.kind != crate::error::ErrorKind::BrokenPipe
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
    let doc = json!({"schema": crate::schema::OUTBOX_RETRY, "outbox": path, "retried": retried, "count": retried.len()});
    ctx.out.emit(&doc, |w| {
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
    let doc =
        json!({"schema": crate::schema::OUTBOX_DROP, "outbox": path, "op": dropped.to_json(true)});
    ctx.out.emit(&doc, |w| {
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
    let doc = json!({"schema": crate::schema::OUTBOX_PURGE, "outbox": path, "deleted": deleted, "older_than_s": age.as_secs()});
    ctx.out.emit(&doc, |w| {
        writeln!(w, "purged {deleted} settled op(s) older than {older_than}")
    })?;
    Ok(Exit::Ok)
}

/// An op's JSON with what it waits for (`waits_on`: the ops that minted ids it references and
/// have not landed; it is sent when they are).
fn with_waits(mut v: Value, waits: &[Wait]) -> Value {
    v["waits_on"] = Value::Array(waits.iter().map(Wait::to_json).collect());
    v
}

fn short(o: &Op) -> &str {
    outbox::store::short(&o.op_id)
}
