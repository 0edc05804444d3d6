//! The one route to a palace: which process is its one writer for a call (the shared primary, the
//! palace's edge owner, its registered hub, or a child of our own), and the one way to its client.

// "One writer per palace" was decided in six places, each a little differently (issue 29):
// - `mpt call` (`owner_of`): the primary when one is configured; else the edge owner; else its own
//   child (`--child` honoured, stderr at -v), even beside a writer that is no owner (MemPalace
//   itself refuses a second writer: exit 6).
// - `mpt mailbox`: every read from the primary; `ack` through the edge owner first (the one
//   writer, which answers offline and queues), else the primary. Its owner client had no per-call
//   deadline where every other had MEMPALACE_MCP_TIMEOUT_MS: an accident, now the same as theirs.
// - `outbox backfill` (`local_client`): never the primary (it reads what this device holds): the
//   edge owner with local reads (as `backfill`), else its own child, refused (exit 6) beside a
//   writer that is no owner.
// - doctor's `transport`: the primary when configured (probed with a 20 s deadline); else the edge
//   owner (as `doctor`); else a read-only child with no respawn, which may sit beside anything.
// - doctor's `outbox`: only whether an edge owner runs (then one flushes).
// - `feed mine` (`Route`, `choose_route`): the primary unless MEMPALACE_EDGE (the edge keeps the
//   mine local); else the edge owner; else a live, writable hub registered for the palace; refused
//   beside any other writer; else its own child with the primary stripped. It reached the owner
//   through a fake `OwnerPaths` and the primary with a `Path::new("")` palace.
// What differs on purpose is a parameter, not a copy: `Rule` (where the primary stands, whether a
// hub is a way in, whether a writer that is no owner is refused and with what words) and `Dial`
// (who the owner serves, local reads; our child's program, read-only, stderr; the primary's
// deadline). A caller that needs two palaces (a feed of both) holds two routes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::McpClient;
use super::client::local_child_spec;
use super::http::{HttpClient, HttpOptions};
use super::owner_socket::{self, greet};
use super::stdio::{StdioClient, StdioOptions};
use mpt_base::config::{Config, Env, McpKnobs, Secret, read_token_file};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_palace::{PalacePaths, files};

/// The process a call to a palace goes through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "via", rename_all = "snake_case")]
pub enum Route {
    /// `MEMPALACE_REMOTE_URL`: the shared primary.
    Primary { url: String },
    /// An `mpt edge` owner serves the local palace: its one child is the writer, reached on its
    /// socket.
    #[serde(rename = "edge")]
    EdgeOwner { socket: PathBuf, pid: Option<u32> },
    /// A live `mempalace serve` registered for the local palace: it holds the writer lease.
    Hub {
        url: String,
        pid: u32,
        palace: PathBuf,
        /// Its registry token (`<server dir>/token`, mode 0600), when it wrote one.
        #[serde(skip)]
        token_file: PathBuf,
    },
    /// Nobody we may go through holds the local palace: a `mempalace-mcp --palace` of our own.
    #[serde(rename = "child")]
    OwnChild { palace: PathBuf },
}

/// Where the configured primary stands among the ways in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimaryFirst {
    /// Before anything local (`mpt call`, doctor, a feed without MEMPALACE_EDGE).
    Yes,
    /// After the palace's edge owner, which writes locally and queues for it (`mailbox ack`).
    AfterOwner,
    /// Never: the local palace itself (backfill, doctor's outbox, a feed under the edge).
    Never,
}

/// A process that holds the palace's writer lease and is no edge owner (nor a hub we go through).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beside {
    /// Our own child anyway (MemPalace refuses it a write; or it is a read-only probe).
    Allow,
    /// Refused, exit 6: "the palace P is held by WHO{why}", with `hint`.
    Refuse {
        why: &'static str,
        hint: &'static str,
    },
}

/// How one caller picks its route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub primary: PrimaryFirst,
    /// A live, writable hub registered for the palace is a way in (`feed mine`).
    pub hub: bool,
    pub beside_writer: Beside,
}

