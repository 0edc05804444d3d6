//! Which MemPalace tools read, write, maintain or destroy: our own table, fail-closed (a tool we
//! do not know is a write). The edge routes on it; the outbox and `mpt call` refuse on it.

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

const READS: &[&str] = &[
    "status",
    "list_wings",
    "get_taxonomy",
    "get_aaak_spec",
    "list_rooms",
    "kg_query",
    "kg_timeline",
    "kg_stats",
    "traverse",
    "find_tunnels",
    "graph_stats",
    "list_tunnels",
    "list_hallways",
    "search",
    "check_duplicate",
    "follow_tunnels",
    "get_drawer",
    "get_drawers",
    "list_drawers",
    "diary_read",
    "mesh_peers",
    "event_list",
    "event_wait",
    "artifact_get",
];

const MAINTENANCE: &[&str] = &["mine", "sync", "reconnect"];

const DESTRUCTIVE: &[&str] = &[
    "delete_drawer",
    "delete_drawers",
    "delete_by_source",
    "delete_tunnel",
    "delete_hallway",
];

/// The server's own state-changing set (`_READ_ONLY_REFUSED_TOOLS`, 22) less maintenance and
/// destructive, plus the coordination writes. Listed for documentation and tests; anything not
/// in READS/MAINTENANCE/DESTRUCTIVE is a write anyway.
pub const WRITES: &[&str] = &[
    "kg_add",
    "kg_invalidate",
    "kg_supersede",
    "create_tunnel",
    "add_drawer",
    "checkpoint",
    "update_drawer",
    "diary_write",
    "hook_settings",
    "memories_filed_away",
    "event_append",
    "task_create",
    "event_ack",
    "artifact_put",
    "patch_submit",
];

/// Classifies `mempalace_<x>` (or bare `<x>`). Unknown ⇒ Write (fail-closed).
pub fn classify(tool: &str) -> ToolClass {
    let bare = tool.strip_prefix("mempalace_").unwrap_or(tool);
    if READS.contains(&bare) {
        ToolClass::Read
    } else if MAINTENANCE.contains(&bare) {
        ToolClass::Maintenance
    } else if DESTRUCTIVE.contains(&bare) {
        ToolClass::Destructive
    } else {
        ToolClass::Write
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tools_are_writes() {
        assert_eq!(classify("mempalace_brand_new_tool"), ToolClass::Write);
        assert_eq!(classify("something_else"), ToolClass::Write);
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
        // The 47 tools of MemPalace 3.11, each classed deliberately (none left to the default).
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/tools-list-3.11.json"))
                .unwrap();
        let mut real: Vec<String> = fixture["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                t["name"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("mempalace_")
                    .to_string()
            })
            .collect();
        real.sort();
        let mut ours: Vec<String> = READS
            .iter()
            .chain(MAINTENANCE)
            .chain(DESTRUCTIVE)
            .chain(WRITES)
            .map(|s| s.to_string())
            .collect();
        ours.sort();
        assert_eq!(real.len(), 47);
        assert_eq!(ours, real);
    }
}
