//! The feed's knobs, read from the environment with the bridge's names and defaults: on/off, the
//! wing, both deadlines, pi's session folders, and the SSH inbox for remote feeding.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Env, optional_ms};
use crate::error::{MptError, Result};

/// Under the palace host's HOME, each device's inbox (`<device>`): where the ssh road ships by
/// default and where `mpt gateway invite` puts a device's uploads.
pub const INBOXES: &str = ".mempalace/feed/inbox";

/// The wing transcripts are filed under unless `MEMPALACE_FEED_WING` or `--wing` says otherwise.
pub const DEFAULT_WING: &str = "wing_conversations";

/// opencode's conversations' wing unless `MEMPALACE_FEED_OPENCODE_WING` or `--wing` says otherwise.
pub const DEFAULT_OPENCODE_WING: &str = "wing_opencode";

/// Claude Code's conversations' wing unless `MEMPALACE_FEED_CLAUDE_WING` or `--wing` says otherwise.
pub const DEFAULT_CLAUDE_WING: &str = "wing_claude";

/// Codex's conversations' wing unless `MEMPALACE_FEED_CODEX_WING` or `--wing` says otherwise.
pub const DEFAULT_CODEX_WING: &str = "wing_codex";

/// Everything `mpt feed` reads from the environment, validated (a malformed value is exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedKnobs {
    /// `MEMPALACE_FEED` (default 1).
    pub enabled: bool,
    /// `MEMPALACE_FEED_WING`: pi's conversations.
    pub wing: String,
    /// `MEMPALACE_FEED_OPENCODE_WING`: opencode's conversations.
    pub opencode_wing: String,
    /// `MEMPALACE_FEED_CLAUDE_WING`: Claude Code's conversations.
    pub claude_wing: String,
    /// `MEMPALACE_FEED_CODEX_WING`: Codex's conversations.
    pub codex_wing: String,
    /// `MEMPALACE_FEED_PREPARE_TIMEOUT_MS` (default 120000; 0 = unbounded).
    pub prepare_timeout: Option<Duration>,
    /// `MEMPALACE_FEED_MINE_TIMEOUT_MS` (default 300000; 0 = unbounded).
    pub mine_timeout: Option<Duration>,
    /// `MEMPALACE_PI_SSH_TARGET`: `[user@]host` or a Host alias of the ssh config.
    pub ssh_target: Option<String>,
    /// `MEMPALACE_PI_SSH_CONFIG`: handed to ssh as `-F`.
    pub ssh_config: Option<PathBuf>,
    /// `MEMPALACE_PI_REMOTE_PATH`: absolute, or `~/…` (relative to the remote login's home).
    pub remote_path: Option<String>,
    /// `PI_CODING_AGENT_DIR` (pi's default `~/.pi/agent`).
    pub agent_dir: Option<PathBuf>,
    /// `PI_CODING_AGENT_SESSION_DIR` (wins over the agent dir).
    pub session_dir: Option<PathBuf>,
}

impl FeedKnobs {
    pub fn from_env(env: &Env) -> Result<FeedKnobs> {
        let wing = match env.get("MEMPALACE_FEED_WING") {
            Some(w) => validate_wing(w, "MEMPALACE_FEED_WING")?,
            None => DEFAULT_WING.to_string(),
        };
        let opencode_wing = match env.get("MEMPALACE_FEED_OPENCODE_WING") {
            Some(w) => validate_wing(w, "MEMPALACE_FEED_OPENCODE_WING")?,
            None => DEFAULT_OPENCODE_WING.to_string(),
        };
        let claude_wing = match env.get("MEMPALACE_FEED_CLAUDE_WING") {
            Some(w) => validate_wing(w, "MEMPALACE_FEED_CLAUDE_WING")?,
            None => DEFAULT_CLAUDE_WING.to_string(),
        };
        let codex_wing = match env.get("MEMPALACE_FEED_CODEX_WING") {
            Some(w) => validate_wing(w, "MEMPALACE_FEED_CODEX_WING")?,
            None => DEFAULT_CODEX_WING.to_string(),
        };
        Ok(FeedKnobs {
            enabled: env.flag("MEMPALACE_FEED", true)?,
            wing,
            opencode_wing,
            claude_wing,
            codex_wing,
            prepare_timeout: optional_ms(env.millis("MEMPALACE_FEED_PREPARE_TIMEOUT_MS", 120_000)?),
            mine_timeout: optional_ms(env.millis("MEMPALACE_FEED_MINE_TIMEOUT_MS", 300_000)?),
            ssh_target: env
                .get("MEMPALACE_PI_SSH_TARGET")
                .map(|t| validate_ssh_target(t.trim()))
                .transpose()?,
            ssh_config: local_path(env, "MEMPALACE_PI_SSH_CONFIG")?,
            remote_path: env
                .get("MEMPALACE_PI_REMOTE_PATH")
                .map(|p| validate_remote_path(p.trim(), "MEMPALACE_PI_REMOTE_PATH"))
                .transpose()?,
            agent_dir: local_path(env, "PI_CODING_AGENT_DIR")?,
            session_dir: local_path(env, "PI_CODING_AGENT_SESSION_DIR")?,
        })
    }

