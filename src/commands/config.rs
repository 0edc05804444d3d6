//! `mpt config`: the effective configuration and where it came from. The token is reported as
//! set or not and by which source, never by value.

use serde_json::json;

use crate::Ctx;
use crate::config::TokenSource;
use crate::error::{Exit, Result};

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let c = ctx.config()?;
    let remote = c.remote.as_ref().map(|r| {
        json!({
            "url": r.url,
            "token": match &r.token {
                None => json!(null),
                Some((_, TokenSource::Env)) => json!({"source": "env", "name": "MEMPALACE_REMOTE_TOKEN"}),
                Some((_, TokenSource::File(p))) => json!({"source": "file", "path": p}),
            },
            "ca_file": r.ca_file,
        })
    });
    let doc = json!({
        "schema": "mpt.config/v1",
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
        "ext_debug": c.ext_debug,
        "palace": c.file.palace,
        "child": c.file.child,
        "replication": c.file.replication,
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
            row(w, "primary", r.url.clone())?;
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
        row(w, "mcp timeout", format!("{} ms", doc["mcp"]["timeout_ms"]))?;
        row(
            w,
            "init timeout",
            format!("{} ms", doc["mcp"]["init_timeout_ms"]),
        )?;
        row(
            w,
            "respawns",
            format!(
                "{} (backoff {} ms, doubled)",
                c.mcp.max_respawns, doc["mcp"]["respawn_backoff_ms"]
            ),
        )?;
        Ok(())
    })?;
    Ok(Exit::Ok)
}
