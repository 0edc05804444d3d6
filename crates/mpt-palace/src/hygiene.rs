//! What MemPalace deployment files get wrong, judged once for doctor and runbook: a literal token
//! in a compose file, a palace on a filesystem that dies with its container, git tracking a secret.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::paths::realpath;

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

/// `line` with every literal token value replaced by `<redacted>` (references like `${VAR}` kept),
/// so a finding can quote the line it is about.
pub fn redact(line: &str) -> String {
    let mut out = line.to_string();
    for key in TOKEN_KEYS {
        let mut from = 0;
        while let Some(pos) = out.get(from..).and_then(|r| r.find(key)).map(|p| p + from) {
            let after = pos + key.len();
            let skip = out[after..]
                .find(|c: char| !matches!(c, '=' | ':' | ' ' | '"' | '\'' | ','))
                .map_or(out.len(), |n| after + n);
            let end = out[skip..]
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ']'))
                .map_or(out.len(), |n| skip + n);
            let reference = out[..pos].ends_with(['{', '$']);
            from = if skip < end && !reference && !out[skip..].starts_with('$') {
                out.replace_range(skip..end, "<redacted>");
                skip + "<redacted>".len()
            } else {
                after
            };
        }
    }
    out
}

/// The words of a command line as compose, systemd, cron and shell write them: quotes, brackets
/// and commas around words dropped; `;`, `&&`, `||` and `|` kept as words of their own.
pub fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in line.split_whitespace() {
        let sep_after = raw.ends_with(';') && raw.len() > 1;
        let w = raw
            .trim_end_matches(';')
            .trim_matches(|c| matches!(c, '"' | '\'' | '[' | ']' | ',' | '(' | ')' | '`'));
        if raw == ";" {
            out.push(";".to_string());
            continue;
        }
        if !w.is_empty() {
            out.push(w.to_string());
        }
        if sep_after {
            out.push(";".to_string());
        }
    }
    out
}

fn is_separator(w: &str) -> bool {
    matches!(w, ";" | "&&" | "||" | "|" | "&")
}

fn base(w: &str) -> &str {
    w.rsplit('/').next().unwrap_or(w)
}

/// The `mempalace` CLI's subcommand in `words` (global `--palace X` / `--backend X` skipped):
/// `Some((index of "mempalace", subcommand))` for each invocation.
pub fn mempalace_subcommands(words: &[String]) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let module = w == "mempalace" && i > 0 && words[i - 1] == "-m";
        if base(w) != "mempalace" && !module {
            continue;
        }
        let mut j = i + 1;
        while j < words.len() && !is_separator(&words[j]) {
            let a = words[j].as_str();
            if a.starts_with('-') {
                j += if matches!(a, "--palace" | "--backend") {
                    2
                } else {
                    1
                };
                continue;
            }
            out.push((i, a));
            break;
        }
    }
    out
}

/// A comment in a shell, cron, compose or env file.
pub fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('#') || t.starts_with(';')
}

/// An uncommented line that runs `mempalace sync` (RFC 001 §7.2: drawer deletion, a fleet-wide
/// wipe against a shared palace). `mempalace logstream sync` is another command and not matched.
pub fn runs_sync(line: &str) -> bool {
    !is_comment(line)
        && mempalace_subcommands(&words(line))
            .iter()
            .any(|(_, sub)| *sub == "sync")
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

#[cfg(test)]
mod tests {
    use super::{literal_token, redact, runs_sync};

    #[test]
    fn sync_invocations_not_lookalikes() {
        assert!(runs_sync(
            "0 3 * * * /opt/venv/bin/mempalace sync --apply --wing code"
        ));
        assert!(runs_sync("mempalace --palace /srv/palace sync"));
        assert!(runs_sync(
            "ExecStart=/usr/bin/python3 -m mempalace sync --apply"
        ));
        assert!(runs_sync(
            r#"    command: ["mempalace", "sync", "--apply"]"#
        ));
        assert!(runs_sync("cd /srv && mempalace sync; echo done"));
        assert!(!runs_sync("# mempalace sync --apply"));
        assert!(!runs_sync("mempalace logstream sync"));
        assert!(!runs_sync("mempalace mine ~/code --wing sync"));
        assert!(!runs_sync("mempalace-mcp --palace /p"));
        assert!(!runs_sync("echo never run mempalace_sync"));
    }

    #[test]
    fn redacts_values_keeps_references() {
        assert_eq!(
            redact("mempalace serve --token s3cr3t --host 0.0.0.0"),
            "mempalace serve --token <redacted> --host 0.0.0.0"
        );
        assert_eq!(
            redact(r#"command: ["mempalace", "serve", "--token", "abc"]"#),
            r#"command: ["mempalace", "serve", "--token", "<redacted>"]"#
        );
        assert_eq!(
            redact("MEMPALACE_REMOTE_TOKEN=${MEMPALACE_REMOTE_TOKEN}"),
            "MEMPALACE_REMOTE_TOKEN=${MEMPALACE_REMOTE_TOKEN}"
        );
        assert_eq!(
            redact("  MEMPALACE_MCP_HTTP_TOKEN: abc"),
            "  MEMPALACE_MCP_HTTP_TOKEN: <redacted>"
        );
        assert_eq!(redact("--token=abc"), "--token=<redacted>");
        assert_eq!(
            redact("--token=é --token ü"),
            "--token=<redacted> --token <redacted>"
        );
        assert_eq!(redact("x --token"), "x --token");
    }

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
