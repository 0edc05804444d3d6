//! The effective configuration: the seeds' environment variables, flags, and the optional JSON
//! file (`MPT_CONFIG` or `$XDG_CONFIG_HOME/mpt/config.json`). Unknown fields are refused.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::error::{MptError, Result};

pub mod device;
pub mod edge;
mod env;
pub mod feed;
mod file;
pub mod gateway;
pub mod knobs;
mod parse;
pub mod pull;
pub mod read;
mod token;
pub mod values;
pub mod vars;
pub mod xdg;

pub use token::{device_token_file, env_line_token, read_token_file, token_file_setting};

pub use env::Env;
use file::load_file;
pub use file::{Chosen, FILE_NAME, chosen_file, default_file};
pub use parse::parse_file;
pub use xdg::Xdg;

pub use edge::EdgeKnobs;
pub use feed::FeedKnobs;
pub use pull::PullKnobs;

/// A secret that cannot be printed by accident: no `Display`, no `Serialize`, redacted `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value and registers it for scrubbing (`crate::secrets`): from here on it
    /// is replaced in everything mpt prints or stores, even when a server echoes it back.
    pub fn new(s: String) -> Self {
        crate::secrets::register(&s);
        Secret(s)
    }

    /// The places the value leaves: the `Authorization` header, and the stdin of the edge's pull
    /// of the primary's log (MemPalace's own sync sends it as that header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    Env,
    File(PathBuf),
}

impl TokenSource {
    pub fn describe(&self) -> String {
        match self {
            TokenSource::Env => "MEMPALACE_REMOTE_TOKEN".to_string(),
            TokenSource::File(p) => format!("token file {}", p.display()),
        }
    }

    /// What a new token needs beyond being written where this source reads it: a file is read
    /// again by a running edge at its next refusal; the environment only at a process's start.
    pub fn after_a_new_token(&self) -> String {
        match self {
            TokenSource::Env => "; MEMPALACE_REMOTE_TOKEN is read when a process starts: set the new token where the harness's shell sets it, then restart the harness sessions (their edge cannot see it change)".into(),
            TokenSource::File(p) => format!(
                "; a running edge reads {} again at its next refusal: no session needs a restart",
                p.display()
            ),
        }
    }
}

/// The shared primary, when `MEMPALACE_REMOTE_URL` is set.
#[derive(Debug, Clone)]
pub struct Remote {
    pub url: String,
    pub token: Option<(Secret, TokenSource)>,
    pub ca_file: Option<PathBuf>,
}

/// Stall protection and self-heal for the stdio child (bridge README, same names and defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpKnobs {
    /// `None` = disabled (the env value 0).
    pub timeout: Option<Duration>,
    pub init_timeout: Option<Duration>,
    pub max_respawns: u32,
    pub respawn_backoff: Duration,
}

impl Default for McpKnobs {
    fn default() -> Self {
        McpKnobs {
            timeout: Some(Duration::from_millis(60_000)),
            init_timeout: Some(Duration::from_millis(300_000)),
            max_respawns: 2,
            respawn_backoff: Duration::from_millis(1000),
        }
    }
}

/// Deadlines for the primary, a network peer (seconds, not the local child's 300 s cold-open
/// budget): `MPT_PRIMARY_CONNECT_MS` and `MPT_PRIMARY_HANDSHAKE_MS`. A call keeps its own
/// per-tool deadline (a slow `add_drawer` or `event_wait` is legitimate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrimaryKnobs {
    /// A TCP (and TLS) connect; zero = none.
    pub connect: Duration,
    /// `initialize` + `tools/list`; `None` = none (the env value 0).
    pub handshake: Option<Duration>,
}

impl Default for PrimaryKnobs {
    fn default() -> Self {
        PrimaryKnobs {
            connect: Duration::from_millis(3_000),
            handshake: Some(Duration::from_millis(10_000)),
        }
    }
}

impl PrimaryKnobs {
    /// The longest the primary may stay silent outside a tool's own call: a stuck flusher is one
    /// whose heartbeat is older than twice this.
    pub fn network_deadline(&self) -> Duration {
        self.handshake.unwrap_or(Duration::from_millis(10_000))
    }
}

fn optional_ms(ms: u64) -> Option<Duration> {
    (ms > 0).then(|| Duration::from_millis(ms))
}

/// Replication policy for a wing (edge): glob pattern → policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WingPolicy {
    Replicated,
    Local,
}

