//! The command line, as clap derive types: global flags and the subcommands. Nothing else lives
//! here; each subcommand's behaviour is in `commands/`.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Args, Parser, Subcommand};

use crate::output::ColorChoice;

const AFTER_HELP: &str = "\
Exit codes: 0 ok, 1 runtime failure, 2 usage or malformed input, 3 a check failed,
4 refused for safety, 6 busy (another process holds the lock), 7 unavailable (come back later).
With --json, stdout holds exactly one JSON document with a `schema` field, errors included;
`mailbox watch --json` streams instead: one document per line (JSON Lines), as each comes.";

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
    /// Print exactly one JSON document (with a `schema` field) on stdout, errors included;
    /// `mailbox watch` streams one per line (JSON Lines)
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
    #[arg(long = "mpt-config", global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

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
    /// pi's session transcripts into the palace: stage them (never touching it), or stage and mine
    Feed(FeedArgs),
    /// The durable queue of writes for the shared primary: inspect it, flush it, settle failed ops
    Outbox(OutboxArgs),
    /// The primary host's front door: one token per device, roles, rate limits, a hash-chained audit
    Gateway(GatewayArgs),
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
    #[command(flatten)]
    pub palace: PalaceArg,
    /// The mempalace-mcp binary to start for a local palace
    #[arg(long, value_name = "PATH")]
    pub child: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Skip every network and child probe (files and processes only)
    #[arg(long)]
    pub offline: bool,
    /// Run one check
    #[arg(long, value_name = "ID", value_parser = check_ids())]
    pub check: Option<String>,
}

/// `--check` takes the ids of the doctor's check table, each with its title as help.
fn check_ids() -> PossibleValuesParser {
    PossibleValuesParser::new(
        crate::doctor::CHECKS
            .iter()
            .map(|d| PossibleValue::new(d.id).help(d.title)),
    )
}

