//! A source of one JSONL file a session under a folder (Claude Code's transcripts, Codex's
//! rollouts): the scan, each file's record, the quiet period from its last record, the gates.

use std::fs;
use std::io;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use crate::export;
use crate::gate::{self, SkipReason};
use crate::pipeline::{self, Found, PrepareOptions, Rendered, Run, Source};
use crate::report::{Outcome, PrepareReport};
use crate::scan::{self, SessionFile};
use crate::session::Session;
use crate::state::{self, Record};

/// What tells one harness's files apart: which session a file holds, and how it reads.
pub(crate) trait Format {
    /// What the folder is called in messages.
    const FOLDER: &'static str;

    /// The session a file holds, or why the file is skipped (and a warning, if it says one).
    fn id(f: &SessionFile) -> Result<String, (SkipReason, Option<&'static str>)>;

    /// The session from the file's bytes and the time of its last record (RFC 3339), or why its
    /// shape is not one this mpt reads (skipped as `unknown_shape`, the reason in the warnings).
    fn parse(id: &str, bytes: &[u8]) -> Result<(Session, Option<String>), String>;
}

/// Runs one prepare over the folder `opts.sessions_dir`. Errors: `NotFound` when it does not
/// exist, as for pi's folder; the staging folder's and the state file's.
pub(crate) fn prepare<F: Format>(opts: &PrepareOptions) -> io::Result<PrepareReport> {
    let root = fs::canonicalize(&opts.sessions_dir)?;
    pipeline::run(
        opts,
        &mut Files::<F> {
            opts,
            root,
            files: Vec::new(),
            format: PhantomData,
        },
    )
}

struct Files<'a, F> {
    opts: &'a PrepareOptions,
    root: PathBuf,
    files: Vec<SessionFile>,
    format: PhantomData<F>,
}

impl<F: Format> Source for Files<'_, F> {
    fn folder(&self) -> Option<(&'static str, &Path)> {
        Some((F::FOLDER, &self.root))
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
        let id = F::id(f).ok();
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
        let mut skip = |r, why: Option<&str>| {
            if let Some(why) = why {
                report
                    .warnings
                    .push(format!("{}: skipped: {why}", f.path.display()));
            }
            Ok(Rendered::Skip(r))
        };
        let id = match F::id(f) {
            Ok(id) => id,
            Err((r, why)) => return skip(r, why),
        };
        let Ok(bytes) = fs::read(&f.path) else {
            return skip(SkipReason::Unreadable, None);
        };
        report.bytes_read += bytes.len() as u64;
        let (sess, last) = match F::parse(&id, &bytes) {
            Ok(s) => s,
            Err(why) => return skip(SkipReason::UnknownShape, Some(&why)),
        };
        report.note_skipped_lines(&f.path, &sess);
        // The quiet period runs from the file's own last record (its mtime when none has a time).
        let written = last
            .as_deref()
            .and_then(mpt_base::time::parse_iso_utc)
            .map_or(f.mtime, |s| {
                UNIX_EPOCH + Duration::from_secs(s.max(0) as u64)
            });
        if let Err(r) = gate::check_file(&f.rel, written, opts.now, &opts.reason, &opts.gate) {
            return Ok(Rendered::Skip(r));
        }
        let t = export::build(&sess, &opts.export);
        if let Err(r) = gate::check_content(&t.stats, &opts.gate) {
            return Ok(Rendered::Skip(r));
        }
        let (text, _) = export::render(&t, &Default::default(), &opts.export);
        Ok(Rendered::Text { id, text })
    }
}
