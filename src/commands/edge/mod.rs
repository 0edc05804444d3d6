//! `mpt edge`: what a harness runs as its MCP server: a thin shim to the palace's one owner process
//! (started on demand), or `--standalone` in-process; `status`, `stop`, `wire` (Claude's: `wire_claude`).

mod status;
mod stop;
pub(crate) mod wire;
mod wire_claude;
mod wire_codex;

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::commands::Ctx;
use crate::commands::PalaceArg;
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::paths::edge::EdgeDir;
use mpt_edge::launch::Launch;
use mpt_edge::owner::OwnerPaths;
use mpt_palace::PalacePaths;

#[derive(Debug, Args)]
pub struct EdgeArgs {
    #[command(subcommand)]
    pub action: Option<EdgeAction>,
    /// The mempalace-mcp binary for the local child (else the config's `child`, else PATH)
    #[arg(long, value_name = "PATH", global = true)]
    pub child: Option<PathBuf>,
    #[command(flatten)]
    pub palace: PalaceArg,
    /// The harness this edge serves, for provenance (`<harness>@<device>`; else the config's, else mcp)
    #[arg(long, value_name = "NAME")]
    pub harness: Option<String>,
    /// Serve in this process instead of through the palace's shared owner
    #[arg(long)]
    pub standalone: bool,
    /// Run as the palace's owner process (started by `mpt edge` itself)
    #[arg(long, hide = true, conflicts_with = "standalone")]
    pub owner: bool,
}

#[derive(Debug, Subcommand)]
pub enum EdgeAction {
    /// Whether the owner runs, and whether the primary is reachable
    Status,
    /// Stop this palace's edge owner: in-flight calls answered (writes queued), its child stopped; exit 6 while harness sessions use it
    Stop,
    /// Set a harness's MemPalace entry to match the opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE)
    Wire {
        /// The harness
        #[arg(value_enum)]
        harness: WireHarness,
        /// The harness's config file (opencode: else ~/.config/opencode/opencode.json[c]; claude: its state file, else $CLAUDE_CONFIG_DIR/.claude.json or ~/.claude.json; codex: else $CODEX_HOME/config.toml or ~/.codex/config.toml)
        #[arg(long = "config", id = "harness_config", value_name = "PATH")]
        config: Option<PathBuf>,
        /// Show what would change, change nothing
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        claude: ClaudeWire,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WireHarness {
    Opencode,
    Pi,
    Claude,
    Codex,
}

/// Claude Code's own wiring choices: which scope, and its feeding hooks.
#[derive(Debug, Default, Args)]
pub struct ClaudeWire {
    /// claude: the scope written: user (~/.claude.json, every project) or project (./.mcp.json)
    #[arg(long, value_enum, value_name = "SCOPE")]
    pub scope: Option<ClaudeScope>,
    /// claude: also switch the local-scope entries (`claude mcp add`'s default) and this folder's .mcp.json entry, which take precedence over the user one
    #[arg(long)]
    pub all_scopes: bool,
    /// claude: install the SessionEnd and PreCompact hooks that run `mpt feed mine --harness claude` (in its settings.json, beside your own)
    #[arg(long, conflicts_with = "remove_hooks")]
    pub hooks: bool,
    /// claude: remove mpt's feeding hooks (yours stay; MemPalace's it replaced come back)
    #[arg(long)]
    pub remove_hooks: bool,
    /// claude: with --hooks, take out MemPalace's own `mempalace hook` entries (a conversation fed by both is filed twice); --remove-hooks puts them back
    #[arg(long, requires = "hooks")]
    pub replace_mempalace_hooks: bool,
}

impl ClaudeWire {
    fn any(&self) -> bool {
        self.scope.is_some()
            || self.all_scopes
            || self.hooks
            || self.remove_hooks
            || self.replace_mempalace_hooks
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClaudeScope {
    User,
    Project,
}

pub fn run(ctx: &Ctx, args: EdgeArgs) -> Result<Exit> {
    // Serving a harness, an unreadable token cuts the edge off the fleet, never off its tools;
    // `status` and `wire` fail on it with its fix.
    let config = match args.action {
        None => ctx.config_serving()?,
        Some(_) => ctx.config()?,
    };
    let palace = PalacePaths::chosen(&ctx.env, args.palace.path.as_deref(), Some(&config))?;
    let state = EdgeDir::for_palace(&palace.home, &palace.palace);
    let paths = OwnerPaths::in_dir(&ctx.env, &state.path, &palace.palace);
    let harness = args
        .harness
        .clone()
        .unwrap_or_else(|| config.harness.clone());
    let launch = Launch {
        config: &config,
        env: &ctx.env,
        config_flag: ctx.config_flag.as_deref(),
        paths,
        state,
        palace: palace.palace,
        child: args.child,
    };
    match args.action {
        Some(EdgeAction::Status) => status::run(ctx, &super::runtime()?, &launch),
        Some(EdgeAction::Stop) => stop::run(ctx, &super::runtime()?, &launch),
        Some(EdgeAction::Wire {
            harness: WireHarness::Claude,
            config: file,
            dry_run,
            claude,
        }) => wire_claude::run(ctx, &config, file, dry_run, &claude),
        Some(EdgeAction::Wire { claude, .. }) if claude.any() => Err(MptError::usage(
            "--scope, --all-scopes and the hook flags are Claude Code's",
        )
        .with_hint("mpt edge wire claude --help")),
        Some(EdgeAction::Wire {
            harness: WireHarness::Opencode,
            config: file,
            dry_run,
            ..
        }) => wire::opencode(ctx, &config, file, dry_run),
        Some(EdgeAction::Wire {
            harness: WireHarness::Pi,
            ..
        }) => wire::pi(ctx, &config),
        Some(EdgeAction::Wire {
            harness: WireHarness::Codex,
            config: file,
            dry_run,
            ..
        }) => wire_codex::run(ctx, &config, file, dry_run),
        None if args.owner => relay_runtime()?
            .block_on(launch.run_owner())
            .map(|()| Exit::Ok),
        None if args.standalone => relay_runtime()?
            .block_on(launch.run_standalone(&harness))
            .map(|()| Exit::Ok),
        None => relay_runtime()?
            .block_on(launch.run_shim(&harness))
            .map(|()| Exit::Ok),
    }
}

/// The shim, the owner and `--standalone` relay lines: one thread drives them (no wake-up of
/// another worker between reading a line and writing it); what blocks (the outbox's SQLite)
/// runs on the blocking pool, the flusher and the mine lane on threads of their own.
fn relay_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| mpt_base::error::MptError::io("starting the async runtime", &e))
}
