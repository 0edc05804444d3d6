//! `mpt outbox flush`: one flusher at a time (exit 6 if another runs, unless `--wait`), the
//! drain to the primary with a progress bar on a terminal, the report, the exit code.

use std::path::Path;
use std::time::Duration;

use clap::Args;

use crate::commands::Ctx;
use mpt_base::config::Config;
use mpt_base::error::{Exit, MptError, Result};
use mpt_mcp::McpClient;
use mpt_outbox::apart::ApartReport;
use mpt_outbox::flush::Progress;
use mpt_outbox::report::{FlushDoc, FlushReport};
use mpt_outbox::{self as outbox, FlushLock, FlushOptions, Outbox, Stop, util};

#[derive(Debug, Args)]
pub struct OutboxFlushArgs {
    /// Settle at most N ops, then stop
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Keep retrying an unreachable primary, with backoff, for this long (e.g. 90s, 5m);
    /// without it the flush stops at the first transient failure
    #[arg(long, value_name = "DURATION")]
    pub deadline: Option<String>,
    /// Wait for another flusher to finish instead of exiting 6 at once
    #[arg(long)]
    pub wait: bool,
}

pub fn run(ctx: &Ctx, config: &Config, path: &Path, args: OutboxFlushArgs) -> Result<Exit> {
    let remote = config.remote.as_ref().ok_or_else(|| {
        MptError::usage("MEMPALACE_REMOTE_URL is not set: the outbox has no primary to flush to")
            .with_hint("set it to the primary's endpoint, e.g. https://palace.example:8765/mcp")
    })?;
    let deadline = args
        .deadline
        .as_deref()
        .map(util::parse_duration)
        .transpose()?;
    let existed = path.exists();
    let (report, mines) = if existed {
        drain(ctx, config, path, &args, deadline)?
    } else {
        (FlushReport::nothing(), ApartReport::default())
    };
    let mut exit = report.stop.exit_code(report.error.as_ref());
    if exit == Exit::Ok {
        if !mines.failed.is_empty() {
            exit = Exit::CheckFailed;
        } else if let Some(e) = &mines.error {
            exit = e.exit();
        }
    }
    let doc = FlushRunDoc {
        report: report.doc(exit.code()),
        outbox: path,
        primary: mpt_base::secrets::redact_url(&remote.url),
        mines: MinesDoc {
            sent: mines.sent,
            applied: mines.applied,
            failed: &mines.failed,
            remaining: mines.remaining,
            busy: mines.busy,
            error: mines.error.as_ref().map(outbox::error_json),
        },
    };
    ctx.out.emit_typed(&doc, |w| {
        if !existed {
            return writeln!(w, "nothing to flush (no outbox at {})", path.display());
        }
        let c = &report.counts;
        writeln!(
            w,
            "{}: {} settled ({} applied, {} already there, {} found by a replay check), {} sent, {} left, {:.1} s",
            match report.stop {
                Stop::Drained => "drained",
                Stop::Limit => "stopped at --limit",
                Stop::Blocked => "sent what it could; failed ops remain",
                Stop::Unavailable => "primary unavailable",
                Stop::Backoff => "the rest is backing off",
                Stop::Deadline => "deadline passed",
                Stop::Refused => "refused",
                Stop::TakenOver => "another flusher took over (this one made no progress)",
            },
            report.settled(), c.applied, c.already_there, c.verified_present, c.sent,
            report.remaining, report.elapsed.as_secs_f64()
        )?;
        if mines.sent > 0 || mines.remaining > 0 {
            writeln!(
                w,
                "feed mines (a lane apart, never holding back writes): {} sent, {} applied, {} left{}",
                mines.sent,
                mines.applied,
                mines.remaining,
                if mines.busy { " (another process is sending them)" } else { "" }
            )?;
        }
        if let Some(b) = &report.blocked_by {
            writeln!(w, "op #{} {} ({}) {}: {}", b.local_seq, outbox::store::short(&b.op_id),
                b.short_tool(), b.failed_how(), b.error_line().unwrap_or_default())?;
            writeln!(w, "  {} op(s) wait for failed ops (every other write was sent): fix the cause, then `mpt outbox retry {1}`, or `mpt outbox drop {1} --yes`",
                report.held_back, outbox::store::short(&b.op_id))?;
        }
        Ok(())
    })?;
    if !ctx.out.json {
        for e in [&report.error, &mines.error].into_iter().flatten() {
            ctx.out.error(e);
        }
    }
    Ok(exit)
}

/// Drains the outbox at `path` under the flush lock, then the mine lane apart.
fn drain(
    ctx: &Ctx,
    config: &Config,
    path: &Path,
    args: &OutboxFlushArgs,
    deadline: Option<Duration>,
) -> Result<(FlushReport, ApartReport)> {
    let rt = crate::commands::runtime()?;
    // A holder with no heartbeat for twice the primary's network deadline is stuck (a send into a
    // black hole): it is asked to abandon its drain, never killed.
    let network = config.primary.network_deadline();
    let lock = rt.block_on(FlushLock::acquire_or_take_over(
        path,
        network * 2,
        network,
        args.wait,
        "flush",
    ))?;
    let mut store = Outbox::open(path, outbox::open_options(&ctx.env)?)?;
    // The lease outlives any call: the call deadline plus a margin (10 min with no deadline).
    let lease = config
        .mcp
        .timeout
        .map_or(Duration::from_secs(600), |t| t + Duration::from_secs(60));
    let opts = FlushOptions {
        limit: args.limit,
        deadline,
        lease,
        ..FlushOptions::default()
    };
    let client = McpClient::from_config(config, Path::new("/"), None, ctx.out.verbosity() >= 1)?;
    let bar = ctx.out.progress("mpt: flushing {pos}/{len}");
    let mut progress = |p: &Progress| {
        if let Some(bar) = &bar {
            bar.set(p.settled, p.total.max(0) as u64);
        }
    };
    let report = rt.block_on(outbox::flush::flush(
        &mut store,
        &lock,
        &client,
        &opts,
        &mut progress,
    ))?;
    if let Some(bar) = &bar {
        bar.finish();
    }
    // The feed's mines, in their own lane, after the writes (which never wait for them) and
    // without the flush lock: another flusher may drain new writes meanwhile.
    drop(lock);
    let mines = rt.block_on(outbox::apart::run(&mut store, &client, false))?;
    Ok((report, mines))
}

/// `mpt outbox flush --json`: the report, where it flushed, then what the mine lane did.
#[derive(serde::Serialize)]
struct FlushRunDoc<'a> {
    #[serde(flatten)]
    report: FlushDoc<'a>,
    outbox: &'a Path,
    primary: String,
    mines: MinesDoc<'a>,
}

/// The feed's mine lane, run after the writes (`outbox::apart`).
#[derive(serde::Serialize)]
struct MinesDoc<'a> {
    sent: u64,
    applied: u64,
    failed: &'a [String],
    remaining: i64,
    busy: bool,
    error: Option<serde_json::Value>,
}
