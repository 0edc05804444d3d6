//! Where MemPalace keeps what, and reading it safely: path rules (version 3.11), the knowledge
//! graph (read-only), the sidecar and registry files, the tool catalog; the harnesses' wiring files.
//!
//! The crate may import mpt-base; nothing above it.

// Nothing prints with the macros: commands through `output::Output`, engines through `log`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod catalog;
pub mod chroma;
pub mod files;
pub mod harness;
pub mod hygiene;
pub mod kg;
pub mod landmine;
pub mod paths;
pub mod procs;
pub mod sqlite;

pub use paths::PalacePaths;

use std::path::{Path, PathBuf};

/// The outbox's file (`mpt_base::paths::edge::outbox`), its palace `palace` or, when `None` and HOME
/// cannot be written, the one MemPalace would pick: the rule that needs MemPalace's, kept here.
pub fn edge_outbox(
    env: &mpt_base::config::Env,
    config: &mpt_base::config::Config,
    palace: Option<&Path>,
) -> mpt_base::error::Result<PathBuf> {
    mpt_base::paths::edge::outbox(env, config, || match palace {
        Some(p) => Ok(p.to_path_buf()),
        None => PalacePaths::chosen(env, None, Some(config)).map(|p| p.palace),
    })
}
