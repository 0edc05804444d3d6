//! `mpt doctor`: a line per check (ok, warning, failure, skipped), evidence and fix under what
//! failed (`-v`: under every check), a last line with counts; `--json` as `mpt.doctor/v1`.

use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser};

use crate::commands::Ctx;
use crate::doctor::{self, Inputs, Status};
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::output::{Style, verbosity};

/// `mpt doctor --json` (`mpt.doctor/v1`): every check run, then the tally (field paths and
/// types pinned by `tests/it/documents.rs`).
#[derive(serde::Serialize)]
struct DoctorDoc<'a> {
    schema: &'static str,
    offline: bool,
    checks: &'a [doctor::Check],
    summary: Tally,
}

/// How many checks ended each way.
#[derive(serde::Serialize)]
struct Tally {
    ok: usize,
    warn: usize,
    fail: usize,
    skip: usize,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Skip every network and child probe (files and processes only)
    #[arg(long)]
    pub offline: bool,
    /// Run this check (repeat for several: `--check transport --check outbox`)
    #[arg(long, value_name = "ID", value_parser = check_ids())]
    pub check: Vec<String>,
}

/// `--check` takes the ids of the doctor's check table, each with its title as help.
fn check_ids() -> PossibleValuesParser {
    PossibleValuesParser::new(
        crate::doctor::CHECKS
            .iter()
            .map(|d| PossibleValue::new(d.id).help(d.title)),
    )
}

pub fn run(ctx: &Ctx, args: DoctorArgs) -> Result<Exit> {
    let inputs = Inputs {
        env: ctx.env.clone(),
        config: ctx.config(),
        cwd: std::env::current_dir()
            .map_err(|e| MptError::io("reading the current directory", &e))?,
        offline: args.offline,
        show_child_stderr: verbosity() >= 2,
    };
    let checks = if args.offline {
        // No network, no child: nothing to wait for, no runtime threads to start.
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| MptError::io("starting the runtime", &e))?
            .block_on(doctor::run(&inputs, &args.check))
    } else {
        super::runtime()?.block_on(doctor::run(&inputs, &args.check))
    };
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    let (ok, warn, fail, skip) = (
        count(Status::Ok),
        count(Status::Warn),
        count(Status::Fail),
        count(Status::Skip),
    );
    let doc = DoctorDoc {
        schema: mpt_base::schema::DOCTOR,
        offline: args.offline,
        checks: &checks,
        summary: Tally {
            ok,
            warn,
            fail,
            skip,
        },
    };
    let out = &ctx.out;
    ctx.out.emit_typed(&doc, |w| {
        for c in &checks {
            let (sym, style) = mark(c.status);
            writeln!(w, "{} {:<15} {}", out.paint(style, sym), c.id, c.summary)?;
            let detail = c.status == Status::Fail || c.status == Status::Warn || verbosity() >= 1;
            if detail {
                if c.status != Status::Warn || verbosity() >= 1 {
                    for e in &c.evidence {
                        writeln!(w, "    {}", out.paint(Style::Dim, e))?;
                    }
                }
                if let Some(f) = &c.fix
                    && c.status != Status::Ok
                {
                    writeln!(w, "    {} {f}", out.paint(Style::Bold, "fix:"))?;
                }
                // The first finding is the summary above; the others follow, each with its fix.
                for f in c.findings.iter().skip(1) {
                    let (sym, style) = mark(f.status);
                    writeln!(w, "    {} {}", out.paint(style, sym), f.what)?;
                    writeln!(w, "      {} {}", out.paint(Style::Bold, "fix:"), f.fix)?;
                }
            }
        }
        writeln!(
            w,
            "{} checks: {ok} ok, {warn} warning(s), {fail} failure(s), {skip} skipped",
            checks.len()
        )
    })?;
    Ok(if fail > 0 {
        Exit::CheckFailed
    } else {
        Exit::Ok
    })
}

/// A status's mark and style: ✓ ok, ! warning, ✗ failure, - skipped.
fn mark(s: Status) -> (&'static str, Style) {
    match s {
        Status::Ok => ("✓", Style::Ok),
        Status::Warn => ("!", Style::Warn),
        Status::Fail => ("✗", Style::Fail),
        Status::Skip => ("-", Style::Dim),
    }
}
