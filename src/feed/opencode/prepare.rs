//! The opencode run: the database read once on one thread while workers convert, gate, render and
//! write ahead each session as it arrives; then staging (each file under its name), once the read
//! has succeeded; unchanged sessions decided from the state record.

use super::convert;
use super::db::{self, Read, SessionRow};
use super::pool;
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
    let (read, sessions) = read_and_render(opts, &stage_dir, known, &wanted);
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

/// One session converted, gated, rendered and written ahead of its staging: what staging needs,
/// nothing of the rows or of the transcript kept.
struct Rendered {
    /// The transcript in its temp file (or why writing it failed), or why the gate refused its
    /// content.
    text: Result<io::Result<stage::Ahead>, SkipReason>,
    bytes_read: u64,
    bad_rows: usize,
}

/// A session's row, and its rendering when its messages were read.
type RenderedSession = (SessionRow, Option<Rendered>);

/// Reads the database on a thread of its own (`known`: the state's records of it, which pick the
/// read) while workers, one per core, each parse, render and write ahead one session at a time
/// ([`pool`]: the read waits when it is [`pool::BOUND`] sessions ahead, so memory holds a few
/// sessions' rows, never the database). Each transcript goes to its temp file as soon as it is
/// rendered, so the files are written while the read goes on; none is under its name until the
/// caller commits it, once the read has succeeded (a failed read drops them: the temp files go).
/// Progress counts sessions rendered; the read's result says whether the sessions may be used.
fn read_and_render(
    opts: &PrepareOptions,
    stage_dir: &Path,
    known: usize,
    wanted: &(dyn Fn(&SessionRow) -> bool + Sync),
) -> (Result<Option<Read>, String>, Vec<RenderedSession>) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let (read, mut out) = pool::run(
        workers,
        |each| {
            db::read(&opts.sessions_dir, known, wanted, &mut |total, s| {
                each((total, s))
            })
        },
        |(total, (row, msgs)): (usize, db::Delivered)| {
            let rendered = msgs.map(|m| render(opts, stage_dir, &row, m));
            (total, (row, rendered))
        },
        {
            let mut done = 0;
            move |(total, _): &(usize, RenderedSession)| {
                if let Some(p) = &opts.progress {
                    (p.0)(done, *total);
                }
                done += 1;
            }
        },
    );
    let total = out.first().map_or(0, |o| o.0);
    if let Some(p) = &opts.progress {
        (p.0)(total, total);
    }
    let read = read.unwrap_or_else(|_| Err("the database reader panicked".to_string()));
    // Sessions come as they are finished: the run decides and reports them by id.
    out.sort_by(|a, b| a.1.0.id.cmp(&b.1.0.id));
    (read, out.into_iter().map(|o| o.1).collect())
}

/// Convert, gate and render one session, and write its transcript ahead under its plain name.
fn render(
    opts: &PrepareOptions,
    stage_dir: &Path,
    row: &SessionRow,
    rows: db::SessionRows,
) -> Rendered {
    let bytes_read = rows.bytes;
    let (sess, unread) = convert::session(row, rows);
    let t = export::build(&sess, &opts.export);
    let text = gate::check_content(&t.stats, &opts.gate).map(|()| {
        let text = export::render(&t, &HashSet::new(), &opts.export).0;
        stage::write_ahead(
            stage_dir,
            &stage::staged_name(&row.id),
            text.as_bytes(),
            opts.fsync,
        )
    });
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
    let ahead = match rendered.text {
        Ok(ahead) => ahead?,
        Err(r) => return Ok((Outcome::Skipped(r), None)),
    };
    let mut name = stage::staged_name(&row.id);
    if used.contains(&name) {
        name = stage::disambiguated_name(&name, &opts.sessions_dir.join(&row.id));
    }
    used.insert(name.clone());
    let len = ahead.len();
    let staged = if ahead.is_named(&name) {
        stager.commit(ahead)?
    } else {
        stager.stage(&name, &ahead.content()?)?
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

/// The report of a run that could not read the database: the reason, also as a warning.
fn skipped_whole(mut report: PrepareReport, why: String) -> PrepareReport {
    report.warnings.push(why.clone());
    report.source_skipped = Some(why);
    report
}
