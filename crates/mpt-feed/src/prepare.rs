//! The `prepare` pipeline: scan → (state fast path | gate → parse → export) → stage, forks after
//! their parents so copied entries are left out, and a report with every verdict counted.

use super::Harness;
use super::export::{self, ExportOptions};
use super::fork;
use super::gate::{self, GateConfig, Reason, SkipReason};
pub use super::report::{Outcome, PrepareReport, REPORT_SCHEMA, SessionOutcome};
use super::scan::{self, SessionFile};
use super::session::{self, Session};
use super::stage::{self, StageOutcome, Stager};
use super::state::{self, Record, State};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

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

struct Item {
    file: SessionFile,
    key: String,
    /// The previous record, if the file's size and mtime still match it.
    record: Option<Record>,
    /// `Err` when the file is already decided (subagent, bad header, unreadable).
    id: Result<Option<String>, SkipReason>,
    parent_raw: Option<String>,
}

/// Run one prepare: walk `sessions_dir` for `**/*.jsonl`; decide unchanged files from the state
/// record; otherwise gate (path, quiet period), parse the current branch, export, gate (content),
/// leave out what a fork copied from a staged ancestor, and stage `<session-id>.md` if changed.
///
/// Errors: `NotFound` when `sessions_dir` does not exist (a CLI may treat that as nothing to do);
/// `InvalidInput` when the state file or the sessions folder lies inside the staging folder; any
/// other I/O error setting up or writing the staging folder. Per-session problems never fail the
/// run: they become [`SkipReason`]s (unreadable, invalid header, ...).
pub fn prepare(opts: &PrepareOptions) -> io::Result<PrepareReport> {
    let root = fs::canonicalize(&opts.sessions_dir)?;
    fs::create_dir_all(&opts.stage_dir)?;
    let stage_dir = fs::canonicalize(&opts.stage_dir)?;
    if let Some(sf) = &opts.state_file {
        ensure_outside(sf, &stage_dir)?;
    }
    if root.starts_with(&stage_dir) {
        return Err(invalid(format!(
            "sessions folder {} is inside the staging folder {}: the miner would read raw sessions",
            root.display(),
            stage_dir.display()
        )));
    }
    let (mut report, old) = begin(opts, &stage_dir)?;
    let config = old.config.clone();
    let (files, warnings) = scan::scan(&root)?;
    report.warnings = warnings;
    report.sessions_seen = files.len();

    let items: Vec<Item> = files
        .into_iter()
        .map(|f| examine(f, &old, opts, &mut report))
        .collect();
    let paths: Vec<&Path> = items.iter().map(|it| it.file.path.as_path()).collect();
    let raws: Vec<Option<&str>> = items.iter().map(|it| it.parent_raw.as_deref()).collect();
    let parents = fork::link_parents(&paths, &raws);
    let order = fork::parents_first(&parents);
    let is_parent: HashSet<usize> = parents.iter().flatten().copied().collect();

    let mut outcomes: Vec<Option<Outcome>> = vec![None; items.len()];
    let mut keys_cache: HashMap<usize, HashSet<u64>> = HashMap::new();
    let mut used_names: HashSet<String> = HashSet::new();
    let mut new_state = State::empty(&config);
    let mut details = Vec::with_capacity(items.len());
    let mut stager = Stager::new(&stage_dir, opts.fsync);

    for (done, &i) in order.iter().enumerate() {
        if let Some(p) = &opts.progress {
            (p.0)(done, items.len());
        }
        let it = &items[i];
        let staged_now =
            |a: &usize| matches!(outcomes[*a], Some(Outcome::Exported | Outcome::Unchanged));
        let ancestors: Vec<usize> = fork::ancestors(&parents, i)
            .into_iter()
            .filter(staged_now)
            .collect();
        let dedup: String = ancestors
            .iter()
            .map(|&a| items[a].key.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let mut record = Record {
            size: it.file.size,
            mtime_ns: state::mtime_ns(it.file.mtime),
            id: it.id.clone().ok().flatten(),
            parent: it.parent_raw.clone(),
            dedup: dedup.clone(),
            staged: None,
            staged_size: 0,
            skip: None,
        };
        let (outcome, staged, from_state) = match fast_path(it, &dedup, &stage_dir, &used_names) {
            Some((o, staged)) => (o, staged, true),
            None => {
                let mut ctx = Ctx {
                    opts,
                    items: &items,
                    stager: &mut stager,
                };
                let parent = is_parent.contains(&i);
                let (o, staged) = slow_path(
                    &mut ctx,
                    i,
                    &ancestors,
                    parent,
                    &mut used_names,
                    &mut keys_cache,
                    &mut report,
                )?;
                (o, staged, false)
            }
        };
        let staged = staged.map(|(name, size)| {
            used_names.insert(name.clone());
            record.staged = Some(name.clone());
            record.staged_size = size;
            name
        });
        report.decided_from_state += usize::from(from_state);
        report.count(outcome);
        outcomes[i] = Some(outcome);
        match outcome {
            Outcome::Skipped(r) if r.is_transient() || r == SkipReason::Subagent => {}
            Outcome::Skipped(r) => {
                record.skip = Some(r);
                new_state.sessions.insert(it.key.clone(), record);
            }
            _ => {
                new_state.sessions.insert(it.key.clone(), record);
            }
        }
        details.push(SessionOutcome {
            source: it.file.path.clone(),
            session_id: it.id.clone().ok().flatten(),
            staged,
            outcome,
            from_state,
        });
    }
    if let Some(p) = &opts.progress {
        (p.0)(items.len(), items.len());
    }
    details.sort_by(|a, b| a.source.cmp(&b.source));
    report.sessions = details;
    stager.finish()?;
    if let Some(p) = &opts.state_file
        && (new_state != old || report.state_reset || !p.exists())
    {
        new_state.save(p)?;
    }
    Ok(report)
}

/// A run's start, whatever the harness: the report, abandoned temps removed, the previous state
/// (empty, and said so, when it was made with other settings).
pub(super) fn begin(opts: &PrepareOptions, stage_dir: &Path) -> io::Result<(PrepareReport, State)> {
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

/// Phase A: decide what can be known from the path, the state record or the header line alone.
fn examine(
    file: SessionFile,
    old: &State,
    opts: &PrepareOptions,
    report: &mut PrepareReport,
) -> Item {
    let key = file.path.to_string_lossy().into_owned();
    let mut item = Item {
        file,
        key,
        record: None,
        id: Ok(None),
        parent_raw: None,
    };
    if opts.gate.skip_subagents && gate::is_subagent_path(&item.file.rel, &opts.gate) {
        item.id = Err(SkipReason::Subagent);
        return item;
    }
    let rec = old.sessions.get(&item.key);
    if let Some(r) =
        rec.filter(|r| r.size == item.file.size && r.mtime_ns == state::mtime_ns(item.file.mtime))
    {
        item.id = match r.skip {
            Some(SkipReason::InvalidHeader) => Err(SkipReason::InvalidHeader),
            _ => Ok(r.id.clone()),
        };
        item.parent_raw = r.parent.clone();
        item.record = Some(r.clone());
        return item;
    }
    match session::read_header(&item.file.path) {
        Ok((header, n)) => {
            report.bytes_read += n;
            match header {
                Some(h) => {
                    item.id = Ok(Some(h.id));
                    item.parent_raw = h.parent_session;
                }
                None => item.id = Err(SkipReason::InvalidHeader),
            }
        }
        Err(_) => item.id = Err(SkipReason::Unreadable),
    }
    item
}

/// The verdict from an unchanged file's record, if it is still valid (same dedup inputs, and for
/// an export, the staged file still present at its recorded size).
fn fast_path(
    it: &Item,
    dedup: &str,
    stage_dir: &Path,
    used: &HashSet<String>,
) -> Option<(Outcome, Staged)> {
    reuse(it.record.as_ref()?, dedup, stage_dir, used)
}

/// A record's verdict when it still holds: the same dedup inputs, and for an export, the staged
/// file still present at its recorded size (and not claimed by another session this run).
pub(super) fn reuse(
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
pub(super) type Staged = Option<(String, u64)>;

/// Read-only inputs shared by every session of a run.
struct Ctx<'a> {
    opts: &'a PrepareOptions,
    items: &'a [Item],
    stager: &'a mut Stager,
}

/// Gate, parse, export and stage one session whose record could not be reused.
fn slow_path(
    ctx: &mut Ctx,
    i: usize,
    ancestors: &[usize],
    is_parent: bool,
    used: &mut HashSet<String>,
    keys_cache: &mut HashMap<usize, HashSet<u64>>,
    report: &mut PrepareReport,
) -> io::Result<(Outcome, Staged)> {
    let (opts, it) = (ctx.opts, &ctx.items[i]);
    let skip = |r| Ok((Outcome::Skipped(r), None));
    let id = match &it.id {
        Err(r) => return skip(*r),
        Ok(id) => id.clone(),
    };
    if let Err(r) = gate::check_file(
        &it.file.rel,
        it.file.mtime,
        opts.now,
        &opts.reason,
        &opts.gate,
    ) {
        return skip(r);
    }
    let Some(sess) = load(&it.file.path, report) else {
        return skip(SkipReason::Unreadable);
    };
    let sess = match sess {
        Ok(s) => s,
        Err(_) => return skip(SkipReason::InvalidHeader),
    };
    report.note_skipped_lines(&it.file.path, &sess);
    if is_parent {
        keys_cache.insert(i, export::branch_keys(&sess));
    }
    let t = export::build(&sess, &opts.export);
    if let Err(r) = gate::check_content(&t.stats, &opts.gate) {
        return skip(r);
    }
    let mut copied = HashSet::new();
    for &a in ancestors {
        let keys =
            keys_cache
                .entry(a)
                .or_insert_with(|| match load(&ctx.items[a].file.path, report) {
                    Some(Ok(s)) => export::branch_keys(&s),
                    _ => HashSet::new(),
                });
        copied.extend(keys.iter().copied());
    }
    let (text, n) = export::render(&t, &copied, &opts.export);
    if n == 0 {
        return skip(SkipReason::DuplicateOfParent);
    }
    let id = id.unwrap_or_else(|| sess.header.id.clone());
    let mut name = stage::staged_name(&id);
    if used.contains(&name) {
        name = stage::disambiguated_name(&name, &it.file.path);
    }
    used.insert(name.clone());
    let outcome = match ctx.stager.stage(&name, text.as_bytes())? {
        StageOutcome::Written(n) => {
            report.bytes_written += n;
            Outcome::Exported
        }
        StageOutcome::Unchanged => Outcome::Unchanged,
    };
    Ok((outcome, Some((name, text.len() as u64))))
}

/// Read and parse a session; `None` if unreadable.
fn load(path: &Path, report: &mut PrepareReport) -> Option<Result<Session, session::ParseError>> {
    let bytes = fs::read(path).ok()?;
    report.bytes_read += bytes.len() as u64;
    Some(session::parse(&bytes))
}

/// Refuse a state file inside the staging folder: the miner would read it as a conversation.
pub(super) fn ensure_outside(state_file: &Path, stage_dir: &Path) -> io::Result<()> {
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
