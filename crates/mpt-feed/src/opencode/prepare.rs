//! opencode's database as a source of the one pipeline: read once on one thread while workers
//! convert, gate, render and write ahead each session as it arrives; staged once the read succeeded.

use super::convert;
use super::db::{self, Read, SessionRow};
use super::pool;
use super::schema::KNOWN;
use crate::export;
use crate::gate::{self, SkipReason};
use crate::pipeline::{self, Found, PrepareOptions, Run, Source, reuse};
use crate::report::{Outcome, PrepareReport};
use crate::stage;
use crate::state::Record;
use std::collections::HashSet;
use std::io;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

/// Runs one prepare over the opencode database `opts.sessions_dir`. A database that cannot be
/// read or whose schema is unknown is no error: the report says so in `source_skipped` and stages
/// nothing new (what is staged stays). Errors are the staging folder's and the state file's.
pub fn prepare(opts: &PrepareOptions) -> io::Result<PrepareReport> {
    pipeline::run(
        opts,
        &mut Opencode {
            opts,
            sessions: Vec::new(),
        },
    )
}

/// opencode's database as a source: read once while workers render, its sessions in id order.
struct Opencode<'a> {
    opts: &'a PrepareOptions,
    /// Each session's row, and its rendering when it was wanted (taken when the pipeline asks).
    sessions: Vec<(SessionRow, Option<Rendered>)>,
}

impl Opencode<'_> {
    fn key_of(&self, id: &str) -> String {
        format!("{}#{id}", self.opts.sessions_dir.display())
    }
}

