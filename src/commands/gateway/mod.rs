//! `mpt gateway [serve|token|audit|policy]`: argument handling and printing for the gateway
//! engine (`mpt_gateway`); serving, tokens, the audit and the policy each have their own file.

mod audit;
mod docs;
mod invite;
mod policy;
mod serve;
mod token;

use clap::{Args, Subcommand};

use crate::commands::Ctx;
use audit::GatewayAuditArgs;
use invite::GatewayInviteArgs;
use mpt_base::error::{Exit, Result};
use mpt_gateway::StateDir;
use policy::GatewayPolicyArgs;
use serve::GatewayServeArgs;
use token::GatewayTokenArgs;

const GATEWAY_AFTER: &str = "\
State lives in MPT_GATEWAY_DIR (else $XDG_STATE_HOME/mpt/gateway): policy.json (written by you),
tokens.json (hashes only, written by `mpt gateway token`), audit.jsonl and audit.head.json.
A refused token is HTTP 401 {\"error\": \"malformed\"|\"unknown_token\"|\"expired\"|\"revoked\"}; a
tools/call the role does not allow is HTTP 200 with a tool result {\"isError\": true}, its text
naming the rule and what the device may do, its _meta[\"mpt/denial\"] {rule, device, tool}; any
other method it does not allow is a JSON-RPC error -31020 with data {rule, device, method}; a
route it does not allow is 403; past the device's rate, 429 with Retry-After.";

#[derive(Debug, Args)]
#[command(after_help = GATEWAY_AFTER)]
pub struct GatewayArgs {
    #[command(subcommand)]
    pub command: GatewayCommand,
}

#[derive(Debug, Subcommand)]
pub enum GatewayCommand {
    /// Listen for devices and forward to mempalace serve what each device's role allows
    Serve(GatewayServeArgs),
    /// Issue, list, rotate and revoke device tokens (the only writers of tokens.json)
    Token(GatewayTokenArgs),
    /// Add a device to the policy and make its single-use join code, for `mpt join` on the device
    Invite(GatewayInviteArgs),
    /// Show the audit log (by device, denials, time); `verify` checks its hash chain
    Audit(GatewayAuditArgs),
    /// Check the policy file and its tests, or explain the rule that decides one call
    Policy(GatewayPolicyArgs),
}

pub fn run(ctx: &Ctx, args: GatewayArgs) -> Result<Exit> {
    let dir = StateDir::resolve(&ctx.env)?;
    match args.command {
        GatewayCommand::Serve(a) => serve::run(ctx, dir, a),
        GatewayCommand::Token(a) => token::run(ctx, &dir, a.action),
        GatewayCommand::Invite(a) => invite::run(ctx, &dir, a),
        GatewayCommand::Audit(a) => audit::run(ctx, &dir, a),
        GatewayCommand::Policy(a) => policy::run(ctx, &dir, a.action),
    }
}
