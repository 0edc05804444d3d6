//! The command line's top level, as clap derive types: global flags and the subcommands. Each
//! subcommand's arguments live beside it in `commands/` (as jj and cargo do), its behaviour too.

use std::path::PathBuf;

use clap::{Args, Parser};

use crate::commands::Command;
use mpt_base::output::ColorChoice;

const AFTER_HELP: &str = "\
Exit codes: 0 ok, 1 runtime failure, 2 usage or malformed input, 3 a check failed,
4 refused for safety, 6 busy (another process holds the lock), 7 unavailable (come back later).
With --json, stdout holds exactly one JSON document with a `schema` field, errors included;
`mailbox watch --json` streams instead: one document per line (JSON Lines), as each comes.";

#[derive(Debug, Parser)]
#[command(
    name = "mpt",
    version,
    about = "Operate MemPalace across a fleet of machines",
    long_about = "mpt operates MemPalace (the MCP memory server coding agents use) across a fleet: \
                  a devbox here, a laptop there, one shared primary palace.",
    after_help = AFTER_HELP,
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Print exactly one JSON document (with a `schema` field) on stdout, errors included;
    /// `mailbox watch` streams one per line (JSON Lines)
    #[arg(long, global = true)]
    pub json: bool,
    /// Print only errors
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more on stderr (-vv: each request)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// When to colour human output (NO_COLOR is honoured)
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// The mpt config file (else MPT_CONFIG, else $XDG_CONFIG_HOME/mpt/config.json)
    #[arg(long = "mpt-config", global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn check_values_are_the_doctor_table() {
        let cli = super::Cli::command();
        let doctor = cli.find_subcommand("doctor").unwrap();
        let check = doctor
            .get_arguments()
            .find(|a| a.get_id() == "check")
            .unwrap();
        let values: Vec<String> = check
            .get_possible_values()
            .iter()
            .map(|v| v.get_name().to_string())
            .collect();
        let table: Vec<&str> = crate::doctor::CHECKS.iter().map(|d| d.id).collect();
        assert_eq!(values, table);
    }

    /// Every `--palace` is the one flattened declaration: same help, same value name.
    #[test]
    fn palace_is_declared_once() {
        fn walk(cmd: &clap::Command, out: &mut Vec<(String, String)>) {
            for a in cmd.get_arguments() {
                if a.get_long() == Some("palace") {
                    let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                    out.push((cmd.get_name().to_string(), help));
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, out);
            }
        }
        let mut found = Vec::new();
        walk(&super::Cli::command(), &mut found);
        let commands: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
        for c in ["call", "runbook", "paths", "edge", "mine"] {
            assert!(commands.contains(&c), "{c} takes --palace: {commands:?}");
        }
        let first = &found[0].1;
        assert!(first.contains("mpt config"), "{first}");
        assert!(found.iter().all(|(_, h)| h == first), "{found:#?}");
    }
}
