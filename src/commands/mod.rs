//! One module per subcommand: argument handling and printing only (true of every one: `edge`'s
//! launch and status live in `mpt_edge`, its wiring in `mpt_palace::harness`), over the engines.

// Output goes through `ctx.out` (`mpt_base::output::Output`), never straight to stdout/stderr.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod call;
mod completions;
mod config;
mod ctx;
mod doctor;
pub(crate) mod edge;
pub(crate) mod feed;
mod gateway;
mod join;
mod mailbox;
mod man;
mod outbox;
mod paths;
mod runbook;
mod token;

pub use call::CallArgs;
pub use completions::CompletionsArgs;
pub use ctx::Ctx;
pub use doctor::DoctorArgs;
pub use edge::EdgeArgs;
pub use feed::FeedArgs;
pub use gateway::GatewayArgs;
pub use join::JoinArgs;
pub use mailbox::MailboxArgs;
pub use man::ManArgs;
pub use outbox::OutboxArgs;
pub use paths::PathsArgs;
pub use runbook::RunbookArgs;
pub use token::TokenArgs;

use std::path::PathBuf;

use clap::{Args, Subcommand};

use mpt_base::error::{Exit, MptError, Result};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Tell the truth about this machine: each silent failure, why it matters, and its fix
    Doctor(DoctorArgs),
    /// The local-first MCP proxy a harness runs instead of mempalace-mcp
    Edge(EdgeArgs),
    /// RFC 001's phases as a checklist: where this machine stands, each safe step applied with a backup
    Runbook(RunbookArgs),
    /// Call one MemPalace tool through the transport the pi bridge would use
    Call(CallArgs),
    /// Show the effective configuration and where each value came from (never a secret)
    Config,
    /// Where MemPalace keeps this palace's files, and what they hold
    Paths(PathsArgs),
    /// What this device owes: asks addressed to it that no later terminal reply of its own answers
    Mailbox(MailboxArgs),
    /// The harnesses' conversations (pi, opencode, Claude Code) into the palace: stage them (never touching it), or stage and mine
    Feed(FeedArgs),
    /// The durable queue of writes for the shared primary: inspect it, flush it, settle failed ops
    Outbox(OutboxArgs),
    /// The primary host's front door: one token per device, roles, rate limits, a hash-chained audit
    Gateway(GatewayArgs),
    /// Join this device to the fleet with the code `mpt gateway invite` made on the primary host
    Join(JoinArgs),
    /// This device's token for a harness that runs mpt to get it (`token header`)
    Token(TokenArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
    /// Write man pages (one per subcommand) into DIR, or print mpt(1)
    Man(ManArgs),
}

/// `--palace PATH`, declared once and flattened into every command that acts on a local palace
/// (resolved by `PalacePaths::chosen`).
#[derive(Debug, Clone, Default, Args)]
pub struct PalaceArg {
    /// The local palace (else the mpt config's `palace`, else MemPalace's own rules)
    #[arg(long = "palace", id = "palace", value_name = "PATH", global = true)]
    pub path: Option<PathBuf>,
}

/// The whole command line's clap definition (`crate::cli::Cli`), handed down by the binary so the
/// commands that print it (`completions`, `man`) need not reach back up for it.
pub type Root = fn() -> clap::Command;

pub fn run(ctx: &Ctx, command: Command, root: Root) -> Result<Exit> {
    match command {
        Command::Doctor(args) => doctor::run(ctx, args),
        Command::Edge(args) => edge::run(ctx, args),
        Command::Runbook(args) => runbook::run(ctx, args),
        Command::Call(args) => call::run(ctx, args),
        Command::Config => config::run(ctx),
        Command::Paths(args) => paths::run(ctx, args),
        Command::Mailbox(args) => mailbox::run(ctx, args),
        Command::Feed(args) => feed::run(ctx, args),
        Command::Outbox(args) => outbox::run(ctx, args),
        Command::Gateway(args) => gateway::run(ctx, args),
        Command::Join(args) => join::run(ctx, args),
        Command::Token(args) => token::run(ctx, args),
        Command::Completions(args) => completions::run(ctx, args, root),
        Command::Man(args) => man::run(ctx, args, root),
    }
}

/// A small runtime for commands that talk MCP (two worker threads: the machine has two cores).
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| MptError::io("starting the async runtime", &e))
}
