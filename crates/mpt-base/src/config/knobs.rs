//! Every knob `mpt config` shows, with its effective value and where it came from (the
//! environment, the config file, or its default): read off the loaded [`Config`], never reparsed.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use super::edge::OutboxSync;
use super::{Config, Env};

/// Where a knob's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Env,
    File,
    Default,
}

/// One knob as `mpt config` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Knob {
    /// The environment variable (or, for a file-only setting, the file's field).
    pub name: &'static str,
    pub value: String,
    pub source: Source,
}

fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

/// `0` (off) for a deadline that is none.
fn ms_or_off(d: Option<Duration>) -> String {
    d.map_or("0 (off)".into(), ms)
}

fn path(p: &Option<impl AsRef<Path>>) -> String {
    p.as_ref()
        .map_or("(unset)".into(), |p| p.as_ref().display().to_string())
}

/// The knobs of `config`, each with its source, in a fixed order.
pub fn all(config: &Config, env: &Env) -> Vec<Knob> {
    let from_env = |name: &'static str, value: String| Knob {
        name,
        value,
        source: if env.get(name).is_some() {
            Source::Env
        } else {
            Source::Default
        },
    };
    // A setting the environment or the file may give: the environment wins.
    let env_or_file = |name: &'static str, in_file: bool, value: String| Knob {
        name,
        value,
        source: match (env.get(name).is_some(), in_file) {
            (true, _) => Source::Env,
            (false, true) => Source::File,
            _ => Source::Default,
        },
    };
    let file_only = |name: &'static str, in_file: bool, value: String| Knob {
        name,
        value,
        source: if in_file {
            Source::File
        } else {
            Source::Default
        },
    };
    let (c, f) = (config, &config.file);
    let poll = super::edge::mailbox_poll_floor(env)
        .map_or_else(|e| e.message, |v| ms(Duration::from_millis(v)));
    let silence = super::edge::mailbox_stream_silence(env).map_or_else(|e| e.message, ms);
    vec![
        from_env("MEMPALACE_MCP_TIMEOUT_MS", ms_or_off(c.mcp.timeout)),
        from_env(
            "MEMPALACE_MCP_INIT_TIMEOUT_MS",
            ms_or_off(c.mcp.init_timeout),
        ),
        from_env("MEMPALACE_MCP_MAX_RESPAWNS", c.mcp.max_respawns.to_string()),
        from_env(
            "MEMPALACE_MCP_RESPAWN_BACKOFF_MS",
            ms(c.mcp.respawn_backoff),
        ),
        from_env("MPT_PRIMARY_CONNECT_MS", ms(c.primary.connect)),
        from_env("MPT_PRIMARY_HANDSHAKE_MS", ms_or_off(c.primary.handshake)),
        from_env("MPT_EDGE_GRACE_MS", ms(c.edge.grace)),
        from_env("MPT_EDGE_LINGER_MS", ms(c.edge.linger)),
        from_env("MPT_EDGE_READ_DEADLINE_MS", ms(c.edge.read_deadline)),
        from_env("MPT_EDGE_PULL_MS", ms_or_off(c.pull.interval)),
        from_env("MPT_EDGE_PULL_DEADLINE_MS", ms(c.pull.deadline)),
        from_env(
            "MPT_EDGE_PULL_MEMORY_BYTES",
            c.pull
                .memory
                .map_or("0 (no bound)".into(), |b| format!("{b} bytes")),
        ),
        from_env(
            "MPT_OUTBOX_SYNC",
            match c.edge.outbox_sync {
                OutboxSync::Full => "full",
                OutboxSync::Normal => "normal",
            }
            .into(),
        ),
        env_or_file("MPT_OUTBOX", f.outbox.is_some(), {
            let p = super::values::env_path(env, "MPT_OUTBOX").ok().flatten();
            path(&p.or_else(|| f.outbox.clone()))
        }),
        from_env("MEMPALACE_MAILBOX_POLL_MS", poll),
        from_env("MPT_MAILBOX_STREAM_SILENCE_MS", silence),
        from_env("MEMPALACE_FEED", c.feed.enabled.to_string()),
        from_env("MEMPALACE_FEED_WING", c.feed.wing.clone()),
        from_env(
            "MEMPALACE_FEED_PREPARE_TIMEOUT_MS",
            ms_or_off(c.feed.prepare_timeout),
        ),
        from_env(
            "MEMPALACE_FEED_MINE_TIMEOUT_MS",
            ms_or_off(c.feed.mine_timeout),
        ),
        // The opt-in: the environment, else the config file (`remote_url`, `device`, `edge`).
        env_or_file(
            "MEMPALACE_REMOTE_URL",
            f.remote_url.is_some(),
            c.remote
                .as_ref()
                .map_or_else(|| "(unset)".into(), |r| crate::secrets::redact_url(&r.url)),
        ),
        env_or_file(
            "MEMPALACE_PI_DEVICE",
            f.device.is_some(),
            c.device.clone().unwrap_or_else(|| "(unset)".into()),
        ),
        env_or_file(
            "MEMPALACE_EDGE",
            f.edge.is_some(),
            c.edge_opt_in.to_string(),
        ),
        from_env("MEMPALACE_AGENT_NAME", c.agent_name.clone()),
        from_env("MEMPALACE_EXT_DEBUG", c.ext_debug.to_string()),
        env_or_file("MPT_CA_FILE", f.ca_file.is_some(), {
            path(
                &c.remote
                    .as_ref()
                    .and_then(|r| r.ca_file.clone())
                    .or_else(|| f.ca_file.clone()),
            )
        }),
        env_or_file("MPT_TOKEN_FILE", f.token_file.is_some(), {
            let p = super::values::env_path(env, "MPT_TOKEN_FILE")
                .ok()
                .flatten();
            path(&p.or_else(|| f.token_file.clone()))
        }),
        file_only("palace", f.palace.is_some(), path(&f.palace)),
        file_only("child", f.child.is_some(), path(&f.child)),
        file_only("harness", f.harness.is_some(), c.harness.clone()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_knob_names_its_source() {
        let env = Env::from_pairs([("HOME", "/h"), ("MPT_EDGE_READ_DEADLINE_MS", "250")]);
        let config = Config::load(&env, None).unwrap();
        let knobs = all(&config, &env);
        let find = |n: &str| knobs.iter().find(|k| k.name == n).unwrap().clone();
        let read = find("MPT_EDGE_READ_DEADLINE_MS");
        assert_eq!((read.value.as_str(), read.source), ("250 ms", Source::Env));
        let grace = find("MPT_EDGE_GRACE_MS");
        assert_eq!(
            (grace.value.as_str(), grace.source),
            ("30000 ms", Source::Default)
        );
        assert_eq!(find("palace").source, Source::Default);
        let mut names: Vec<&str> = knobs.iter().map(|k| k.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), knobs.len(), "each knob once");
    }
}