    /// pi's session folder: `PI_CODING_AGENT_SESSION_DIR`, else `<PI_CODING_AGENT_DIR>/sessions`,
    /// else `~/.pi/agent/sessions`.
    pub fn sessions_dir(&self, home: &Path) -> PathBuf {
        match (&self.session_dir, &self.agent_dir) {
            (Some(s), _) => s.clone(),
            (None, Some(a)) => a.join("sessions"),
            (None, None) => home.join(".pi/agent/sessions"),
        }
    }

    /// The inbox on the palace host: `MEMPALACE_PI_REMOTE_PATH`, else
    /// `~/.mempalace/feed/inbox/<device>` (one folder per device, so each device's transcripts keep
    /// their own stable paths and provenance).
    pub fn remote_path_or_default(&self, device: Option<&str>) -> String {
        match &self.remote_path {
            Some(p) => p.clone(),
            None => {
                let host = device.map(str::to_string).unwrap_or_else(|| {
                    super::values::hostname().unwrap_or_else(|| "device".into())
                });
                format!("~/{INBOXES}/{}", path_safe(&host))
            }
        }
    }
}

/// `s` with every character but ASCII letters, digits, `.`, `_` and `-` turned into `-` (a name
/// safe in a path; opencode names its channel databases the same way).
pub fn dashed(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The inbox on the palace host for a harness's transcripts: pi's is `inbox` itself, opencode's
/// its sibling `<inbox>+opencode` (beside it, never inside: a mine of pi's inbox would take it in;
/// `+` is never in a device's default inbox name, so no other device's inbox is ever that name).
pub fn harness_inbox(inbox: &str, harness: &str) -> String {
    match harness {
        "pi" => inbox.to_string(),
        other => format!("{}+{other}", inbox.trim_end_matches('/')),
    }
}

/// The harnesses whose inboxes [`harness_inbox`] names, for whoever admits a feed mine.
pub const INBOX_HARNESSES: [&str; 4] = ["pi", "opencode", "claude", "codex"];

/// A wing name MemPalace accepts (`sanitize_name`: a letter or digit at both ends, word chars,
/// space, `.`, `'`, `-` between, at most 128 chars, no `..`).
pub fn validate_wing(w: &str, source: &str) -> Result<String> {
    let chars: Vec<char> = w.chars().collect();
    let end_ok = |c: &char| c.is_alphanumeric();
    let mid_ok = |c: &char| c.is_alphanumeric() || matches!(c, '_' | ' ' | '.' | '\'' | '-');
    let ok = !chars.is_empty()
        && chars.len() <= 128
        && chars.first().is_some_and(end_ok)
        && chars.last().is_some_and(end_ok)
        && chars.iter().all(mid_ok)
        && !w.contains("..");
    if ok {
        Ok(w.to_string())
    } else {
        Err(MptError::usage(format!("{source}='{w}' is not a wing name MemPalace accepts"))
            .with_hint("use letters, digits, _ . ' - and spaces, starting and ending with a letter or digit (e.g. wing_conversations)"))
    }
}

/// `[user@]host` or an ssh config alias: never an option (a leading `-`), no whitespace or
/// control characters, no `:` (it would split rsync's `HOST:PATH`; use an alias for IPv6).
fn validate_ssh_target(t: &str) -> Result<String> {
    let bad = t.is_empty()
        || t.starts_with('-')
        || t.chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == ':');
    if bad {
        return Err(MptError::usage(format!(
            "MEMPALACE_PI_SSH_TARGET='{t}' is not an ssh destination"
        ))
        .with_hint("set it to [user@]host or a Host alias from MEMPALACE_PI_SSH_CONFIG (no ':', no leading '-')"));
    }
    Ok(t.to_string())
}

/// An absolute path or `~/…`, no `..`, no control characters, never an option.
pub fn validate_remote_path(p: &str, source: &str) -> Result<String> {
    let rooted = p.starts_with('/') || p.starts_with("~/");
    let clean = !p.split('/').any(|c| c == "..") && !p.chars().any(char::is_control);
    if rooted && clean && p.trim_end_matches('/').len() > 1 {
        return Ok(p.trim_end_matches('/').to_string());
    }
    Err(MptError::usage(format!(
        "{source}='{p}' is not a usable path on the palace host"
    ))
    .with_hint("give an absolute path (or ~/...) without '..', e.g. /srv/mempalace/inbox/laptop"))
}

