//! `mpt join`'s steps after the token: the harnesses wired, the record `--leave` reads, doctor's
//! verdict on the configuration just written.

use std::path::{Path, PathBuf};

use super::{Finding, Verdict, Wired};
use crate::commands::Ctx;
use crate::join::{exchange, settings};
use mpt_base::error::{MptError, Result};
use mpt_palace::harness::wire::{self, Action};

/// `joined.json`: what this join changed, for `--leave`. A second join keeps the first one's
/// record of the settings before (the user's own), and adds what it wired.
#[allow(clippy::too_many_arguments)]
pub(super) fn remember(
    ctx: &Ctx,
    gateway: &str,
    joined: &exchange::Joined,
    token_file: &Path,
    pinned_ca: Option<PathBuf>,
    config_file: &Path,
    settings: &[settings::Setting],
    wired: &[Wired],
    timer: &Option<crate::join::timer::Timer>,
) -> Result<()> {
    use crate::join::record::{self, Record};
    let path = record::path(&ctx.env)?;
    let earlier = Record::load(&path)?;
    let mut before: Vec<record::Before> = earlier
        .as_ref()
        .map(|r| r.before.clone())
        .unwrap_or_default();
    for s in settings {
        if !before.iter().any(|b| b.key == s.key) {
            before.push(record::Before {
                key: s.key.to_string(),
                value: s.from.clone(),
            });
        }
    }
    let mut files: Vec<PathBuf> = earlier
        .as_ref()
        .map(|r| r.wired.clone())
        .unwrap_or_default();
    for w in wired {
        if let Some(f) = &w.file
            && w.changed
            && !files.contains(f)
        {
            files.push(f.clone());
        }
    }
    Record {
        schema: record::SCHEMA.into(),
        gateway: gateway.to_string(),
        device: joined.device.clone(),
        token_id: joined.token_id.clone(),
        token_file: token_file.to_path_buf(),
        pinned_ca,
        config_file: config_file.to_path_buf(),
        before,
        wired: files,
        systemd_timer: matches!(timer, Some(crate::join::timer::Timer::Systemd { .. }))
            || earlier.is_some_and(|r| r.systemd_timer),
    }
    .write(&path)
}

/// opencode wired to the edge where it is set up here; pi's extension checked (mpt never edits it).
pub(super) fn wire_harnesses(ctx: &Ctx, config: &mpt_base::config::Config) -> Result<Vec<Wired>> {
    let mut out = Vec::new();
    let file = crate::commands::edge::wire::opencode_file(ctx)?;
    let present = file.parent().is_some_and(Path::exists)
        || mpt_base::which::which("opencode", &ctx.env).is_some();
    if present {
        let (plan, _) = crate::commands::edge::wire::opencode_plan(ctx, config, &file)?;
        let backup = wire::apply(&plan)?;
        let note = match (&plan.action, backup) {
            (Action::Skipped | Action::Untouched, _) => plan.reason.clone(),
            (_, Some(b)) => format!("{}; backup {}", plan.reason, b.display()),
            (_, None) => plan.reason.clone(),
        };
        out.push(Wired {
            harness: "opencode",
            file: Some(plan.file.clone()),
            action: format!("{:?}", plan.action).to_lowercase(),
            note,
            changed: !matches!(plan.action, Action::Skipped | Action::Untouched),
        });
    }
    if let Ok(agent) = mpt_palace::harness::pi::agent_dir(&ctx.env)
        && let Ok(Some(ext)) = mpt_palace::harness::pi::extension(&agent)
    {
        let wired = ext.count(mpt_palace::harness::pi::EDGE_TOKEN) > 0;
        out.push(Wired {
            harness: "pi",
            file: Some(ext.resolved.clone()),
            action: if wired { "untouched" } else { "needs_edit" }.into(),
            note: if wired {
                "its extension starts `mpt edge` with the edge opted in".into()
            } else {
                "its extension needs one edit mpt does not make: `mpt edge wire pi` shows it".into()
            },
            changed: false,
        });
    }
    Ok(out)
}

/// Doctor's checks, as `mpt doctor` runs them, on the configuration just written.
pub(super) fn doctor(ctx: &Ctx) -> Result<Verdict> {
    use crate::doctor::Status;
    let inputs = crate::doctor::Inputs {
        env: ctx.env.clone(),
        config: ctx.config(),
        cwd: std::env::current_dir()
            .map_err(|e| MptError::io("reading the current directory", &e))?,
        offline: false,
        show_child_stderr: false,
    };
    let checks = crate::commands::runtime()?.block_on(crate::doctor::run(&inputs, &[]));
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    Ok(Verdict {
        ok: count(Status::Ok),
        warn: count(Status::Warn),
        fail: count(Status::Fail),
        findings: checks
            .into_iter()
            .filter(|c| matches!(c.status, Status::Fail | Status::Warn))
            .map(|c| Finding {
                check: c.id,
                status: c.status,
                summary: c.summary,
                fix: c.fix,
            })
            .collect(),
    })
}
