//! `mpt edge wire opencode|pi`: the harness's MemPalace entry set to match the opt-in, shown
//! first with `--dry-run`; pi's extension cannot be edited by mpt, so its edit is printed (`-q`: nothing).

use std::path::PathBuf;

use crate::commands::Ctx;
use mpt_base::config::Config;
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::log_warn;
use mpt_palace::harness::wire::{self, Action, PI_EDIT, Remember, exe};
use mpt_palace::harness::{opencode, pi};

/// `mpt edge wire opencode`: its config file's entry planned, applied unless `--dry-run`, shown.
pub fn opencode(ctx: &Ctx, config: &Config, file: Option<PathBuf>, dry_run: bool) -> Result<Exit> {
    let state = wire::opt_in(config);
    let file = match file {
        Some(f) => f,
        None => opencode_file(ctx)?,
    };
    let (plan, mpt) = opencode_plan(ctx, config, &file)?;
    if plan.action == Action::Skipped {
        log_warn!("{}", plan.reason);
    }
    let backup = if dry_run { None } else { wire::apply(&plan)? };
    let edge = state == wire::OptIn::Edge;
    let doc = mpt_base::schema::to_document(&WireOpencode {
        schema: mpt_base::schema::EDGE_WIRE,
        harness: "opencode",
        dry_run,
        plan: &plan,
        backup: backup.as_deref(),
        mpt: edge.then_some(&mpt),
    })?;
    quiet_or_emit(ctx, &doc, |w| {
        write_plan(w, &plan, backup.as_deref(), dry_run, edge.then_some(&mpt))
    })?;
    Ok(Exit::Ok)
}

/// A plan for people: the file, the opt-in and why; the command the edge entry runs; the entry
/// before and after; where the backup went and where the user's own entry is remembered.
pub(super) fn write_plan(
    w: &mut dyn std::io::Write,
    plan: &wire::Plan,
    backup: Option<&std::path::Path>,
    dry_run: bool,
    mpt: Option<&exe::WiredExe>,
) -> std::io::Result<()> {
    writeln!(
        w,
        "{} ({:?}): {}",
        plan.file.display(),
        plan.state,
        plan.reason
    )?;
    if let Some(mpt) = mpt.filter(|_| plan.action != Action::Skipped) {
        writeln!(w, "command: {} ({})", mpt.path.display(), mpt.why)?;
    }
    if plan.new_text.is_some() {
        if let Some(b) = &plan.before {
            writeln!(w, "- \"{}\": {b}", plan.entry)?;
        }
        if let Some(a) = &plan.after {
            writeln!(w, "+ \"{}\": {a}", plan.entry)?;
        }
        if dry_run {
            writeln!(w, "(dry run: nothing written)")?;
        } else if let Some(b) = backup {
            writeln!(w, "backup: {}", b.display())?;
        }
    }
    if let Some(u) = &plan.user_entry {
        let what = match &plan.remember {
            Remember::Forget if plan.action == Action::Replace => {
                "restored from (and then removed)"
            }
            Remember::Forget => "no entry before mpt's, as remembered in (now removed)",
            Remember::Save(s) if s.text.is_none() => {
                "that there was no entry before is remembered in"
            }
            _ => "your own entry is remembered in",
        };
        writeln!(w, "{what} {}", u.display())?;
    }
    Ok(())
}

/// opencode's global config file: `opencode.jsonc` where there is one, else `opencode.json`.
pub(crate) fn opencode_file(ctx: &Ctx) -> Result<PathBuf> {
    let dir = opencode::global_dir(&ctx.env)
        .ok_or_else(|| MptError::usage("HOME is not set: say which file with --config"))?;
    let jsonc = dir.join("opencode.jsonc");
    Ok(if jsonc.exists() {
        jsonc
    } else {
        dir.join("opencode.json")
    })
}

/// The mpt a harness entry (or a timer) runs: the one on PATH when it is this binary, else this
/// binary's own path.
pub(crate) fn chosen_mpt(ctx: &Ctx) -> Result<exe::WiredExe> {
    let current =
        std::env::current_exe().map_err(|e| MptError::io("locating the mpt binary", &e))?;
    Ok(exe::choose(ctx.env.get("PATH"), &current))
}

