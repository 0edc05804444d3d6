//! The command line, as clap derive types: global flags and the subcommands. Nothing else lives
//! here; each subcommand's behaviour is in `commands/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::output::ColorChoice;

const AFTER_HELP: &str = "\
Exit codes: 0 ok, 1 runtime failure, 2 usage or malformed input, 3 a check failed,
4 refused for safety, 6 busy (another process holds the lock), 7 unavailable (come back later).
With --json, stdout holds exactly one JSON document with a `schema` field, errors included.";

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
    /// Print exactly one JSON document (with a `schema` field) on stdout, errors included
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
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Call one MemPalace tool through the transport the pi bridge would use
    Call(CallArgs),
    /// Show the effective configuration and where each value came from (never a secret)
    Config,
    /// Where MemPalace keeps this palace's files, and what they hold
    Paths(PathsArgs),
    /// The durable queue of writes for the shared primary: inspect it, flush it, unblock it
    Outbox(OutboxArgs),
    /// Print a shell completion script
    Completions(CompletionsArgs),
    /// Write man pages (one per subcommand) into DIR, or print mpt(1)
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool, e.g. mempalace_status (the prefix may be left out)
    #[arg(required_unless_present = "list")]
    pub tool: Option<String>,
    /// The tool's arguments as a JSON object
    #[arg(default_value = "{}")]
    pub args: String,
    /// List the server's tools instead
    #[arg(long, conflicts_with = "tool")]
    pub list: bool,
    /// Deadline for this call in milliseconds (overrides MEMPALACE_MCP_TIMEOUT_MS; 0 = none)
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// The local palace (else MemPalace's own rules)
    #[arg(long, value_name = "PATH")]
    pub palace: Option<PathBuf>,
    /// The mempalace-mcp binary to start for a local palace
    #[arg(long, value_name = "PATH")]
    pub child: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct PathsArgs {
    /// The palace (else MemPalace's own rules)
    #[arg(long, value_name = "PATH")]
    pub palace: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write mpt.1 and one page per subcommand here (else print mpt(1) to stdout)
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Without a subcommand: counts by state, the oldest open op's age, the primary it targets.
The outbox is MPT_OUTBOX, else `outbox` in the mpt config, else ~/.mempalace/edge/outbox.sqlite3.
flush exits 0 drained, 3 a failed op blocks the queue, 6 another flusher runs, 7 the primary
could not be reached (the ops stay queued).")]
pub struct OutboxArgs {
    #[command(subcommand)]
    pub command: Option<OutboxCommand>,
}

#[derive(Debug, Subcommand)]
pub enum OutboxCommand {
    /// List ops in queue order (default: the open ones, head first)
    List(OutboxListArgs),
    /// Show one op: payload, attempts, last error, what operators did to it
    Show(OutboxOpArg),
    /// Queue one write for the primary (for scripts and tests; the edge queues its own)
    Enqueue(OutboxEnqueueArgs),
    /// Send the queued ops to the primary, in order, each effect exactly once
    Flush(OutboxFlushArgs),
    /// Put a failed op (or every failed op) back in the queue with a fresh attempt budget
    Retry(OutboxRetryArgs),
    /// Give up on one op; it is recorded, never silent
    Drop(OutboxDropArgs),
    /// Delete done and dropped ops older than the retention (open ops are never touched)
    Purge(OutboxPurgeArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutboxStateFilter {
    /// queued, leased and failed
    Open,
    Queued,
    Leased,
    Done,
    Failed,
    Dropped,
    All,
}

#[derive(Debug, Args)]
pub struct OutboxListArgs {
    /// Which ops
    #[arg(long, value_enum, default_value_t = OutboxStateFilter::Open)]
    pub state: OutboxStateFilter,
    /// At most this many (done, dropped and all: the most recent)
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct OutboxOpArg {
    /// The op_id, or its first hex digits (at least 4)
    pub op: String,
}

#[derive(Debug, Args)]
pub struct OutboxEnqueueArgs {
    /// The write tool, e.g. kg_add (the mempalace_ prefix may be left out)
    pub tool: String,
    /// Its arguments as a JSON object
    pub args: String,
    /// At most one open op per key: a second enqueue with the same key returns the first
    #[arg(long, value_name = "KEY")]
    pub dedupe_key: Option<String>,
}

#[derive(Debug, Args)]
pub struct OutboxFlushArgs {
    /// Settle at most N ops, then stop
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Keep retrying an unreachable primary, with backoff, for this long (e.g. 90s, 5m);
    /// without it the flush stops at the first transient failure
    #[arg(long, value_name = "DURATION")]
    pub deadline: Option<String>,
    /// Wait for another flusher to finish instead of exiting 6 at once
    #[arg(long)]
    pub wait: bool,
}

#[derive(Debug, Args)]
pub struct OutboxRetryArgs {
    /// The failed op
    #[arg(required_unless_present = "failed", conflicts_with = "failed")]
    pub op: Option<String>,
    /// Every failed op
    #[arg(long)]
    pub failed: bool,
}

#[derive(Debug, Args)]
pub struct OutboxDropArgs {
    /// The op to give up
    pub op: String,
    /// Confirm: the op will never reach the primary
    #[arg(long)]
    pub yes: bool,
    /// Why, for the record
    #[arg(long)]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct OutboxPurgeArgs {
    /// Settled longer ago than this (e.g. 7d, 12h, 0s)
    #[arg(long, value_name = "DURATION", default_value = "7d")]
    pub older_than: String,
}
