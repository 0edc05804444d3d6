//! `mpt outbox backfill`: arguments, the two clients (the local palace through its one writer,
//! the primary for presence checks), the enqueue in batches and the report; the engine plans.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use clap::Args;
use serde::Serialize;

use crate::commands::Ctx;
use crate::commands::PalaceArg;
use mpt_base::config::Config;
use mpt_base::error::{Exit, MptError, Result};
use mpt_outbox::backfill::{self, Kind, Options, Plan, Reason, Skipped};
use mpt_outbox::{OpenOptions, Origin, Outbox};
use mpt_palace::PalacePaths;

#[derive(Debug, Args)]
pub struct OutboxBackfillArgs {
    #[command(flatten)]
    pub palace: PalaceArg,
    /// Only drawers and diary entries in wings matching this glob (repeatable); facts and
    /// coordination events have no wing and are left for a run without --wing
    #[arg(long = "wing", value_name = "GLOB")]
    pub wings: Vec<String>,
    /// Only records filed on or after this date (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM:SS)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Print what would be queued, queue nothing (the default without --yes)
    #[arg(long, conflicts_with = "yes")]
    pub dry_run: bool,
    /// Queue it
    #[arg(long)]
    pub yes: bool,
    /// Also queue again the records whose backfill op an operator dropped (`mpt outbox drop`);
    /// without it they are listed as `dropped` and the backfill is not done
    #[arg(long)]
    pub include_dropped: bool,
}

/// Records per enqueue transaction: a kill loses at most the batch being written, never half of it.
const BATCH: usize = 200;
/// Skipped records listed per reason in the human report (`--json` lists them all).
const LISTED: usize = 10;

pub fn run(ctx: &Ctx, config: &Config, path: &Path, args: OutboxBackfillArgs) -> Result<Exit> {
    let Some(remote) = &config.remote else {
        return Err(MptError::usage(
            "backfill queues this device's memory for the shared primary, and none is configured",
        )
        .with_hint("set MEMPALACE_REMOTE_URL (and MEMPALACE_REMOTE_TOKEN) to the primary first"));
    };
    let opts = Options {
        include_dropped: args.include_dropped,
        wings: wing_patterns(&args.wings)?,
        since: args.since.as_deref().map(since).transpose()?,
        ..Options::for_config(config)
    };
    let apply = args.yes;
    let palace = PalacePaths::chosen(&ctx.env, args.palace.path.as_deref(), Some(config))?;
    existing_palace(&palace.palace)?;
    // One backfill at a time: a second would read the palace beside it and find the ledger
    // filling under it (`enqueued 0` with no reason).
    let _lock = mpt_outbox::lock::backfill_lock(path)?;
    let outbox = if path.exists() {
        Some(Outbox::open(path, OpenOptions::default())?)
    } else {
        None
    };
    let bar = ctx.out.progress("backfill: {msg} {elapsed}");
    let rt = crate::commands::runtime()?;
    let read = rt.block_on(backfill::read_and_plan(
        &ctx.env,
        config,
        &palace,
        outbox.as_ref(),
        &opts,
        ctx.out.verbosity() >= 1,
        &mut |p| {
            if let Some(bar) = &bar {
                bar.message(format!(
                    "read {}, to send {}, skipped {}",
                    p.read, p.to_send, p.skipped
                ));
            }
        },
    ))?;
    let (plan, through) = (read.plan, read.through);
    let mut enqueued = 0;
    if apply && !plan.records.is_empty() {
        let mut store = match outbox {
            Some(o) => o,
            None => Outbox::open(path, OpenOptions::default())?,
        };
        let origin = Origin::from_config(config);
        for chunk in plan.records.chunks(BATCH) {
            enqueued += store.enqueue_backfill(&origin, chunk, opts.include_dropped)?;
            if let Some(bar) = &bar {
                bar.message(format!("queued {enqueued} of {}", plan.records.len()));
            }
        }
    }
    if let Some(bar) = &bar {
        bar.finish();
    }
    let open_after = if path.exists() {
        Outbox::open_read_only(path, OpenOptions::default())?
            .map(|o| o.backfill_open())
            .transpose()?
            .unwrap_or(0)
    } else {
        0
    };
    let unverified = plan
        .by_reason()
        .get(&Reason::Unverified)
        .copied()
        .unwrap_or(0);
    let left = plan.left() - if apply { plan.records.len() as u64 } else { 0 };
    let primary = mpt_base::secrets::redact_url(&remote.url);
    let doc = report(
        &plan,
        &Report {
            palace: &palace.palace,
            outbox: path,
            primary: &primary,
            through,
            apply,
            enqueued,
            open_after,
            narrowed: opts.narrows(),
            done: left == 0 && open_after == 0 && !opts.narrows(),
        },
    );
    ctx.out.emit_typed(&doc, |w| print(w, &plan, &doc))?;
    Ok(if unverified > 0 {
        Exit::Unavailable
    } else {
        Exit::Ok
    })
}

