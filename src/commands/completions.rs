//! `mpt completions <shell>`: the completion script, generated from the clap definition into a
//! buffer first (so `| head` is a clean exit, not a panic).

use clap::Args;
use clap::CommandFactory;

use crate::cli::Cli;
use crate::commands::Ctx;
use crate::error::{Exit, Result};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub fn run(ctx: &Ctx, args: CompletionsArgs) -> Result<Exit> {
    ctx.out.write_raw(&script(args.shell))?;
    Ok(Exit::Ok)
}

pub fn script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "mpt", &mut buf);
    buf
}
