//! The quality gate: which sessions are worth feeding, with every threshold a parameter and every
//! rejection a [`SkipReason`]. Also owns [`Reason`], the trigger that decides the quiet-period rule.

use super::export::Stats;
use serde::{Serialize, Serializer};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// Gate thresholds. Defaults follow `pi-session-format.md` §2.1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateConfig {
    /// Minimum real user messages (skill args count; bare `/commands`, image-only and injected
    /// prompts do not). Default 3: with three `>` lines the miner always uses exchange chunking.
    pub min_user_turns: usize,
    /// Minimum chars of dialogue (user text + assistant text, tool notes excluded). Default 500.
    pub min_chars: usize,
    /// A session whose file changed less than this long ago is still being written and is skipped,
    /// unless the reason bypasses it ([`Reason::bypasses_quiet_period`]). Default 5 minutes.
    #[serde(skip)]
    pub quiet_period: Duration,
    /// Skip files under a directory named in `subagent_dirs`. Default true.
    pub skip_subagents: bool,
    /// Directory names (matched case-insensitively on any component below the sessions root) that
    /// hold subagent runs. Default `["subagents", "subagent-artifacts"]`: MemPalace skips the first
    /// itself, pi-subagents writes child transcripts to the second.
    pub subagent_dirs: Vec<String>,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            min_user_turns: 3,
            min_chars: 500,
            quiet_period: Duration::from_secs(300),
            skip_subagents: true,
            subagent_dirs: vec!["subagents".into(), "subagent-artifacts".into()],
        }
    }
}

/// Why a session was not exported. Serialized in snake_case (`too_few_user_turns`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The file could not be read.
    Unreadable,
    /// Empty, or the first line is not a pi `session` header with a string id (also non-pi JSONL).
    InvalidHeader,
    /// Under a subagent directory.
    Subagent,
    /// Modified within the quiet period and the reason does not end the session.
    StillWriting,
    /// Nothing but extension-injected context or automated prompts.
    InjectedOnly,
    /// No assistant message with non-blank text.
    NoAssistantReply,
    TooFewUserTurns,
    TooFewChars,
    /// A fork whose every exportable line was copied from an exported parent.
    DuplicateOfParent,
    /// A file whose records this mpt does not know how to read (a Codex rollout of another
    /// version's shape): skipped with its reason in the warnings, never guessed at.
    UnknownShape,
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::Unreadable => "unreadable",
            SkipReason::InvalidHeader => "invalid_header",
            SkipReason::Subagent => "subagent",
            SkipReason::StillWriting => "still_writing",
            SkipReason::InjectedOnly => "injected_only",
            SkipReason::NoAssistantReply => "no_assistant_reply",
            SkipReason::TooFewUserTurns => "too_few_user_turns",
            SkipReason::TooFewChars => "too_few_chars",
            SkipReason::DuplicateOfParent => "duplicate_of_parent",
            SkipReason::UnknownShape => "unknown_shape",
        }
    }

    /// Whether a later run may reach a different verdict on the same bytes (time or I/O dependent),
    /// so the verdict must not be cached in the state file.
    pub fn is_transient(self) -> bool {
        matches!(self, SkipReason::Unreadable | SkipReason::StillWriting)
    }
}

/// The trigger a prepare runs for (pi's event names plus `manual`); recorded in the report.
///
/// The quiet-period rule follows what each trigger says about the session being left. The bridge
/// fires on `session_shutdown`, which "covers quit, `/new`, `/resume`, `/fork`" (seed, Automatic
/// transcript feeding), and newer pi passes exactly those as the shutdown event's `reason`
/// (pi-session-format §1.5): in each the old session is finished, so the trigger may name it either
/// way (`shutdown`, or `new`/`resume`/`fork`) and all four bypass the quiet period. `reload` is also
/// a shutdown reason but the same session carries on (javapacr's bridge skips it outright), so it
/// keeps the quiet period, as do the mid-session triggers (`settled`, `compact`) and `manual`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Reason {
    /// `session_shutdown` (quit): the session is finished.
    Shutdown,
    /// `agent_settled` (debounced mid-session feed): the session is live.
    Settled,
    /// `/new`: the session being left is finished.
    New,
    /// `/resume` of another session: the session being left is finished.
    Resume,
    /// `/fork`: the session being left is finished (the fork continues in a new file).
    Fork,
    /// `session_before_compact`: mid-session.
    Compact,
    /// `/reload`: the same session continues after it.
    Reload,
    Manual,
    Other(String),
}