/// The palace must be there: reading a missing one through a child would create it (a new
/// replica id), and a dry run changes nothing.
fn existing_palace(palace: &Path) -> Result<()> {
    match std::fs::metadata(palace) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(
            MptError::usage(format!("the palace {} is not a folder", palace.display())).with_hint(
                "give --palace the palace's folder (`mpt paths` shows the one MemPalace uses)",
            ),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(MptError::usage(format!(
            "there is no palace at {}: nothing to backfill, and reading it would create one",
            palace.display()
        ))
        .with_hint("give --palace the palace's folder (`mpt paths` shows the one MemPalace uses)")),
        Err(e) => Err(MptError::io(format!("reading {}", palace.display()), &e)),
    }
}

fn wing_patterns(globs: &[String]) -> Result<Vec<glob::Pattern>> {
    globs
        .iter()
        .map(|g| {
            if g.trim().is_empty() {
                return Err(MptError::usage(format!(
                    "--wing '{g}' is empty: it would select no wing"
                ))
                .with_hint("give a wing name or a glob, e.g. --wing 'proj*'; leave --wing out for every wing"));
            }
            glob::Pattern::new(g).map_err(|e| {
                MptError::usage(format!("--wing '{g}' is not a glob pattern: {}", e.msg)).with_hint(
                    "use *, ? and [...] as in the replication policy, e.g. --wing 'proj*'",
                )
            })
        })
        .collect()
}

/// `--since`: a date, or a date and a time, as MemPalace writes `filed_at` (compared as text):
/// `YYYY-MM-DD`, then `T` (or a space) and `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fraction`, an
/// optional `Z`. The date must exist and the time be a time of day.
fn since(s: &str) -> Result<String> {
    if !mpt_base::time::is_date_or_local_time(s) {
        return Err(MptError::usage(format!(
            "--since '{s}' is not a date (YYYY-MM-DD) or a time (YYYY-MM-DDTHH:MM[:SS])"
        ))
        .with_hint("e.g. --since 2026-01-31 or --since 2026-01-31T09:30"));
    }
    Ok(s.replacen(' ', "T", 1))
}

struct Report<'a> {
    palace: &'a Path,
    outbox: &'a Path,
    primary: &'a str,
    through: &'static str,
    apply: bool,
    enqueued: usize,
    open_after: i64,
    /// `--wing` or `--since` narrowed the read: never done.
    narrowed: bool,
    done: bool,
}

/// `mpt outbox backfill --json` (`mpt.outbox.backfill/v1`).
#[derive(Debug, Serialize)]
struct BackfillDoc<'a> {
    schema: &'static str,
    palace: &'a Path,
    outbox: &'a Path,
    primary: &'a str,
    read_through: &'static str,
    dry_run: bool,
    primary_checked: bool,
    primary_error: Option<&'a str>,
    /// Records read, by kind.
    read: &'a BTreeMap<Kind, u64>,
    to_send: BTreeMap<Kind, u64>,
    to_send_total: usize,
    enqueued: usize,
    skipped: BTreeMap<Reason, u64>,
    skipped_records: &'a [Skipped],
    /// Each record a dry run would queue (null once it is queued).
    would_send: Option<Vec<Sent<'a>>>,
    backfill_ops_open: i64,
    narrowed: bool,
    filtered_out: u64,
    done: bool,
}

/// One record a dry run would queue.
#[derive(Debug, Serialize)]
struct Sent<'a> {
    kind: Kind,
    id: &'a str,
    tool: &'static str,
    filed_at: Option<&'a str>,
}

fn report<'a>(plan: &'a Plan, r: &Report<'a>) -> BackfillDoc<'a> {
    BackfillDoc {
        schema: mpt_base::schema::OUTBOX_BACKFILL,
        palace: r.palace,
        outbox: r.outbox,
        primary: r.primary,
        read_through: r.through,
        dry_run: !r.apply,
        primary_checked: plan.primary_error.is_none(),
        primary_error: plan.primary_error.as_deref(),
        read: &plan.read,
        to_send: plan.by_kind(),
        to_send_total: plan.records.len(),
        enqueued: r.enqueued,
        skipped: plan.by_reason(),
        skipped_records: &plan.skipped,
        would_send: (!r.apply).then(|| {
            plan.records
                .iter()
                .map(|x| Sent {
                    kind: x.kind,
                    id: &x.local_id,
                    tool: x.tool,
                    filed_at: x.filed_at.as_deref(),
                })
                .collect()
        }),
        backfill_ops_open: r.open_after,
        narrowed: r.narrowed,
        filtered_out: plan.filtered_out(),
        done: r.done,
    }
}