impl Source for Opencode<'_> {
    fn open(&mut self, run: &Run, report: &mut PrepareReport) -> io::Result<Result<usize, String>> {
        let (opts, old, db_path) = (self.opts, &run.old, &self.opts.sessions_dir);
        let wanted = |s: &SessionRow| {
            let record = old.sessions.get(&self.key_of(&s.id));
            let unchanged = record.is_some_and(|r| matches(r, s))
                && record
                    .and_then(|r| reuse(r, "", &run.stage_dir, &HashSet::new()))
                    .is_some();
            !unchanged && !is_subagent(s, opts) && quiet(s, opts).is_ok()
        };
        let prefix = self.key_of("");
        let known = old
            .sessions
            .keys()
            .filter(|k| k.starts_with(&prefix))
            .count();
        let (read, sessions) = read_and_render(opts, &run.stage_dir, known, &wanted);
        let sessions = match read {
            Ok(Some(Read::Sessions(_))) => sessions,
            Ok(None) => Vec::new(),
            Ok(Some(Read::UnknownSchema(key))) => {
                let found = key.map_or("no migration journal".to_string(), |k| k.to_string());
                let known: Vec<String> = KNOWN
                    .iter()
                    .map(|k| format!("opencode {} ({} {})", k.version, k.table, k.count))
                    .collect();
                return Ok(Err(format!(
                    "{}: an opencode schema this mpt does not know ({found}; it reads {}): skipped, nothing guessed; an mpt release that knows it will feed these sessions",
                    db_path.display(),
                    known.join(", ")
                )));
            }
            Err(why) => {
                return Ok(Err(format!(
                    "{}: cannot be read ({why}): skipped; the next run tries again",
                    db_path.display()
                )));
            }
        };
        report.sessions_seen = sessions.len();
        self.sessions = sessions;
        Ok(Ok(self.sessions.len()))
    }

    fn found(&mut self, k: usize, _: &[Option<Outcome>]) -> Found {
        let (row, _) = &self.sessions[k];
        Found {
            key: self.key_of(&row.id),
            source: self.opts.sessions_dir.join(&row.id),
            id: Some(row.id.clone()),
            record: Record {
                size: row.fingerprint,
                mtime_ns: mtime_ns(row),
                id: Some(row.id.clone()),
                parent: row.parent_id.clone(),
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
    ) -> io::Result<pipeline::Rendered> {
        let opts = self.opts;
        let (row, rendered) = &mut self.sessions[k];
        let Some(rendered) = rendered.take() else {
            let r = if is_subagent(row, opts) {
                SkipReason::Subagent
            } else {
                quiet(row, opts).err().unwrap_or(SkipReason::StillWriting)
            };
            return Ok(pipeline::Rendered::Skip(r));
        };
        report.bytes_read += rendered.bytes_read;
        if rendered.bad_rows > 0 {
            report.lines_skipped += rendered.bad_rows;
            report.warnings.push(format!(
                "opencode session {}: skipped {} row(s) whose data is not JSON",
                row.id, rendered.bad_rows
            ));
        }
        Ok(match rendered.text {
            Ok(ahead) => pipeline::Rendered::Ahead(ahead?),
            Err(r) => pipeline::Rendered::Skip(r),
        })
    }

    fn draws_progress(&self) -> bool {
        true
    }
}

/// The record was made from this very state of the session.
fn matches(r: &Record, s: &SessionRow) -> bool {
    r.same_state(s.fingerprint, mtime_ns(s))
}

/// opencode's update time of the session, as a record keeps a modification time.
fn mtime_ns(s: &SessionRow) -> u64 {
    (s.updated_ms.max(0) as u64).saturating_mul(1_000_000)
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

/// A worker's output: a session's row, and its rendering (or the read's error for a row whose `data`
/// is not UTF-8) when its messages were read.
type Worked = (SessionRow, Option<Result<Rendered, String>>);

/// Reads the database on a thread of its own (`known`: the state's records of it, which pick the
/// read) while workers, one per core, each parse, render and write ahead one session at a time
/// ([`pool`], outputs in the order the read delivered them: the read waits when it is
/// [`pool::BOUND`] sessions ahead, so memory holds a few sessions' rows, never the database).
/// Each transcript goes to its temp file as soon as it is rendered, so the files are written while
/// the read goes on; none is under its name until the caller commits it, once the read has
/// succeeded (a failed read drops them: the temp files go). Progress counts sessions rendered;
/// the read's result says whether the sessions may be used.
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
            move |(total, _): &(usize, Worked)| {
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
    let mut read = read.unwrap_or_else(|_| Err("the database reader panicked".to_string()));
    // A row the read did not check: the first delivered with one is the first the read met (a
    // session is delivered as it completes, and the read checks, and fails on, any row of a session
    // another's rows come after), and before any failure of the read itself.
    if let Some(why) = out.iter_mut().find_map(|o| match &mut o.1.1 {
        Some(Err(why)) => Some(std::mem::take(why)),
        _ => None,
    }) {
        read = Err(why);
    }
    // Sessions come as they are finished: the run decides and reports them by id.
    out.sort_by(|a, b| a.1.0.id.cmp(&b.1.0.id));
    let out = out
        .into_iter()
        .map(|(_, (row, rendered))| (row, rendered.and_then(Result::ok)))
        .collect();
    (read, out)
}

/// Convert, gate and render one session, and write its transcript ahead under its plain name;
/// `Err` is the read's error for a row it read whose `data` is not UTF-8 ([`convert::session`]).
fn render(
    opts: &PrepareOptions,
    stage_dir: &Path,
    row: &SessionRow,
    rows: db::SessionRows,
) -> Result<Rendered, String> {
    let bytes_read = rows.bytes;
    let (sess, unread) = convert::session(row, rows)?;
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
    Ok(Rendered {
        text,
        bytes_read,
        bad_rows: unread.bad_rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::State;
    use crate::{Harness, Reason};
    use rusqlite::Connection;
    use std::fs;

    const SCHEMA: &str = include_str!("../../../../tests/fixtures/feed/opencode-1.18.33.sql");

    /// A database of three sessions, one message each with two text parts, the parts stored session
    /// by session or (`interleaved`) the first two sessions' parts alternating (so the scan holds
    /// one while the other's come); the parts named in `bad` get the `data` given there, stored
    /// as its own type (a `Vec<u8>` as a blob unless `as_text`, which casts it to text unchecked).
    fn database(
        dir: &Path,
        interleaved: bool,
        bad: &[(&str, rusqlite::types::Value, bool)],
    ) -> std::path::PathBuf {
        let path = dir.join("opencode.db");
        let c = Connection::open(&path).unwrap();
        c.pragma_update(None, "synchronous", "OFF").unwrap();
        c.execute_batch(SCHEMA).unwrap();
        c.execute_batch("BEGIN").unwrap();
        c.execute_batch("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('prj', '/p', 0, 0, '[]')").unwrap();
        for s in 1..=3 {
            c.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?1, 'prj', 's', '/p', 't', '1.18.33', 1, 1)", [format!("ses_{s}")]).unwrap();
            c.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, 1, 1, '{\"role\":\"user\"}')", [format!("msg_{s}"), format!("ses_{s}")]).unwrap();
        }
        let mut order: Vec<(u32, u32)> = (1..=3).flat_map(|s| [(s, 1), (s, 2)]).collect();
        if interleaved {
            order.swap(1, 2);
        }
        for (s, k) in order {
            let id = format!("prt_{s}{k}");
            let data = bad.iter().find(|b| b.0 == id).map_or_else(
                || {
                    (
                        rusqlite::types::Value::Text(format!(
                            r#"{{"type":"text","text":"part {id} of a question long enough"}}"#
                        )),
                        false,
                    )
                },
                |b| (b.1.clone(), b.2),
            );
            let sql = if data.1 {
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, 1, 1, CAST(?4 AS TEXT))"
            } else {
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, 1, 1, ?4)"
            };
            c.execute(
                sql,
                rusqlite::params![id, format!("msg_{s}"), format!("ses_{s}"), data.0],
            )
            .unwrap();
        }
        c.execute_batch("COMMIT").unwrap();
        path
    }

    /// A first export (`known` 0: the scan) or a re-run's read (`known` 3: the index's) of it.
    fn run(db: &Path, stage: &Path, known: usize) -> PrepareReport {
        let mut o = PrepareOptions::new(db, stage, Reason::Shutdown);
        o.harness = Harness::Opencode;
        o.fsync = false;
        if known > 0 {
            // The index's read: a state that knows every session (not one of them matches).
            let state = stage.parent().unwrap().join("state.json");
            let mut st = State::empty(&crate::state::fingerprint(&o.gate, &o.export));
            for s in 1..=3 {
                let record = Record {
                    size: 0,
                    mtime_ns: 0,
                    id: None,
                    parent: None,
                    dedup: String::new(),
                    staged: None,
                    staged_size: 0,
                    skip: None,
                };
                st.sessions
                    .insert(format!("{}#ses_{s}", db.display()), record);
            }
            st.save(&state).unwrap();
            o.state_file = Some(state);
        }
        prepare(&o).unwrap()
    }

    /// A part whose `data` is text that is not UTF-8, or a blob (the schema allows no NULL, and its
    /// text affinity stores a number as text): the whole database is skipped with SQLite's
    /// conversion error for the first such row the read meets (whichever session holds it, held by
    /// the scan or not, and whichever read), nothing staged. `3` and `5` are two texts that are not
    /// UTF-8 (the error says where the bad byte is), `1` a blob; the last two figures: the error
    /// each read meets first (the scan's, the index's), as that index or `None` for "Invalid type".
    #[test]
    fn a_part_whose_data_is_not_utf8_text_skips_the_database_with_the_first_ones_error() {
        use rusqlite::types::Value;
        type Case = (bool, &'static [(&'static str, u8)], Option<u8>, Option<u8>);
        const CASES: &[Case] = &[
            (false, &[("prt_21", 3)], Some(3), Some(3)),
            (false, &[("prt_32", 5), ("prt_22", 3)], Some(3), Some(3)),
            (false, &[("prt_22", 5), ("prt_32", 3)], Some(5), Some(5)),
            (false, &[("prt_12", 5), ("prt_31", 3)], Some(5), Some(5)),
            (true, &[("prt_11", 5)], Some(5), Some(5)),
            (true, &[("prt_21", 3), ("prt_12", 5)], Some(3), Some(5)),
            (true, &[("prt_12", 5), ("prt_22", 3)], Some(5), Some(5)),
            (true, &[("prt_22", 3), ("prt_31", 5)], Some(3), Some(3)),
            (true, &[("prt_21", 3), ("prt_22", 5)], Some(3), Some(3)),
            (false, &[("prt_21", 1)], None, None),
            (false, &[("prt_32", 1), ("prt_11", 3)], Some(3), Some(3)),
            (true, &[("prt_21", 3), ("prt_12", 1)], Some(3), None),
        ];
        let value = |k: u8| match k {
            1 => (Value::Blob(b"{}".to_vec()), false),
            3 => (Value::Blob(b"{\"t\xff".to_vec()), true),
            _ => (Value::Blob(b"{\"typ\xfe".to_vec()), true),
        };
        let why = |at: Option<u8>| {
            at.map_or("Invalid type".to_string(), |at| {
                format!("invalid utf-8 sequence of 1 bytes from index {at}")
            })
        };
        for (n, (interleaved, bad, scan, index)) in CASES.iter().enumerate() {
            let bad: Vec<_> = bad
                .iter()
                .map(|&(id, k)| {
                    let (v, text) = value(k);
                    (id, v, text)
                })
                .collect();
            for (known, at) in [(0, scan), (3, index)] {
                let dir = tempfile::tempdir().unwrap();
                let db = database(dir.path(), *interleaved, &bad);
                let stage = dir.path().join("staged");
                let r = run(&db, &stage, known);
                let whole = format!(
                    "{}: cannot be read ({}): skipped; the next run tries again",
                    db.display(),
                    why(*at)
                );
                assert_eq!(
                    r.source_skipped.as_deref(),
                    Some(whole.as_str()),
                    "case {n}, known {known}"
                );
                assert_eq!((r.exported, r.sessions_seen), (0, 0), "case {n}");
                assert_eq!(
                    fs::read_dir(&stage).unwrap().count(),
                    0,
                    "case {n}: nothing left in the staging folder"
                );
            }
        }
        // Without a bad row, all three are exported by either read.
        for known in [0, 3] {
            let dir = tempfile::tempdir().unwrap();
            let db = database(dir.path(), true, &[]);
            let r = run(&db, &dir.path().join("staged"), known);
            assert_eq!(
                (r.source_skipped, r.sessions_seen),
                (None, 3),
                "known {known}"
            );
        }
    }
}
