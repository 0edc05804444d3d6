//! Claude Code's conversations as a source of the one pipeline: its session transcripts under
//! `<config>/projects/<slug>/<id>.jsonl`, each parsed into the entries every harness renders.

mod parse;
mod source;

use std::path::{Path, PathBuf};

use mpt_base::config::Env;

pub use parse::{line_shapes, session};
pub use source::prepare;

pub use mpt_palace::harness::claude::config_dir;

/// Where its session transcripts live: one folder per project (the working folder's path with
/// every character that is not a letter or a digit made `-`), one `<session-id>.jsonl` each.
pub fn projects_dir(env: &Env, home: &Path) -> PathBuf {
    config_dir(env, home).join("projects")
}
