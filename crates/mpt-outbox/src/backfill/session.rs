//! One backfill read: the local palace through its one writer (the edge owner's child when an
//! owner runs, else a child of our own), the primary asked when it answers, the plan made.

use super::{Options, Plan, Progress, Sources};
use crate::Outbox;
use crate::policy::Policy;
use mpt_base::config::{Config, Env};
use mpt_base::error::{MptError, Result};
use mpt_mcp::McpClient;
use mpt_mcp::route::{Beside, Dial, Route, Rule};
use mpt_palace::PalacePaths;

/// A plan and what the palace was read through (`edge owner` or `own child`).
pub struct Read {
    pub plan: Plan,
    pub through: &'static str,
}

/// Reads `palace` and plans its backfill against the configured primary (asked only when it
/// answers: `plan.primary_error` says why not).
pub async fn read_and_plan(
    env: &Env,
    config: &Config,
    palace: &PalacePaths,
    outbox: Option<&Outbox>,
    opts: &Options,
    show_stderr: bool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<Read> {
    let (local, through) = local_client(env, config, palace, show_stderr)?;
    let primary = mpt_mcp::client::primary_client(config)?;
    let result = async {
        local.connect().await?;
        let primary_error = match &primary {
            Some(p) => p.connect().await.err().map(|e| MptError::from(e).message),
            None => Some("no primary is configured (MEMPALACE_REMOTE_URL)".to_string()),
        };
        let policy = Policy::new(config.file.replication.clone());
        let src = Sources {
            local: &local,
            primary: primary.as_ref().filter(|_| primary_error.is_none()),
            outbox,
            policy: &policy,
        };
        let mut plan = super::plan(&src, opts, on_progress).await?;
        plan.primary_error = primary_error;
        Ok::<_, MptError>(plan)
    }
    .await;
    local.shutdown().await;
    Ok(Read {
        plan: result?,
        through,
    })
}

/// The palace's one writer: its edge owner when one runs (reads answered by its child alone),
/// else a child of our own, never beside a live writer that is not an edge owner (exit 6, as
/// `feed mine` refuses it), never the primary.
fn local_client(
    env: &Env,
    config: &Config,
    palace: &PalacePaths,
    show_stderr: bool,
) -> Result<(McpClient, &'static str)> {
    let rule = Rule {
        beside_writer: Beside::Refuse {
            why: ", which is not an `mpt edge` owner: a backfill reads through the palace's one writer, and beside this one it would be a second process on the palace",
            hint: "run `mpt outbox backfill` again once it exits (a harness's own mempalace-mcp exits with its session), or run the harness through `mpt edge` and backfill while it runs",
        },
        ..Rule::LOCAL
    };
    let route = Route::choose(env, config, || Ok(palace.clone()), rule)?;
    let dial = Dial {
        local_reads: true,
        show_stderr,
        ..Dial::as_harness("backfill")
    };
    let through = match route {
        Route::EdgeOwner { .. } => "edge owner",
        _ => "own child",
    };
    Ok((route.client(env, config, &dial)?, through))
}