/// A primary's bind chosen on purpose (`mpt runbook phase1 --bind-ok`, `serve_bind` in the
/// config): the runbook's `serve-bind` step is done, its evidence stating what the choice costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ServeBind {
    /// 127.0.0.1 / ::1: other devices need `mpt gateway` or a tunnel in front
    Loopback,
    /// Every interface (0.0.0.0) or a LAN address: TLS and a token on it
    Lan,
}

/// The optional JSON file: what the environment cannot say well.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// The local palace (else MemPalace's own rules decide).
    pub palace: Option<PathBuf>,
    /// The `mempalace-mcp` binary to start (else PATH).
    pub child: Option<PathBuf>,
    /// Harness name for provenance (`<harness>@<device>`).
    pub harness: Option<String>,
    /// Extra CA (PEM) trusted for the primary, e.g. a self-signed one.
    pub ca_file: Option<PathBuf>,
    /// Where the remote token lives (mode 0600), when not in `MEMPALACE_REMOTE_TOKEN`.
    pub token_file: Option<PathBuf>,
    /// The primary's embedder identity, when its `/sync/version_vector` is not reachable.
    pub primary_embedder: Option<String>,
    /// The primary's bind, chosen on purpose (`loopback` | `lan`; `mpt runbook phase1 --bind-ok`).
    pub serve_bind: Option<ServeBind>,
    /// Per-wing replication policy: glob → `replicated` | `local`.
    #[serde(default)]
    pub replication: BTreeMap<String, WingPolicy>,
    /// The outbox file (else `MPT_OUTBOX`, else `~/.mempalace/edge/outbox.sqlite3`).
    pub outbox: Option<PathBuf>,
    /// Device globs whose diary entries and coordination events the edge shows (its own always);
    /// unset: every device's.
    pub trusted_devices: Option<Vec<String>>,
    /// The primary's URL, when `MEMPALACE_REMOTE_URL` is not set (the opt-in, from the file).
    pub remote_url: Option<String>,
    /// This device's name, when `MEMPALACE_PI_DEVICE` is not set.
    pub device: Option<String>,
    /// The edge opt-in, when `MEMPALACE_EDGE` is not set.
    pub edge: Option<bool>,
}

/// Everything a command may need, resolved once.
#[derive(Debug, Clone)]
pub struct Config {
    pub remote: Option<Remote>,
    pub edge_opt_in: bool,
    pub device: Option<String>,
    /// Where the URL, the device's name and the edge opt-in came from (environment or file).
    pub origins: device::Origins,
    pub agent_name: String,
    pub harness: String,
    pub mcp: McpKnobs,
    pub primary: PrimaryKnobs,
    pub ext_debug: bool,
    pub feed: FeedKnobs,
    pub pull: PullKnobs,
    pub edge: EdgeKnobs,
    pub file: FileConfig,
    /// The file that was read, if any.
    pub file_path: Option<PathBuf>,
    /// A primary is configured but its token could not be read (a token file others can read,
    /// a missing one): set only by `load_serving`, which then leaves `remote` unset.
    pub cut_off: Option<MptError>,
    /// A local child forwards to its palace's running `serve` (MemPalace's hub forwarding is not
    /// off) and has no `MEMPALACE_MCP_HTTP_TOKEN` of its own: mpt may hand it serve's.
    pub child_needs_hub_token: bool,
}

impl Config {
    /// Loads env, then the file (`flag_path` from `--mpt-config` wins over `MPT_CONFIG`).
    pub fn load(env: &Env, flag_path: Option<&Path>) -> Result<Config> {
        Config::load_with(env, flag_path, false)
    }

    /// As `load`, for an edge that serves a harness: a configured primary whose token cannot be
    /// read is `cut_off` (the edge serves this palace alone, each reply saying why) instead of
    /// an error, so the harness never loses its memory tools to a token file's mode.
    pub fn load_serving(env: &Env, flag_path: Option<&Path>) -> Result<Config> {
        Config::load_with(env, flag_path, true)
    }

