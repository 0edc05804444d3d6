//! Where the feed keeps its files: its folder (`$XDG_STATE_HOME/mpt/feed`), the default staging
//! folder in it, and the state and lock of each staging folder, never inside what the miner reads.

use std::path::{Path, PathBuf};

/// Where `mpt` keeps the feed's files when `--out` is not given: `$XDG_STATE_HOME/mpt/feed`
/// (`~/.local/state/mpt/feed`: config's one helper for mpt's folders); the staging folder is
/// `staged/` inside it.
pub fn feed_home(env: &crate::config::Env) -> crate::error::Result<PathBuf> {
    Ok(env.mpt_dir(crate::config::Xdg::State)?.join("feed"))
}

/// The state and lock files for a staging folder: beside the default one, or keyed by a hash of
/// the folder for `--out`, always in the feed home (so never inside what the miner reads).
pub fn state_and_lock(feed_home: &Path, stage_dir: &Path, is_default: bool) -> (PathBuf, PathBuf) {
    if is_default {
        return (feed_home.join("state.json"), feed_home.join("prepare.lock"));
    }
    use sha2::{Digest, Sha256};
    let key = crate::hex::hex(&Sha256::digest(stage_dir.to_string_lossy().as_bytes()));
    (
        feed_home.join(format!("state-{}.json", &key[..16])),
        feed_home.join(format!("prepare-{}.lock", &key[..16])),
    )
}
