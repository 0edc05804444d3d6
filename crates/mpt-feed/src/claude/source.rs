//! Claude Code's transcripts as a source of the one pipeline: `<slug>/<id>.jsonl` under its
//! projects folder, one session each (a `--resume` appends to it), deeper files a subagent's.

use std::io;

use crate::gate::SkipReason;
use crate::pipeline::PrepareOptions;
use crate::report::PrepareReport;
use crate::scan::SessionFile;
use crate::session::Session;
use crate::transcripts::{self, Format};

/// Runs one prepare over Claude Code's projects folder `opts.sessions_dir` (see
/// [`transcripts::prepare`]).
pub fn prepare(opts: &PrepareOptions) -> io::Result<PrepareReport> {
    transcripts::prepare::<Claude>(opts)
}

struct Claude;

impl Format for Claude {
    const FOLDER: &'static str = "Claude Code's projects folder";

    /// Its name's stem, for `<slug>/<id>.jsonl` alone: a deeper file is a subagent's
    /// (`<slug>/<session>/subagents/…`) or a stray one.
    fn id(f: &SessionFile) -> Result<String, (SkipReason, Option<&'static str>)> {
        (f.rel.components().count() == 2)
            .then(|| f.rel.file_stem()?.to_str().map(str::to_string))
            .flatten()
            .ok_or((SkipReason::Subagent, None))
    }

    fn parse(id: &str, bytes: &[u8]) -> Result<(Session, Option<String>), String> {
        Ok(super::session(id, bytes))
    }
}
