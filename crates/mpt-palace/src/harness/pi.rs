//! pi's deployed MemPalace bridge: where the extension is (through every symlink, a baked `/opt`
//! copy is usual), its date, and which capability tokens the DEPLOYED file carries.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use mpt_base::config::Env;
use mpt_base::error::{MptError, Result};

/// A capability and the token whose presence in the deployed file proves it.
pub struct Capability {
    pub token: &'static str,
    pub what: &'static str,
    pub since: &'static str,
    /// What `mpt` offers when the deployed file lacks it.
    pub fallback: &'static str,
}

pub const CAPABILITIES: &[Capability] = &[
    Capability {
        token: "MEMPALACE_FEED",
        what: "transcript feeding",
        since: "toolkit 29e660e (2026-08-12)",
        fallback: "`mpt feed mine --reason shutdown` feeds transcripts through mpt (from a timer or your shell's exit)",
    },
    Capability {
        token: "MEMPALACE_PI_DEVICE",
        what: "provenance stamping",
        since: "toolkit 553d8657 (2026-08-25)",
        fallback: "run pi's MCP server through `mpt edge`, which stamps `<harness>@<device>` itself",
    },
    Capability {
        token: "MEMPALACE_MAILBOX",
        what: "the mailbox",
        since: "the mailbox release",
        fallback: "`mpt mailbox` (or `mpt mailbox watch`) shows what this device owes",
    },
];

/// The `MEMPALACE_EDGE` branch in `createClient()` (RFC 001 §4.1): without it pi never reaches an edge.
pub const EDGE_TOKEN: &str = "MEMPALACE_EDGE";

#[derive(Debug, Clone, serde::Serialize)]
pub struct Extension {
    /// `~/.pi/agent/extensions/mempalace.ts` as pi sees it.
    pub path: PathBuf,
    /// The file it resolves to.
    pub resolved: PathBuf,
    /// Its mtime, as the deployed copy's date (git fails in a root-owned tree).
    pub modified: Option<SystemTime>,
    /// Lines holding each capability token, and the edge token (`grep -c`).
    pub tokens: Vec<(String, usize)>,
}

impl Extension {
    pub fn count(&self, token: &str) -> usize {
        self.tokens
            .iter()
            .find(|(t, _)| t == token)
            .map_or(0, |(_, n)| *n)
    }
}

/// pi's agent dir: `PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub fn agent_dir(env: &Env) -> Result<PathBuf> {
    match env.get("PI_CODING_AGENT_DIR") {
        Some(d) => Ok(PathBuf::from(d)),
        None => Ok(env.home()?.join(".pi").join("agent")),
    }
}

/// `Ok(None)` when the extension is not deployed.
pub fn extension(agent_dir: &Path) -> Result<Option<Extension>> {
    let path = agent_dir.join("extensions").join("mempalace.ts");
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let resolved = std::fs::canonicalize(&path).map_err(|e| {
        MptError::io(format!("{} is a dangling link", path.display()), &e)
            .with_hint("redeploy the extension, or remove the broken link")
    })?;
    let text = std::fs::read_to_string(&resolved)
        .map_err(|e| MptError::io(format!("reading {}", resolved.display()), &e))?;
    let modified = std::fs::metadata(&resolved).and_then(|m| m.modified()).ok();
    let tokens = CAPABILITIES
        .iter()
        .map(|c| c.token)
        .chain([EDGE_TOKEN])
        .map(|t| (t.to_string(), count_token(&text, t)))
        .collect();
    Ok(Some(Extension {
        path,
        resolved,
        modified,
        tokens,
    }))
}

/// Lines that contain the token: exactly the bridge README's `grep -c TOKEN "$(readlink -f …)"`.
fn count_token(text: &str, token: &str) -> usize {
    text.lines().filter(|l| l.contains(token)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_like_grep_c() {
        assert_eq!(
            count_token(
                "a MEMPALACE_FEED b MEMPALACE_FEED\nMEMPALACE_FEED_WING\nnone",
                "MEMPALACE_FEED"
            ),
            2
        );
        assert_eq!(count_token("nothing here", "MEMPALACE_FEED"), 0);
    }
}
