//! The one prepare pipeline every harness's conversations go through, and a run's options: the
//! state read, each session decided from its record or rendered by its source, staged, recorded.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::Harness;
use crate::export::ExportOptions;
use crate::gate::SkipReason;
use crate::gate::{GateConfig, Reason};
use crate::report::{Outcome, PrepareReport, REPORT_SCHEMA, SessionOutcome};
use crate::stage::{self, Ahead, StageOutcome, Stager};
use crate::state::{self, Record, State};

/// Called after each session is decided with (sessions done, sessions total); a CLI draws a bar.
#[derive(Clone)]
pub struct Progress(pub Arc<dyn Fn(usize, usize) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress(..)")
    }
}

/// Everything one run needs. Build with [`PrepareOptions::new`] and adjust fields.
#[derive(Debug, Clone)]
pub struct PrepareOptions {
    /// Whose conversations: pi's session files ([`prepare`]), or opencode's database
    /// ([`super::opencode::prepare::prepare`]); `job` runs the one it names.
    pub harness: Harness,
    /// pi's sessions root, walked recursively for `*.jsonl`; for opencode, its database file.
    pub sessions_dir: PathBuf,
    /// The folder handed to the miner (created if missing). Holds only `<id>.md` files.
    pub stage_dir: PathBuf,
    /// The state file enabling the no-parse fast path; must lie outside `stage_dir`. `None`: every
    /// session is parsed each run (output is identical, just slower).
    pub state_file: Option<PathBuf>,
    pub reason: Reason,
    pub gate: GateConfig,
    pub export: ExportOptions,
    /// "Now" for the quiet period and temp cleanup (a parameter so tests are deterministic).
    pub now: SystemTime,
    /// fsync each staged file before renaming it into place. Default true.
    pub fsync: bool,
    /// Temp files in the staging folder older than this are removed as abandoned. Default
    /// [`stage::STALE_TEMP_AGE`]; a caller holding an exclusive lock on the folder may pass zero
    /// (every temp file then belongs to a run that died).
    pub stale_temp_age: Duration,
    pub progress: Option<Progress>,
}

impl PrepareOptions {
    pub fn new(
        sessions_dir: impl Into<PathBuf>,
        stage_dir: impl Into<PathBuf>,
        reason: Reason,
    ) -> Self {
        PrepareOptions {
            harness: Harness::Pi,
            sessions_dir: sessions_dir.into(),
            stage_dir: stage_dir.into(),
            state_file: None,
            reason,
            gate: GateConfig::default(),
            export: ExportOptions::default(),
            now: SystemTime::now(),
            fsync: true,
            stale_temp_age: stage::STALE_TEMP_AGE,
            progress: None,
        }
    }
}

/// A harness's conversations as the pipeline sees them (pi's files, opencode's database, Claude
/// Code's transcripts): the sessions of a run, in the order they are decided, and each one's
/// transcript when asked.
pub(crate) trait Source {
    /// The folder it reads (canonical), and what it is called: a run whose staging folder holds
    /// it is refused, since the miner would read the raw sessions. `None` for a file (a database).
    fn folder(&self) -> Option<(&'static str, &Path)> {
        None
    }

    /// Reads what the run needs (`run.old`: the previous state), fills what it learns into `report`,
    /// and says how many sessions there are; `Err` names why the whole source is skipped this
    /// run (nothing new is staged; what is staged stays).
    fn open(&mut self, run: &Run, report: &mut PrepareReport) -> io::Result<Result<usize, String>>;

    /// Session `k`, knowing what became of the sessions decided before it.
    fn found(&mut self, k: usize, decided: &[Option<Outcome>]) -> Found;

    /// Session `k`'s transcript, asked only when its record did not decide it (the pipeline
    /// names and stages it).
    fn render(
        &mut self,
        k: usize,
        decided: &[Option<Outcome>],
        report: &mut PrepareReport,
    ) -> io::Result<Rendered>;

