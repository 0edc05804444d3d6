//! What a harness's MCP entry serves, read the same way for every harness: `mempalace-mcp`, the
//! edge, or a remote entry named for MemPalace (any other is not MemPalace's); its `--palace`.

use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// `mempalace-mcp` as a local stdio server.
    Mempalace,
    /// `mpt edge`.
    Edge,
    /// A remote entry (opencode's `remote`, Claude Code's `http`/`sse`) named for MemPalace.
    Remote,
}

impl EntryKind {
    /// For people: what the entry runs.
    pub fn label(self) -> &'static str {
        match self {
            EntryKind::Mempalace => "mempalace-mcp",
            EntryKind::Edge => "mpt edge",
            EntryKind::Remote => "remote",
        }
    }
}

/// The entry kind this machine's opt-in asks for (RFC 001 §1.2's three states): no remote →
/// the local child; a remote → a remote entry; a remote with `MEMPALACE_EDGE=1` → `mpt edge`.
pub fn expected(remote: bool, edge_opt_in: bool) -> EntryKind {
    match (remote, edge_opt_in) {
        (false, _) => EntryKind::Mempalace,
        (true, true) => EntryKind::Edge,
        (true, false) => EntryKind::Remote,
    }
}

/// The kind of the entry `name` running `command` (program first), `remote` when the harness
/// itself speaks HTTP to a server; `None` when it is not MemPalace's.
pub fn classify(name: &str, command: &[String], remote: bool) -> Option<EntryKind> {
    let base = |s: &String| {
        Path::new(s)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string()
    };
    if command.iter().any(|c| base(c) == "mempalace-mcp") {
        Some(EntryKind::Mempalace)
    } else if command.first().is_some_and(|c| base(c) == "mpt")
        && command.iter().any(|c| c == "edge")
    {
        Some(EntryKind::Edge)
    } else if remote && name.to_lowercase().contains("mempalace") {
        Some(EntryKind::Remote)
    } else {
        None
    }
}

/// The `--palace P` (or `--palace=P`) a command gives: an entry's, which every wiring hands on,
/// or a running process's.
pub fn palace_arg(command: &[String]) -> Option<String> {
    command.iter().enumerate().find_map(|(i, a)| {
        a.strip_prefix("--palace=")
            .map(str::to_string)
            .or_else(|| (a == "--palace").then(|| command.get(i + 1).cloned())?)
    })
}
