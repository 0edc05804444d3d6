//! The harnesses whose conversations the feed reads, each with its own staging folder and wing.

/// The harnesses whose conversations are fed, each to its own staging folder and wing.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum Harness {
    /// pi's session files (`~/.pi/agent/sessions/**/*.jsonl`).
    Pi,
    /// opencode's SQLite database (`~/.local/share/opencode/opencode.db`).
    Opencode,
    /// Claude Code's session transcripts (`~/.claude/projects/<slug>/<id>.jsonl`).
    Claude,
    /// Codex's session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
}

impl Harness {
    pub const ALL: [Harness; 4] = [
        Harness::Pi,
        Harness::Opencode,
        Harness::Claude,
        Harness::Codex,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Harness::Pi => "pi",
            Harness::Opencode => "opencode",
            Harness::Claude => "claude",
            Harness::Codex => "codex",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_harness_has_an_inbox_a_feed_mine_is_admitted_from() {
        assert_eq!(
            Harness::ALL.map(Harness::as_str),
            mpt_base::config::feed::INBOX_HARNESSES
        );
    }
}
