//! `mpt feed prepare`: stdout is exactly `MINE_SOURCE=<path>` when anything is staged (or one
//! `mpt.feed.prepare/v1` document under `--json`); counts and warnings go to stderr.

use super::{Plan, check_line, plan, prepare_doc, say_fleet, say_inactive, summary_line};
use crate::Ctx;
use crate::cli::FeedPrepareArgs;
use crate::error::{Exit, Result};
use crate::feed::job;

pub fn run(ctx: &Ctx, args: FeedPrepareArgs) -> Result<Exit> {
    let config = ctx.config()?;
    let (job, meta) = match plan(ctx, &config, &args.common, &args.reason, "feed prepare")? {
        Plan::Inactive { meta, why, warn } => {
            say_inactive(ctx, &why, warn);
            let doc = prepare_doc(&meta, None, Some(&why))?;
            ctx.out.emit(&doc, |_| Ok(()))?;
            return Ok(Exit::Ok);
        }
        Plan::Run(job, meta) => (job, meta),
    };
    let run = job::run(&job)?;
    if let Some(s) = &run.mine_source {
        check_line(s)?;
    }
    ctx.out.note("feed", &summary_line(&run));
    for w in &run.report.warnings {
        ctx.out.note("warning", w);
    }
    say_fleet(ctx, &run, false);
    if let Some(n) = &run.note {
        ctx.out.note("feed", n);
    } else if run.mine_source.is_none() {
        ctx.out.note(
            "feed",
            "nothing passed the gate: no MINE_SOURCE (nothing to mine)",
        );
    }
    let doc = prepare_doc(&meta, Some(&run), None)?;
    ctx.out.emit(&doc, |w| match &run.mine_source {
        Some(s) => writeln!(w, "MINE_SOURCE={s}"),
        None => Ok(()),
    })?;
    drop(run);
    Ok(Exit::Ok)
}
