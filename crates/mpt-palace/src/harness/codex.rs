//! Codex CLI's files by its own rules (0.169): its home (`CODEX_HOME`, else `~/.codex`), the
//! rollouts it writes a session to, and the `config.toml` that declares its MCP servers.

use std::path::{Path, PathBuf};

use mpt_base::config::Env;

/// Codex's own folder: `CODEX_HOME`, else `~/.codex`.
pub fn home_dir(env: &Env, home: &Path) -> PathBuf {
    match env.get("CODEX_HOME") {
        Some(d) => PathBuf::from(d),
        None => home.join(".codex"),
    }
}

/// Where its rollouts live: `sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`.
pub fn sessions_dir(env: &Env, home: &Path) -> PathBuf {
    home_dir(env, home).join("sessions")
}

/// Its settings, where `[mcp_servers.<name>]` tables declare the MCP servers.
pub fn config_file(env: &Env, home: &Path) -> PathBuf {
    home_dir(env, home).join("config.toml")
}

/// The thread a rollout file holds, from its name: the UUID that ends `rollout-<time>-<id>.jsonl`.
pub fn rollout_id(file_name: &str) -> Option<&str> {
    let stem = file_name.strip_prefix("rollout-")?.strip_suffix(".jsonl")?;
    let id = stem.get(stem.len().checked_sub(36)?..)?;
    let uuid_shaped = id.len() == 36
        && id.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    uuid_shaped.then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_home_and_a_rollouts_thread() {
        let env = Env::from_pairs([("HOME", "/h")]);
        assert_eq!(
            sessions_dir(&env, Path::new("/h")),
            PathBuf::from("/h/.codex/sessions")
        );
        let env = Env::from_pairs([("HOME", "/h"), ("CODEX_HOME", "/c")]);
        assert_eq!(
            config_file(&env, Path::new("/h")),
            PathBuf::from("/c/config.toml")
        );
        assert_eq!(
            rollout_id("rollout-2026-12-06T18-46-27-01a24cad-caef-71d0-822a-2eeb54342667.jsonl"),
            Some("01a24cad-caef-71d0-822a-2eeb54342667")
        );
        assert_eq!(rollout_id("rollout-x.jsonl"), None);
        assert_eq!(rollout_id("notes.jsonl"), None);
    }
}
