//! `mpt edge wire claude`: Claude Code's MemPalace entries in every scope, the user one (or the
//! project's) switched to the opt-in, the shadowing ones with `--all-scopes`; its feeding hooks.

use std::path::{Path, PathBuf};

use super::wire::{chosen_mpt, mempalace_installed, quiet_or_emit, write_plan};
use super::{ClaudeScope, ClaudeWire};
use crate::commands::Ctx;
use mpt_base::config::Config;
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::log_warn;
use mpt_palace::harness::claude::{self, Scope, Wiring};
use mpt_palace::harness::kind;
use mpt_palace::harness::wire::{self, Action, OptIn, Target, exe, hooks};

/// One scope's plan, and the backup applying it left.
#[derive(serde::Serialize)]
struct Scoped {
    #[serde(flatten)]
    scope: Scope,
    plan: wire::Plan,
    backup: Option<PathBuf>,
}

/// The hooks: the plan with `--hooks`/`--remove-hooks`, and the feeding hooks there are after it.
#[derive(serde::Serialize)]
struct Hooks {
    file: PathBuf,
    plan: Option<hooks::HooksPlan>,
    backup: Option<PathBuf>,
    present: Vec<hooks::Hook>,
}

/// `mpt edge wire claude --json` (`mpt.edge.wire/v1`): a plan per scope switched, every MemPalace
/// entry Claude Code reads here, those that still shadow the switched one, and the hooks.
#[derive(serde::Serialize)]
struct WireClaude<'a> {
    schema: &'static str,
    harness: &'static str,
    dry_run: bool,
    state: OptIn,
    plans: &'a [Scoped],
    entries: &'a [claude::Entry],
    shadowing: &'a [claude::Entry],
    hooks: &'a Hooks,
    mpt: Option<&'a exe::WiredExe>,
}

pub fn run(
    ctx: &Ctx,
    config: &Config,
    file: Option<PathBuf>,
    dry_run: bool,
    args: &ClaudeWire,
) -> Result<Exit> {
    let home = ctx.env.home()?;
    let cwd =
        std::env::current_dir().map_err(|e| MptError::io("reading the current folder", &e))?;
    let state_file = file.unwrap_or_else(|| claude::state_file(&ctx.env, &home));
    let project_file = claude::project_file(&cwd);
    let state = wire::opt_in(config);
    let mpt = chosen_mpt(ctx)?;
    let installed = mempalace_installed(ctx, config);
    let read = || Wiring::read_files(state_file.clone(), project_file.clone(), true);

    let scopes = scopes(args, &read());
    let mut plans = Vec::new();
    for scope in scopes {
        let target = match scope {
            Scope::Project => Target::claude(&project_file, &scope),
            _ => Target::claude(&state_file, &scope),
        };
        // Planned afresh after each write: local scopes live in the same file as the user's.
        let plan = wire::plan(&target, state, &mpt.path, config.remote.as_ref(), installed)?;
        let skipped = plan.action == Action::Skipped;
        if skipped {
            log_warn!("{}", plan.reason);
        }
        let backup = if dry_run { None } else { wire::apply(&plan)? };
        plans.push(Scoped {
            scope,
            plan,
            backup,
        });
        if skipped {
            break;
        }
    }

    let after = read();
    for (f, why) in &after.unparsable {
        log_warn!(
            "{} is not valid JSON ({why}): Claude Code's entries there were not read",
            f.display()
        );
    }
    let expected = kind::expected(state != OptIn::Solitary, state == OptIn::Edge);
    let switched: Vec<&Scope> = plans.iter().map(|p| &p.scope).collect();
    // A dry run switched nothing: what it would switch is not left shadowing.
    let shadowing: Vec<claude::Entry> = after
        .shadowing(expected)
        .into_iter()
        .filter(|e| !(dry_run && switched.contains(&&e.scope)))
        .cloned()
        .collect();
    for e in &shadowing {
        log_warn!(
            "{}: Claude Code uses this {} entry '{}' there instead of the {} one the opt-in asks for; `mpt edge wire claude --all-scopes` switches it too",
            where_(&e.scope, &e.file),
            e.kind.label(),
            e.name,
            expected.label()
        );
    }

    let hooks = self::hooks(ctx, &home, &mpt.path, dry_run, args)?;
    let both = |o| hooks.present.iter().any(|h| h.owner == o);
    if both(hooks::Owner::Mpt) && both(hooks::Owner::Mempalace) {
        log_warn!(
            "{}: MemPalace's own hooks mine Claude Code's sessions beside mpt's, so each conversation is filed twice; `mpt edge wire claude --hooks --replace-mempalace-hooks` takes MemPalace's out (and --remove-hooks puts them back)",
            hooks.file.display()
        );
    }

    let edge = state == OptIn::Edge;
    let doc = mpt_base::schema::to_document(&WireClaude {
        schema: mpt_base::schema::EDGE_WIRE,
        harness: "claude",
        dry_run,
        state,
        plans: &plans,
        entries: &after.entries,
        shadowing: &shadowing,
        hooks: &hooks,
        mpt: edge.then_some(&mpt),
    })?;
    quiet_or_emit(ctx, &doc, |w| {
        for p in &plans {
            write!(w, "{}: ", scope_name(&p.scope))?;
            write_plan(
                w,
                &p.plan,
                p.backup.as_deref(),
                dry_run,
                edge.then_some(&mpt),
            )?;
        }
        let others: Vec<&claude::Entry> = after
            .entries
            .iter()
            .filter(|e| !switched.contains(&&e.scope))
            .collect();
        for e in others {
            writeln!(
                w,
                "also: {} '{}' ({}): {}",
                where_(&e.scope, &e.file),
                e.name,
                e.kind.label(),
                e.command.join(" ")
            )?;
        }
        write_hooks(w, &hooks, dry_run)
    })?;
    Ok(Exit::Ok)
}

