//! `feed mine`'s writer (its rule for `mpt_mcp::route`): the primary, else the palace's owner or
//! hub, else a local child, never a second writer; then one `mempalace_mine`, never retried.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use mpt_base::config::{Config, Env};
use mpt_base::error::{ErrorKind, MptError, Result};
pub use mpt_mcp::route::Route;
use mpt_mcp::route::{Beside, PrimaryFirst, Rule};
use mpt_mcp::{CallError, Deadline, McpClient, PalaceBusy};
use mpt_palace::PalacePaths;

/// Picks the writer (`mpt_mcp::route`): the shared primary, else the palace's edge owner, else
/// a live hub registered for it; local mode refuses (exit 6) when a live process holds the writer
/// lease and no hub is registered to go through. Under the edge the mine is local (the edge keeps
/// `mine` off the primary): the primary's own mine of the shipped copy is queued by the prepare.
pub fn choose_route(env: &Env, config: &Config, palace: Option<&Path>) -> Result<Route> {
    let rule = Rule {
        primary: if config.edge_opt_in {
            PrimaryFirst::Never
        } else {
            PrimaryFirst::Yes
        },
        hub: true,
        beside_writer: Beside::Refuse {
            why: " and no hub is registered for it: a second writer would be refused",
            hint: "the transcripts stay staged: mine them through the session that holds the palace (print MINE_SOURCE with `mpt feed prepare`), or run `mpt feed mine` again once it exits",
        },
    };
    Route::choose(
        env,
        config,
        || PalacePaths::chosen(env, palace, Some(config)),
        rule,
    )
}

/// One `mempalace_mine` call's arguments (only what the tool's inputSchema declares).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MineCall {
    pub source: String,
    pub wing: String,
    /// `<harness>@<device>` when stamping applies.
    pub agent: Option<String>,
    /// `MEMPALACE_FEED_MINE_TIMEOUT_MS`, handed to the transport as the call's own deadline.
    pub deadline: Option<Duration>,
}

impl MineCall {
    pub fn arguments(&self) -> Value {
        let mut a = json!({"source": self.source, "mode": "convos", "wing": self.wing});
        if let Some(agent) = &self.agent {
            a["agent"] = json!(agent);
        }
        a
    }
}

/// The miner's own summary lines, parsed from its `output`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MineSummary {
    pub files_processed: Option<u64>,
    pub files_skipped: Option<u64>,
    pub drawers_filed: Option<u64>,
}

impl MineSummary {
    pub fn parse(output: &str) -> MineSummary {
        let num = |label: &str| {
            output.lines().find_map(|l| {
                l.trim()
                    .strip_prefix(label)
                    .and_then(|r| r.trim().parse().ok())
            })
        };
        MineSummary {
            files_processed: num("Files processed:"),
            files_skipped: num("Files skipped (already filed):"),
            drawers_filed: num("Drawers filed:"),
        }
    }
}

/// A finished mine.
#[derive(Debug, Clone)]
pub struct Mined {
    pub payload: Value,
    pub summary: MineSummary,
    pub elapsed: Duration,
}

/// Connects and mines once. Errors are mapped for a feed: a deadline is exit 7 with the bridge's
/// reassurance, a palace held by a peer writer or a concurrent mine is exit 6.
pub async fn mine(client: &McpClient, route: &Route, call: &MineCall) -> Result<Mined> {
    client.connect().await?;
    let started = Instant::now();
    let deadline = match call.deadline {
        Some(d) => Deadline::After(d),
        None => Deadline::Unbounded,
    };
    match client
        .call_tool("mempalace_mine", call.arguments(), deadline)
        .await
    {
        Ok(reply) => {
            let output = reply.payload["output"].as_str().unwrap_or("");
            Ok(Mined {
                summary: MineSummary::parse(output),
                payload: reply.payload,
                elapsed: started.elapsed(),
            })
        }
        Err(e) => Err(mine_error(e, route, call)),
    }
}

fn mine_error(e: CallError, route: &Route, call: &MineCall) -> MptError {
    match &e {
        CallError::Timeout { ms, .. } => {
            let what_happens = if route.outlives_us() {
                "the deadline bounds only how long mpt waits: the mine continues server-side"
            } else {
                "the local child was stopped with the wait, and the files it had not reached are mined next time"
            };
            MptError::new(
                ErrorKind::Timeout,
                format!(
                    "mempalace_mine on {} did not answer within MEMPALACE_FEED_MINE_TIMEOUT_MS={ms} ms. Nothing has been lost: the transcripts are staged, {what_happens}, and `mine --mode convos` is idempotent, so the next feed redoes whatever did not finish",
                    call.source
                ),
            )
            .with_hint("do not retry harder (the palace is a single writer; a blind retry queues mines behind the one still running): check the palace's size and whether another writer holds the write lock, rather than raising the timeout")
        }
        _ => match e.palace_busy() {
            Some(PalaceBusy::PeerWriter) => MptError::new(
                ErrorKind::Busy,
                format!("{} refused the mine: a peer writer holds the palace ({e})", route.describe()),
            )
            .with_hint("skip: the transcripts stay staged and the next feed mines them"),
            Some(PalaceBusy::Mine) => MptError::new(ErrorKind::Busy, format!("{e}"))
                .with_hint("another mine is running on that palace: it or the next feed files these transcripts"),
            None => MptError::from(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_parsed_from_the_miners_output() {
        let out = "\n  Done.\n  Files processed: 1\n  Files skipped (already filed): 5\n  Drawers filed: 5\n";
        assert_eq!(
            MineSummary::parse(out),
            MineSummary {
                files_processed: Some(1),
                files_skipped: Some(5),
                drawers_filed: Some(5)
            }
        );
        assert_eq!(MineSummary::parse("garbage"), MineSummary::default());
    }

    #[test]
    fn arguments_carry_agent_only_when_stamping() {
        let mut c = MineCall {
            source: "/s".into(),
            wing: "w".into(),
            agent: None,
            deadline: None,
        };
        assert_eq!(
            c.arguments(),
            json!({"source": "/s", "mode": "convos", "wing": "w"})
        );
        c.agent = Some("pi@lap".into());
        assert_eq!(c.arguments()["agent"], "pi@lap");
    }
}
