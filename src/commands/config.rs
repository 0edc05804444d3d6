//! `mpt config`: the effective configuration and where it came from. The token is reported as
//! set or not and by which source, never by value.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::commands::Ctx;
use mpt_base::config::TokenSource;
use mpt_base::config::knobs::Source;
use mpt_base::error::{Exit, Result};

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let c = ctx.config()?;
    let ms = |d: Option<std::time::Duration>| d.map(|d| d.as_millis() as u64).unwrap_or(0);
    let doc = ConfigDoc {
        schema: mpt_base::schema::CONFIG,
        file: c.file_path.as_deref(),
        transport: if c.remote.is_some() {
            "remote"
        } else {
            "local"
        },
        remote: c.remote.as_ref().map(|r| RemoteDoc {
            url: mpt_base::secrets::redact_url(&r.url),
            token: r.token.as_ref().map(|(_, source)| match source {
                TokenSource::Env => TokenDoc::Env {
                    name: "MEMPALACE_REMOTE_TOKEN",
                },
                TokenSource::File(p) => TokenDoc::File { path: p },
            }),
            ca_file: r.ca_file.as_deref(),
        }),
        edge_opt_in: c.edge_opt_in,
        device: c.device.as_deref(),
        agent_name: &c.agent_name,
        harness: &c.harness,
        stamp_identity: c.stamp_identity(),
        mcp: McpDoc {
            timeout_ms: ms(c.mcp.timeout),
            init_timeout_ms: ms(c.mcp.init_timeout),
            max_respawns: c.mcp.max_respawns,
            respawn_backoff_ms: c.mcp.respawn_backoff.as_millis() as u64,
        },
        primary_deadlines: DeadlinesDoc {
            connect_ms: c.primary.connect.as_millis() as u64,
            handshake_ms: ms(c.primary.handshake),
        },
        ext_debug: c.ext_debug,
        feed: FeedDoc {
            enabled: c.feed.enabled,
            wing: &c.feed.wing,
            prepare_timeout_ms: ms(c.feed.prepare_timeout),
            mine_timeout_ms: ms(c.feed.mine_timeout),
            sessions_dir: ctx.env.home().ok().map(|h| c.feed.sessions_dir(&h)),
            ssh_target: c.feed.ssh_target.as_deref(),
            ssh_config: c.feed.ssh_config.as_deref(),
            remote_path: c
                .remote
                .as_ref()
                .map(|_| c.feed.remote_path_or_default(c.device.as_deref())),
        },
        palace: c.file.palace.as_deref(),
        child: c.file.child.as_deref(),
        replication: &c.file.replication,
        knobs: mpt_base::config::knobs::all(&c, &ctx.env),
    };
    let transport = doc.transport;
    ctx.out.emit_typed(&doc, |w| {
        let row = |w: &mut dyn std::io::Write, k: &str, v: String| writeln!(w, "{k:<18} {v}");
        row(
            w,
            "config file",
            c.file_path
                .as_ref()
                .map_or("(none)".into(), |p| p.display().to_string()),
        )?;
        row(w, "transport", transport.into())?;
        if let Some(r) = &c.remote {
            row(w, "primary", mpt_base::secrets::redact_url(&r.url))?;
            let tok = match &r.token {
                None => "not set".to_string(),
                Some((_, s)) => format!("set, from {}", s.describe()),
            };
            row(w, "token", tok)?;
        }
        row(
            w,
            "device",
            c.device.clone().unwrap_or_else(|| "(unset)".into()),
        )?;
        row(
            w,
            "stamping",
            c.stamp_identity().unwrap_or_else(|| {
                "off (needs MEMPALACE_PI_DEVICE and MEMPALACE_REMOTE_URL)".into()
            }),
        )?;
        row(w, "edge opt-in", c.edge_opt_in.to_string())?;
        let feed = if !c.feed.enabled {
            "off (MEMPALACE_FEED=0)".to_string()
        } else {
            match (&c.remote, &c.feed.ssh_target) {
                (None, _) => format!("local, into {}", c.feed.wing),
                (Some(_), Some(t)) => format!(
                    "remote via {t}:{}, into {}",
                    c.feed.remote_path_or_default(c.device.as_deref()),
                    c.feed.wing
                ),
                (Some(_), None) => {
                    "skipped (remote palace, no MEMPALACE_PI_SSH_TARGET)".to_string()
                }
            }
        };
        row(w, "feed", feed)?;
        row(w, "mcp timeout", format!("{} ms", doc.mcp.timeout_ms))?;
        row(w, "init timeout", format!("{} ms", doc.mcp.init_timeout_ms))?;
        row(
            w,
            "primary deadlines",
            format!(
                "connect {} ms, handshake {} ms",
                doc.primary_deadlines.connect_ms, doc.primary_deadlines.handshake_ms
            ),
        )?;
        row(
            w,
            "respawns",
            format!(
                "{} (backoff {} ms, doubled)",
                c.mcp.max_respawns, doc.mcp.respawn_backoff_ms
            ),
        )?;
        writeln!(w, "\nknobs (value, from env / file / default):")?;
        for k in mpt_base::config::knobs::all(&c, &ctx.env) {
            let source = match k.source {
                Source::Env => "env",
                Source::File => "file",
                Source::Default => "default",
            };
            writeln!(w, "  {:<34} {:<24} {source}", k.name, k.value)?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}

/// `mpt config --json` (`mpt.config/v1`): the settings in force and where each came from, the
/// token only as its source (field paths and types pinned by `tests/it/documents.rs`).
#[derive(Serialize)]
struct ConfigDoc<'a> {
    schema: &'static str,
    file: Option<&'a Path>,
    transport: &'static str,
    remote: Option<RemoteDoc<'a>>,
    edge_opt_in: bool,
    device: Option<&'a str>,
    agent_name: &'a str,
    harness: &'a str,
    stamp_identity: Option<String>,
    mcp: McpDoc,
    primary_deadlines: DeadlinesDoc,
    ext_debug: bool,
    feed: FeedDoc<'a>,
    palace: Option<&'a Path>,
    child: Option<&'a Path>,
    replication: &'a std::collections::BTreeMap<String, mpt_base::config::WingPolicy>,
    knobs: Vec<mpt_base::config::knobs::Knob>,
}

#[derive(Serialize)]
struct RemoteDoc<'a> {
    url: String,
    token: Option<TokenDoc<'a>>,
    ca_file: Option<&'a Path>,
}

/// Where the token comes from, never the token.
#[derive(Serialize)]
#[serde(tag = "source", rename_all = "lowercase")]
enum TokenDoc<'a> {
    Env { name: &'static str },
    File { path: &'a PathBuf },
}

#[derive(Serialize)]
struct McpDoc {
    timeout_ms: u64,
    init_timeout_ms: u64,
    max_respawns: u32,
    respawn_backoff_ms: u64,
}

#[derive(Serialize)]
struct DeadlinesDoc {
    connect_ms: u64,
    handshake_ms: u64,
}

#[derive(Serialize)]
struct FeedDoc<'a> {
    enabled: bool,
    wing: &'a str,
    prepare_timeout_ms: u64,
    mine_timeout_ms: u64,
    sessions_dir: Option<PathBuf>,
    ssh_target: Option<&'a str>,
    ssh_config: Option<&'a Path>,
    remote_path: Option<String>,
}
