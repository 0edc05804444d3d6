//! Where the gateway keeps its files: one folder (`MPT_GATEWAY_DIR`, else
//! `$XDG_STATE_HOME/mpt/gateway`) and the name of each file in it.

use std::path::PathBuf;

use crate::config::Env;
use crate::error::Result;

/// The gateway's files, all in one folder.
#[derive(Debug, Clone)]
pub struct StateDir {
    pub root: PathBuf,
}

impl StateDir {
    /// `MPT_GATEWAY_DIR` (absolute or `~/…`), else `$XDG_STATE_HOME/mpt/gateway`, else
    /// `~/.local/state/mpt/gateway`.
    pub fn resolve(env: &Env) -> Result<StateDir> {
        if let Some(p) = crate::config::values::env_path(env, "MPT_GATEWAY_DIR")? {
            return Ok(StateDir { root: p });
        }
        Ok(StateDir {
            root: env.mpt_dir(crate::config::Xdg::State)?.join("gateway"),
        })
    }

    /// The reviewed policy (may be 0644: it is meant to be committed).
    pub fn policy(&self) -> PathBuf {
        self.root.join("policy.json")
    }

    /// Token hashes (0600), written only by `mpt gateway token`.
    pub fn tokens(&self) -> PathBuf {
        self.root.join("tokens.json")
    }

    /// Held while `tokens.json` is rewritten.
    pub fn tokens_lock(&self) -> PathBuf {
        self.root.join("tokens.lock")
    }

    /// Join codes' hashes (0600), written by `mpt gateway invite` and by `POST /join`.
    pub fn invites(&self) -> PathBuf {
        self.root.join("invites.json")
    }

    /// Held while `invites.json` is rewritten.
    pub fn invites_lock(&self) -> PathBuf {
        self.root.join("invites.lock")
    }

    /// When each token was last used, written by the running gateway alone.
    pub fn last_used(&self) -> PathBuf {
        self.root.join("last_used.json")
    }

    /// The current audit file; rotated ones are `audit-<first seq>.jsonl` beside it.
    pub fn audit(&self) -> PathBuf {
        self.root.join("audit.jsonl")
    }

    /// Held by the running gateway for its life: one writer of the audit and `last_used.json`.
    pub fn serve_lock(&self) -> PathBuf {
        self.root.join("gateway.lock")
    }

    /// Where the running gateway listens (its `mpt.gateway.serve/v1` line), while it runs.
    pub fn serve_record(&self) -> PathBuf {
        self.root.join("serve.json")
    }

    /// The audit chain's head, so an edit of the last record or a truncation shows.
    pub fn audit_head(&self) -> PathBuf {
        self.root.join("audit.head.json")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_follows_the_environment() {
        let env = Env::from_pairs([("HOME", "/h"), ("XDG_STATE_HOME", "/s")]);
        assert_eq!(
            StateDir::resolve(&env).unwrap().root,
            PathBuf::from("/s/mpt/gateway")
        );
        let env = Env::from_pairs([("HOME", "/h")]);
        assert_eq!(
            StateDir::resolve(&env).unwrap().root,
            PathBuf::from("/h/.local/state/mpt/gateway")
        );
        let env = Env::from_pairs([("HOME", "/h"), ("MPT_GATEWAY_DIR", "rel")]);
        assert_eq!(StateDir::resolve(&env).unwrap_err().exit().code(), 2);
    }
}
