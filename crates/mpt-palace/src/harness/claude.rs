//! Claude Code's files by its own rules (2.1.328): its folder, the state file holding the user-
//! and local-scope MCP entries, a project's `.mcp.json`, its settings; which entries serve MemPalace.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::kind::{self, EntryKind};
use mpt_base::config::Env;

/// Claude Code's own folder: `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn config_dir(env: &Env, home: &Path) -> PathBuf {
    match env.get("CLAUDE_CONFIG_DIR") {
        Some(d) => PathBuf::from(d),
        None => home.join(".claude"),
    }
}

/// The file Claude Code keeps its state and the user- and local-scope MCP entries in:
/// `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json` (checked with `claude mcp add`).
pub fn state_file(env: &Env, home: &Path) -> PathBuf {
    match env.get("CLAUDE_CONFIG_DIR") {
        Some(d) => Path::new(d).join(".claude.json"),
        None => home.join(".claude.json"),
    }
}

/// The user's settings, where hooks are declared: `<config dir>/settings.json`.
pub fn settings_file(env: &Env, home: &Path) -> PathBuf {
    config_dir(env, home).join("settings.json")
}

/// A project's shared entries: `.mcp.json` in the folder Claude Code runs in.
pub fn project_file(cwd: &Path) -> PathBuf {
    cwd.join(".mcp.json")
}

/// Where an MCP entry is declared. Claude Code uses the first of local, project (once the user
/// approved the project's servers), user for a name (`claude mcp get` says which it took).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "scope", content = "project")]
pub enum Scope {
    /// The state file's top-level `mcpServers`: every project.
    User,
    /// The state file's `projects[<folder>].mcpServers`: that folder only, over the user's.
    Local(String),
    /// `<folder>/.mcp.json`'s `mcpServers`.
    Project,
}

impl Scope {
    /// The keys from the file's root to the object holding the servers.
    pub fn servers(&self) -> Vec<String> {
        match self {
            Scope::User | Scope::Project => vec!["mcpServers".into()],
            Scope::Local(p) => vec!["projects".into(), p.clone(), "mcpServers".into()],
        }
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Entry {
    pub file: PathBuf,
    #[serde(flatten)]
    pub scope: Scope,
    pub name: String,
    pub kind: EntryKind,
    pub command: Vec<String>,
}

/// An entry's program and arguments: `command` then `args` (Claude Code keeps them apart).
pub fn command(entry: &Value) -> Vec<String> {
    let mut out: Vec<String> = entry
        .get("command")
        .and_then(Value::as_str)
        .map(|c| vec![c.to_string()])
        .unwrap_or_default();
    if let Some(Value::Array(a)) = entry.get("args") {
        out.extend(a.iter().filter_map(|x| x.as_str().map(str::to_string)));
    }
    out
}

/// Whether Claude Code itself speaks to a server over the network for this entry.
pub fn is_remote(entry: &Value) -> bool {
    matches!(
        entry.get("type").and_then(Value::as_str),
        Some("http" | "sse" | "ws")
    )
}

/// The MemPalace entries of the servers object `servers` (`None`: not an object).
fn entries_in(file: &Path, scope: Scope, servers: Option<&Value>) -> Vec<Entry> {
    let Some(map) = servers.and_then(Value::as_object) else {
        return Vec::new();
    };
    map.iter()
        .filter_map(|(name, e)| {
            let command = command(e);
            let kind = kind::classify(name, &command, is_remote(e))?;
            Some(Entry {
                file: file.to_path_buf(),
                scope: scope.clone(),
                name: name.clone(),
                kind,
                command,
            })
        })
        .collect()
}

/// Every MemPalace entry Claude Code would read here, in every scope.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Wiring {
    pub state_file: PathBuf,
    pub project_file: PathBuf,
    pub entries: Vec<Entry>,
    /// Files that exist but do not parse, with the reason.
    pub unparsable: Vec<(PathBuf, String)>,
    /// Claude Code has run here (its state file or its folder exists).
    pub installed: bool,
}

impl Wiring {
    pub fn read(env: &Env, home: &Path, cwd: &Path) -> Wiring {
        let installed = state_file(env, home).exists() || config_dir(env, home).is_dir();
        Wiring::read_files(state_file(env, home), project_file(cwd), installed)
    }

