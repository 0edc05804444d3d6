//! `mpt feed`'s command line: its subcommands, the flags every one of them shares
//! (`FeedCommon`), and the help that follows each.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::helper::FeedInstallHelperArgs;
use super::mine::FeedMineArgs;
use super::prepare::FeedPrepareArgs;

const FEED_PREPARE_AFTER: &str = "\
stdout is exactly one line, MINE_SOURCE=<path>, when the staging folder holds transcripts (the
remote path in remote mode); nothing to export prints no line and exits 0. With several harnesses,
one such line per harness, pi's first (each has its own staging folder and wing). opencode's
database is OPENCODE_DB, else opencode.db (or opencode-<channel>.db) in $XDG_DATA_HOME/opencode,
~/.local/share/opencode; one that is locked, damaged or of an unknown schema is skipped with its reason.
Claude Code's transcripts are $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects; Codex's rollouts
$CODEX_HOME/sessions, else ~/.codex/sessions (a rollout of a shape this mpt does not know is skipped with
its reason). Mine that path with
`mempalace_mine {source, mode: \"convos\", wing}` through the client that holds the palace.
Under the edge (MEMPALACE_EDGE=1 and a primary) the path is the local staging, and the same export
is also shipped to the primary's inbox, its mine queued in the outbox (a failed ship is `ship:
pending`, exit 0, redone by the next trigger).
Exit codes: 0 ok (also disabled, nothing to export, remote mode without MEMPALACE_PI_SSH_TARGET),
1 I/O or rsync failure, 2 malformed flag or env, 6 another feed holds the lock, 7 the deadline
(MEMPALACE_FEED_PREPARE_TIMEOUT_MS) passed or the palace host is unreachable.";

const FEED_MINE_AFTER: &str = "\
Mines through MEMPALACE_REMOTE_URL's primary (--palace is then not used; under the edge the local palace, the
primary's mine being queued by the prepare), else the local palace's edge owner or live hub, else a local
mempalace-mcp child; never a second writer on a palace a live process holds (exit 6, naming it).
The mine's deadline is MEMPALACE_FEED_MINE_TIMEOUT_MS (default 300000); hitting it is exit 7 and
loses nothing. Never retried.";

#[derive(Debug, Args)]
pub struct FeedArgs {
    #[command(subcommand)]
    pub action: FeedAction,
}

#[derive(Debug, Subcommand)]
pub enum FeedAction {
    /// Stage pi's (and opencode's) transcripts for the convo miner and print MINE_SOURCE=<path>; touches no palace
    #[command(after_help = FEED_PREPARE_AFTER)]
    Prepare(FeedPrepareArgs),
    /// Prepare, then mine MINE_SOURCE through the palace's writer (for extensions that cannot feed)
    #[command(after_help = FEED_MINE_AFTER)]
    Mine(FeedMineArgs),
    /// Link `mempalace-pi-session` to mpt, so the pi bridge's feeder runs `mpt feed prepare`
    #[command(after_help = FEED_INSTALL_HELPER_AFTER)]
    InstallHelper(FeedInstallHelperArgs),
}

const FEED_INSTALL_HELPER_AFTER: &str = "\
Invoked as `mempalace-pi-session`, mpt accepts exactly the pi bridge's flags
(`--prepare --reason TRIGGER [--wing WING]`) and behaves as `mpt feed prepare`: the same
MINE_SOURCE=<path> line on stdout and the same exit codes.";

#[derive(Debug, Args)]
pub struct FeedCommon {
    /// Whose conversations: pi, opencode, claude (repeatable; default: every harness found here,
    /// only pi with --sessions or --out)
    #[arg(long = "harness", value_enum, value_name = "HARNESS")]
    pub harness: Vec<mpt_feed::Harness>,
    /// The wing to file under (else per harness: MEMPALACE_FEED_WING, else wing_conversations for
    /// pi; MEMPALACE_FEED_OPENCODE_WING, else wing_opencode for opencode;
    /// MEMPALACE_FEED_CLAUDE_WING, else wing_claude for Claude Code)
    #[arg(long, value_name = "WING")]
    pub wing: Option<String>,
    /// pi's sessions folder, read recursively (else PI_CODING_AGENT_SESSION_DIR, else
    /// $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)
    #[arg(long, value_name = "DIR")]
    pub sessions: Option<PathBuf>,
    /// The staging folder handed to the miner (else $XDG_STATE_HOME/mpt/feed/staged, for opencode
    /// .../feed/opencode/staged); mpt's state and lock files are kept outside it
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Gate: the fewest real user turns a session needs
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub min_user_turns: usize,
    /// Gate: the fewest characters of dialogue (user and assistant text) a session needs
    #[arg(long, value_name = "N", default_value_t = 500)]
    pub min_chars: usize,
    /// Gate: a session written to more recently than this is still live and waits, unless the
    /// trigger ends it
    #[arg(long, value_name = "MS", default_value_t = 300_000)]
    pub quiet_period_ms: u64,
    /// Gate: also export subagent runs (folders named subagents/ or subagent-artifacts/)
    #[arg(long)]
    pub include_subagents: bool,
}