/// A local path from the environment: `~` expanded, and it must then be absolute (a relative one
/// would depend on the cwd of whatever triggered the feed).
fn local_path(env: &Env, key: &str) -> Result<Option<PathBuf>> {
    let Some(v) = env.get(key) else {
        return Ok(None);
    };
    let p = match v.strip_prefix("~") {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            env.home()?.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(v),
    };
    if !p.is_absolute() {
        return Err(
            MptError::usage(format!("{key}='{v}' is not an absolute path"))
                .with_hint(format!("set {key} to an absolute path (or ~/...)")),
        );
    }
    Ok(Some(p))
}

fn path_safe(s: &str) -> String {
    let out = dashed(s);
    match out.trim_matches('.') {
        "" => "device".to_string(),
        t => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knobs(pairs: &[(&str, &str)]) -> Result<FeedKnobs> {
        let base = [("HOME", "/h")];
        FeedKnobs::from_env(&Env::from_pairs(base.iter().chain(pairs).copied()))
    }

    #[test]
    fn defaults_follow_the_bridge() {
        let k = knobs(&[]).unwrap();
        assert!(k.enabled);
        assert_eq!(k.wing, "wing_conversations");
        assert_eq!(k.opencode_wing, "wing_opencode");
        assert_eq!(k.prepare_timeout, Some(Duration::from_millis(120_000)));
        assert_eq!(k.mine_timeout, Some(Duration::from_millis(300_000)));
        assert_eq!(
            k.sessions_dir(Path::new("/h")),
            Path::new("/h/.pi/agent/sessions")
        );
        assert_eq!(
            k.remote_path_or_default(Some("lap top")),
            "~/.mempalace/feed/inbox/lap-top"
        );
    }

    #[test]
    fn session_dir_wins_over_agent_dir_and_tilde_expands() {
        let k = knobs(&[("PI_CODING_AGENT_DIR", "~/agent")]).unwrap();
        assert_eq!(
            k.sessions_dir(Path::new("/h")),
            Path::new("/h/agent/sessions")
        );
        let k = knobs(&[
            ("PI_CODING_AGENT_DIR", "/a"),
            ("PI_CODING_AGENT_SESSION_DIR", "/s"),
        ])
        .unwrap();
        assert_eq!(k.sessions_dir(Path::new("/h")), Path::new("/s"));
    }

    #[test]
    fn malformed_values_are_usage_errors_naming_the_variable() {
        for (k, v) in [
            ("MEMPALACE_FEED", "maybe"),
            ("MEMPALACE_FEED_WING", "../etc"),
            ("MEMPALACE_FEED_WING", "_x"),
            ("MEMPALACE_FEED_PREPARE_TIMEOUT_MS", "2m"),
            ("MEMPALACE_FEED_MINE_TIMEOUT_MS", "-1"),
            ("MEMPALACE_PI_SSH_TARGET", "-oProxyCommand=x"),
            ("MEMPALACE_PI_SSH_TARGET", "host:22"),
            ("MEMPALACE_PI_REMOTE_PATH", "relative/inbox"),
            ("MEMPALACE_PI_REMOTE_PATH", "/srv/../etc"),
            ("MEMPALACE_PI_SSH_CONFIG", "ssh/config"),
            ("PI_CODING_AGENT_DIR", "agent"),
            ("PI_CODING_AGENT_SESSION_DIR", "./sessions"),
        ] {
            let e = knobs(&[(k, v)]).unwrap_err();
            assert_eq!(e.exit().code(), 2, "{k}={v}");
            assert!(e.message.contains(k), "{k}: {}", e.message);
        }
    }

    #[test]
    fn zero_means_unbounded_and_valid_values_pass() {
        let k = knobs(&[
            ("MEMPALACE_FEED", "0"),
            ("MEMPALACE_FEED_MINE_TIMEOUT_MS", "0"),
            ("MEMPALACE_FEED_WING", "wing_pi sessions"),
            ("MEMPALACE_PI_SSH_TARGET", "me@palace.lan"),
            ("MEMPALACE_PI_REMOTE_PATH", "/srv/inbox/lap/"),
        ])
        .unwrap();
        assert!(!k.enabled);
        assert_eq!(k.mine_timeout, None);
        assert_eq!(k.wing, "wing_pi sessions");
        assert_eq!(k.remote_path.as_deref(), Some("/srv/inbox/lap"));
        assert_eq!(k.remote_path_or_default(None), "/srv/inbox/lap");
    }
}