    /// The entries of a given state file (`mpt edge wire claude --config`) and project file.
    pub fn read_files(state_file: PathBuf, project_file: PathBuf, installed: bool) -> Wiring {
        let mut w = Wiring {
            state_file,
            project_file,
            installed,
            ..Wiring::default()
        };
        for file in [w.state_file.clone(), w.project_file.clone()] {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let v: Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    w.unparsable.push((file, e.to_string()));
                    continue;
                }
            };
            if file == w.project_file {
                w.entries
                    .extend(entries_in(&file, Scope::Project, v.get("mcpServers")));
                continue;
            }
            w.entries
                .extend(entries_in(&file, Scope::User, v.get("mcpServers")));
            for (dir, p) in v
                .get("projects")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let scope = Scope::Local(dir.clone());
                w.entries
                    .extend(entries_in(&file, scope, p.get("mcpServers")));
            }
        }
        w
    }

    /// The user-scope entries.
    pub fn user(&self) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|e| e.scope == Scope::User)
            .collect()
    }

    /// The entries of another scope that Claude Code takes over the user's where they apply and
    /// that are not of `expected`'s kind: each keeps its folder's sessions off what the user
    /// scope says.
    pub fn shadowing(&self, expected: EntryKind) -> Vec<&Entry> {
        self.entries
            .iter()
            .filter(|e| e.scope != Scope::User && e.kind != expected)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scope_is_read_and_the_other_scopes_shadow_the_users() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("home");
        let cwd = d.path().join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        let state = serde_json::json!({
            "mcpServers": {"mempalace": {"type": "stdio", "command": "/u/bin/mpt", "args": ["edge", "--harness", "claude"]}, "gh": {"type": "stdio", "command": "gh-mcp"}},
            "projects": {"/p/one": {"mcpServers": {"mempalace": {"type": "stdio", "command": "mempalace-mcp", "args": []}}}, "/p/two": {"allowedTools": []}}
        });
        std::fs::write(home.join(".claude.json"), state.to_string()).unwrap();
        std::fs::write(
            cwd.join(".mcp.json"),
            r#"{"mcpServers": {"palace": {"type": "http", "url": "https://p/mcp"}, "mempalace-remote": {"type": "http", "url": "https://p/mcp"}}}"#,
        )
        .unwrap();
        let env = Env::from_pairs([("HOME", home.to_str().unwrap())]);
        let w = Wiring::read(&env, &home, &cwd);
        assert!(w.installed && w.unparsable.is_empty());
        let seen: Vec<(Scope, &str, EntryKind)> = w
            .entries
            .iter()
            .map(|e| (e.scope.clone(), e.name.as_str(), e.kind))
            .collect();
        assert_eq!(
            seen,
            [
                (Scope::User, "mempalace", EntryKind::Edge),
                (
                    Scope::Local("/p/one".into()),
                    "mempalace",
                    EntryKind::Mempalace
                ),
                (Scope::Project, "mempalace-remote", EntryKind::Remote),
            ]
        );
        assert_eq!(w.shadowing(EntryKind::Edge).len(), 2);
        // CLAUDE_CONFIG_DIR moves the state file into it.
        let env = Env::from_pairs([("HOME", "/h"), ("CLAUDE_CONFIG_DIR", "/c")]);
        assert_eq!(
            state_file(&env, Path::new("/h")),
            PathBuf::from("/c/.claude.json")
        );
        assert_eq!(
            settings_file(&env, Path::new("/h")),
            PathBuf::from("/c/settings.json")
        );
    }
}
