//! Claude Code's transcripts as a source of the one pipeline: `<slug>/<id>.jsonl` under its
//! projects folder, one session each (a `--resume` appends to it), deeper files a subagent's.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use crate::export;
use crate::gate::{self, SkipReason};
use crate::pipeline::PrepareOptions;
use crate::pipeline::{self, Found, Rendered, Run, Source};
use crate::report::{Outcome, PrepareReport};
use crate::scan::{self, SessionFile};
use crate::state::{self, Record};

/// Runs one prepare over Claude Code's projects folder `opts.sessions_dir`. Errors: `NotFound`
/// when it does not exist, as for pi's folder; the staging folder's and the state file's.
pub fn prepare(opts: &PrepareOptions) -> io::Result<PrepareReport> {
    let root = fs::canonicalize(&opts.sessions_dir)?;
    pipeline::run(
        opts,
        &mut Claude {
            opts,
            root,
            files: Vec::new(),
        },
    )
}

struct Claude<'a> {
    opts: &'a PrepareOptions,
    root: PathBuf,
    files: Vec<SessionFile>,
}

impl Claude<'_> {
    /// The session a file holds: its name's stem, for `<slug>/<id>.jsonl` alone.
    fn id(f: &SessionFile) -> Option<String> {
        (f.rel.components().count() == 2)
            .then(|| f.rel.file_stem()?.to_str().map(str::to_string))
            .flatten()
    }
}

impl Source for Claude<'_> {
    fn folder(&self) -> Option<(&'static str, &Path)> {
        Some(("Claude Code's projects folder", &self.root))
    }

    fn open(&mut self, _: &Run, report: &mut PrepareReport) -> io::Result<Result<usize, String>> {
        let (files, warnings) = scan::scan(&self.root)?;
        report.warnings = warnings;
        report.sessions_seen = files.len();
        self.files = files;
        Ok(Ok(self.files.len()))
    }

    fn found(&mut self, k: usize, _: &[Option<Outcome>]) -> Found {
        let f = &self.files[k];
        let id = Self::id(f);
        Found {
            key: f.path.to_string_lossy().into_owned(),
            source: f.path.clone(),
            id: id.clone(),
            record: Record {
                size: f.size,
                mtime_ns: state::mtime_ns(f.mtime),
                id,
                parent: None,
                dedup: String::new(),
                staged: None,
                staged_size: 0,
                skip: None,
            },
        }
    }

    fn render(
        &mut self,
        k: usize,
        _: &[Option<Outcome>],
        report: &mut PrepareReport,
    ) -> io::Result<Rendered> {
        let (opts, f) = (self.opts, &self.files[k]);
        let skip = |r| Ok(Rendered::Skip(r));
        let Some(id) = Self::id(f) else {
            // A subagent's transcript (`<slug>/<session>/subagents/…`) or a stray file.
            return skip(SkipReason::Subagent);
        };
        let Ok(bytes) = fs::read(&f.path) else {
            return skip(SkipReason::Unreadable);
        };
        report.bytes_read += bytes.len() as u64;
        let (sess, last) = super::session(&id, &bytes);
        report.note_skipped_lines(&f.path, &sess);
        // The quiet period runs from the transcript's own last record (its file's mtime when
        // none has a time).
        let written = last
            .as_deref()
            .and_then(mpt_base::time::parse_iso_utc)
            .map_or(f.mtime, |s| {
                UNIX_EPOCH + Duration::from_secs(s.max(0) as u64)
            });
        if let Err(r) = gate::check_file(&f.rel, written, opts.now, &opts.reason, &opts.gate) {
            return skip(r);
        }
        let t = export::build(&sess, &opts.export);
        if let Err(r) = gate::check_content(&t.stats, &opts.gate) {
            return skip(r);
        }
        let (text, _) = export::render(&t, &Default::default(), &opts.export);
        Ok(Rendered::Text { id, text })
    }
}
