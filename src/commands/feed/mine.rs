//! `mpt feed mine`: prepare, then one `mempalace_mine` on MINE_SOURCE through the palace's writer,
//! holding the feed lock throughout; prints what the miner filed (`mpt.feed.mine/v1` under --json).

use super::{Plan, check_line, plan, prepare_doc, say_fleet, say_inactive, summary_line};
use crate::Ctx;
use crate::cli::FeedMineArgs;
use crate::error::{Exit, Result};
use crate::feed::job;
use crate::feed::mine::{self, MineCall};
use serde_json::{Value, json};

pub const SCHEMA: &str = crate::schema::FEED_MINE;

pub fn run(ctx: &Ctx, args: FeedMineArgs) -> Result<Exit> {
    let config = ctx.config()?;
    let (job, meta) = match plan(ctx, &config, &args.common, &args.reason, "feed mine")? {
        Plan::Inactive { meta, why, warn } => {
            say_inactive(ctx, &why, warn);
            let doc = json!({
                "schema": SCHEMA, "active": false, "note": why,
                "prepare": prepare_doc(&meta, None, Some(&why))?, "mine": null,
            });
            ctx.out.emit(&doc, |_| Ok(()))?;
            return Ok(Exit::Ok);
        }
        Plan::Run(job, meta) => (job, meta),
    };
    let run = job::run(&job)?;
    ctx.out.note("feed", &summary_line(&run));
    for w in &run.report.warnings {
        ctx.out.note("warning", w);
    }
    say_fleet(ctx, &run, true);
    let prepared = prepare_doc(&meta, Some(&run), None)?;
    let Some(source) = run.mine_source.clone() else {
        let why = run
            .note
            .clone()
            .unwrap_or_else(|| "nothing passed the gate: nothing to mine".to_string());
        let doc = json!({"schema": SCHEMA, "active": true, "note": why, "prepare": prepared, "mine": null});
        ctx.out.emit(&doc, |w| writeln!(w, "{why}"))?;
        return Ok(Exit::Ok);
    };
    check_line(&source)?;
    let route = mine::choose_route(&ctx.env, &config, args.palace.path.as_deref())?;
    let call = MineCall {
        source: source.clone(),
        wing: meta.wing.clone(),
        agent: config.stamp_identity(),
        deadline: config.feed.mine_timeout,
    };
    crate::log_debug!("feed: mining {source} through {}", route.describe());
    let rt = crate::commands::runtime()?;
    let mined = rt.block_on(async {
        let client = mine::client_for(&route, &ctx.env, &config, ctx.out.verbosity() >= 1)?;
        let res = mine::mine(&client, &route, &call).await;
        client.shutdown().await;
        res
    })?;
    drop(run);
    let doc = json!({
        "schema": SCHEMA,
        "active": true,
        "note": Value::Null,
        "prepare": prepared,
        "mine": {
            "route": route,
            "source": call.source,
            "wing": call.wing,
            "agent": call.agent,
            "elapsed_ms": mined.elapsed.as_secs_f64() * 1e3,
            "summary": mined.summary,
            "payload": mined.payload,
        },
    });
    let n = |v: Option<u64>| v.map_or("?".to_string(), |n| n.to_string());
    ctx.out.emit(&doc, |w| {
        writeln!(
            w,
            "mined {source} into {} through {}: {} drawers filed, {} files processed, {} skipped as already filed",
            call.wing,
            route.describe(),
            n(mined.summary.drawers_filed),
            n(mined.summary.files_processed),
            n(mined.summary.files_skipped),
        )
    })?;
    Ok(Exit::Ok)
}