fn print(w: &mut dyn Write, plan: &Plan, doc: &BackfillDoc<'_>) -> std::io::Result<()> {
    fn line<K: Copy>(m: &BTreeMap<K, u64>, name: fn(K) -> &'static str) -> String {
        let parts: Vec<String> = m.iter().map(|(k, v)| format!("{v} {}", name(*k))).collect();
        if parts.is_empty() {
            "nothing".to_string()
        } else {
            parts.join(", ")
        }
    }
    writeln!(
        w,
        "palace    {} (read through its {})",
        doc.palace.display(),
        doc.read_through
    )?;
    writeln!(w, "read      {}", line(doc.read, Kind::as_str))?;
    if doc.dry_run {
        writeln!(w, "to send   {}", line(&doc.to_send, Kind::as_str))?;
        for (kind, n) in plan.by_kind() {
            let mut of_kind = plan.records.iter().filter(|r| r.kind == kind);
            for r in of_kind.by_ref().take(LISTED) {
                writeln!(w, "  {:<9} {}", kind.as_str(), r.local_id)?;
            }
            if n > LISTED as u64 {
                writeln!(w, "  … and {} more {}", n - LISTED as u64, kind.as_str())?;
            }
        }
    } else {
        writeln!(
            w,
            "queued    {} ({})",
            doc.enqueued,
            line(&doc.to_send, Kind::as_str)
        )?;
    }
    writeln!(w, "skipped   {}", line(&doc.skipped, Reason::as_str))?;
    for (reason, n) in plan.by_reason() {
        if matches!(reason, Reason::Enqueued | Reason::OnPrimary) {
            continue;
        }
        let mut listed = plan.skipped.iter().filter(|s| s.reason == reason);
        for s in listed.by_ref().take(LISTED) {
            let detail = s
                .detail
                .as_deref()
                .map(|d| format!("  ({d})"))
                .unwrap_or_default();
            writeln!(
                w,
                "  {:<12} {:<9} {}{detail}",
                reason.as_str(),
                s.kind.as_str(),
                s.id
            )?;
        }
        if n > LISTED as u64 {
            writeln!(w, "  … and {} more {}", n - LISTED as u64, reason.as_str())?;
        }
    }
    match doc.primary_error {
        None => writeln!(
            w,
            "primary   {} (checked: what it holds is not sent again)",
            doc.primary
        )?,
        Some(e) => writeln!(
            w,
            "primary   {} did not answer: {e}\n          diary entries, ended facts and events wait for a run while it answers (they are not deduped by the server)",
            doc.primary
        )?,
    }
    if doc.dry_run {
        if doc.to_send_total > 0 {
            writeln!(
                w,
                "dry run: nothing was queued; `mpt outbox backfill --yes` queues it"
            )?;
        }
    } else if doc.enqueued > 0 {
        writeln!(
            w,
            "next: `mpt outbox flush` sends it (the edge's flusher does too)"
        )?;
    }
    if doc.narrowed {
        writeln!(
            w,
            "not done: --wing/--since left {} record(s) out of this run; a run without them finishes the backfill",
            doc.filtered_out
        )?;
    }
    let dropped = plan.by_reason().get(&Reason::Dropped).copied().unwrap_or(0);
    if dropped > 0 {
        writeln!(
            w,
            "not done: {dropped} record(s) whose backfill op an operator dropped are not on the primary; `mpt outbox backfill --include-dropped --yes` queues them again"
        )?;
    }
    if doc.done {
        writeln!(w, "done: nothing left to send, no backfill op open")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_dates_and_times_and_names_a_bad_one() {
        assert_eq!(since("2026-01-31").unwrap(), "2026-01-31");
        assert_eq!(since("2026-01-31 10:00:00").unwrap(), "2026-01-31T10:00:00");
        assert_eq!(
            since("2026-01-31T10:00:00.5Z").unwrap(),
            "2026-01-31T10:00:00.5Z"
        );
        assert_eq!(since("2024-02-29").unwrap(), "2024-02-29");
        assert_eq!(since("2026-01-31T09:30").unwrap(), "2026-01-31T09:30");
        assert_eq!(
            since("2026-01-31T23:59:59Z").unwrap(),
            "2026-01-31T23:59:59Z"
        );
        for bad in [
            "yesterday",
            "2026-13-01",
            "2026-1-1",
            "31/01/2026",
            "",
            "2026-02-31",
            "2025-02-29",
            "2026-04-31",
            "2026-01-00",
            "2026-01-31T",
            "2026-01-31T25:99:99",
            "2026-01-31T24:00",
            "2026-01-31T10:60",
            "2026-01-31T10:00:60",
            "2026-01-31T10",
            "2026-01-31T10:00.5",
            "2026-01-31T10:00:00.",
            "2026-01-31X10:00",
            "2026-01-31T1:00:00",
            "2026-01-31T10:00:00+02:00",
            "2026-01-31 ",
            "２０２６-01-31",
        ] {
            let e = since(bad).unwrap_err();
            assert_eq!(e.exit(), Exit::Usage, "{bad}");
            assert!(e.message.contains(&format!("'{bad}'")), "{}", e.message);
        }
    }

    #[test]
    fn a_bad_wing_glob_is_named() {
        let e = wing_patterns(&["proj[".into()]).unwrap_err();
        assert!(e.message.contains("'proj['"), "{}", e.message);
        for empty in ["", "  "] {
            let e = wing_patterns(&[empty.into()]).unwrap_err();
            assert_eq!(e.exit(), Exit::Usage);
            assert!(
                e.message.contains(&format!("--wing '{empty}' is empty")),
                "{}",
                e.message
            );
        }
        assert_eq!(
            wing_patterns(&["p*".into(), "notes".into()]).unwrap().len(),
            2
        );
    }
}
