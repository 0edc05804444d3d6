//! How long one call may take: the transport's default, a deadline of its own, or none.

use std::time::Duration;

/// How long one call may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadline {
    /// `MEMPALACE_MCP_TIMEOUT_MS` (or the handshake's own).
    Default,
    /// A per-call deadline that overrides the default (the mine needs minutes).
    After(Duration),
    /// No deadline at all.
    Unbounded,
}

impl Deadline {
    pub fn resolve(self, default: Option<Duration>) -> Option<Duration> {
        match self {
            Deadline::Default => default,
            Deadline::After(d) => Some(d),
            Deadline::Unbounded => None,
        }
    }
}
