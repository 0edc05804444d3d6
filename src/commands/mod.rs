//! One module per subcommand: argument handling and printing only (true of every one: `edge`'s
//! launch and status live in `crate::edge`, its wiring in `crate::harness`), over the engines.

// Output goes through `ctx.out` (`crate::output::Output`), never straight to stdout/stderr.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod call;
mod completions;
mod config;
mod ctx;
mod doctor;
mod edge;
pub(crate) mod feed;
mod gateway;
mod mailbox;
mod man;
mod outbox;
mod paths;
mod runbook;

pub use call::CallArgs;
pub use completions::CompletionsArgs;
pub use ctx::Ctx;
pub use doctor::DoctorArgs;
pub use edge::EdgeArgs;
pub use feed::FeedArgs;
pub use gateway::GatewayArgs;
pub use mailbox::MailboxArgs;
pub use man::ManArgs;
pub use outbox::OutboxArgs;
pub use paths::PathsArgs;
pub use runbook::RunbookArgs;

use crate::cli::Command;
use crate::error::{Exit, MptError, Result};

pub fn run(ctx: &Ctx, command: Command) -> Result<Exit> {
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
        Command::Completions(args) => completions::run(ctx, args),
        Command::Man(args) => man::run(ctx, args),
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
