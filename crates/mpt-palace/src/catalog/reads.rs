//! The catalog's read-side facts: where a tool's reply shows a wing, the KG or the coordination
//! log, and where it names a stream (what a gateway device's read and stream grants act on).

/// Where a coordination tool names its stream (research §2.2; routing fields are stripped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamArg {
    /// No stream.
    None,
    /// A JSON pointer to the stream (optional on a read).
    At(&'static str),
    /// `task_create`'s `project`: the stream is `project/<task_slug(project)>`.
    Project(&'static str),
    /// `event_ack`: the stream of the event it acknowledges (looked up on the primary).
    AckTarget,
    /// Artifacts: no stream at all (only a device with every stream has them).
    Artifacts,
}

/// Where a tool's reply carries what a device's read grants hide (research §2.2's "result leak").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reveals {
    /// Nothing of any wing (a write's receipt, a static text, the estate: admin's anyway).
    Nothing,
    /// The knowledge graph: no wing, all or nothing (the policy's `kg` grant).
    Kg,
    /// `status`: `wings{}`, `rooms{}`, `total_drawers`, and server paths in `sqlite_integrity`.
    Status,
    /// `list_wings`: `wings{wing: n}`.
    WingCounts,
    /// `list_rooms`: rooms over one wing (`wing`) or all of them.
    RoomCounts,
    /// `get_taxonomy`: `taxonomy{wing: {room: n}}`.
    Taxonomy,
    /// `search`: `results[].wing`, `results[].also_in[].wing`, `total_before_filter`.
    Search,
    /// `check_duplicate`: `matches[].wing`, `is_duplicate`.
    Duplicates,
    /// `checkpoint`: `duplicates[].matches[].wing` (check_duplicate's, from any wing).
    CheckpointDuplicates,
    /// `get_drawer`: one drawer's `wing`; a hidden one answers as a missing one.
    Drawer,
    /// `get_drawers`: `results[]`, each a drawer or a missing id's error slot.
    Drawers,
    /// `list_drawers`: one page of `drawers[].wing` with its `total`.
    DrawerList,
    /// `diary_read`: entries carry no wing, so the wing is forced.
    Diary,
    /// `traverse`, `find_tunnels`: rooms with `wings[]` (and `connected_via[]`).
    RoomGraph,
    /// `graph_stats`: `rooms_per_wing{}`, `top_tunnels[].wings`, and totals over every wing.
    GraphStats,
    /// `list_tunnels`: `source.wing`, `target.wing` (compared normalised).
    Tunnels,
    /// `follow_tunnels`: `connections[].connected_wing` from a wing/room the device names.
    Connections,
    /// `list_hallways`: one page of `hallways[].wing`.
    Hallways,
    /// `event_list`, `event_wait`: `events[].stream` (the policy's `streams.read`).
    Events,
}