#[derive(Debug, Args)]
pub struct RunbookArgs {
    #[command(subcommand)]
    pub action: Option<RunbookAction>,
    /// The phase to check (default: Phases 0-2, and Phase 4 where mpt gateway is in use)
    #[arg(value_enum)]
    pub phase: Option<PhaseArg>,
    /// Also search this file or folder (compose files, crontabs, units, scripts, .env, changelogs)
    #[arg(long, value_name = "PATH", global = true)]
    pub scan: Vec<PathBuf>,
    /// The primary's serve command line for Phase 1, judged instead of what is found
    #[arg(long, value_name = "CMD", global = true, allow_hyphen_values = true)]
    pub serve_cmd: Option<String>,
    /// A device of the fleet (repeatable), for the starter policy `apply gateway-policy` writes
    #[arg(long, value_name = "NAME", global = true)]
    pub device: Vec<String>,
    /// Phase 1: a loopback or LAN bind is deliberate (wins over `serve_bind` in the config)
    #[arg(long, value_enum, value_name = "BIND", global = true)]
    pub bind_ok: Option<crate::config::ServeBind>,
    #[command(flatten)]
    pub palace: PalaceArg,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum PhaseArg {
    /// Hygiene before any cutover: KG location, provenance, sync, credentials, stale docs
    Phase0,
    /// The primary up: bind, token, TLS, port
    Phase1,
    /// The edge: wiring per harness, the persisted palace, the primary seeded, R1
    Phase2,
    /// Per-device tokens: serve on loopback behind mpt gateway, the policy, a token per device, the audit
    Phase4,
}

#[derive(Debug, Subcommand)]
pub enum RunbookAction {
    /// Apply one step: a dry run without --yes; with it a kept backup, the change, a read-back and an undo line
    Apply {
        /// The step id (kg-location, credentials, gateway-policy, gateway-modes)
        step: String,
        /// Make the change (without it: the dry run, nothing changed)
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Debug, Args)]
pub struct PathsArgs {
    #[command(flatten)]
    pub palace: PalaceArg,
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
What any *@$MEMPALACE_PI_DEVICE identity owes (one per harness: pi@lap, opencode@lap), or --as's.
Read from the primary (with this device's own events not on it yet), then the local copy of its
log brought up to date. With the primary unreachable, answered from that copy: exit 0,
\"stale\": true and the age of the last pull (a STALE: first line for people). Exit 7 only
when this device has no local log at all. `ack` answers as the ask's addressee, through the edge
owner when one runs; with none and the primary unreachable it is queued in the outbox.")]
pub struct MailboxArgs {
    #[command(subcommand)]
    pub action: Option<MailboxAction>,
    /// Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)
    #[arg(long = "as", value_name = "AGENT", global = true)]
    pub as_identity: Option<String>,
    /// Print only the number of owed asks (for prompts and status bars)
    #[arg(long)]
    pub count: bool,
}

#[derive(Debug, Subcommand)]
pub enum MailboxAction {
    /// Poll, and announce only what became owed since the last poll
    Watch {
        /// Poll interval (not below MEMPALACE_MAILBOX_POLL_MS, default 300000)
        #[arg(long, value_name = "MS")]
        interval_ms: Option<u64>,
        /// Stop after this many polls
        #[arg(long, value_name = "N")]
        max_polls: Option<u64>,
    },
    /// Answer an ask with a terminal status, as the identity it was addressed to (or --as)
    Ack {
        /// The event id of the ask (evt_...)
        event: String,
        /// The terminal status that closes it
        #[arg(long, value_enum)]
        status: AckStatus,
        /// A reply body
        #[arg(long)]
        body: Option<String>,
    },
    /// Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or
    /// nowhere and why); exit 3 when nowhere
    #[command(after_help = "\
Reads MEMPALACE_MAILBOX_NOTIFY, the terminal ($TERM, $KITTY_WINDOW_ID) and tmux ($TMUX: then its
allow-passthrough, the pane's, the window's, then the global). With --test it also sends a test
notification on stderr: exit 0 when the sequence was written, 3 when it could not reach a terminal
(and the one command that fixes it). Needs no palace.")]
    Notify {
        /// Send a test notification on stderr now
        #[arg(long)]
        test: bool,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum AckStatus {
    Applied,
    Failed,
    Blocked,
    Superseded,
}

impl AckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AckStatus::Applied => "applied",
            AckStatus::Failed => "failed",
            AckStatus::Blocked => "blocked",
            AckStatus::Superseded => "superseded",
        }
    }
}

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
        /// The harness's config file (opencode: else ~/.config/opencode/opencode.json[c])
        #[arg(long = "config", id = "harness_config", value_name = "PATH")]
        config: Option<PathBuf>,
        /// Show what would change, change nothing
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WireHarness {
    Opencode,
    Pi,
}

const FEED_PREPARE_AFTER: &str = "\
stdout is exactly one line, MINE_SOURCE=<path>, when the staging folder holds transcripts (the
remote path in remote mode); nothing to export prints no line and exits 0. With several harnesses,
one such line per harness, pi's first (each has its own staging folder and wing). opencode's
database is OPENCODE_DB, else opencode.db (or opencode-<channel>.db) in $XDG_DATA_HOME/opencode,
~/.local/share/opencode; one that is locked, damaged or of an unknown schema is skipped with its reason. Mine that path with
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

#[derive(Debug, Args)]
pub struct FeedInstallHelperArgs {
    /// The folder for the link (else ~/.local/bin); the bridge finds it on PATH or through
    /// MEMPALACE_FEED_BIN
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Replace another `mempalace-pi-session` there: a file is kept as a numbered backup
    /// (`.mpt-backup-<time>`, never over another), a link replaced; a directory is never moved
    #[arg(long)]
    pub force: bool,
}

const FEED_INSTALL_HELPER_AFTER: &str = "\
Invoked as `mempalace-pi-session`, mpt accepts exactly the pi bridge's flags
(`--prepare --reason TRIGGER [--wing WING]`) and behaves as `mpt feed prepare`: the same
MINE_SOURCE=<path> line on stdout and the same exit codes.";

#[derive(Debug, Args)]
pub struct FeedPrepareArgs {
    /// The trigger, recorded: shutdown, settled, new, resume, fork, compact, reload, manual, ...
    /// (shutdown, new, resume and fork end the session being left, so they skip the quiet period)
    #[arg(long, value_name = "TRIGGER")]
    pub reason: String,
    #[command(flatten)]
    pub common: FeedCommon,
}

#[derive(Debug, Args)]
pub struct FeedMineArgs {
    /// The trigger, recorded (see `mpt feed prepare --help`)
    #[arg(long, value_name = "TRIGGER", default_value = "manual")]
    pub reason: String,
    #[command(flatten)]
    pub palace: PalaceArg,
    #[command(flatten)]
    pub common: FeedCommon,
}

#[derive(Debug, Args)]
pub struct FeedCommon {
    /// Whose conversations: pi, opencode (repeatable; default: every harness found here, only pi
    /// with --sessions or --out)
    #[arg(long = "harness", value_enum, value_name = "HARNESS")]
    pub harness: Vec<crate::feed::Harness>,
    /// The wing to file under (else per harness: MEMPALACE_FEED_WING, else wing_conversations for
    /// pi; MEMPALACE_FEED_OPENCODE_WING, else wing_opencode for opencode)
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

#[derive(Debug, Args)]
#[command(after_help = "\
Without a subcommand: counts by state, the oldest open op's age, the primary it targets.
The outbox is MPT_OUTBOX, else `outbox` in the mpt config, else ~/.mempalace/edge/outbox.sqlite3
(on a read-only HOME: <palace>/.mpt-edge/outbox.sqlite3, the palace's own volume).
flush exits 0 drained, 3 failed ops remain (everything that does not depend on them was sent),
6 another flusher runs, 7 the primary could not be reached (the ops stay queued).")]
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
    /// Queue this device's existing memory for the primary, once (a dry run without --yes)
    Backfill(OutboxBackfillArgs),
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
pub struct OutboxBackfillArgs {
    #[command(flatten)]
    pub palace: PalaceArg,
    /// Only drawers and diary entries in wings matching this glob (repeatable); facts and
    /// coordination events have no wing and are left for a run without --wing
    #[arg(long = "wing", value_name = "GLOB")]
    pub wings: Vec<String>,
    /// Only records filed on or after this date (YYYY-MM-DD) or time (YYYY-MM-DDTHH:MM:SS)
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Print what would be queued, queue nothing (the default without --yes)
    #[arg(long, conflicts_with = "yes")]
    pub dry_run: bool,
    /// Queue it
    #[arg(long)]
    pub yes: bool,
    /// Also queue again the records whose backfill op an operator dropped (`mpt outbox drop`);
    /// without it they are listed as `dropped` and the backfill is not done
    #[arg(long)]
    pub include_dropped: bool,
}

#[derive(Debug, Args)]
pub struct OutboxPurgeArgs {
    /// Settled longer ago than this (e.g. 7d, 12h, 0s)
    #[arg(long, value_name = "DURATION", default_value = "7d")]
    pub older_than: String,
}

const GATEWAY_AFTER: &str = "\
State lives in MPT_GATEWAY_DIR (else $XDG_STATE_HOME/mpt/gateway): policy.json (written by you),
tokens.json (hashes only, written by `mpt gateway token`), audit.jsonl and audit.head.json.
A refused token is HTTP 401 {\"error\": \"malformed\"|\"unknown_token\"|\"expired\"|\"revoked\"}; a
tools/call the role does not allow is a JSON-RPC error -32020 (HTTP 200); a route it does not
allow is 403; past the device's rate, 429 with Retry-After.";

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
    /// Show the audit log (by device, denials, time); `verify` checks its hash chain
    Audit(GatewayAuditArgs),
    /// Check the policy file and its tests, or explain the rule that decides one call
    Policy(GatewayPolicyArgs),
}

#[derive(Debug, Args)]
pub struct GatewayPolicyArgs {
    #[command(subcommand)]
    pub action: GatewayPolicyAction,
}

#[derive(Debug, Subcommand)]
pub enum GatewayPolicyAction {
    /// Parse a policy and run its tests (never calling the primary): exit 3 naming a failing test
    Check {
        /// The policy file (default: policy.json in the gateway's state folder)
        file: Option<PathBuf>,
    },
    /// The decision on one tools/call by a device, the rule that decides it, and what it rewrites
    Explain {
        /// The device (a key of "devices" in policy.json)
        device: String,
        /// The tool, e.g. add_drawer or mempalace_add_drawer
        tool: String,
        /// The call's arguments, a JSON object
        #[arg(value_name = "ARGS_JSON", default_value = "{}")]
        args: String,
        /// The wing update_drawer's drawer is in now (what the gateway would look up)
        #[arg(long, value_name = "WING")]
        current_wing: Option<String>,
        /// The policy file (default: policy.json in the gateway's state folder)
        #[arg(long, value_name = "FILE")]
        policy: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
#[command(after_help = "\
The upstream token comes from MEMPALACE_MCP_HTTP_TOKEN or the 0600 file named by
MPT_GATEWAY_UPSTREAM_TOKEN_FILE, never argv; an https:// upstream may add MPT_CA_FILE's CA.
Runs until SIGTERM or SIGINT. The first stdout line says where it listens (one JSON Line under --json).")]
pub struct GatewayServeArgs {
    /// Where devices connect: IP:PORT (port 0 picks a free one)
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: std::net::SocketAddr,
    /// The mempalace serve in front of which it stands, e.g. http://127.0.0.1:8765
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// Serve TLS with this PEM certificate (chain)
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's PEM private key
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Allow a non-loopback listen without TLS, or a plain http:// upstream on another host
    /// (when a tunnel already encrypts the link)
    #[arg(long)]
    pub allow_insecure: bool,
}

#[derive(Debug, Args)]
pub struct GatewayTokenArgs {
    #[command(subcommand)]
    pub action: GatewayTokenAction,
}

#[derive(Debug, Subcommand)]
pub enum GatewayTokenAction {
    /// A new token for a device the policy names: shown once, alone on stdout or into --out
    Issue {
        /// The device (a key of "devices" in policy.json)
        device: String,
        /// Refused after this long (e.g. 90d); without it the token never expires (doctor warns)
        #[arg(long, value_name = "DURATION")]
        expires: Option<String>,
        /// Write MEMPALACE_REMOTE_TOKEN=<token> into this env file (0600) instead of stdout
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Every token: id, device, state, created, last used, expiry (never a secret)
    List,
    /// A new token for a device; its old one keeps working for the overlap, then is expired
    Rotate {
        device: String,
        /// How long the old token keeps working
        #[arg(long, value_name = "DURATION", default_value = "24h")]
        overlap: String,
        /// The new token's lifetime (else the old one's, else none)
        #[arg(long, value_name = "DURATION")]
        expires: Option<String>,
        /// Write MEMPALACE_REMOTE_TOKEN=<token> into this env file (0600) instead of stdout
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Refuse a token (by id) or every token of a device, at once
    Revoke {
        /// A token id, or a device
        #[arg(value_name = "ID|DEVICE")]
        target: String,
    },
}

#[derive(Debug, Args)]
pub struct GatewayAuditArgs {
    #[command(subcommand)]
    pub action: Option<GatewayAuditAction>,
    /// Only this device's records
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<String>,
    /// Only refusals
    #[arg(long)]
    pub denied: bool,
    /// Only records since T: an RFC 3339 time or a duration back from now (e.g. 1h)
    #[arg(long, value_name = "T")]
    pub since: Option<String>,
    /// At most the N most recent records
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub limit: usize,
}

#[derive(Debug, Subcommand)]
pub enum GatewayAuditAction {
    /// Recompute the hash chain and check its head: exit 3 naming the first record that fails
    Verify,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn check_values_are_the_doctor_table() {
        let cli = super::Cli::command();
        let doctor = cli.find_subcommand("doctor").unwrap();
        let check = doctor
            .get_arguments()
            .find(|a| a.get_id() == "check")
            .unwrap();
        let values: Vec<String> = check
            .get_possible_values()
            .iter()
            .map(|v| v.get_name().to_string())
            .collect();
        let table: Vec<&str> = crate::doctor::CHECKS.iter().map(|d| d.id).collect();
        assert_eq!(values, table);
    }

    /// Every `--palace` is the one flattened declaration: same help, same value name.
    #[test]
    fn palace_is_declared_once() {
        fn walk(cmd: &clap::Command, out: &mut Vec<(String, String)>) {
            for a in cmd.get_arguments() {
                if a.get_long() == Some("palace") {
                    let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                    out.push((cmd.get_name().to_string(), help));
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, out);
            }
        }
        let mut found = Vec::new();
        walk(&super::Cli::command(), &mut found);
        let commands: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
        for c in ["call", "runbook", "paths", "edge", "mine"] {
            assert!(commands.contains(&c), "{c} takes --palace: {commands:?}");
        }
        let first = &found[0].1;
        assert!(first.contains("mpt config"), "{first}");
        assert!(found.iter().all(|(_, h)| h == first), "{found:#?}");
    }
}
