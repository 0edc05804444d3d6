//! The tool catalog: one row per MemPalace tool with every per-tool fact mpt acts on (class, how
//! the edge merges it, replay, stamping, deadline, the gateway's tier, wing and writer arguments).

use std::time::Duration;

use serde_json::Value;

pub mod args;
mod reads;
mod table;
mod wings;

pub use args::{Kind, Shape, py_int};
pub use reads::{Reveals, StreamArg};
pub use wings::{CHECKPOINT_AGENT, Sent, canonical, py_space, py_strip, sent, wings};

/// The prefix every MemPalace tool name carries.
pub const PREFIX: &str = "mempalace_";

/// How a tool may be treated across a fleet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolClass {
    /// No state changes: may fan out to both palaces.
    Read,
    /// Changes state: local first, then replicated through the outbox.
    Write,
    /// mine, sync, reconnect: local only, never proxied to a primary.
    Maintenance,
    /// delete_*: local only, never replicated.
    Destructive,
}

impl ToolClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolClass::Read => "read",
            ToolClass::Write => "write",
            ToolClass::Maintenance => "maintenance",
            ToolClass::Destructive => "destructive",
        }
    }
}

/// How a read combines the two palaces at the edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    /// Union of `results`, deduped by `drawer_id`, sorted by distance (needs one embedder).
    Search,
    /// Union of a `drawers` list, deduped by `drawer_id`.
    Drawers,
    /// Union of name → count maps (a count is the larger of the two: replicated drawers exist on both).
    Counts,
    /// Union of diary entries by their text, newest first (an entry not yet flushed is still read).
    Diary,
    /// The coordination log (event_list, event_wait): the primary's events and this palace's
    /// own not yet on it, each event once (`edge::coord`).
    Events,
    /// Primary first, local when the primary fails; never unioned (KG, artifacts, drawers by id).
    PrimaryFirst,
}

/// How a replay after an ambiguous send is made safe (contract §1): the row names the class a
/// tool's call takes at its strictest; `outbox::replay::strategy` relaxes the two that depend on
/// the arguments (a kg_add of an open fact, a checkpoint without a diary: idempotent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    /// The server dedupes a replay itself: content-addressed drawers, the open-triple guard,
    /// canonical tunnel ids, settings set to the same values.
    Idempotent,
    /// kg_add of an already-ended fact (`valid_to` given): the open-triple guard does not apply
    /// and a replay adds a second historical triple. Checked with kg_query.
    KgHistorical,
    /// event_append, patch_submit: `metadata.mpt_op_id`, found with event_list.
    EventKey,
    /// event_ack: an `event.ack` by that agent with `metadata.ack_of` = the event, same status and body.
    Ack,
    /// task_create: a `task.request` by that agent with the same goal, done, branch and commit.
    Task,
    /// diary_write: diary_read, the exact text under the same topic.
    Diary,
    /// checkpoint with a diary: the diary is checked; if it is there, only the items are
    /// replayed (they dedupe server-side by similarity and content-addressed ids).
    Checkpoint,
    /// artifact_put: no tool lists artifacts, so nothing can be checked; a replay's duplicate
    /// is an orphan no tool or event can reach (artifacts are found only by the id a reply
    /// returns, and only the landed reply's id is recorded). Resent, stamped with the op key.
    Orphan,
    /// A tool mpt does not know: an ambiguous send fails the op; an operator decides.
    Unverifiable,
}

impl Replay {
    /// Tools whose replay checks read the same confirmations (a diary entry may come from
    /// diary_write or a checkpoint's diary).
    fn family(self) -> Option<u8> {
        match self {
            Replay::Diary | Replay::Checkpoint => Some(0),
            Replay::Ack => Some(1),
            Replay::Task => Some(2),
            _ => None,
        }
    }
}

/// Where a coordination write's reply carries what it minted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// `{"event": e}`
    Event,
    /// `{"task": e}`
    Task,
    /// `{"event": e, "artifact": {"id": e.artifact_ids[0]}}`
    EventWithArtifact,
}

/// How long a call may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patience {
    /// The transport's default.
    Default,
    /// A fixed deadline (the mine needs minutes).
    Fixed(Duration),
    /// A long poll: it waits `arg` milliseconds (`default_ms` when unset), at most `max_ms`.
    LongPoll {
        arg: &'static str,
        default_ms: u64,
        max_ms: u64,
    },
}

impl Patience {
    /// How long a long poll asked with `args` waits (`None` for a tool that does not poll).
    pub fn poll_wait(self, args: &Value) -> Option<Duration> {
        match self {
            Patience::LongPoll {
                arg,
                default_ms,
                max_ms,
            } => {
                let ms = args.get(arg).and_then(Value::as_u64).unwrap_or(default_ms);
                Some(Duration::from_millis(ms.min(max_ms)))
            }
            _ => None,
        }
    }
}

