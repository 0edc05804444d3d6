//! `mpt edge wire codex`: Codex's `[mcp_servers.mempalace]` set to the edge when the device opted
//! in, MemPalace's own entry otherwise (R1), every other byte of its `config.toml` kept.

use std::path::PathBuf;

use super::wire::{chosen_mpt, mempalace_installed, quiet_or_emit};
use crate::commands::Ctx;
use mpt_base::config::Config;
use mpt_base::error::{Exit, Result};
use mpt_base::log_warn;
use mpt_palace::harness::codex;
use mpt_palace::harness::wire::{self, Action, OptIn, exe};

/// `mpt edge wire codex --json` (`mpt.edge.wire/v1`): the plan for its config file, the backup an
/// applied change left, and the mpt the entry runs (with the edge).
#[derive(serde::Serialize)]
struct WireCodex<'a> {
    schema: &'static str,
    harness: &'static str,
    dry_run: bool,
    plan: &'a wire::codex::Plan,
    backup: Option<&'a std::path::Path>,
    mpt: Option<&'a exe::WiredExe>,
}

pub fn run(ctx: &Ctx, config: &Config, file: Option<PathBuf>, dry_run: bool) -> Result<Exit> {
    let file = match file {
        Some(f) => f,
        None => codex::config_file(&ctx.env, &ctx.env.home()?),
    };
    let state = wire::opt_in(config);
    let mpt = chosen_mpt(ctx)?;
    let plan = wire::codex::plan(&file, state, &mpt.path, mempalace_installed(ctx, config))?;
    if plan.action == Action::Skipped {
        log_warn!("{}", plan.reason);
    }
    let backup = if dry_run {
        None
    } else {
        wire::codex::apply(&plan)?
    };
    let edge = state == OptIn::Edge;
    let doc = mpt_base::schema::to_document(&WireCodex {
        schema: mpt_base::schema::EDGE_WIRE,
        harness: "codex",
        dry_run,
        plan: &plan,
        backup: backup.as_deref(),
        mpt: edge.then_some(&mpt),
    })?;
    quiet_or_emit(ctx, &doc, |w| {
        writeln!(
            w,
            "{} ({:?}): {}",
            plan.file.display(),
            plan.state,
            plan.reason
        )?;
        if state == OptIn::Remote {
            writeln!(
                w,
                "Codex reaches the primary only through the edge here: MEMPALACE_EDGE=1 puts it in Codex's path"
            )?;
        }
        if edge && plan.action != Action::Skipped {
            writeln!(w, "command: {} ({})", mpt.path.display(), mpt.why)?;
        }
        if plan.new_text.is_some() || plan.action == Action::Delete {
            for (sign, t) in [("-", &plan.before), ("+", &plan.after)] {
                for line in t.iter().flat_map(|t| t.lines()) {
                    writeln!(w, "{sign} {line}")?;
                }
            }
            if dry_run {
                writeln!(w, "(dry run: nothing written)")?;
            } else if let Some(b) = &backup {
                writeln!(w, "backup: {}", b.display())?;
            }
        }
        if plan.action != Action::Untouched && plan.action != Action::Skipped {
            writeln!(
                w,
                "what mpt changed is remembered in {}",
                plan.user_entry.display()
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}