/// The scopes to switch: the user's (or the project's with `--scope project`), then with
/// `--all-scopes` every folder's local entry and this folder's project entry.
fn scopes(args: &ClaudeWire, wiring: &Wiring) -> Vec<Scope> {
    let mut out = vec![match args.scope {
        Some(ClaudeScope::Project) => Scope::Project,
        _ => Scope::User,
    }];
    if args.all_scopes {
        for e in &wiring.entries {
            if e.scope != Scope::User && !out.contains(&e.scope) {
                out.push(e.scope.clone());
            }
        }
    }
    out
}

fn scope_name(scope: &Scope) -> String {
    match scope {
        Scope::User => "user scope".into(),
        Scope::Local(dir) => format!("local scope of {dir}"),
        Scope::Project => "project scope".into(),
    }
}

fn where_(scope: &Scope, file: &Path) -> String {
    format!("{} ({})", scope_name(scope), file.display())
}

/// `--hooks` or `--remove-hooks` planned and applied; the feeding hooks present either way.
fn hooks(ctx: &Ctx, home: &Path, mpt: &Path, dry_run: bool, args: &ClaudeWire) -> Result<Hooks> {
    let file = claude::settings_file(&ctx.env, home);
    let plan = match (args.hooks, args.remove_hooks) {
        (false, false) => None,
        (install, _) => Some(hooks::plan(
            &file,
            mpt,
            install,
            args.replace_mempalace_hooks,
        )?),
    };
    let backup = match &plan {
        Some(p) if !dry_run => hooks::apply(p)?,
        _ => None,
    };
    let present = hooks::read(&file)?;
    Ok(Hooks {
        file,
        plan,
        backup,
        present,
    })
}

fn write_hooks(w: &mut dyn std::io::Write, hooks: &Hooks, dry_run: bool) -> std::io::Result<()> {
    if let Some(p) = &hooks.plan {
        let verb = if p.install { "adds" } else { "removes" };
        match p.changed.is_empty() {
            true if p.install => writeln!(w, "hooks ({}): already in", hooks.file.display())?,
            true => writeln!(w, "hooks ({}): none of mpt's", hooks.file.display())?,
            false => writeln!(
                w,
                "hooks ({}): {verb} mpt's {}",
                hooks.file.display(),
                p.changed.join(", ")
            )?,
        }
        for h in &p.mempalace_replaced {
            let verb = if p.install { "takes out" } else { "puts back" };
            writeln!(w, "  {verb} MemPalace's {}: {}", h.event, h.command)?;
        }
        if dry_run && p.new_text.is_some() {
            writeln!(w, "  (dry run: nothing written)")?;
        } else if let Some(b) = &hooks.backup {
            writeln!(w, "  backup: {}", b.display())?;
        }
        return Ok(());
    }
    if hooks.present.is_empty() {
        return writeln!(
            w,
            "hooks: nothing feeds Claude Code's sessions on its own (`mpt edge wire claude --hooks` adds mpt's)"
        );
    }
    for h in &hooks.present {
        let whose = match h.owner {
            hooks::Owner::Mpt => "mpt's",
            hooks::Owner::Mempalace => "MemPalace's",
        };
        writeln!(w, "hooks: {} runs {whose} `{}`", h.event, h.command)?;
    }
    Ok(())
}
