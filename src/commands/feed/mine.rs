//! `mpt feed mine`: prepare, then one `mempalace_mine` on MINE_SOURCE through the palace's writer,
//! holding the feed lock throughout; prints what the miner filed (`mpt.feed.mine/v1` under --json).

use clap::Args;
use serde::Serialize;
use serde_json::Value;

use super::FeedCommon;
use super::{Plan, check_line, plans, prepare_doc, say_fleet, say_inactive, summary_line};
use crate::commands::Ctx;
use crate::commands::PalaceArg;
use mpt_base::error::{Exit, Result};
use mpt_feed::job;
use mpt_feed::mine::{self, MineCall};
use mpt_mcp::route::Dial;

#[derive(Debug, Args)]
pub struct FeedMineArgs {
    /// The trigger, recorded (see `mpt feed prepare --help`)
    #[arg(long, value_name = "TRIGGER", default_value = "manual")]
    pub reason: String,
    /// Wait up to SECS for a feed already running on these sessions instead of exit 6 at once
    /// (for a hook that fires while the last one still mines; the state has it file what changed)
    #[arg(long, value_name = "SECS")]
    pub wait: Option<u64>,
    #[command(flatten)]
    pub palace: PalaceArg,
    #[command(flatten)]
    pub common: FeedCommon,
}

pub const SCHEMA: &str = mpt_base::schema::FEED_MINE;

pub fn run(ctx: &Ctx, args: FeedMineArgs) -> Result<Exit> {
    let config = ctx.config()?;
    let mut docs = Vec::new();
    let mut lines = Vec::new();
    for plan in plans(ctx, &config, &args.common, &args.reason, "feed mine")? {
        let (doc, line) = one(ctx, &config, &args, plan)?;
        docs.push(doc);
        lines.extend(line);
    }
    let doc = super::prepare::one_or_all(docs, SCHEMA);
    ctx.out.emit_typed(&doc, |w| {
        for l in &lines {
            writeln!(w, "{l}")?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}

/// One harness's prepare and mine: its document and its stdout line.
fn one(
    ctx: &Ctx,
    config: &mpt_base::config::Config,
    args: &FeedMineArgs,
    plan: Plan,
) -> Result<(MineDoc, Option<String>)> {
    let (job, meta) = match plan {
        Plan::Inactive { meta, why, warn } => {
            say_inactive(ctx, &why, warn);
            let doc = MineDoc {
                schema: SCHEMA,
                harness: meta.harness,
                active: false,
                prepare: prepare_doc(&meta, None, Some(&why))?,
                note: Some(why),
                mine: None,
            };
            return Ok((doc, None));
        }
        Plan::Run(mut job, meta) => {
            job.wait = args.wait.map(std::time::Duration::from_secs);
            (job, meta)
        }
    };
    let who = super::who(meta.harness);
    let run = job::run(&job)?;
    ctx.out
        .note("feed", &format!("{who}{}", summary_line(&run)));
    for w in &run.report.warnings {
        ctx.out.note("warning", &format!("{who}{w}"));
    }
    say_fleet(ctx, &run, true);
    let prepared = prepare_doc(&meta, Some(&run), None)?;
    let Some(source) = run.mine_source.clone() else {
        let why = run
            .note
            .clone()
            .unwrap_or_else(|| match &run.report.source_skipped {
                Some(s) => format!("nothing to mine: {s}"),
                None => "nothing passed the gate: nothing to mine".to_string(),
            });
        let line = format!("{who}{why}");
        let doc = MineDoc {
            schema: SCHEMA,
            harness: meta.harness,
            active: true,
            note: Some(why),
            prepare: prepared,
            mine: None,
        };
        return Ok((doc, Some(line)));
    };
    check_line(&source)?;
    let route = mine::choose_route(&ctx.env, config, args.palace.path.as_deref())?;
    let call = MineCall {
        source: source.clone(),
        wing: meta.wing.clone(),
        agent: super::agent(config, meta.harness),
        deadline: config.feed.mine_timeout,
    };
    mpt_base::log_debug!("feed: mining {source} through {}", route.describe());
    let rt = crate::commands::runtime()?;
    let mined = rt.block_on(async {
        let dial = Dial {
            show_stderr: ctx.out.verbosity() >= 1,
            ..Dial::as_harness(&config.harness)
        };
        let client = route.client(&ctx.env, config, &dial)?;
        let res = mine::mine(&client, &route, &call).await;
        client.shutdown().await;
        res
    })?;
    drop(run);
    let n = |v: Option<u64>| v.map_or("?".to_string(), |n| n.to_string());
    let line = format!(
        "mined {source} into {} through {}: {} drawers filed, {} files processed, {} skipped as already filed",
        call.wing,
        route.describe(),
        n(mined.summary.drawers_filed),
        n(mined.summary.files_processed),
        n(mined.summary.files_skipped),
    );
    let doc = MineDoc {
        schema: SCHEMA,
        harness: meta.harness,
        active: true,
        note: None,
        prepare: prepared,
        mine: Some(Mined {
            route,
            elapsed_ms: mined.elapsed.as_secs_f64() * 1e3,
            summary: mined.summary,
            payload: mined.payload,
            source: call.source,
            wing: call.wing,
            agent: call.agent,
        }),
    };
    Ok((doc, Some(line)))
}

/// `mpt feed mine --json` for one harness (`mpt.feed.mine/v1`): its prepare, then the mine.
#[derive(Debug, Serialize)]
struct MineDoc {
    schema: &'static str,
    harness: mpt_feed::Harness,
    active: bool,
    note: Option<String>,
    /// The harness's `mpt.feed.prepare/v1` document.
    prepare: Value,
    mine: Option<Mined>,
}

/// The one `mempalace_mine` call: through which writer, what, into which wing, and what it filed.
#[derive(Debug, Serialize)]
struct Mined {
    route: mpt_mcp::route::Route,
    source: String,
    wing: String,
    agent: Option<String>,
    elapsed_ms: f64,
    summary: mine::MineSummary,
    payload: Value,
}
