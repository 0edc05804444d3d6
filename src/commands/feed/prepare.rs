//! `mpt feed prepare`: stdout is exactly `MINE_SOURCE=<path>` per harness with anything staged
//! (or one `mpt.feed.prepare/v1` document under `--json`); counts and warnings go to stderr.

use clap::Args;

use super::FeedCommon;
use super::{Plan, check_line, plans, prepare_doc, say_fleet, say_inactive, summary_line};
use crate::commands::Ctx;
use mpt_base::error::{Exit, Result};
use mpt_feed::job::{self, FeedRun};

#[derive(Debug, Args)]
pub struct FeedPrepareArgs {
    /// The trigger, recorded: shutdown, settled, new, resume, fork, compact, reload, manual, ...
    /// (shutdown, new, resume and fork end the session being left, so they skip the quiet period)
    #[arg(long, value_name = "TRIGGER")]
    pub reason: String,
    #[command(flatten)]
    pub common: FeedCommon,
}

pub fn run(ctx: &Ctx, args: FeedPrepareArgs) -> Result<Exit> {
    let config = ctx.config()?;
    let mut docs = Vec::new();
    let mut sources = Vec::new();
    // Each run holds its harness's lock until everything is printed.
    let mut runs: Vec<FeedRun> = Vec::new();
    for plan in plans(ctx, &config, &args.common, &args.reason, "feed prepare")? {
        let (job, meta) = match plan {
            Plan::Inactive { meta, why, warn } => {
                say_inactive(ctx, &why, warn);
                docs.push(prepare_doc(&meta, None, Some(&why))?);
                continue;
            }
            Plan::Run(job, meta) => (job, meta),
        };
        let run = job::run(&job)?;
        if let Some(s) = &run.mine_source {
            check_line(s)?;
        }
        let who = super::who(meta.harness);
        ctx.out
            .note("feed", &format!("{who}{}", summary_line(&run)));
        for w in &run.report.warnings {
            ctx.out.note("warning", &format!("{who}{w}"));
        }
        say_fleet(ctx, &run, false);
        if let Some(n) = &run.note {
            ctx.out.note("feed", &format!("{who}{n}"));
        } else if run.mine_source.is_none() && run.report.source_skipped.is_none() {
            ctx.out.note(
                "feed",
                &format!("{who}nothing passed the gate: no MINE_SOURCE (nothing to mine)"),
            );
        }
        docs.push(prepare_doc(&meta, Some(&run), None)?);
        sources.extend(run.mine_source.clone());
        runs.push(run);
    }
    let doc = one_or_all(docs, mpt_feed::REPORT_SCHEMA);
    ctx.out.emit_typed(&doc, |w| {
        for s in &sources {
            writeln!(w, "MINE_SOURCE={s}")?;
        }
        Ok(())
    })?;
    drop(runs);
    Ok(Exit::Ok)
}

/// One harness: its document alone, as before harnesses were several; several:
/// `{schema, harnesses}`.
#[derive(serde::Serialize)]
#[serde(untagged)]
pub(super) enum OneOrAll<T> {
    One(T),
    All {
        schema: &'static str,
        harnesses: Vec<T>,
    },
}

pub(super) fn one_or_all<T>(mut docs: Vec<T>, schema: &'static str) -> OneOrAll<T> {
    if docs.len() == 1 {
        return OneOrAll::One(docs.remove(0));
    }
    OneOrAll::All {
        schema,
        harnesses: docs,
    }
}
