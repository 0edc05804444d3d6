//! One backfill read: the local palace through its one writer (the edge owner's child when an
//! owner runs, else a child of our own), the primary asked when it answers, the plan made.

use super::{Options, Plan, Progress, Sources};
use crate::config::Config;
use crate::edge::owner;
use crate::edge::policy::Policy;
use crate::error::{ErrorKind, MptError, Result};
use crate::mcp::McpClient;
use crate::mcp::client::local_child_spec;
use crate::mcp::stdio::{StdioClient, StdioOptions};
use crate::outbox::Outbox;
use crate::palace::{PalacePaths, files};

/// A plan and what the palace was read through (`edge owner` or `own child`).
pub struct Read {
    pub plan: Plan,
    pub through: &'static str,
}

/// Reads `palace` and plans its backfill against the configured primary (asked only when it
/// answers: `plan.primary_error` says why not).
pub async fn read_and_plan(
    config: &Config,
    palace: &PalacePaths,
    outbox: Option<&Outbox>,
    opts: &Options,
    show_stderr: bool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<Read> {
    let (local, through) = local_client(config, palace, show_stderr)?;
    let primary = crate::edge::setup::primary_client(config)?;
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
/// `feed mine` refuses it).
fn local_client(
    config: &Config,
    palace: &PalacePaths,
    show_stderr: bool,
) -> Result<(McpClient, &'static str)> {
    if let Some(paths) = owner::live(&palace.home, &palace.palace) {
        return Ok((
            owner::local_reader(&paths, config.mcp.timeout),
            "edge owner",
        ));
    }
    if let Some(who) = files::lease_held_by(&palace.writer_lease)? {
        return Err(MptError::new(
            ErrorKind::Busy,
            format!(
                "the palace {} is held by {who}, which is not an `mpt edge` owner: a backfill reads through the palace's one writer, and beside this one it would be a second process on the palace",
                palace.palace.display()
            ),
        )
        .with_hint("run `mpt outbox backfill` again once it exits (a harness's own mempalace-mcp exits with its session), or run the harness through `mpt edge` and backfill while it runs"));
    }
    Ok((
        McpClient::Local(StdioClient::new(
            local_child_spec(config, &palace.palace, None),
            StdioOptions::new(config.mcp, show_stderr || config.ext_debug),
        )),
        "own child",
    ))
}