impl Reason {
    pub fn parse(s: &str) -> Reason {
        match s.trim().to_ascii_lowercase().as_str() {
            "shutdown" | "session_shutdown" => Reason::Shutdown,
            "settled" | "agent_settled" => Reason::Settled,
            "new" => Reason::New,
            "resume" => Reason::Resume,
            "fork" => Reason::Fork,
            "compact" | "session_before_compact" => Reason::Compact,
            "reload" => Reason::Reload,
            "manual" => Reason::Manual,
            _ => Reason::Other(s.trim().to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Reason::Shutdown => "shutdown",
            Reason::Settled => "settled",
            Reason::New => "new",
            Reason::Resume => "resume",
            Reason::Fork => "fork",
            Reason::Compact => "compact",
            Reason::Reload => "reload",
            Reason::Manual => "manual",
            Reason::Other(s) => s,
        }
    }

    /// The triggers that end the session being left (`shutdown`, `new`, `resume`, `fork`) export
    /// sessions still inside the quiet period; every other trigger waits it out.
    pub fn bypasses_quiet_period(&self) -> bool {
        matches!(
            self,
            Reason::Shutdown | Reason::New | Reason::Resume | Reason::Fork
        )
    }
}

impl Serialize for Reason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Whether a file lies under a subagent directory (`rel` is relative to the sessions root).
pub fn is_subagent_path(rel: &Path, cfg: &GateConfig) -> bool {
    let Some(dir) = rel.parent() else {
        return false;
    };
    dir.components().any(|c| {
        let c = c.as_os_str().to_string_lossy();
        cfg.subagent_dirs.iter().any(|d| d.eq_ignore_ascii_case(&c))
    })
}

/// Checks that need only the path and the file's mtime (run before reading the file).
pub fn check_file(
    rel: &Path,
    mtime: SystemTime,
    now: SystemTime,
    reason: &Reason,
    cfg: &GateConfig,
) -> Result<(), SkipReason> {
    if cfg.skip_subagents && is_subagent_path(rel, cfg) {
        return Err(SkipReason::Subagent);
    }
    if !reason.bypasses_quiet_period() {
        // A clock skewed into the future counts as "just written".
        let age = now.duration_since(mtime).unwrap_or(Duration::ZERO);
        if age < cfg.quiet_period {
            return Err(SkipReason::StillWriting);
        }
    }
    Ok(())
}

/// Checks on the transcript's counts, in a fixed order: injected-only, no reply, user turns, chars.
pub fn check_content(stats: &Stats, cfg: &GateConfig) -> Result<(), SkipReason> {
    if stats.user_turns == 0 && stats.injected > 0 {
        return Err(SkipReason::InjectedOnly);
    }
    if stats.assistant_replies == 0 {
        return Err(SkipReason::NoAssistantReply);
    }
    if stats.user_turns < cfg.min_user_turns {
        return Err(SkipReason::TooFewUserTurns);
    }
    if stats.dialogue_chars < cfg.min_chars {
        return Err(SkipReason::TooFewChars);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_checks() {
        let cfg = GateConfig::default();
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(10_000);
        let old = now - Duration::from_secs(301);
        let fresh = now - Duration::from_secs(10);
        let p = Path::new("--w--/s.jsonl");
        assert_eq!(check_file(p, old, now, &Reason::Settled, &cfg), Ok(()));
        assert_eq!(
            check_file(p, fresh, now, &Reason::Settled, &cfg),
            Err(SkipReason::StillWriting)
        );
        assert_eq!(check_file(p, fresh, now, &Reason::Shutdown, &cfg), Ok(()));
        let future = now + Duration::from_secs(60);
        assert_eq!(
            check_file(p, future, now, &Reason::Manual, &cfg),
            Err(SkipReason::StillWriting)
        );
        let sub = Path::new("--w--/SubAgents/c.jsonl");
        assert_eq!(
            check_file(sub, old, now, &Reason::Shutdown, &cfg),
            Err(SkipReason::Subagent)
        );
        // Only directories count, not the file name itself.
        assert_eq!(
            check_file(Path::new("subagents"), old, now, &Reason::Manual, &cfg),
            Ok(())
        );
        let off = GateConfig {
            skip_subagents: false,
            ..cfg
        };
        assert_eq!(check_file(sub, old, now, &Reason::Shutdown, &off), Ok(()));
    }

    #[test]
    fn content_checks_in_order() {
        let cfg = GateConfig::default();
        let s = |u, a, c, i| Stats {
            user_turns: u,
            assistant_replies: a,
            dialogue_chars: c,
            injected: i,
        };
        assert_eq!(
            check_content(&s(0, 1, 900, 2), &cfg),
            Err(SkipReason::InjectedOnly)
        );
        assert_eq!(
            check_content(&s(0, 0, 0, 0), &cfg),
            Err(SkipReason::NoAssistantReply)
        );
        assert_eq!(
            check_content(&s(2, 2, 900, 0), &cfg),
            Err(SkipReason::TooFewUserTurns)
        );
        assert_eq!(
            check_content(&s(3, 3, 499, 1), &cfg),
            Err(SkipReason::TooFewChars)
        );
        assert_eq!(check_content(&s(3, 3, 500, 1), &cfg), Ok(()));
    }

    #[test]
    fn reasons() {
        assert_eq!(Reason::parse("Shutdown"), Reason::Shutdown);
        assert_eq!(Reason::parse("agent_settled"), Reason::Settled);
        assert_eq!(Reason::parse("cron").as_str(), "cron");
        for r in ["shutdown", "new", "resume", "fork"] {
            assert!(Reason::parse(r).bypasses_quiet_period(), "{r}");
        }
        for r in ["settled", "compact", "reload", "manual", "cron"] {
            assert!(!Reason::parse(r).bypasses_quiet_period(), "{r}");
        }
        assert_eq!(
            serde_json::to_string(&SkipReason::TooFewChars).unwrap(),
            "\"too_few_chars\""
        );
    }
}
