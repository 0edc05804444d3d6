//! What MemPalace deployment files get wrong, judged once for doctor and runbook: a literal token
//! in a compose file, a palace on a filesystem that dies with its container, git tracking a secret.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::paths::realpath;
use crate::config::Env;

/// The variables and the flag that carry a palace token.
pub const TOKEN_KEYS: &[&str] = &[
    "MEMPALACE_REMOTE_TOKEN",
    "MEMPALACE_MCP_HTTP_TOKEN",
    "--token",
];

/// Is `name` a compose file name (`docker-compose*.yml`, `compose*.yaml`)?
pub fn is_compose_name(name: &str) -> bool {
    (name.starts_with("docker-compose") || name.starts_with("compose"))
        && (name.ends_with(".yml") || name.ends_with(".yaml"))
}

/// The compose files directly in `dir`, sorted.
pub fn compose_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file() && is_compose_name(p.file_name().and_then(|n| n.to_str()).unwrap_or(""))
        })
        .collect();
    names.sort();
    names
}

/// Compose files in `dir` whose lines set a palace token to a literal (not `${…}`): (file, line).
pub fn compose_tokens(dir: &Path) -> Vec<(PathBuf, usize)> {
    let mut out = Vec::new();
    for f in compose_files(dir) {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if literal_token(line) {
                out.push((f.clone(), i + 1));
            }
        }
    }
    out
}

/// A line (compose, unit, script, crontab) that sets a palace token to a literal value rather
/// than a `${VAR}` / `$VAR` reference. Comments do not count.
pub fn literal_token(line: &str) -> bool {
    let l = line.trim_start().trim_start_matches("- ").trim();
    if l.starts_with('#') {
        return false;
    }
    for key in TOKEN_KEYS {
        if let Some(pos) = l.find(key) {
            let rest = l[pos + key.len()..].trim_start_matches(['=', ':', ' ', '"', '\'', ',']);
            if !rest.is_empty() && !rest.starts_with("${") && !rest.starts_with('$') {
                return true;
            }
        }
    }
    false
}

/// The filesystem type when `palace` would live on one that does not survive a container
/// recreate (overlay, tmpfs, ramfs, aufs); `None` on a persisted mount.
pub fn ephemeral_fs(palace: &Path) -> Option<String> {
    let real = realpath(palace);
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut best: Option<(usize, String)> = None;
    for line in info.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let (Some(mp), Some(sep)) = (fields.get(4), fields.iter().position(|f| *f == "-")) else {
            continue;
        };
        let fstype = fields.get(sep + 1).copied().unwrap_or("");
        if real.starts_with(mp) && best.as_ref().is_none_or(|(l, _)| mp.len() >= *l) {
            best = Some((mp.len(), fstype.to_string()));
        }
    }
    best.map(|(_, fs)| fs)
        .filter(|fs| matches!(fs.as_str(), "overlay" | "tmpfs" | "ramfs" | "aufs"))
}

/// Does git track `file` (so a secret in it is in the repository's history)?
pub fn git_tracks(file: &Path) -> bool {
    git_in_dir_of(file, &["ls-files", "--error-unmatch"])
}

/// Is `file` inside a git work tree that does NOT ignore it? (`None` outside any work tree.)
pub fn git_unignored(file: &Path) -> Option<bool> {
    let dir = file.parent()?;
    let inside = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--is-inside-work-tree"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !inside {
        return None;
    }
    Some(!git_in_dir_of(file, &["check-ignore", "-q"]))
}

fn git_in_dir_of(file: &Path, args: &[&str]) -> bool {
    let Some(dir) = file.parent() else {
        return false;
    };
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .arg(file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `name` on `$PATH` as the environment `env` sees it.
pub fn which(name: &str, env: &Env) -> Option<PathBuf> {
    env.get("PATH")?
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::literal_token;

    #[test]
    fn literal_tokens_not_references() {
        assert!(literal_token("      MEMPALACE_REMOTE_TOKEN: abc123"));
        assert!(literal_token("  - MEMPALACE_MCP_HTTP_TOKEN=abc123"));
        assert!(literal_token("    command: mempalace serve --token abc123"));
        assert!(literal_token(
            "Environment=MEMPALACE_REMOTE_TOKEN=abc123 MEMPALACE_PI_DEVICE=x"
        ));
        assert!(!literal_token(
            "      MEMPALACE_REMOTE_TOKEN: ${MEMPALACE_REMOTE_TOKEN}"
        ));
        assert!(!literal_token("  - MEMPALACE_REMOTE_TOKEN=$TOKEN"));
        assert!(!literal_token("  # MEMPALACE_REMOTE_TOKEN: abc"));
        assert!(!literal_token("      MEMPALACE_REMOTE_TOKEN:"));
    }
}