    /// Whether the source draws the progress itself (as it reads), instead of one step a session
    /// decided.
    fn draws_progress(&self) -> bool {
        false
    }
}

/// What the run knows before any session: its options, the staging folder, the previous state.
pub(crate) struct Run<'a> {
    pub opts: &'a PrepareOptions,
    pub stage_dir: PathBuf,
    pub old: State,
}

/// One session as its source found it.
pub(crate) struct Found {
    /// Its key in the state file.
    pub key: String,
    /// Where it comes from, in the report (a file, or the database joined with its id).
    pub source: PathBuf,
    pub id: Option<String>,
    /// What this run records of it (fingerprint, id, parent, the dedup inputs).
    pub record: Record,
}

/// A session's transcript, or why it is not staged.
pub(crate) enum Rendered {
    Skip(SkipReason),
    /// Rendered now, to be staged as `<id>.md`.
    Text {
        id: String,
        text: String,
    },
    /// Written ahead to a temp file in the staging folder (by a worker, as the source read).
    Ahead(Ahead),
}

/// Runs one prepare of `source`'s sessions into `opts.stage_dir`.
pub(crate) fn run(opts: &PrepareOptions, source: &mut dyn Source) -> io::Result<PrepareReport> {
    fs::create_dir_all(&opts.stage_dir)?;
    let stage_dir = fs::canonicalize(&opts.stage_dir)?;
    if let Some(sf) = &opts.state_file {
        ensure_outside(sf, &stage_dir)?;
    }
    if let Some((what, folder)) = source.folder()
        && folder.starts_with(&stage_dir)
    {
        return Err(invalid(format!(
            "{what} {} is inside the staging folder {}: the miner would read raw sessions",
            folder.display(),
            stage_dir.display()
        )));
    }
    let (mut report, old) = begin(opts, &stage_dir)?;
    let run = Run {
        opts,
        stage_dir,
        old,
    };
    let n = match source.open(&run, &mut report)? {
        Ok(n) => n,
        Err(why) => {
            report.warnings.push(why.clone());
            report.source_skipped = Some(why);
            return Ok(report);
        }
    };
    let progress = opts.progress.as_ref().filter(|_| !source.draws_progress());
    let mut decided: Vec<Option<Outcome>> = vec![None; n];
    let mut used: HashSet<String> = HashSet::new();
    let mut new_state = State::empty(&run.old.config);
    let mut stager = Stager::new(&run.stage_dir, opts.fsync);
    let mut details = Vec::with_capacity(n);
    for k in 0..n {
        if let Some(p) = progress {
            (p.0)(k, n);
        }
        let found = source.found(k, &decided);
        let mut record = found.record;
        // The previous record of this very state of the session decides it, while it holds.
        let reused = run
            .old
            .sessions
            .get(&found.key)
            .filter(|r| r.same_state(record.size, record.mtime_ns))
            .and_then(|r| reuse(r, &record.dedup, &run.stage_dir, &used));
        let (outcome, staged, from_state) = match reused {
            Some((o, staged)) => (o, staged, true),
            None => {
                let rendered = source.render(k, &decided, &mut report)?;
                let (o, staged) =
                    stage_one(&mut stager, rendered, &found.source, &mut used, &mut report)?;
                (o, staged, false)
            }
        };
        let staged = staged.map(|(name, size)| {
            used.insert(name.clone());
            record.staged = Some(name.clone());
            record.staged_size = size;
            name
        });
        report.decided_from_state += usize::from(from_state);
        report.count(outcome);
        decided[k] = Some(outcome);
        match outcome {
            Outcome::Skipped(r) if r.is_transient() || r == SkipReason::Subagent => {}
            Outcome::Skipped(r) => {
                record.skip = Some(r);
                new_state.sessions.insert(found.key, record);
            }
            _ => {
                new_state.sessions.insert(found.key, record);
            }
        }
        details.push(SessionOutcome {
            source: found.source,
            session_id: found.id,
            staged,
            outcome,
            from_state,
        });
    }
    if let Some(p) = progress {
        (p.0)(n, n);
    }
    details.sort_by(|a, b| a.source.cmp(&b.source));
    report.sessions = details;
    stager.finish()?;
    if let Some(p) = &opts.state_file
        && (new_state != run.old || report.state_reset || !p.exists())
    {
        new_state.save(p)?;
    }
    Ok(report)
}