    fn load_with(env: &Env, flag_path: Option<&Path>, serving: bool) -> Result<Config> {
        for key in values::PATH_VARS {
            values::env_path(env, key)?;
        }
        values::check_device(env)?;
        let (file, file_path) = load_file(env, flag_path)?;
        let mcp = McpKnobs {
            timeout: optional_ms(env.millis("MEMPALACE_MCP_TIMEOUT_MS", 60_000)?),
            init_timeout: optional_ms(env.millis("MEMPALACE_MCP_INIT_TIMEOUT_MS", 300_000)?),
            max_respawns: env.count("MEMPALACE_MCP_MAX_RESPAWNS", 2)?,
            respawn_backoff: Duration::from_millis(
                env.millis("MEMPALACE_MCP_RESPAWN_BACKOFF_MS", 1000)?,
            ),
        };
        let primary = PrimaryKnobs {
            connect: Duration::from_millis(env.millis("MPT_PRIMARY_CONNECT_MS", 3_000)?),
            handshake: optional_ms(env.millis("MPT_PRIMARY_HANDSHAKE_MS", 10_000)?),
        };
        let settings = device::resolve(env, &file)?;
        let mut cut_off = None;
        let remote = match settings.remote_url.as_deref() {
            None => {
                read::register_unused_token(env, file.token_file.as_deref());
                None
            }
            Some(url) => {
                let url = validate_url(url, settings.origins.remote_url)?;
                match token::load_token(env, &file) {
                    Ok(token) => Some(Remote {
                        url,
                        token,
                        ca_file: values::check_ca_file(env, &file)?,
                    }),
                    Err(e) if serving => {
                        cut_off = Some(e);
                        None
                    }
                    Err(e) => return Err(e),
                }
            }
        };
        Ok(Config {
            remote,
            edge_opt_in: settings.edge,
            device: settings.device.clone(),
            origins: settings.origins,
            agent_name: env.get("MEMPALACE_AGENT_NAME").unwrap_or("pi").to_string(),
            harness: file.harness.clone().unwrap_or_else(|| "mcp".to_string()),
            mcp,
            primary,
            ext_debug: env.flag("MEMPALACE_EXT_DEBUG", false)?,
            feed: FeedKnobs::from_env(env)?,
            pull: PullKnobs::from_env(env)?,
            edge: EdgeKnobs::from_env(env)?,
            file,
            file_path,
            cut_off,
            child_needs_hub_token: !env.get("MEMPALACE_HUB_FORWARD").is_some_and(|v| {
                matches!(
                    v.trim().to_lowercase().as_str(),
                    "0" | "false" | "no" | "off"
                )
            }) && env.raw("MEMPALACE_MCP_HTTP_TOKEN")?.is_none(),
        })
    }

    /// Provenance is stamped only with a device name AND a shared palace (both gates).
    pub fn stamp_identity(&self) -> Option<String> {
        self.stamp_identity_for(&self.harness)
    }

    /// The stamp of `harness`'s writes (`<harness>@<device>`), behind the same two gates.
    pub fn stamp_identity_for(&self, harness: &str) -> Option<String> {
        match (&self.device, &self.remote) {
            (Some(d), Some(_)) => Some(format!("{harness}@{d}")),
            _ => None,
        }
    }
}