/// The least role a gateway device needs to call a tool (`mpt gateway`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Reads that change nothing.
    Observer,
    /// Writes: drawers, diaries, the KG, the coordination log, tunnels.
    Member,
    /// Destructive, maintenance, server settings, the estate; and every tool not in the table.
    Admin,
    /// `sync`: refused unless the policy sets `allow_sync`, then admin (RFC 001 §7.2).
    Sync,
}

/// Where a tool names a wing (research §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WingArg {
    /// A JSON pointer into the arguments; a `*` segment stands for each element of an array.
    At(&'static str),
    /// A diary's wing: `wing` under the pointer `at`, else the one the server derives from
    /// its `agent_name` (`wing_<agent, lowercased, spaces as _>`).
    Diary { at: &'static str },
}

/// Everything mpt knows about one tool.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The bare name (without `mempalace_`).
    pub name: &'static str,
    pub class: ToolClass,
    /// How the edge combines a read (`PrimaryFirst` for everything that is not merged).
    pub read: ReadKind,
    /// A write to the coordination log (RFC 003): primary-first at the edge.
    pub coordination: bool,
    /// The argument the edge fills with `<harness>@<device>` when the caller left it unset.
    pub writer: Option<&'static str>,
    /// Where a diary entry may be (JSON pointers; `content` is `diary_write`'s alias of `entry`),
    /// each present one prefixed with `HOST:<device>|`.
    pub diary_entry: &'static [&'static str],
    /// It declares a `metadata` object (a coordination write the gateway stamps `mpt` into).
    pub metadata: bool,
    pub replay: Replay,
    /// Where a coordination write's reply carries its ids.
    pub reply: Reply,
    /// A knowledge-graph write: order-sensitive per subject and predicate on replay.
    pub kg_fact: bool,
    pub patience: Patience,
    /// The gateway's least role for it.
    pub tier: Tier,
    /// Every argument naming a wing (research §2.2).
    pub wings: &'static [WingArg],
    /// Every argument naming who writes or reads as whom (JSON pointers; research §2.2).
    pub identity: &'static [&'static str],
    /// Where its reply shows a wing (or the KG, or the coordination log): what a gateway device
    /// with `wings.read` globs has filtered out of it (research §2.2).
    pub reveals: Reveals,
    /// Where it names a coordination stream (the policy's `streams` globs).
    pub stream: StreamArg,
}

/// The row for a tool the table does not know: a write (fail-closed), admin-only at a gateway,
/// and unverifiable on replay.
const UNKNOWN: Tool = table::write("");

/// `mempalace_<x>` → `x` (a bare name as it is).
pub fn bare(tool: &str) -> &str {
    tool.strip_prefix(PREFIX).unwrap_or(tool)
}

/// `x` → `mempalace_x` (a full name as it is).
pub fn full_name(tool: &str) -> String {
    if tool.starts_with(PREFIX) {
        tool.to_string()
    } else {
        format!("{PREFIX}{tool}")
    }
}

/// The row for `mempalace_<x>` (or bare `<x>`).
pub fn known(tool: &str) -> Option<&'static Tool> {
    let bare = bare(tool);
    table::TOOLS.iter().find(|t| t.name == bare)
}

/// The row for `tool`; one the table does not know gets the fail-closed row.
pub fn tool(tool: &str) -> &'static Tool {
    known(tool).unwrap_or(&UNKNOWN)
}

/// Whether the outbox runs a queued call of `tool` apart from the flush lock, in a lane of its
/// own: the one maintenance call it admits (a feed's `mine`, `outbox::apart`) takes minutes, and
/// the writes behind it must never wait for it.
pub fn runs_apart(tool: &str) -> bool {
    self::tool(tool).class == ToolClass::Maintenance
}

/// Every row, in the order of MemPalace 3.11's `tools/list`.
pub fn all() -> &'static [Tool] {
    table::TOOLS
}

/// Classifies `mempalace_<x>` (or bare `<x>`). Unknown ⇒ Write (fail-closed).
pub fn classify(name: &str) -> ToolClass {
    tool(name).class
}

