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
}

impl Harness {
    pub const ALL: [Harness; 2] = [Harness::Pi, Harness::Opencode];

    pub fn as_str(self) -> &'static str {
        match self {
            Harness::Pi => "pi",
            Harness::Opencode => "opencode",
        }
    }
}