fn validate_url(url: &str, from: device::Origin) -> Result<String> {
    let shown = crate::secrets::redact_url(url);
    let setting = match from {
        device::Origin::File => "the config's remote_url",
        _ => "MEMPALACE_REMOTE_URL",
    };
    if !url.contains("://") {
        // `palace.lan:8765/mcp` parses as the scheme `palace.lan`: say what is really missing.
        return Err(MptError::usage(format!(
            "{setting}='{shown}' has no scheme: mpt cannot tell how to reach the primary"
        ))
        .with_hint(format!(
            "export MEMPALACE_REMOTE_URL=https://{}",
            shown.trim_start_matches('/')
        )));
    }
    let parsed = reqwest::Url::parse(url).map_err(|e| {
        MptError::usage(format!("{setting}='{shown}' is not a URL: {e}"))
            .with_hint("set it to the primary's endpoint, e.g. https://palace.example:8765/mcp")
    })?;
    if crate::secrets::has_userinfo(&parsed) {
        // The HTTP client would send it as Basic auth (the primary then refuses it as a bad
        // token), and every place that shows the URL would show the secret.
        return Err(MptError::usage(format!(
            "{setting}='{shown}' carries a user name or password before the host: mpt never puts a secret in a URL"
        ))
        .with_hint(
            "move the secret into MEMPALACE_REMOTE_TOKEN (or a 0600 file named by MPT_TOKEN_FILE) and set MEMPALACE_REMOTE_URL without the `user:password@` part",
        ));
    }
    match parsed.scheme() {
        "http" | "https" => Ok(url.to_string()),
        other => Err(MptError::usage(format!(
            "{setting} uses the scheme '{other}': only https:// (or http:// on loopback) is spoken"
        ))
        .with_hint("set MEMPALACE_REMOTE_URL to the primary's https:// endpoint, e.g. https://palace.example:8765/mcp")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_env_values_count_as_unset() {
        let env = Env::from_pairs([("MEMPALACE_REMOTE_URL", ""), ("HOME", "/h")]);
        let c = Config::load(&env, None).unwrap();
        assert!(c.remote.is_none());
    }

    #[test]
    fn knobs_default_and_zero_disables() {
        let env = Env::from_pairs([("MEMPALACE_MCP_TIMEOUT_MS", "0"), ("HOME", "/nonexistent")]);
        let c = Config::load(&env, None).unwrap();
        assert_eq!(c.mcp.timeout, None);
        assert_eq!(c.mcp.init_timeout, Some(Duration::from_millis(300_000)));
        assert_eq!(c.mcp.max_respawns, 2);
        assert_eq!(c.mcp.respawn_backoff, Duration::from_millis(1000));
    }

    #[test]
    fn malformed_knob_is_a_usage_error_naming_the_variable() {
        let env = Env::from_pairs([("MEMPALACE_MCP_MAX_RESPAWNS", "two")]);
        let e = Config::load(&env, None).unwrap_err();
        assert_eq!(e.exit().code(), 2);
        assert!(
            e.message.contains("MEMPALACE_MCP_MAX_RESPAWNS"),
            "{}",
            e.message
        );
    }

    #[test]
    fn mempalace_edge_is_1_0_or_empty_and_anything_else_is_exit_2_naming_it() {
        for (v, want) in [("1", true), ("0", false), ("", false)] {
            let env = Env::from_pairs([("HOME", "/h"), ("MEMPALACE_EDGE", v)]);
            assert_eq!(Config::load(&env, None).unwrap().edge_opt_in, want, "{v:?}");
        }
        for v in ["true", "yes", "on", "2", " 1"] {
            let env = Env::from_pairs([("HOME", "/h"), ("MEMPALACE_EDGE", v)]);
            let e = Config::load(&env, None).unwrap_err();
            assert_eq!(e.exit().code(), 2, "{v:?}");
            assert!(
                e.message.contains(&format!("MEMPALACE_EDGE='{v}'")),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn the_primary_has_network_deadlines_of_its_own() {
        let env = Env::from_pairs([("HOME", "/nonexistent")]);
        let c = Config::load(&env, None).unwrap();
        assert_eq!(c.primary, PrimaryKnobs::default());
        assert_eq!(c.primary.connect, Duration::from_millis(3_000));
        assert_eq!(c.primary.handshake, Some(Duration::from_millis(10_000)));
        let env = Env::from_pairs([
            ("HOME", "/nonexistent"),
            ("MPT_PRIMARY_CONNECT_MS", "250"),
            ("MPT_PRIMARY_HANDSHAKE_MS", "0"),
        ]);
        let c = Config::load(&env, None).unwrap();
        assert_eq!(c.primary.connect, Duration::from_millis(250));
        assert_eq!(c.primary.handshake, None);
        for key in ["MPT_PRIMARY_CONNECT_MS", "MPT_PRIMARY_HANDSHAKE_MS"] {
            let env = Env::from_pairs([("HOME", "/nonexistent"), (key, "3s")]);
            let e = Config::load(&env, None).unwrap_err();
            assert_eq!(e.exit().code(), 2, "{key}");
            assert!(e.message.contains(key), "{key}: {}", e.message);
        }
    }

    #[test]
    fn stamping_needs_both_gates() {
        let base = [("HOME", "/nonexistent")];
        let only_device =
            Env::from_pairs(base.iter().copied().chain([("MEMPALACE_PI_DEVICE", "lap")]));
        assert_eq!(
            Config::load(&only_device, None).unwrap().stamp_identity(),
            None
        );
        let both = Env::from_pairs(base.iter().copied().chain([
            ("MEMPALACE_PI_DEVICE", "lap"),
            ("MEMPALACE_REMOTE_URL", "https://127.0.0.1:1/mcp"),
        ]));
        assert_eq!(
            Config::load(&both, None)
                .unwrap()
                .stamp_identity()
                .as_deref(),
            Some("mcp@lap")
        );
    }

    #[test]
    fn secret_debug_is_redacted() {
        let s = Secret::new("hunter2".into());
        assert!(!format!("{s:?}").contains("hunter2"));
    }
}
