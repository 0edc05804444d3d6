//! After a mailbox read the primary answered: the local copy of its log brought up to date, so
//! an ask seen online can be answered offline. The owner's pull woken, or one pull run here.

use std::time::Duration;

use serde_json::Value;

use super::offline::LocalLog;
use mpt_base::config::{Config, Env};
use mpt_base::log_debug;
use mpt_coord::puller::{self, PullPaths};
use mpt_edge::proxy::PULL_METHOD;
use mpt_mcp::Deadline;
use mpt_mcp::route::{Dial, Route, Rule};

/// A pull run by the mailbox itself waits at most this long: the primary just answered, and a
/// prompt's `mpt mailbox --count` must not hang on a slow one for the owner's 120 s.
const OWN_PULL_DEADLINE: Duration = Duration::from_secs(20);

/// What the refresh did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refreshed {
    /// The palace's running owner was asked to pull now.
    WokeOwner,
    /// No owner: one pull ran here (its events and artifacts, or why it failed).
    Pulled(Result<u64, String>),
    /// Another pull held the lock: it brings the copy up to date.
    Busy,
    /// Nothing to do: no local palace (none is created), no primary, pulls off, a child that
    /// cannot pull.
    Skipped(&'static str),
}

/// Brings `local`'s copy of the primary's log up to date, never creating a palace.
pub async fn local_copy(local: &LocalLog, config: &Config, env: &Env) -> Refreshed {
    let Some(paths) = local.palace() else {
        return Refreshed::Skipped("no local palace resolves");
    };
    // The one route to the palace: its edge owner, when one runs, pulls (woken over its socket).
    if let Ok(route @ Route::EdgeOwner { .. }) =
        Route::choose(env, config, || Ok(paths.clone()), Rule::LOCAL)
    {
        return wake(&route, env, config).await;
    }
    if !paths.palace.is_dir() {
        return Refreshed::Skipped("no local palace exists (a mailbox read never creates one)");
    }
    let child = mpt_mcp::client::local_child_program(config, None).0;
    let pulls = PullPaths::new(&paths.home, &paths.palace);
    let Some(mut puller) = puller::configure(config, env, &paths.palace, &child, &pulls) else {
        return Refreshed::Skipped("pulls are off or the child cannot pull");
    };
    puller.spec.deadline = puller.spec.deadline.min(OWN_PULL_DEADLINE);
    match puller::pull_now(&puller).await {
        None => Refreshed::Busy,
        Some(Ok(p)) => Refreshed::Pulled(Ok(p.pulled_events)),
        Some(Err(e)) => Refreshed::Pulled(Err(e.to_string())),
    }
}

async fn wake(owner: &Route, env: &Env, config: &Config) -> Refreshed {
    let client = match owner.client(env, config, &Dial::as_harness("mailbox")) {
        Ok(c) => c,
        Err(e) => {
            log_debug!("mailbox: no client for the owner: {}", e.message);
            return Refreshed::Skipped("the owner did not answer");
        }
    };
    let woke = async {
        client.connect().await?;
        client
            .request(PULL_METHOD, None, Deadline::After(Duration::from_secs(5)))
            .await
    }
    .await;
    client.shutdown().await;
    match woke {
        Ok(r) if r.get("woken").and_then(Value::as_bool) == Some(true) => Refreshed::WokeOwner,
        Ok(_) => Refreshed::Skipped("the owner serves no primary"),
        Err(e) => {
            log_debug!("mailbox: the owner's pull was not woken: {e}");
            Refreshed::Skipped("the owner did not answer")
        }
    }
}
