//! Codex's rollouts as a source of the one pipeline: `YYYY/MM/DD/rollout-<time>-<thread>.jsonl`
//! under its sessions folder, one session each (`codex exec resume` appends to it).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use super::Shape;
use crate::export;
use crate::gate::{self, SkipReason};
use crate::pipeline::PrepareOptions;
use crate::pipeline::{self, Found, Rendered, Run, Source};
use crate::report::{Outcome, PrepareReport};
use crate::scan::{self, SessionFile};
use crate::state::{self, Record};
use mpt_palace::harness::codex::rollout_id;

/// Runs one prepare over Codex's sessions folder `opts.sessions_dir`. Errors: `NotFound` when it
/// does not exist, as for pi's folder; the staging folder's and the state file's.
pub fn prepare(opts: &PrepareOptions) -> io::Result<PrepareReport> {
    let root = fs::canonicalize(&opts.sessions_dir)?;
    pipeline::run(
        opts,
        &mut Codex {
            opts,
            root,
            files: Vec::new(),
        },
    )
}

struct Codex<'a> {
    opts: &'a PrepareOptions,
    root: PathBuf,
    files: Vec<SessionFile>,
}

impl Codex<'_> {
    /// The thread a file holds, from its name (`rollout-<time>-<thread id>.jsonl`).
    fn id(f: &SessionFile) -> Option<String> {
        rollout_id(f.rel.file_name()?.to_str()?).map(str::to_string)
    }
}

impl Source for Codex<'_> {
    fn folder(&self) -> Option<(&'static str, &Path)> {
        Some(("Codex's sessions folder", &self.root))
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
            report.warnings.push(format!(
                "{}: skipped: not a rollout (its name is not rollout-<time>-<thread id>.jsonl)",
                f.path.display()
            ));
            return skip(SkipReason::UnknownShape);
        };
        let Ok(bytes) = fs::read(&f.path) else {
            return skip(SkipReason::Unreadable);
        };
        report.bytes_read += bytes.len() as u64;
        let (sess, last, shape) = super::session(&id, &bytes);
        if let Shape::Unknown(why) = shape {
            report
                .warnings
                .push(format!("{}: skipped: {why}", f.path.display()));
            return skip(SkipReason::UnknownShape);
        }
        report.note_skipped_lines(&f.path, &sess);
        // The quiet period runs from the rollout's own last record (its file's mtime when none
        // has a time).
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