impl Rule {
    /// The primary when configured, else the palace's owner, else a child of our own beside
    /// whatever holds the palace (`mpt call`, doctor's transport).
    pub const PRIMARY_FIRST: Rule = Rule {
        primary: PrimaryFirst::Yes,
        hub: false,
        beside_writer: Beside::Allow,
    };

    /// The local palace only: its owner, else a child of our own.
    pub const LOCAL: Rule = Rule {
        primary: PrimaryFirst::Never,
        hub: false,
        beside_writer: Beside::Allow,
    };
}

/// How to reach the route's process: what differs between callers on purpose.
#[derive(Debug, Clone, Copy)]
pub struct Dial<'a> {
    /// Whom the edge owner serves (its stamping applies): the harness, or one of mpt's readers.
    pub harness: &'a str,
    /// The owner answers reads from this palace alone, never merged with the primary's.
    pub local_reads: bool,
    /// Our own child's program (`--child`; else the config's `child`, else PATH's).
    pub child: Option<&'a Path>,
    /// Our own child is a probe: read-only (never a second writer) and never respawned.
    pub read_only_child: bool,
    /// Our own child's stderr shown (or the config's `ext_debug`).
    pub show_stderr: bool,
    /// The primary's per-call deadline instead of MEMPALACE_MCP_TIMEOUT_MS.
    pub primary_timeout: Option<Duration>,
}

impl<'a> Dial<'a> {
    /// The owner as `harness`, our own child as configured, the primary's default deadline.
    pub fn as_harness(harness: &'a str) -> Dial<'a> {
        Dial {
            harness,
            local_reads: false,
            child: None,
            read_only_child: false,
            show_stderr: false,
            primary_timeout: None,
        }
    }
}

impl Route {
    /// The configured primary's route, if one is configured.
    pub fn primary(config: &Config) -> Option<Route> {
        config
            .remote
            .as_ref()
            .map(|r| Route::Primary { url: r.url.clone() })
    }

    /// Picks the one writer of the palace `palace` resolves (only once a local route is
    /// considered: a call for the primary needs no local palace) for a caller following `rule`.
    pub fn choose(
        env: &Env,
        config: &Config,
        palace: impl FnOnce() -> Result<PalacePaths>,
        rule: Rule,
    ) -> Result<Route> {
        if rule.primary == PrimaryFirst::Yes
            && let Some(p) = Route::primary(config)
        {
            return Ok(p);
        }
        let palace = &palace()?;
        if let Some(owner) = owner_socket::live(env, &palace.home, &palace.palace) {
            return Ok(Route::EdgeOwner {
                pid: owner_socket::owner_pid(&owner),
                socket: owner.socket,
            });
        }
        if rule.primary == PrimaryFirst::AfterOwner
            && let Some(p) = Route::primary(config)
        {
            return Ok(p);
        }
        if rule.hub
            && let Some(hub) = hub(palace)?
        {
            return Ok(hub);
        }
        if let Beside::Refuse { why, hint } = rule.beside_writer
            && let Some(who) = files::lease_held_by(&palace.writer_lease)?
        {
            return Err(MptError::new(
                ErrorKind::Busy,
                format!(
                    "the palace {} is held by {who}{why}",
                    palace.palace.display()
                ),
            )
            .with_hint(hint));
        }
        Ok(Route::OwnChild {
            palace: palace.palace.clone(),
        })
    }

    /// Whether the process keeps working on a call after we stop waiting (not so for our own
    /// child, which a deadline stops).
    pub fn outlives_us(&self) -> bool {
        !matches!(self, Route::OwnChild { .. })
    }

    pub fn describe(&self) -> String {
        match self {
            Route::Primary { url } => format!("the primary {url}"),
            Route::Hub { url, pid, .. } => format!("the palace's hub {url} (pid {pid})"),
            Route::EdgeOwner { socket, pid } => format!(
                "the palace's edge owner {} (pid {})",
                socket.display(),
                pid.map_or("?".into(), |p| p.to_string())
            ),
            Route::OwnChild { palace } => format!("a local mempalace-mcp on {}", palace.display()),
        }
    }

