//! Stopping this palace's edge (`mpt edge stop`): the serving owner asked over its socket, a
//! lingering flusher sent SIGTERM, each waited for until its process is gone.

use std::time::Duration;

use serde::Serialize;

use super::owner::{self, OwnerPaths};
use super::stop::{self, Attached};
use mpt_base::error::{ErrorKind, MptError, Result};

/// How long an owner with nothing in flight takes to stop its child and exit (stdin closed,
/// SIGTERM, then SIGKILL after the child's own grace).
const QUIET_EXIT: Duration = Duration::from_secs(30);
/// With calls in flight: the longest deadline the owner grants one (a mine's 300 s), and the exit.
const BUSY_EXIT: Duration = Duration::from_secs(330);

/// One process stopped.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Stopped {
    pub pid: u32,
    /// `owner` (it was serving) or `lingering flusher`.
    pub was: &'static str,
    /// Calls it finished before stopping its child.
    pub inflight: usize,
}

/// Stops what runs of the palace's edge; `progress` hears what is being waited for.
pub async fn stop(paths: &OwnerPaths, progress: impl Fn(&str)) -> Result<Vec<Stopped>> {
    let mut stopped = Vec::new();
    if let Some(answer) = stop::ask(paths, false, Duration::from_secs(5)) {
        if !answer.stopping {
            return Err(sessions_attached(answer.owner_pid, &answer.sessions));
        }
        if answer.inflight > 0 {
            progress(&format!(
                "the edge owner (pid {}) answers its {} call(s) in flight, queueing their writes, then stops its child",
                answer.owner_pid, answer.inflight
            ));
        }
        let wait = if answer.inflight > 0 {
            BUSY_EXIT
        } else {
            QUIET_EXIT
        };
        gone(answer.owner_pid, "edge owner", wait).await?;
        stopped.push(Stopped {
            pid: answer.owner_pid,
            was: "owner",
            inflight: answer.inflight,
        });
    } else if let Some(pid) = owner::owner_pid(paths) {
        return Err(MptError::new(
            ErrorKind::Busy,
            format!(
                "the edge owner (pid {pid}) holds the palace but does not answer on {}: it is starting (its child's first handshake) or stuck",
                paths.socket.display()
            ),
        )
        .with_hint(format!(
            "run `mpt edge stop` again in a moment; its log is {}",
            paths.log.display()
        )));
    }
    if let Some(pid) = owner::lingering_pid(paths).filter(|p| is_edge_owner(*p)) {
        // No socket, no child, no session: it only flushes the outbox. SIGTERM ends its wait;
        // what it has not sent stays queued for the next flush.
        // A pid the kernel says holds our linger lock.
        mpt_base::sys::signal(pid, mpt_base::sys::Sig::TERM);
        gone(pid, "lingering flusher", QUIET_EXIT).await?;
        stopped.push(Stopped {
            pid,
            was: "lingering flusher",
            inflight: 0,
        });
    }
    Ok(stopped)
}

/// Exit 6, naming each harness session by pid and the harness process above it.
fn sessions_attached(owner_pid: u32, sessions: &[Attached]) -> MptError {
    let named: Vec<String> = sessions.iter().map(stop::describe).collect();
    MptError::new(
        ErrorKind::Busy,
        format!(
            "{} harness session(s) use the edge owner (pid {owner_pid}): {}; stopping it would cut them off",
            sessions.len(),
            named.join("; ")
        ),
    )
    .with_hint(
        "quit those harness sessions (each one's `mpt edge` ends with it), then `mpt edge stop` again; with none left the owner also stops by itself after MPT_EDGE_GRACE_MS",
    )
    .with_detail(InUse {
        owner_pid,
        sessions,
    })
}

/// The refusal's detail: the owner and the harness sessions that use it.
#[derive(serde::Serialize)]
struct InUse<'a> {
    owner_pid: u32,
    sessions: &'a [Attached],
}

/// Waits for `pid` to be gone (exit 7 past `wait`, naming it).
async fn gone(pid: u32, what: &str, wait: Duration) -> Result<()> {
    super::identity::wait_gone(pid, wait).await;
    if mpt_palace::files::pid_alive(pid) && is_edge_owner(pid) {
        return Err(MptError::new(
            ErrorKind::Timeout,
            format!(
                "the {what} (pid {pid}) has not exited after {} s: a call it answers takes longer",
                wait.as_secs()
            ),
        )
        .with_hint(format!(
            "`mpt edge status` shows it; it exits once that call ends, or `kill {pid}` ends it now (queued writes stay in the outbox)"
        )));
    }
    Ok(())
}

/// Whether `pid` is an `mpt edge --owner` (a lock's recorded pid is never trusted blindly).
fn is_edge_owner(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|raw| {
        let argv: Vec<&[u8]> = raw.split(|b| *b == 0).collect();
        argv.contains(&&b"edge"[..]) && argv.contains(&&b"--owner"[..])
    })
}

/// The `mpt.edge.stop/v1` document: what was stopped, and what its outbox still holds (field
/// paths and types pinned by `tests/it/documents.rs`).
#[derive(Debug, Serialize)]
pub struct Document<'a> {
    pub schema: &'static str,
    pub palace: &'a std::path::Path,
    pub stopped: &'a [Stopped],
    pub outbox_open: Option<i64>,
}

pub fn document<'a>(
    palace: &'a std::path::Path,
    stopped: &'a [Stopped],
    outbox_open: Option<i64>,
) -> Document<'a> {
    Document {
        schema: mpt_base::schema::EDGE_STOP,
        palace,
        stopped,
        outbox_open,
    }
}
