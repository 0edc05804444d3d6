//! `mpt join --leave`: what `mpt join` did on this device undone from its record (`joined.json`):
//! the settings as they were, the harness configs unwired, the timer, token and pinned CA removed.

use std::path::{Path, PathBuf};

use crate::commands::Ctx;
use crate::join::record::{self, Record};
use crate::join::settings;
use mpt_base::error::{Exit, MptError, Result};

/// The settings `mpt join` writes, as the record names them.
const KEYS: [&str; 5] = ["remote_url", "token_file", "device", "edge", "ca_file"];

/// `mpt join --leave --json` (`mpt.join.leave/v1`).
#[derive(serde::Serialize)]
struct LeaveDoc<'a> {
    schema: &'static str,
    gateway: &'a str,
    device: &'a str,
    config: &'a Path,
    config_backup: Option<PathBuf>,
    /// Harness config files put back as they were before the join.
    unwired: Vec<PathBuf>,
    timer: String,
    removed: Vec<PathBuf>,
    /// For the operator, on the primary host: this device's token still works until revoked.
    revoke: String,
}

pub fn run(ctx: &Ctx) -> Result<Exit> {
    let path = record::path(&ctx.env)?;
    let rec = Record::load(&path)?.ok_or_else(|| {
        MptError::usage(format!(
            "this device has not joined a fleet with `mpt join` ({} is not there): nothing to undo",
            path.display()
        ))
        .with_hint("a device set up by hand is undone by hand: `mpt edge wire opencode` after unsetting its settings, as docs/edge.md says")
    })?;
    // The settings first: with them gone, the harness configs are wired back to solitary.
    let wanted = rec
        .before
        .iter()
        .filter_map(|b| {
            let key = KEYS.iter().find(|known| **known == b.key)?;
            Some((*key, b.value.clone().unwrap_or(serde_json::Value::Null)))
        })
        .collect();
    let backup = settings::plan(&rec.config_file, wanted)?.write()?;
    let config = ctx.config()?;
    let mut unwired = Vec::new();
    for file in &rec.wired {
        let (plan, _) = crate::commands::edge::wire::opencode_plan(ctx, &config, file)?;
        mpt_palace::harness::wire::apply(&plan)?;
        unwired.push(file.clone());
    }
    let timer = crate::join::timer::remove(&ctx.env)?;
    let mut removed = Vec::new();
    for p in [Some(&rec.token_file), rec.pinned_ca.as_ref(), Some(&path)]
        .into_iter()
        .flatten()
    {
        match std::fs::remove_file(p) {
            Ok(()) => removed.push(p.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(MptError::io(format!("removing {}", p.display()), &e)),
        }
    }
    let revoke = format!("mpt gateway token revoke {}", rec.device);
    let doc = LeaveDoc {
        schema: mpt_base::schema::JOIN_LEAVE,
        gateway: &rec.gateway,
        device: &rec.device,
        config: &rec.config_file,
        config_backup: backup,
        unwired,
        timer,
        removed,
        revoke: revoke.clone(),
    };
    ctx.out.emit_typed(&doc, |w| {
        writeln!(
            w,
            "{} left {}: its settings in {} are as they were before it joined",
            rec.device,
            rec.gateway,
            rec.config_file.display()
        )?;
        for f in &doc.unwired {
            writeln!(w, "unwired: {}", f.display())?;
        }
        writeln!(w, "flush timer: {}", doc.timer)?;
        for f in &doc.removed {
            writeln!(w, "removed: {}", f.display())?;
        }
        writeln!(
            w,
            "its token still works until revoked: on the primary host, run `{revoke}`"
        )
    })?;
    Ok(Exit::Ok)
}