/// Stage one rendered session under its name (another name when this run already staged one by
/// it).
fn stage_one(
    stager: &mut Stager,
    rendered: Rendered,
    source: &Path,
    used: &mut HashSet<String>,
    report: &mut PrepareReport,
) -> io::Result<(Outcome, Staged)> {
    let (mut name, ahead, text) = match rendered {
        Rendered::Skip(r) => return Ok((Outcome::Skipped(r), None)),
        Rendered::Text { id, text } => (stage::staged_name(&id), None, text),
        Rendered::Ahead(a) => (a.name().to_string(), Some(a), String::new()),
    };
    if used.contains(&name) {
        name = stage::disambiguated_name(&name, source);
    }
    used.insert(name.clone());
    let (staged, len) = match ahead {
        Some(a) if a.is_named(&name) => {
            let len = a.len();
            (stager.commit(a)?, len)
        }
        Some(a) => (stager.stage(&name, &a.content()?)?, a.len()),
        None => (stager.stage(&name, text.as_bytes())?, text.len() as u64),
    };
    let outcome = match staged {
        StageOutcome::Written(n) => {
            report.bytes_written += n;
            Outcome::Exported
        }
        StageOutcome::Unchanged => Outcome::Unchanged,
    };
    Ok((outcome, Some((name, len))))
}

/// A run's start: the report, abandoned temps removed, the previous state (empty, and said so,
/// when it was made with other settings).
fn begin(opts: &PrepareOptions, stage_dir: &Path) -> io::Result<(PrepareReport, State)> {
    let mut report = PrepareReport {
        schema: REPORT_SCHEMA,
        reason: opts.reason.as_str().to_string(),
        stage_dir: stage_dir.to_path_buf(),
        ..Default::default()
    };
    report.stale_temps_removed =
        stage::clean_stale_temps(stage_dir, opts.stale_temp_age, opts.now)?;
    let config = state::fingerprint(&opts.gate, &opts.export);
    let old = match &opts.state_file {
        Some(p) => {
            let (s, reset) = State::load(p, &config);
            report.state_reset = reset;
            s
        }
        None => State::empty(&config),
    };
    Ok((report, old))
}

/// A record's verdict when it still holds: the same dedup inputs, and for an export, the staged
/// file still present at its recorded size (and not claimed by another session this run).
pub(crate) fn reuse(
    r: &Record,
    dedup: &str,
    stage_dir: &Path,
    used: &HashSet<String>,
) -> Option<(Outcome, Staged)> {
    if r.dedup != dedup {
        return None;
    }
    if let Some(reason) = r.skip {
        return (!reason.is_transient()).then_some((Outcome::Skipped(reason), None));
    }
    let name = r.staged.as_ref()?;
    if used.contains(name) {
        return None;
    }
    let m = fs::metadata(stage_dir.join(name)).ok()?;
    (m.is_file() && m.len() == r.staged_size)
        .then(|| (Outcome::Unchanged, Some((name.clone(), m.len()))))
}

/// A staged file's name and size.
type Staged = Option<(String, u64)>;

/// Refuse a state file inside the staging folder: the miner would read it as a conversation.
fn ensure_outside(state_file: &Path, stage_dir: &Path) -> io::Result<()> {
    let parent = match state_file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let parent = fs::canonicalize(&parent).unwrap_or(parent);
    if parent.starts_with(stage_dir) {
        return Err(invalid(format!(
            "state file {} is inside the staging folder {}",
            state_file.display(),
            stage_dir.display()
        )));
    }
    Ok(())
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}