/// MemPalace's child is here: `mempalace-mcp` on PATH, or the config's `child`.
pub(super) fn mempalace_installed(ctx: &Ctx, config: &Config) -> bool {
    mpt_base::which::which("mempalace-mcp", &ctx.env).is_some()
        || config.file.child.as_ref().is_some_and(|c| c.exists())
}

/// What wiring opencode's `file` for `config`'s opt-in would change, and the mpt its entry runs.
pub(crate) fn opencode_plan(
    ctx: &Ctx,
    config: &Config,
    file: &std::path::Path,
) -> Result<(wire::Plan, exe::WiredExe)> {
    let mpt = chosen_mpt(ctx)?;
    let installed = mempalace_installed(ctx, config);
    let plan = wire::plan_opencode(
        file,
        wire::opt_in(config),
        &mpt.path,
        config.remote.as_ref(),
        installed,
    )?;
    Ok((plan, mpt))
}

/// `mpt edge wire opencode --json` (`mpt.edge.wire/v1`): the plan for its config file, the backup
/// an applied change left, and the mpt the entry runs (with the edge).
#[derive(serde::Serialize)]
struct WireOpencode<'a> {
    schema: &'static str,
    harness: &'static str,
    dry_run: bool,
    plan: &'a wire::Plan,
    backup: Option<&'a std::path::Path>,
    mpt: Option<&'a exe::WiredExe>,
}

/// `mpt edge wire pi --json` (`mpt.edge.wire/v1`): whether pi's deployed extension has the edge
/// branch, and the one edit it needs when not (mpt never edits it).
#[derive(serde::Serialize)]
struct WirePi<'a> {
    schema: &'static str,
    harness: &'static str,
    state: wire::OptIn,
    status: &'static str,
    extension: Option<&'a std::path::Path>,
    edit: Option<&'static str>,
}

/// `mpt edge wire pi`: whether pi's extension has the edge branch, and the edit it needs.
pub fn pi(ctx: &Ctx, config: &Config) -> Result<Exit> {
    let state = wire::opt_in(config);
    let agent = pi::agent_dir(&ctx.env)?;
    let ext = pi::extension(&agent)?;
    let wired = ext.as_ref().is_some_and(|e| e.count(pi::EDGE_TOKEN) > 0);
    let status = match (&ext, wired) {
        (None, _) => "no_extension",
        (Some(_), true) => "wired",
        (Some(_), false) => "needs_edit",
    };
    let doc = mpt_base::schema::to_document(&WirePi {
        schema: mpt_base::schema::EDGE_WIRE,
        harness: "pi",
        state,
        status,
        extension: ext.as_ref().map(|e| e.resolved.as_path()),
        edit: (status == "needs_edit").then_some(PI_EDIT),
    })?;
    quiet_or_emit(ctx, &doc, |w| match status {
        "no_extension" => writeln!(
            w,
            "pi has no MemPalace extension deployed ({}): nothing to wire",
            agent.join("extensions/mempalace.ts").display()
        ),
        "wired" => writeln!(
            w,
            "pi's extension already has the MEMPALACE_EDGE branch: with MEMPALACE_EDGE=1 it starts `mpt edge`"
        ),
        _ => writeln!(
            w,
            "pi picks its transport inside its extension ({}), which mpt does not edit. The one edit it needs:\n\n{PI_EDIT}\n\nWithout it, pi with MEMPALACE_REMOTE_URL goes straight to the primary and never reaches the edge.",
            ext.as_ref()
                .map(|e| e.resolved.display().to_string())
                .unwrap_or_default()
        ),
    })?;
    Ok(Exit::Ok)
}

/// The result for people, unless `-q` (then only errors and warnings-as-errors are printed: a
/// setup script runs `mpt -q edge wire opencode`); `--json` always prints its document.
pub(super) fn quiet_or_emit(
    ctx: &Ctx,
    doc: &serde_json::Value,
    human: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<()> {
    if !ctx.out.json && ctx.out.verbosity() < 0 {
        return Ok(());
    }
    ctx.out.emit(doc, human)
}
