//! `feed mine`'s writer: the shared primary, else the local palace's live hub, else a local child,
//! never a second writer on a palace a live process holds; then one `mempalace_mine`, never retried.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use crate::config::{Config, Env, read_token_file};
use crate::error::{ErrorKind, MptError, Result};
use crate::mcp::http::{HttpClient, HttpOptions};
use crate::mcp::{CallError, Deadline, McpClient, PalaceBusy};
use crate::palace::{PalacePaths, files};

/// Which process files the drawers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "via", rename_all = "snake_case")]
pub enum Route {
    /// `MEMPALACE_REMOTE_URL`: the shared primary mines the transcripts it was sent.
    Primary { url: String },
    /// A live `mempalace serve` registered for the local palace: it holds the writer lease, so
    /// the mine goes through it.
    Hub {
        url: String,
        pid: u32,
        palace: PathBuf,
    },
    /// An `mpt edge` owner serves the local palace: its one child is the writer, so the mine
    /// goes through its socket.
    Edge { socket: PathBuf, pid: Option<u32> },
    /// Nobody holds the local palace: a `mempalace-mcp --palace` child of our own.
    Child { palace: PathBuf },
}

impl Route {
    /// Whether the mine keeps running on its own after we stop waiting (not so for our child,
    /// which a deadline kills).
    pub fn outlives_us(&self) -> bool {
        !matches!(self, Route::Child { .. })
    }

    pub fn describe(&self) -> String {
        match self {
            Route::Primary { url } => format!("the primary {url}"),
            Route::Hub { url, pid, .. } => format!("the palace's hub {url} (pid {pid})"),
            Route::Edge { socket, pid } => format!(
                "the palace's edge owner {} (pid {})",
                socket.display(),
                pid.map_or("?".into(), |p| p.to_string())
            ),
            Route::Child { palace } => format!("a local mempalace-mcp on {}", palace.display()),
        }
    }
}

/// Picks the writer. Local mode refuses (exit 6) when a live process holds the writer lease and no
/// hub is registered to go through. Under the edge the mine is local (the edge keeps `mine` off
/// the primary): the primary's own mine of the shipped copy is queued by the prepare.
pub fn choose_route(env: &Env, config: &Config, palace: Option<&Path>) -> Result<Route> {
    if let Some(r) = config.remote.as_ref().filter(|_| !config.edge_opt_in) {
        return Ok(Route::Primary { url: r.url.clone() });
    }
    let paths = PalacePaths::chosen(env, palace, Some(config))?;
    if let Some(owner) = crate::edge::owner::live(&paths.home, &paths.palace) {
        let pid = crate::edge::owner::owner_pid(&owner);
        return Ok(Route::Edge {
            socket: owner.socket,
            pid,
        });
    }
    if let Some(hub) = files::server_info(&paths.serverinfo)?
        && hub.alive
        && !hub.read_only
        && hub.port > 0
    {
        let host = match hub.host.as_str() {
            "0.0.0.0" | "" => "127.0.0.1".to_string(),
            "::" => "[::1]".to_string(),
            h if h.contains(':') && !h.starts_with('[') => format!("[{h}]"),
            h => h.to_string(),
        };
        return Ok(Route::Hub {
            url: format!("{}://{host}:{}/mcp", hub.scheme, hub.port),
            pid: hub.pid,
            palace: paths.palace,
        });
    }
    if let Some(who) = files::lease_held_by(&paths.writer_lease)? {
        return Err(MptError::new(
            ErrorKind::Busy,
            format!(
                "the palace {} is held by {who} and no hub is registered for it: a second writer would be refused",
                paths.palace.display()
            ),
        )
        .with_hint("the transcripts stay staged: mine them through the session that holds the palace (print MINE_SOURCE with `mpt feed prepare`), or run `mpt feed mine` again once it exits"));
    }
    Ok(Route::Child {
        palace: paths.palace,
    })
}

/// The client for a route. A hub is reached with its registry token (`<server dir>/token`, mode
/// 0600) or `MEMPALACE_MCP_HTTP_TOKEN`, as MemPalace's own proxies do.
pub fn client_for(
    route: &Route,
    env: &Env,
    config: &Config,
    show_stderr: bool,
) -> Result<McpClient> {
    match route {
        Route::Primary { .. } => Ok(McpClient::from_config(
            config,
            Path::new(""),
            None,
            show_stderr,
        )?),
        Route::Child { palace } => {
            // Always the local palace's own child (under the edge a primary is configured too).
            let local = Config {
                remote: None,
                ..config.clone()
            };
            Ok(McpClient::from_config(&local, palace, None, show_stderr)?)
        }
        Route::Edge { socket, .. } => {
            let paths = crate::edge::owner::OwnerPaths {
                socket: socket.clone(),
                lock: PathBuf::new(),
                log: PathBuf::new(),
                linger: PathBuf::new(),
            };
            Ok(crate::edge::owner::client(
                &paths,
                &config.harness,
                config.mcp.timeout,
            ))
        }
        Route::Hub { url, palace, .. } => {
            let paths = PalacePaths::resolve(env, Some(palace))?;
            let token_file = paths.server_dir.join("token");
            let token = if token_file.is_file() {
                Some(read_token_file(&token_file)?)
            } else {
                env.get("MEMPALACE_MCP_HTTP_TOKEN")
                    .map(|t| crate::config::Secret::new(t.to_string()))
            };
            let ca_file = crate::config::values::check_ca_file(env, &config.file)?;
            Ok(McpClient::Remote(HttpClient::new(HttpOptions {
                url: url.clone(),
                token,
                ca_file,
                timeout: config.mcp.timeout,
                init_timeout: config.mcp.init_timeout,
                connect_timeout: Duration::from_secs(10),
            })?))
        }
    }
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
