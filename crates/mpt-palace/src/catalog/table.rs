//! The rows of the tool catalog, in the order of MemPalace 3.11's `tools/list`, each built from
//! its class's defaults (`read`, `write`, ...) and the facts that differ from them.

use std::time::Duration;

use super::WingArg::{At, Diary};
use super::{
    Patience, ReadKind, Replay, Reply, Reveals, StreamArg, Tier, Tool, ToolClass, WingArg,
};

/// A read any observer may call, merged primary-first, with no wing or writer argument.
pub(super) const fn read(name: &'static str) -> Tool {
    Tool {
        name,
        class: ToolClass::Read,
        read: ReadKind::PrimaryFirst,
        coordination: false,
        writer: None,
        diary_entry: &[],
        metadata: false,
        replay: Replay::Unverifiable,
        reply: Reply::Event,
        kg_fact: false,
        patience: Patience::Default,
        tier: Tier::Observer,
        wings: &[],
        identity: &[],
        reveals: Reveals::Nothing,
        stream: StreamArg::None,
    }
}

/// A replicated write: a member's, unverifiable on replay until a row says otherwise; also the
/// row of a tool the table does not know (then admin-only).
pub(super) const fn write(name: &'static str) -> Tool {
    Tool {
        class: ToolClass::Write,
        tier: if name.is_empty() {
            Tier::Admin
        } else {
            Tier::Member
        },
        ..read(name)
    }
}

/// A maintenance tool: admin-only, never proxied by the edge.
const fn maintenance(name: &'static str) -> Tool {
    Tool {
        class: ToolClass::Maintenance,
        tier: Tier::Admin,
        ..read(name)
    }
}

/// A destructive tool: admin-only, never replicated.
const fn destructive(name: &'static str) -> Tool {
    Tool {
        class: ToolClass::Destructive,
        tier: Tier::Admin,
        ..read(name)
    }
}

/// A coordination-log write (RFC 003): primary-first at the edge, `from_agent` its writer.
const fn coordination(name: &'static str, replay: Replay) -> Tool {
    Tool {
        coordination: true,
        writer: Some("from_agent"),
        replay,
        identity: &["/from_agent"],
        ..write(name)
    }
}

const fn kg_write(name: &'static str, replay: Replay) -> Tool {
    Tool {
        replay,
        kg_fact: true,
        reveals: Reveals::Kg,
        ..write(name)
    }
}

/// A knowledge-graph read: no wing, the `kg` grant's.
const fn kg_read(name: &'static str) -> Tool {
    read(name).reveals(Reveals::Kg)
}

impl Tool {
    const fn merged(self, read: ReadKind) -> Tool {
        Tool { read, ..self }
    }

    const fn wings(self, wings: &'static [WingArg]) -> Tool {
        Tool { wings, ..self }
    }

    const fn identity(self, identity: &'static [&'static str]) -> Tool {
        Tool { identity, ..self }
    }

    const fn tier(self, tier: Tier) -> Tool {
        Tool { tier, ..self }
    }

    const fn replay(self, replay: Replay) -> Tool {
        Tool { replay, ..self }
    }

    const fn reveals(self, reveals: Reveals) -> Tool {
        Tool { reveals, ..self }
    }

    const fn stream(self, stream: StreamArg) -> Tool {
        Tool { stream, ..self }
    }

    const fn writer(self, writer: &'static str) -> Tool {
        Tool {
            writer: Some(writer),
            ..self
        }
    }
}

const WING: &[WingArg] = &[At("/wing")];
const MINE_DEADLINE: Duration = Duration::from_secs(300);

