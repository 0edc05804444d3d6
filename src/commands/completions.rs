//! `mpt completions <shell>`: the completion script, generated from the clap definition into a
//! buffer first (so `| head` is a clean exit, not a panic).

use crate::commands::{Ctx, Root};
use clap::Args;
use mpt_base::error::{Exit, Result};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub fn run(ctx: &Ctx, args: CompletionsArgs, root: Root) -> Result<Exit> {
    ctx.out.write_raw(&script(args.shell, root))?;
    Ok(Exit::Ok)
}

pub fn script(shell: clap_complete::Shell, root: Root) -> Vec<u8> {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut root(), "mpt", &mut buf);
    buf
}
