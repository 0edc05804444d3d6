//! `mpt runbook [PHASE]`: a line per step (state, summary), the findings and what to do under
//! each open one; `apply STEP [--yes]`: the dry run or the change. `--json`: `mpt.runbook/v1`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::commands::Ctx;
use crate::commands::PalaceArg;
use crate::runbook::{self, Applied, Inputs, Phase, State, Step};
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::output::{Style, verbosity};

/// `mpt runbook --json` (`mpt.runbook/v1`): the phases shown, every step, then the tally (field
/// paths and types pinned by `tests/it/documents.rs`).
#[derive(serde::Serialize)]
struct RunbookDoc<'a> {
    schema: &'static str,
    phases: &'a [Phase],
    steps: &'a [Step],
    summary: StepTally,
}

/// How many steps stand each way.
#[derive(serde::Serialize)]
struct StepTally {
    done: usize,
    to_do: usize,
    blocked: usize,
    not_applicable: usize,
}

#[derive(Debug, Args)]
pub struct RunbookArgs {
    #[command(subcommand)]
    pub action: Option<RunbookAction>,
    /// The phase to check (default: Phases 0-2, and Phase 4 where mpt gateway is in use)
    #[arg(value_enum)]
    pub phase: Option<PhaseArg>,
    /// Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)
    #[arg(long, value_name = "PATH", global = true)]
    pub scan: Vec<PathBuf>,
    /// The primary's serve command line for Phase 1, judged instead of what is found
    #[arg(long, value_name = "CMD", global = true, allow_hyphen_values = true)]
    pub serve_cmd: Option<String>,
    /// A device of the fleet (repeatable), for the starter policy `apply gateway-policy` writes
    #[arg(long, value_name = "NAME", global = true)]
    pub device: Vec<String>,
    /// Phase 1: a loopback or LAN bind is deliberate (wins over `serve_bind` in the config)
    #[arg(long, value_enum, value_name = "BIND", global = true)]
    pub bind_ok: Option<mpt_base::config::ServeBind>,
    #[command(flatten)]
    pub palace: PalaceArg,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum PhaseArg {
    /// Hygiene before any cutover: KG location, provenance, sync, credentials, stale docs
    Phase0,
    /// The primary up: bind, token, TLS, port
    Phase1,
    /// The edge: wiring per harness, the persisted palace, the primary seeded, R1
    Phase2,
    /// Per-device tokens: serve on loopback behind mpt gateway, the policy, a token per device, the audit
    Phase4,
}

#[derive(Debug, Subcommand)]
pub enum RunbookAction {
    /// Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line
    Apply {
        /// The step id (kg-location, credentials, gateway-policy, gateway-modes)
        step: String,
        /// Make the change (without it: the dry run, nothing changed)
        #[arg(long)]
        yes: bool,
    },
}

pub fn run(ctx: &Ctx, args: RunbookArgs) -> Result<Exit> {
    let inputs = Inputs {
        env: ctx.env.clone(),
        config: ctx.config(),
        config_flag: ctx.config_flag.clone(),
        cwd: std::env::current_dir()
            .map_err(|e| MptError::io("reading the current directory", &e))?,
        scan: args.scan.clone(),
        serve_cmd: args.serve_cmd.clone(),
        bind_ok: args.bind_ok,
        palace: args.palace.path.clone(),
        devices: args.device.clone(),
        procs_cache: Default::default(),
    };
    for p in args
        .scan
        .iter()
        .filter(|p| std::fs::symlink_metadata(p).is_err())
    {
        mpt_base::log_warn!(
            "--scan {}: no such file or folder, nothing searched there (a typo?)",
            p.display()
        );
    }
    if let Some(RunbookAction::Apply { step, yes }) = &args.action {
        let applied = runbook::apply(&inputs, step, *yes)?;
        print_applied(ctx, &applied)?;
        return Ok(Exit::Ok);
    }
    let phases: Vec<Phase> = match args.phase {
        None => Vec::new(),
        Some(PhaseArg::Phase0) => vec![Phase::Phase0],
        Some(PhaseArg::Phase1) => vec![Phase::Phase1],
        Some(PhaseArg::Phase2) => vec![Phase::Phase2],
        Some(PhaseArg::Phase4) => vec![Phase::Phase4],
    };
    let steps = runbook::run(&inputs, &phases);
    let count = |s: State| steps.iter().filter(|x| x.state == s).count();
    let (done, todo, blocked, na) = (
        count(State::Done),
        count(State::ToDo),
        count(State::Blocked),
        count(State::NotApplicable),
    );
    let mut shown: Vec<Phase> = steps.iter().map(|s| s.phase).collect();
    shown.dedup();
    let doc = RunbookDoc {
        schema: mpt_base::schema::RUNBOOK,
        phases: &shown,
        steps: &steps,
        summary: StepTally {
            done,
            to_do: todo,
            blocked,
            not_applicable: na,
        },
    };
    ctx.out.emit_typed(&doc, |w| {
        let mut phase = None;
        for s in &steps {
            if phase != Some(s.phase) {
                phase = Some(s.phase);
                writeln!(w, "{}", ctx.out.paint(Style::Bold, s.phase.title()))?;
            }
            print_step(ctx, w, s)?;
        }
        writeln!(
            w,
            "{} steps: {done} done, {todo} to do, {blocked} blocked, {na} not applicable",
            steps.len()
        )
    })?;
    Ok(if todo + blocked > 0 {
        Exit::CheckFailed
    } else {
        Exit::Ok
    })
}

fn print_step(ctx: &Ctx, w: &mut dyn Write, s: &Step) -> std::io::Result<()> {
    let out = &ctx.out;
    let (sym, style) = match s.state {
        State::Done => ("✓", Style::Ok),
        State::ToDo => ("✗", Style::Fail),
        State::Blocked => ("!", Style::Warn),
        State::NotApplicable => ("-", Style::Dim),
    };
    writeln!(
        w,
        "  {} {:<14} {:<15} {}",
        out.paint(style, sym),
        s.id,
        s.state.label(),
        s.summary
    )?;
    let open = matches!(s.state, State::ToDo | State::Blocked);
    if open || verbosity() >= 1 {
        for e in &s.evidence {
            writeln!(w, "      {}", out.paint(Style::Dim, e))?;
        }
    }
    for f in &s.findings {
        writeln!(w, "      {}  {}", f.location(), f.what)?;
        if let Some(t) = &f.text {
            writeln!(w, "          {}", out.paint(Style::Dim, t))?;
        }
        if let Some(r) = &f.replacement {
            writeln!(w, "        {} {r}", out.paint(Style::Bold, "->"))?;
        }
    }
    if let Some(a) = s.apply.as_ref().filter(|_| open) {
        writeln!(
            w,
            "      {} `mpt runbook apply {} --yes`: {a}",
            out.paint(Style::Bold, "apply:"),
            s.id
        )?;
    }
    if let Some(m) = s.manual.as_ref().filter(|_| open) {
        writeln!(w, "      {} {m}", out.paint(Style::Bold, "by hand:"))?;
    }
    Ok(())
}

fn print_applied(ctx: &Ctx, a: &Applied) -> Result<()> {
    let doc = serde_json::to_value(AppliedDoc {
        applied: a,
        schema: mpt_base::schema::RUNBOOK_APPLY,
    })
    .unwrap_or_default();
    ctx.out.emit(&doc, |w| {
        if a.changes.is_empty() {
            return writeln!(w, "{}: {}", a.step, a.summary);
        }
        let head = if a.dry_run {
            "dry run, nothing changed; applying would"
        } else {
            "applied"
        };
        writeln!(w, "{}: {head}: {}", a.step, a.summary)?;
        for c in &a.changes {
            let to =
                c.to.as_ref()
                    .map_or(String::new(), |t| format!(" -> {}", t.display()));
            writeln!(
                w,
                "  {:<8} {}{to}  ({} bytes) {}",
                c.action,
                c.path.display(),
                c.bytes,
                c.note
            )?;
        }
        if a.dry_run {
            return writeln!(w, "run again with --yes to apply (a backup is kept)");
        }
        if let Some(b) = &a.backup {
            writeln!(w, "backup: {}", b.display())?;
        }
        if let Some(v) = &a.verification {
            writeln!(
                w,
                "verified: {}",
                serde_json::to_string(v).unwrap_or_default()
            )?;
        }
        if let Some(u) = &a.undo {
            writeln!(w, "undo: {u}")?;
        }
        Ok(())
    })
}

/// `mpt.runbook.apply/v1`: what the step did (or would do), its `schema` last as it always was.
#[derive(serde::Serialize)]
struct AppliedDoc<'a> {
    #[serde(flatten)]
    applied: &'a Applied,
    schema: &'static str,
}
