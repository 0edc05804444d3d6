//! The opencode run: the database read once (index, then the sessions that changed) on one thread
//! while each session is converted, gated and rendered on this one as it arrives; then staging,
//! once the read has succeeded; unchanged sessions decided from the state record.

use super::convert;
use super::db::{self, Read, SessionRow};
use super::schema::KNOWN;
use crate::feed::export;
use crate::feed::gate::{self, SkipReason};
use crate::feed::prepare::{PrepareOptions, Staged, begin, ensure_outside, reuse};
use crate::feed::report::{Outcome, PrepareReport, SessionOutcome};
use crate::feed::stage::{self, StageOutcome, Stager};
use crate::feed::state::{Record, State};
use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

/// Runs one prepare over the opencode database `opts.sessions_dir`. A database that cannot be
/// read or whose schema is unknown is no error: the report says so in `source_skipped` and stages
/// nothing new (what is staged stays). Errors are the staging folder's and the state file's.
pub fn prepare(opts: &PrepareOptions) -> io::Result<PrepareReport> {
    let db_path = &opts.sessions_dir;
    fs::create_dir_all(&opts.stage_dir)?;
    let stage_dir = fs::canonicalize(&opts.stage_dir)?;
    if let Some(sf) = &opts.state_file {
        ensure_outside(sf, &stage_dir)?;
    }
    let (mut report, old) = begin(opts, &stage_dir)?;
    let config = old.config.clone();
    let key_of = |id: &str| format!("{}#{id}", db_path.display());
    let wanted = |s: &SessionRow| {
        let record = old.sessions.get(&key_of(&s.id));
        let unchanged = record.is_some_and(|r| matches(r, s))
            && record
                .and_then(|r| reuse(r, "", &stage_dir, &HashSet::new()))
                .is_some();
        !unchanged && !is_subagent(s, opts) && quiet(s, opts).is_ok()
    };
    let prefix = key_of("");
    let known = old
        .sessions
        .keys()
        .filter(|k| k.starts_with(&prefix))
        .count();
    let (read, sessions) = read_and_render(opts, known, &wanted);
    let sessions = match read {
        Ok(Some(Read::Sessions(_))) => sessions,
        Ok(None) => Vec::new(),
        Ok(Some(Read::UnknownSchema(key))) => {
            let found = key.map_or("no migration journal".to_string(), |k| k.to_string());
            let known: Vec<String> = KNOWN
                .iter()
                .map(|k| format!("opencode {} ({} {})", k.version, k.table, k.count))
                .collect();
            return Ok(skipped_whole(
                report,
                format!(
                    "{}: an opencode schema this mpt does not know ({found}; it reads {}): skipped, nothing guessed; an mpt release that knows it will feed these sessions",
                    db_path.display(),
                    known.join(", ")
                ),
            ));
        }
        Err(why) => {
            return Ok(skipped_whole(
                report,
                format!(
                    "{}: cannot be read ({why}): skipped; the next run tries again",
                    db_path.display()
                ),
            ));
        }
    };
    report.sessions_seen = sessions.len();
    let mut new_state = State::empty(&config);
    let mut used: HashSet<String> = HashSet::new();
    let mut stager = Stager::new(&stage_dir, opts.fsync);
    for (row, rendered) in sessions {
        let key = key_of(&row.id);
        let mut record = Record {
            size: row.fingerprint,
            mtime_ns: (row.updated_ms.max(0) as u64).saturating_mul(1_000_000),
            id: Some(row.id.clone()),
            parent: row.parent_id.clone(),
            dedup: String::new(),
            staged: None,
            staged_size: 0,
            skip: None,
        };
        let previous = old.sessions.get(&key).filter(|r| matches(r, &row));
        let reused = previous.and_then(|r| reuse(r, "", &stage_dir, &used));
        let (outcome, staged, from_state) = match (reused, rendered) {
            (Some((o, staged)), _) => (o, staged, true),
            (None, Some(rendered)) => {
                let (o, staged) =
                    stage_one(opts, &mut stager, &row, rendered, &mut used, &mut report)?;
                (o, staged, false)
            }
            (None, None) => {
                let r = if is_subagent(&row, opts) {
                    SkipReason::Subagent
                } else {
                    quiet(&row, opts).err().unwrap_or(SkipReason::StillWriting)
                };
                (Outcome::Skipped(r), None, false)
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
        match outcome {
            Outcome::Skipped(r) if r.is_transient() || r == SkipReason::Subagent => {}
            Outcome::Skipped(r) => {
                record.skip = Some(r);
                new_state.sessions.insert(key, record);
            }
            _ => {
                new_state.sessions.insert(key, record);
            }
        }
        report.sessions.push(SessionOutcome {
            source: db_path.join(&row.id),
            session_id: Some(row.id),
            staged,
            outcome,
            from_state,
        });
    }
    stager.finish()?;
    if let Some(p) = &opts.state_file
        && (new_state != old || report.state_reset || !p.exists())
    {
        new_state.save(p)?;
    }
    Ok(report)
}

/// The record was made from this very state of the session.
fn matches(r: &Record, s: &SessionRow) -> bool {
    r.size == s.fingerprint && r.mtime_ns == (s.updated_ms.max(0) as u64).saturating_mul(1_000_000)
}

fn is_subagent(s: &SessionRow, opts: &PrepareOptions) -> bool {
    opts.gate.skip_subagents && s.parent_id.is_some()
}

/// The quiet period, from opencode's own update time (the latest of the session's rows).
fn quiet(s: &SessionRow, opts: &PrepareOptions) -> Result<(), SkipReason> {
    let updated = UNIX_EPOCH + Duration::from_millis(s.updated_ms.max(0) as u64);
    gate::check_file(
        Path::new(&s.id),
        updated,
        opts.now,
        &opts.reason,
        &opts.gate,
    )
}

/// One session converted, gated and rendered: what staging needs, nothing of the rows kept.
struct Rendered {
    /// The transcript, or why the gate refused its content.
    text: Result<String, SkipReason>,
    bytes_read: u64,
    bad_rows: usize,
}

/// A session's row, and its rendering when its messages were read.
type RenderedSession = (SessionRow, Option<Rendered>);

/// Reads the database on a second thread (`known`: the state's records of it, which pick the
/// read) while this one parses and renders each session as it arrives, so a session's rows are dropped once rendered (memory holds transcripts, not the
/// database). The read thread only steps SQLite and copies each session's part data into one
/// buffer; parsing the parts' JSON happens here, which evens the two threads' work (callgrind: the
/// read was 1.7 G instructions of 2.3 G with the parse on it). Progress counts sessions rendered;
/// the read's result says whether the sessions may be used.
fn read_and_render(
    opts: &PrepareOptions,
    known: usize,
    wanted: &(dyn Fn(&SessionRow) -> bool + Sync),
) -> (Result<Option<Read>, String>, Vec<RenderedSession>) {
    let (tx, rx) = std::sync::mpsc::channel::<(usize, db::Delivered)>();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            db::read(&opts.sessions_dir, known, wanted, &mut |total, s| {
                let _ = tx.send((total, s));
            })
        });
        let mut out = Vec::new();
        let mut total = 0;
        for (n, (row, msgs)) in rx {
            total = n;
            if let Some(p) = &opts.progress {
                (p.0)(out.len(), total);
            }
            let rendered = msgs.map(|m| render(opts, &row, m));
            out.push((row, rendered));
        }
        if let Some(p) = &opts.progress {
            (p.0)(total, total);
        }
        let read = reader
            .join()
            .unwrap_or_else(|_| Err("the database reader panicked".to_string()));
        // The scan delivers sessions as they complete: the run decides and reports them by id.
        out.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        (read, out)
    })
}

