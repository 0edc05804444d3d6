//! Codex's conversations as a source of the one pipeline: its rollouts under
//! `<codex home>/sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`, one session each.

mod parse;
mod source;

pub use parse::{Shape, line_shapes, session};
pub use source::prepare;

pub use mpt_palace::harness::codex::{home_dir, sessions_dir};