    /// The client for this route. A hub is reached with its registry token, else
    /// `MEMPALACE_MCP_HTTP_TOKEN`, as MemPalace's own proxies do.
    pub fn client(&self, env: &Env, config: &Config, dial: &Dial<'_>) -> Result<McpClient> {
        match self {
            Route::Primary { .. } => {
                let remote = config.remote.as_ref().ok_or_else(|| {
                    MptError::usage("no primary is configured (MEMPALACE_REMOTE_URL)")
                })?;
                let defaults = HttpOptions::for_remote(remote, config);
                Ok(McpClient::Remote(
                    HttpClient::new(HttpOptions {
                        timeout: dial.primary_timeout.or(defaults.timeout),
                        ..defaults
                    })?
                    .renewing_from(remote),
                ))
            }
            Route::EdgeOwner { socket, .. } => Ok(greet(
                socket,
                dial.harness,
                dial.local_reads,
                config.mcp.timeout,
            )),
            Route::OwnChild { palace } => {
                let mut spec = local_child_spec(config, palace, dial.child);
                let mut knobs = config.mcp;
                if dial.read_only_child {
                    spec.env
                        .push(("MEMPALACE_MCP_READ_ONLY".into(), "1".into()));
                    knobs = McpKnobs {
                        max_respawns: 0,
                        ..knobs
                    };
                }
                Ok(McpClient::Local(StdioClient::new(
                    spec,
                    StdioOptions::new(knobs, dial.show_stderr || config.ext_debug),
                )))
            }
            Route::Hub {
                url, token_file, ..
            } => {
                let token = if token_file.is_file() {
                    Some(read_token_file(token_file)?)
                } else {
                    env.get("MEMPALACE_MCP_HTTP_TOKEN")
                        .map(|t| Secret::new(t.to_string()))
                };
                let ca_file = mpt_base::config::values::check_ca_file(env, &config.file)?;
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
}

/// The live, writable hub registered for `palace` (`mempalace serve`'s registry), if any.
fn hub(palace: &PalacePaths) -> Result<Option<Route>> {
    let Some(hub) = files::server_info(&palace.serverinfo)? else {
        return Ok(None);
    };
    if !hub.alive || hub.read_only || hub.port == 0 {
        return Ok(None);
    }
    let host = match hub.host.as_str() {
        "0.0.0.0" | "" => "127.0.0.1".to_string(),
        "::" => "[::1]".to_string(),
        h if h.contains(':') && !h.starts_with('[') => format!("[{h}]"),
        h => h.to_string(),
    };
    Ok(Some(Route::Hub {
        url: format!("{}://{host}:{}/mcp", hub.scheme, hub.port),
        pid: hub.pid,
        palace: palace.palace.clone(),
        token_file: palace.server_dir.join("token"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_route_serializes_as_the_feed_reports_it() {
        let child = Route::OwnChild {
            palace: "/p".into(),
        };
        assert_eq!(
            serde_json::to_value(&child).unwrap(),
            json!({"via": "child", "palace": "/p"})
        );
        let owner = Route::EdgeOwner {
            socket: "/s".into(),
            pid: Some(7),
        };
        assert_eq!(
            serde_json::to_value(&owner).unwrap(),
            json!({"via": "edge", "socket": "/s", "pid": 7})
        );
        let hub = Route::Hub {
            url: "http://127.0.0.1:1/mcp".into(),
            pid: 3,
            palace: "/p".into(),
            token_file: "/secret/token".into(),
        };
        assert_eq!(
            serde_json::to_value(&hub).unwrap(),
            json!({"via": "hub", "url": "http://127.0.0.1:1/mcp", "pid": 3, "palace": "/p"})
        );
        assert!(!child.outlives_us() && owner.outlives_us());
    }

    #[test]
    fn with_nothing_running_the_local_rule_is_our_own_child() {
        let home = tempfile::tempdir().unwrap();
        let env = Env::from_pairs([("HOME", home.path().to_str().unwrap())]);
        let palace = PalacePaths::resolve(&env, Some(&home.path().join("palace"))).unwrap();
        let config = Config::load(&env, None).unwrap();
        let route = Route::choose(&env, &config, || Ok(palace.clone()), Rule::LOCAL).unwrap();
        assert_eq!(
            route,
            Route::OwnChild {
                palace: palace.palace.clone()
            }
        );
        assert_eq!(Route::primary(&config), None);
    }
}
