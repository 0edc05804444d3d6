//! Codex's rollouts as a source of the one pipeline: `YYYY/MM/DD/rollout-<time>-<thread>.jsonl`
//! under its sessions folder, one session each (`codex exec resume` appends to it).

use std::io;

use super::Shape;
use crate::gate::SkipReason;
use crate::pipeline::PrepareOptions;
use crate::report::PrepareReport;
use crate::scan::SessionFile;
use crate::session::Session;
use crate::transcripts::{self, Format};
use mpt_palace::harness::codex::rollout_id;

/// Runs one prepare over Codex's sessions folder `opts.sessions_dir` (see
/// [`transcripts::prepare`]).
pub fn prepare(opts: &PrepareOptions) -> io::Result<PrepareReport> {
    transcripts::prepare::<Codex>(opts)
}

struct Codex;

impl Format for Codex {
    const FOLDER: &'static str = "Codex's sessions folder";

    /// The thread, from the file's name (`rollout-<time>-<thread id>.jsonl`).
    fn id(f: &SessionFile) -> Result<String, (SkipReason, Option<&'static str>)> {
        f.rel
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(rollout_id)
            .map(str::to_string)
            .ok_or((
                SkipReason::UnknownShape,
                Some("not a rollout (its name is not rollout-<time>-<thread id>.jsonl)"),
            ))
    }

    fn parse(id: &str, bytes: &[u8]) -> Result<(Session, Option<String>), String> {
        match super::session(id, bytes) {
            (s, last, Shape::Known) => Ok((s, last)),
            (_, _, Shape::Unknown(why)) => Err(why),
        }
    }
}
