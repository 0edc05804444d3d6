//! `mpt config`: the effective configuration and where it came from. The token is reported as
//! set or not and by which source, never by value.

use serde_json::json;

use crate::commands::Ctx;
use crate::config::TokenSource;
use crate::config::knobs::Source;
use crate::error::{Exit, Result};

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let c = ctx.config()?;
    let remote = c.remote.as_ref().map(|r| {
        json!({
            "url": crate::secrets::redact_url(&r.url),
            "token": match &r.token {
                None => json!(null),
                Some((_, TokenSource::Env)) => json!({"source": "env", "name": "MEMPALACE_REMOTE_TOKEN"}),
                Some((_, TokenSource::File(p))) => json!({"source": "file", "path": p}),
            },
            "ca_file": r.ca_file,
        })
    });
    let doc = json!({
        "schema": crate::schema::CONFIG,
        "file": c.file_path,
        "transport": if c.remote.is_some() { "remote" } else { "local" },
        "remote": remote,
        "edge_opt_in": c.edge_opt_in,
        "device": c.device,
        "agent_name": c.agent_name,
        "harness": c.harness,
        "stamp_identity": c.stamp_identity(),
        "mcp": {
            "timeout_ms": c.mcp.timeout.map(|d| d.as_millis() as u64).unwrap_or(0),
            "init_timeout_ms": c.mcp.init_timeout.map(|d| d.as_millis() as u64).unwrap_or(0),
            "max_respawns": c.mcp.max_respawns,
            "respawn_backoff_ms": c.mcp.respawn_backoff.as_millis() as u64,
        },
        "primary_deadlines": {
            "connect_ms": c.primary.connect.as_millis() as u64,
            "handshake_ms": c.primary.handshake.map(|d| d.as_millis() as u64).unwrap_or(0),
        },
        "ext_debug": c.ext_debug,
        "feed": {
            "enabled": c.feed.enabled,
            "wing": c.feed.wing,
            "prepare_timeout_ms": c.feed.prepare_timeout.map(|d| d.as_millis() as u64).unwrap_or(0),
            "mine_timeout_ms": c.feed.mine_timeout.map(|d| d.as_millis() as u64).unwrap_or(0),
            "sessions_dir": ctx.env.home().ok().map(|h| c.feed.sessions_dir(&h)),
            "ssh_target": c.feed.ssh_target,
            "ssh_config": c.feed.ssh_config,
            "remote_path": c.remote.as_ref().map(|_| c.feed.remote_path_or_default(c.device.as_deref())),
        },
        "palace": c.file.palace,
        "child": c.file.child,
        "replication": c.file.replication,
        "knobs": crate::config::knobs::all(&c, &ctx.env),
    });
    ctx.out.emit(&doc, |w| {
        let row = |w: &mut dyn std::io::Write, k: &str, v: String| writeln!(w, "{k:<18} {v}");
        row(
            w,
            "config file",
            c.file_path
                .as_ref()
                .map_or("(none)".into(), |p| p.display().to_string()),
        )?;
        row(
            w,
            "transport",
            doc["transport"].as_str().unwrap_or("").into(),
        )?;
        if let Some(r) = &c.remote {
            row(w, "primary", crate::secrets::redact_url(&r.url))?;
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
        row(w, "mcp timeout", format!("{} ms", doc["mcp"]["timeout_ms"]))?;
        row(
            w,
            "init timeout",
            format!("{} ms", doc["mcp"]["init_timeout_ms"]),
        )?;
        row(
            w,
            "primary deadlines",
            format!(
                "connect {} ms, handshake {} ms",
                doc["primary_deadlines"]["connect_ms"], doc["primary_deadlines"]["handshake_ms"]
            ),
        )?;
        row(
            w,
            "respawns",
            format!(
                "{} (backoff {} ms, doubled)",
                c.mcp.max_respawns, doc["mcp"]["respawn_backoff_ms"]
            ),
        )?;
        writeln!(w, "\nknobs (value, from env / file / default):")?;
        for k in crate::config::knobs::all(&c, &ctx.env) {
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
