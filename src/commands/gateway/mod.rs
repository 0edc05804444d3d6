//! `mpt gateway [serve|token|audit|policy]`: argument handling and printing for the gateway
//! engine (`crate::gateway`); serving, tokens, the audit and the policy each have their own file.

mod audit;
mod policy;
mod serve;
mod token;

use crate::cli::{GatewayArgs, GatewayCommand};
use crate::commands::Ctx;
use crate::error::{Exit, Result};
use crate::gateway::StateDir;

pub fn run(ctx: &Ctx, args: GatewayArgs) -> Result<Exit> {
    let dir = StateDir::resolve(&ctx.env)?;
    match args.command {
        GatewayCommand::Serve(a) => serve::run(ctx, dir, a),
        GatewayCommand::Token(a) => token::run(ctx, &dir, a.action),
        GatewayCommand::Audit(a) => audit::run(ctx, &dir, a),
        GatewayCommand::Policy(a) => policy::run(ctx, &dir, a.action),
    }
}