/// Convert, gate and render one session.
fn render(opts: &PrepareOptions, row: &SessionRow, rows: db::SessionRows) -> Rendered {
    let bytes_read = rows.bytes;
    let (sess, unread) = convert::session(row, rows);
    let t = export::build(&sess, &opts.export);
    let text = gate::check_content(&t.stats, &opts.gate)
        .map(|()| export::render(&t, &HashSet::new(), &opts.export).0);
    Rendered {
        text,
        bytes_read,
        bad_rows: unread.bad_rows,
    }
}

/// Stage one rendered session.
fn stage_one(
    opts: &PrepareOptions,
    stager: &mut Stager,
    row: &SessionRow,
    rendered: Rendered,
    used: &mut HashSet<String>,
    report: &mut PrepareReport,
) -> io::Result<(Outcome, Staged)> {
    report.bytes_read += rendered.bytes_read;
    if rendered.bad_rows > 0 {
        report.lines_skipped += rendered.bad_rows;
        report.warnings.push(format!(
            "opencode session {}: skipped {} row(s) whose data is not JSON",
            row.id, rendered.bad_rows
        ));
    }
    let text = match rendered.text {
        Ok(text) => text,
        Err(r) => return Ok((Outcome::Skipped(r), None)),
    };
    let mut name = stage::staged_name(&row.id);
    if used.contains(&name) {
        name = stage::disambiguated_name(&name, &opts.sessions_dir.join(&row.id));
    }
    used.insert(name.clone());
    let outcome = match stager.stage(&name, text.as_bytes())? {
        StageOutcome::Written(n) => {
            report.bytes_written += n;
            Outcome::Exported
        }
        StageOutcome::Unchanged => Outcome::Unchanged,
    };
    Ok((outcome, Some((name, text.len() as u64))))
}

/// The report of a run that could not read the database: the reason, also as a warning.
fn skipped_whole(mut report: PrepareReport, why: String) -> PrepareReport {
    report.warnings.push(why.clone());
    report.source_skipped = Some(why);
    report
}