pub(super) const TOOLS: &[Tool] = &[
    read("status").reveals(Reveals::Status),
    read("list_wings")
        .merged(ReadKind::Counts)
        .reveals(Reveals::WingCounts),
    read("list_rooms")
        .merged(ReadKind::Counts)
        .wings(WING)
        .reveals(Reveals::RoomCounts),
    read("get_taxonomy")
        .merged(ReadKind::Counts)
        .reveals(Reveals::Taxonomy),
    read("get_aaak_spec"),
    kg_read("kg_query"),
    kg_write("kg_add", Replay::KgHistorical),
    kg_write("kg_invalidate", Replay::Idempotent),
    kg_write("kg_supersede", Replay::Idempotent),
    kg_read("kg_timeline"),
    kg_read("kg_stats"),
    read("traverse").reveals(Reveals::RoomGraph),
    read("find_tunnels")
        .wings(&[At("/wing_a"), At("/wing_b")])
        .reveals(Reveals::RoomGraph),
    read("graph_stats").reveals(Reveals::GraphStats),
    // The `/sync/peers` estate: admin's alone at a gateway.
    read("mesh_peers").tier(Tier::Admin),
    write("create_tunnel")
        .replay(Replay::Idempotent)
        .wings(&[At("/source_wing"), At("/target_wing")]),
    read("list_tunnels").wings(WING).reveals(Reveals::Tunnels),
    destructive("delete_tunnel"),
    read("list_hallways").wings(WING).reveals(Reveals::Hallways),
    destructive("delete_hallway"),
    // A read that writes traversal counts: not an observer's.
    read("follow_tunnels")
        .tier(Tier::Member)
        .wings(WING)
        .reveals(Reveals::Connections),
    read("search")
        .merged(ReadKind::Search)
        .wings(WING)
        .reveals(Reveals::Search),
    read("check_duplicate").reveals(Reveals::Duplicates),
    write("add_drawer")
        .replay(Replay::Idempotent)
        .writer("added_by")
        .wings(WING)
        .identity(&["/added_by"]),
    Tool {
        diary_entry: &["/diary/entry", "/diary/content"],
        ..write("checkpoint")
    }
    .replay(Replay::Checkpoint)
    .writer("added_by")
    .wings(&[At("/items/*/wing"), Diary { at: "/diary" }])
    .identity(&["/added_by", "/diary/agent_name"])
    .reveals(Reveals::CheckpointDuplicates),
    destructive("delete_drawer"),
    destructive("delete_drawers"),
    // Idempotent: the convo miner dedupes by source file (an unchanged file is skipped, a grown
    // one re-mined with its stale drawers purged), so a replay of a queued feed mine is harmless.
    Tool {
        patience: Patience::Fixed(MINE_DEADLINE),
        ..maintenance("mine")
    }
    .replay(Replay::Idempotent)
    .writer("agent")
    .wings(WING)
    .identity(&["/agent"]),
    destructive("delete_by_source"),
    Tool {
        tier: Tier::Sync,
        ..maintenance("sync")
    }
    .wings(WING),
    read("get_drawer").reveals(Reveals::Drawer),
    read("get_drawers").reveals(Reveals::Drawers),
    read("list_drawers")
        .merged(ReadKind::Drawers)
        .wings(WING)
        .reveals(Reveals::DrawerList),
    write("update_drawer")
        .replay(Replay::Idempotent)
        .wings(WING),
    Tool {
        diary_entry: &["/entry", "/content"],
        ..write("diary_write")
    }
    .replay(Replay::Diary)
    .wings(&[Diary { at: "" }])
    .identity(&["/agent_name"]),
    read("diary_read")
        .merged(ReadKind::Diary)
        .wings(&[Diary { at: "" }])
        .identity(&["/agent_name"])
        .reveals(Reveals::Diary),
    // Server settings and hook state: admin's alone at a gateway.
    write("hook_settings")
        .replay(Replay::Idempotent)
        .tier(Tier::Admin),
    write("memories_filed_away")
        .replay(Replay::Idempotent)
        .tier(Tier::Admin),
    maintenance("reconnect"),
    Tool {
        metadata: true,
        ..coordination("event_append", Replay::EventKey)
    }
    .stream(StreamArg::At("/stream")),
    Tool {
        reply: Reply::Task,
        ..coordination("task_create", Replay::Task)
    }
    .stream(StreamArg::Project("/project")),
    read("event_list")
        .merged(ReadKind::Events)
        .identity(&["/from_agent"])
        .reveals(Reveals::Events)
        .stream(StreamArg::At("/stream")),
    Tool {
        patience: Patience::LongPoll {
            arg: "timeout_ms",
            default_ms: 60_000,
            max_ms: 300_000,
        },
        ..read("event_wait")
    }
    .merged(ReadKind::Events)
    .identity(&["/from_agent"])
    .reveals(Reveals::Events)
    .stream(StreamArg::At("/stream")),
    // Its `from_agent` is required: the edge never fills it.
    Tool {
        writer: None,
        ..coordination("event_ack", Replay::Ack)
    }
    .stream(StreamArg::AckTarget),
    Tool {
        identity: &["/created_by"],
        metadata: true,
        ..coordination("artifact_put", Replay::Orphan)
    }
    .writer("created_by")
    .stream(StreamArg::Artifacts),
    read("artifact_get").stream(StreamArg::Artifacts),
    Tool {
        reply: Reply::EventWithArtifact,
        metadata: true,
        ..coordination("patch_submit", Replay::EventKey)
    }
    .stream(StreamArg::At("/stream")),
];
