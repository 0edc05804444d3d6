//! One feed run as `mpt feed` drives it: take the lock, run the prepare within its deadline, and
//! in remote mode ship the staged folder; the result names the MINE_SOURCE to hand the miner.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::Harness;
use super::fleet::{self, Fed, FleetFeed};
use super::pipeline::PrepareOptions;
use super::prepare::prepare;
use super::remote::{Pushed, RemoteInbox, push, push_error, timeout_error};
use super::report::{PrepareReport, REPORT_SCHEMA};
pub use super::state::{feed_home, state_and_lock};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_base::lock::{self, PidLock};

/// What one run needs besides the prepare's own options.
#[derive(Debug, Clone)]
pub struct FeedJob {
    pub prepare: PrepareOptions,
    /// The lock file (outside the staging folder).
    pub lock_file: PathBuf,
    /// Recorded in the lock for whoever finds it held (`feed prepare`, `feed mine`).
    pub what: String,
    /// Remote mode: where the staged folder goes.
    pub inbox: Option<RemoteInbox>,
    /// `MEMPALACE_FEED_PREPARE_TIMEOUT_MS`: bounds the prepare and the transfer together.
    pub timeout: Option<Duration>,
    /// Under the edge: the staged folder is the local MINE_SOURCE, and is also shipped to the
    /// primary with its mine queued (`fleet`). `inbox` is then `None`.
    pub fleet: Option<FleetFeed>,
    /// How long to wait for a run holding the lock (`None`: busy at once, exit 6).
    pub wait: Option<Duration>,
}

/// A finished run. The lock is still held: drop the value (or the field) to release it.
#[derive(Debug)]
pub struct FeedRun {
    pub report: PrepareReport,
    /// The path the miner must read (the remote path in remote mode), when anything is staged.
    pub mine_source: Option<String>,
    pub pushed: Option<Pushed>,
    /// Under the edge: what reached (or is owed to) the primary.
    pub fed: Option<Fed>,
    /// Why nothing was examined, when the sessions folder does not exist.
    pub note: Option<String>,
    pub elapsed: Duration,
    pub lock: PidLock,
}

/// Takes the lock (busy: exit 6, at once or once `wait` is over), prepares, and pushes in remote mode.
pub fn run(job: &FeedJob) -> Result<FeedRun> {
    let started = Instant::now();
    let deadline = job.timeout.map(|t| started + t);
    let lock = match take_lock(&job.lock_file, &job.what, job.wait) {
        Ok(Some(l)) => l,
        Ok(None) => {
            let who = lock::describe_holder(&job.lock_file);
            let waited = job.wait.map_or(String::new(), |w| {
                format!(", still after {} s", w.as_secs())
            });
            return Err(MptError::new(
                ErrorKind::Busy,
                format!(
                    "another feed is running ({who}; lock {}){waited}",
                    job.lock_file.display()
                ),
            )
            .with_hint("nothing to do: the run in progress feeds these sessions, and the next trigger re-exports from scratch"));
        }
        Err(e) => {
            return Err(MptError::io(
                format!("taking the feed lock {}", job.lock_file.display()),
                &e,
            ));
        }
    };
    let sessions = &job.prepare.sessions_dir;
    let (present, what) = match job.prepare.harness {
        Harness::Pi => (sessions.is_dir(), "pi sessions folder"),
        Harness::Opencode => (sessions.is_file(), "opencode database"),
        Harness::Claude => (sessions.is_dir(), "Claude Code projects folder"),
        Harness::Codex => (sessions.is_dir(), "Codex sessions folder"),
    };
    if !present {
        let report = PrepareReport {
            schema: REPORT_SCHEMA,
            reason: job.prepare.reason.as_str().to_string(),
            stage_dir: job.prepare.stage_dir.clone(),
            ..Default::default()
        };
        return Ok(FeedRun {
            report,
            mine_source: None,
            pushed: None,
            fed: None,
            note: Some(format!(
                "no {what} at {}: nothing to export",
                sessions.display()
            )),
            elapsed: started.elapsed(),
            lock,
        });
    }
    let report = bounded_prepare(&job.prepare, deadline, job.timeout)?;
    let mut pushed = None;
    let mut mine_source = None;
    if report.has_staged() {
        mine_source = Some(match &job.inbox {
            None => report.stage_dir.display().to_string(),
            Some(inbox) => {
                pushed = Some(
                    push(&report.stage_dir, inbox, deadline)
                        .map_err(|e| push_error(e, inbox, job.timeout))?,
                );
                inbox.path.clone()
            }
        });
    }
    let fed = job
        .fleet
        .as_ref()
        .map(|f| fleet::feed(f, &report, deadline, job.timeout));
    Ok(FeedRun {
        report,
        mine_source,
        pushed,
        fed,
        note: None,
        elapsed: started.elapsed(),
        lock,
    })
}

/// The prepare on a worker thread, waited for until the deadline. On a timeout the caller exits
/// and the thread dies with the process: staged files are renamed into place whole, so nothing
/// partial is left for the miner, and the next (locked) run removes any abandoned temp file.
fn bounded_prepare(
    opts: &PrepareOptions,
    deadline: Option<Instant>,
    timeout: Option<Duration>,
) -> Result<PrepareReport> {
    let (tx, rx) = mpsc::channel();
    let o = opts.clone();
    std::thread::Builder::new()
        .name("feed-prepare".into())
        .spawn(move || {
            let _ = tx.send(match o.harness {
                Harness::Pi => prepare(&o),
                Harness::Opencode => super::opencode::prepare::prepare(&o),
                Harness::Claude => super::claude::prepare(&o),
                Harness::Codex => super::codex::prepare(&o),
            });
        })
        .map_err(|e| MptError::io("starting the prepare", &e))?;
    let got = match deadline {
        None => rx.recv().ok(),
        Some(d) => rx
            .recv_timeout(d.saturating_duration_since(Instant::now()))
            .ok(),
    };
    match got {
        Some(Ok(r)) => Ok(r),
        Some(Err(e)) if e.kind() == std::io::ErrorKind::InvalidInput => Err(MptError::usage(
            e.to_string(),
        )
        .with_hint(
            "keep the staging folder (--out) apart from the sessions folder and from mpt's state",
        )),
        Some(Err(e)) => Err(MptError::io("preparing the transcripts", &e)),
        None => Err(timeout_error("the prepare", timeout)),
    }
}

/// The feed's lock: one prepare (and its transfer and mine) per staging folder at a time, its
/// folder created first; taken at once, or within `wait` once its holder lets go.
fn take_lock(
    path: &std::path::Path,
    what: &str,
    wait: Option<Duration>,
) -> std::io::Result<Option<PidLock>> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    match wait {
        None => lock::try_acquire(path, what),
        Some(w) => lock::acquire_within(path, what, w),
    }
}
