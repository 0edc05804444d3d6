//! `mpt token header`: this device's token as the HTTP header a harness sends, printed for the
//! program that runs it (Claude Code's `headersHelper`), so the token is written in no harness file.

use clap::{Args, Subcommand};

use crate::commands::Ctx;
use mpt_base::error::{Exit, MptError, Result};

#[derive(Debug, Args)]
pub struct TokenArgs {
    #[command(subcommand)]
    pub action: TokenAction,
}

#[derive(Debug, Subcommand)]
pub enum TokenAction {
    /// Print {"Authorization": "Bearer <token>"} for a harness's header helper (never to a terminal, never with --json)
    Header,
}

pub fn run(ctx: &Ctx, args: TokenArgs) -> Result<Exit> {
    match args.action {
        TokenAction::Header => header(ctx),
    }
}

fn header(ctx: &Ctx) -> Result<Exit> {
    if ctx.out.json {
        return Err(MptError::refused(
            "the header holds this device's token, and mpt never puts a secret in a --json document",
        )
        .with_hint("run `mpt token header` without --json (Claude Code's headersHelper does)"));
    }
    if ctx.out.stdout_is_terminal() {
        return Err(MptError::refused(
            "the header holds this device's token, and stdout is a terminal where it would show",
        )
        .with_hint(
            "it is for the program that runs it: `mpt token header | wc -c` checks that it works",
        ));
    }
    let config = ctx.config()?;
    let Some((token, _)) = config.remote.as_ref().and_then(|r| r.token.as_ref()) else {
        return Err(MptError::usage(
            "this device holds no token for a primary (MEMPALACE_REMOTE_URL with MEMPALACE_REMOTE_TOKEN or MPT_TOKEN_FILE)",
        )
        .with_hint("join the fleet with `mpt join URL`, which writes the token file"));
    };
    let doc = serde_json::json!({"Authorization": format!("Bearer {}", token.expose())});
    ctx.out.write_raw(format!("{doc}\n").as_bytes())?;
    Ok(Exit::Ok)
}