/// The full names of the tools whose replay checks see the same confirmations as `name`'s.
pub fn replay_family(name: &str) -> Vec<String> {
    let Some(family) = tool(name).replay.family() else {
        return Vec::new();
    };
    all()
        .iter()
        .filter(|t| t.replay.family() == Some(family))
        .map(|t| full_name(t.name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tools_are_writes() {
        assert_eq!(classify("mempalace_brand_new_tool"), ToolClass::Write);
        assert_eq!(classify("something_else"), ToolClass::Write);
        assert_eq!(tool("mempalace_brand_new_tool").tier, Tier::Admin);
        assert_eq!(
            tool("mempalace_brand_new_tool").replay,
            Replay::Unverifiable
        );
    }

    #[test]
    fn the_landmines_are_classed() {
        assert_eq!(classify("mempalace_sync"), ToolClass::Maintenance);
        assert_eq!(classify("mempalace_mine"), ToolClass::Maintenance);
        assert_eq!(classify("mempalace_delete_drawer"), ToolClass::Destructive);
        assert_eq!(classify("mempalace_search"), ToolClass::Read);
        assert_eq!(classify("mempalace_event_ack"), ToolClass::Write);
    }

    #[test]
    fn covers_the_real_tool_list() {
        // The 47 tools of MemPalace 3.11, each a row of its own, in the server's order.
        let fixture: serde_json::Value = serde_json::from_str(args::TOOLS_LIST).unwrap();
        let real: Vec<&str> = fixture["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| bare(t["name"].as_str().unwrap()))
            .collect();
        let ours: Vec<&str> = all().iter().map(|t| t.name).collect();
        assert_eq!(real.len(), 47);
        assert_eq!(ours, real);
    }

    #[test]
    fn the_server_state_changing_set_is_what_is_not_a_read() {
        // `_READ_ONLY_REFUSED_TOOLS` (22) plus the coordination writes, sync and reconnect.
        let named = |class| -> Vec<&str> {
            all()
                .iter()
                .filter(|t| t.class == class)
                .map(|t| t.name)
                .collect()
        };
        assert_eq!(named(ToolClass::Read).len(), 24);
        assert_eq!(named(ToolClass::Write).len(), 15);
        assert_eq!(named(ToolClass::Maintenance), ["mine", "sync", "reconnect"]);
        assert_eq!(
            named(ToolClass::Destructive),
            [
                "delete_tunnel",
                "delete_hallway",
                "delete_drawer",
                "delete_drawers",
                "delete_by_source"
            ]
        );
    }

    #[test]
    fn every_declared_argument_the_catalog_names_exists() {
        let fixture: serde_json::Value = serde_json::from_str(args::TOOLS_LIST).unwrap();
        for t in fixture["result"]["tools"].as_array().unwrap() {
            let row = tool(t["name"].as_str().unwrap());
            let props = t["inputSchema"]["properties"].as_object().unwrap();
            let top = |p: &str| {
                p.trim_start_matches('/')
                    .split('/')
                    .next()
                    .unwrap()
                    .to_string()
            };
            let mut named: Vec<String> = row.identity.iter().map(|p| top(p)).collect();
            named.extend(row.writer.map(str::to_string));
            named.extend(row.diary_entry.iter().map(|p| top(p)));
            if row.metadata {
                named.push("metadata".into());
            }
            for w in row.wings {
                match w {
                    WingArg::At(p) => named.push(top(p)),
                    WingArg::Diary { at: "" } => named.push("agent_name".into()),
                    WingArg::Diary { at } => named.push(top(at)),
                }
            }
            if let Patience::LongPoll { arg, .. } = row.patience {
                named.push(arg.to_string());
            }
            for n in named {
                assert!(props.contains_key(&n), "{}: {n} is not declared", row.name);
            }
        }
    }

    #[test]
    fn every_read_says_what_its_reply_reveals() {
        // An artifact has no stream (refused to a stream-restricted device); the rest show a
        // wing, a stream or the KG.
        let silent: Vec<&str> = all()
            .iter()
            .filter(|t| t.class == ToolClass::Read && t.reveals == Reveals::Nothing)
            .map(|t| t.name)
            .collect();
        assert_eq!(silent, ["get_aaak_spec", "mesh_peers", "artifact_get"]);
        assert_eq!(tool("mempalace_kg_add").reveals, Reveals::Kg);
        assert_eq!(
            tool("mempalace_checkpoint").reveals,
            Reveals::CheckpointDuplicates
        );
    }

    #[test]
    fn replay_families_group_what_a_check_confirms() {
        let mut diary = replay_family("mempalace_diary_write");
        diary.sort();
        assert_eq!(diary, ["mempalace_checkpoint", "mempalace_diary_write"]);
        assert_eq!(
            replay_family("mempalace_event_ack"),
            ["mempalace_event_ack"]
        );
        assert!(replay_family("mempalace_add_drawer").is_empty());
    }

    #[test]
    fn a_long_poll_waits_what_it_asks_within_the_cap() {
        let p = tool("mempalace_event_wait").patience;
        assert_eq!(
            p.poll_wait(&serde_json::json!({})),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            p.poll_wait(&serde_json::json!({"timeout_ms": 900_000})),
            Some(Duration::from_secs(300))
        );
        assert_eq!(
            tool("mempalace_search")
                .patience
                .poll_wait(&serde_json::json!({})),
            None
        );
    }
}
