//! `mpt`: operate MemPalace across a fleet. The top of the workspace: the CLI and each command, and
//! the engines only a command drives (doctor, runbook, mailbox, join). It may import every crate.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;
pub mod commands;
#[cfg(test)]
mod crate_floors;
#[cfg(test)]
mod docs_rules;
pub mod doctor;
#[cfg(test)]
mod house_rules;
pub mod join;
pub mod mailbox;
#[cfg(test)]
mod module_cycles;
pub mod runbook;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::commands::Ctx;
use mpt_base::config::Env;
use mpt_base::error::{Exit, MptError};
use mpt_base::output::{ColorChoice, Output};
use mpt_base::{config, error, hop_trace, log};
use mpt_feed as feed;
use mpt_mcp as mcp;

pub fn main_with_args(args: Vec<OsString>) -> ExitCode {
    let env = Env::from_process();
    hop_trace::init(&env);
    // Started as the pi bridge's feeder: its flags, then `mpt feed prepare`.
    let args = match args.first() {
        Some(argv0) if feed::dropin::invoked_as_helper(argv0) => {
            match commands::feed::helper::bridge_argv(&args) {
                Ok(argv) => argv,
                // The feeder has no `--json`: its usage errors are text on stderr, whatever argv holds.
                Err(e) => return clap_failure(e, &args[..1], &env),
            }
        }
        _ => args,
    };
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) => return clap_failure(e, &args, &env),
    };
    log::set_verbosity(if cli.global.quiet {
        -1
    } else {
        cli.global.verbose.min(2) as i8
    });
    let out = Output::new(
        cli.global.json,
        cli.global.color,
        env.get("NO_COLOR").is_some(),
    );
    let ctx = Ctx {
        out: out.clone(),
        env,
        config_flag: cli.global.config.clone(),
    };
    match commands::run(&ctx, cli.command, <Cli as clap::CommandFactory>::command) {
        Ok(exit) => exit.into(),
        Err(e) if e.kind == error::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(mut e) => {
            // A fix for this device's token names it, when it has a name (issue 56, item 4).
            if let (Some(h), Some(d)) = (&e.hint, ctx.env.get(config::values::DEVICE_VAR)) {
                e.hint = Some(mcp::fix_for_device(h, Some(d)));
            }
            out.error(&e);
            e.exit().into()
        }
    }
}

/// The hint for a clap usage error: its typo suggestion when clap has one (`did you mean …`),
/// then the accepted values when clap knows them, else `--help`.
fn usage_hint(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let rest = match e.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(values)) if !values.is_empty() => {
            format!("one of: {}", values.join(", "))
        }
        _ => "run `mpt --help` for the commands and flags".into(),
    };
    match suggestions(e).as_slice() {
        [] => rest,
        s => format!("did you mean '{}'? ({rest})", s.join("' or '")),
    }
}

/// What clap suggests for a typo: a subcommand, a flag or a value close to what was typed.
/// A mistyped command's detail: what it may have meant.
#[derive(serde::Serialize)]
struct Suggested {
    suggested: Vec<String>,
}

fn suggestions(e: &clap::Error) -> Vec<String> {
    use clap::error::{ContextKind, ContextValue};
    [
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedArg,
        ContextKind::SuggestedValue,
    ]
    .into_iter()
    .filter_map(|k| e.get(k))
    .flat_map(|v| match v {
        ContextValue::String(s) => vec![s.clone()],
        ContextValue::Strings(s) => s.clone(),
        _ => Vec::new(),
    })
    .collect()
}

/// clap's own help/version go to stdout with 0; a usage error is exit 2, as JSON under --json.
fn clap_failure(e: clap::Error, args: &[OsString], env: &Env) -> ExitCode {
    use clap::error::ErrorKind as K;
    if matches!(
        e.kind(),
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == K::DisplayHelpOnMissingArgumentOrSubcommand {
            Exit::Usage.into()
        } else {
            ExitCode::SUCCESS
        };
    }
    let json = args.iter().any(|a| a == "--json");
    if json {
        let out = Output::new(true, ColorChoice::Never, env.get("NO_COLOR").is_some());
        let msg = e.to_string();
        let first = msg
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("error: ")
            .to_string();
        let mut err = MptError::usage(first).with_hint(usage_hint(&e));
        let suggested = suggestions(&e);
        if !suggested.is_empty() {
            err = err.with_detail(Suggested { suggested });
        }
        out.error(&err);
    } else {
        let _ = e.print();
    }
    Exit::Usage.into()
}
