//! `mpt edge` as each harness runs it: a thin stdio relay to the palace's owner over its Unix
//! socket, starting the owner when none runs, and restarting it if it dies. No harness waits
//! forever: a request the owner does not answer within its tool's deadline, or that its death
//! cut short, gets an error naming the owner, saying whether calling again is safe (`inflight`).

use std::io::{BufRead, Write};
use std::os::unix::net::UnixStream as StdUnixStream;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;
use tokio::sync::oneshot;

use super::identity::{self, Identity, Welcome};
use super::inflight::{Deadlines, Inflight};
use super::owner::{Hello, OwnerPaths};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_base::{log_debug, log_warn};

/// Owner restarts tolerated before the shim gives up.
const MAX_RESTARTS: u32 = 5;

/// One line to the harness, whole, under stdout's lock (the reply pump and the shim's own
/// replies share it: lines never interleave). `false`: the harness closed its stdout.
fn write_out(line: &[u8]) -> bool {
    let line = mpt_base::secrets::scrub_bytes(line);
    let mut out = std::io::stdout().lock();
    mpt_base::hop!(ShimSendsHarness);
    out.write_all(&line).and_then(|_| out.flush()).is_ok()
}

/// Where the harness's lines go: written by the stdin thread itself straight to the owner's
/// socket (no hop between reading a line and writing it), or kept in order while no owner serves
/// this shim, for the next one.
#[derive(Default)]
struct Upstream {
    conn: Option<StdUnixStream>,
    backlog: Vec<Vec<u8>>,
    /// The harness closed stdin: the owner is told (its half of the socket shut) once it has
    /// every line.
    ended: bool,
}

impl Upstream {
    fn send(&mut self, line: Vec<u8>) {
        match self.conn.as_mut() {
            // A line the dead owner did not take is tracked: the shim answers it (`answer_lost`).
            Some(c) => {
                mpt_base::hop!(ShimSendsOwner);
                if c.write_all(&line).is_err() {
                    self.conn = None;
                }
            }
            None => self.backlog.push(line),
        }
    }

    fn end(&mut self) {
        self.ended = true;
        if let Some(c) = &self.conn {
            let _ = c.shutdown(std::net::Shutdown::Write);
        }
    }

    /// A new owner serves this shim: what the harness sent meanwhile first, in order.
    fn attach(&mut self, mut conn: StdUnixStream) {
        let backlog = std::mem::take(&mut self.backlog);
        for (i, line) in backlog.iter().enumerate() {
            if conn.write_all(line).is_err() {
                // Gone again: the rest waits for the next one.
                self.backlog = backlog[i..].to_vec();
                return;
            }
        }
        if self.ended {
            let _ = conn.shutdown(std::net::Shutdown::Write);
        }
        self.conn = Some(conn);
    }

    /// No more lines to this owner (it died, or SIGTERM): they wait in the backlog.
    fn detach(&mut self) {
        if let Some(c) = self.conn.take() {
            let _ = c.shutdown(std::net::Shutdown::Write);
        }
    }
}

type Shared = Arc<Mutex<Upstream>>;

fn upstream(up: &Shared) -> std::sync::MutexGuard<'_, Upstream> {
    up.lock().unwrap_or_else(|e| e.into_inner())
}

/// Harness → owner, on a thread of its own: each line tracked, then written to the owner.
fn read_stdin(up: Shared, inflight: Arc<Inflight>, deadlines: Deadlines) {
    let mut lines = std::io::stdin().lock();
    loop {
        let mut buf = Vec::new();
        match lines.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        mpt_base::hop!(ShimReadHarness);
        inflight.track(&buf, &deadlines);
        upstream(&up).send(buf);
    }
    upstream(&up).end();
}

/// Why the owner → harness pump ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PumpEnd {
    /// The owner closed the connection (it finished, or died).
    OwnerClosed,
    /// The harness closed its stdout: nobody reads the replies.
    HarnessGone,
}

/// Owner → harness, on a thread of its own: every line to stdout as it arrives; a reply clears
/// its request from the in-flight set, and one to a request the shim already answered (past its
/// deadline) is dropped.
fn pump(conn: StdUnixStream, inflight: &Inflight) -> PumpEnd {
    let mut lines = std::io::BufReader::with_capacity(64 * 1024, conn);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match lines.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return PumpEnd::OwnerClosed,
            Ok(_) => {}
        }
        mpt_base::hop!(ShimReadOwner);
        if inflight.settle(&buf) && !write_out(&buf) {
            return PumpEnd::HarnessGone;
        }
    }
}

/// Replies the shim makes itself, one per line.
fn send_all(replies: Vec<Value>) {
    for reply in replies {
        write_out(format!("{reply}\n").as_bytes());
    }
}

/// The socket as two blocking halves (the pump's and the stdin thread's).
fn blocking_halves(stream: UnixStream) -> std::io::Result<(StdUnixStream, StdUnixStream)> {
    let std = stream.into_std()?;
    std.set_nonblocking(false)?;
    let reader = std.try_clone()?;
    Ok((reader, std))
}

/// Relays stdin/stdout to the owner until stdin ends and every reply has been written. The
/// relay itself is two plain threads (stdin → socket, socket → stdout); this task connects,
/// restarts a dead owner, answers overdue requests and SIGTERM.
pub async fn run(
    paths: &OwnerPaths,
    harness: &str,
    identity: &Identity,
    start_owner: impl Fn() -> std::io::Result<Child>,
    wait: Duration,
    deadlines: Deadlines,
) -> Result<()> {
    let inflight = Arc::new(Inflight::default());
    let up: Shared = Arc::default();
    {
        let (up, inflight) = (Arc::clone(&up), Arc::clone(&inflight));
        std::thread::spawn(move || read_stdin(up, inflight, deadlines));
    }
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| MptError::io("installing the SIGTERM handler", &e))?;
    let hello = Hello {
        harness: harness.to_string(),
        identity: Some(identity.clone()),
        local_reads: false,
    };
    let hello = hello.line() + "\n";
    let mut restarts = 0;
    loop {
        let stream = connect_or_start(paths, &start_owner, wait).await?;
        let (mut rd, mut wr) = stream.into_split();
        if wr.write_all(hello.as_bytes()).await.is_err() {
            continue;
        }
        // The owner serves this edge only with this edge's own configuration (exit 4 otherwise).
        let welcome = identity::await_welcome(&mut rd, &paths.log).await?;
        let Welcome::Served(owner) = welcome else {
            restarts += 1;
            if restarts > MAX_RESTARTS {
                return Err(MptError::new(
                    ErrorKind::Unavailable,
                    format!("the edge owner went away {restarts} times before serving this edge"),
                )
                .with_hint(format!("read its log: {}", paths.log.display())));
            }
            if let Welcome::Restarting(pid) = welcome {
                log_debug!(
                    "the edge owner (pid {pid}) serves another configuration: it steps down"
                );
                identity::wait_gone(pid, wait).await;
            }
            continue;
        };
        let Ok((reader, writer)) = rd
            .reunite(wr)
            .map_err(|_| ())
            .and_then(|s| blocking_halves(s).map_err(|_| ()))
        else {
            continue;
        };
        let (done, mut pumped) = oneshot::channel();
        let tracked = Arc::clone(&inflight);
        std::thread::spawn(move || {
            let _ = done.send(pump(reader, &tracked));
        });
        upstream(&up).attach(writer);
        let mut watch = tokio::time::interval(Duration::from_millis(250));
        loop {
            tokio::select! {
                // A stuck owner (alive, not answering) gets no harness waiting past a deadline.
                _ = watch.tick() => send_all(inflight.answer_overdue(owner)),
                end = &mut pumped => {
                    let end = end.unwrap_or(PumpEnd::OwnerClosed);
                    if end == PumpEnd::HarnessGone {
                        return Ok(());
                    }
                    // The harness closed stdin (its end reached the owner, which answered
                    // what it was asked and closed): leave. A request the owner could not
                    // answer, if it died meanwhile, is answered here; lines it never got are
                    // taken to the next owner.
                    let done = {
                        let mut u = upstream(&up);
                        u.detach();
                        u.ended && u.backlog.is_empty()
                    };
                    if done {
                        send_all(inflight.answer_lost(owner));
                        return Ok(());
                    }
                    break;
                }
                // SIGTERM: no new work; what is in flight is answered (bounded), then leave.
                _ = term.recv() => {
                    upstream(&up).detach();
                    let _ = tokio::time::timeout(Duration::from_secs(10), &mut pumped).await;
                    send_all(inflight.answer_lost(owner));
                    return Ok(());
                }
            }
        }
        restarts += 1;
        send_all(inflight.answer_lost(owner));
        if restarts > MAX_RESTARTS {
            return Err(MptError::new(
                ErrorKind::Unavailable,
                format!("the edge owner died {restarts} times"),
            )
            .with_hint(format!("read its log: {}", paths.log.display())));
        }
        log_warn!("the edge owner went away; starting a new one");
    }
}

async fn connect_or_start(
    paths: &OwnerPaths,
    start_owner: &impl Fn() -> std::io::Result<Child>,
    wait: Duration,
) -> Result<UnixStream> {
    let deadline = Instant::now() + wait;
    let mut owner: Option<Child> = None;
    // Where the owner we start begins writing its log: an exit reports its own lines only.
    let mut log_from = 0;
    loop {
        if let Ok(s) = UnixStream::connect(&paths.socket).await {
            if let Some(mut c) = owner {
                // Reap the detached owner whenever it ends.
                std::thread::spawn(move || c.wait());
            }
            return Ok(s);
        }
        match owner.as_mut() {
            None => {
                log_debug!("no edge owner on {}: starting one", paths.socket.display());
                log_from = std::fs::metadata(&paths.log).map_or(0, |m| m.len());
                owner =
                    Some(start_owner().map_err(|e| MptError::io("starting the edge owner", &e))?);
            }
            Some(c) => {
                // Busy: an owner holds the lock. It may be serving (its socket appears) or
                // shutting down after its grace (it never will): start another once it is gone.
                match c.try_wait() {
                    Ok(Some(status)) if status.code() == Some(6) => {
                        owner = None;
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    Ok(Some(status)) => {
                        let tail = std::fs::read(&paths.log).unwrap_or_default();
                        let tail = String::from_utf8_lossy(
                            tail.get(log_from as usize..).unwrap_or_default(),
                        );
                        let last: Vec<&str> = tail.lines().rev().take(5).collect();
                        // Its exit code is its error's class: a missing child is 1, a bad
                        // `child` value 2, an unreachable one 7.
                        return Err(MptError::new(
                            ErrorKind::of_exit(status.code().unwrap_or(7)),
                            format!(
                                "the edge owner exited ({status}) before serving: {}",
                                last.into_iter().rev().collect::<Vec<_>>().join(" | ")
                            ),
                        )
                        .with_hint(format!("its log: {}", paths.log.display())));
                    }
                    _ => {}
                }
            }
        }
        if Instant::now() > deadline {
            return Err(MptError::new(
                ErrorKind::Timeout,
                format!(
                    "no edge owner answered on {} in {} ms",
                    paths.socket.display(),
                    wait.as_millis()
                ),
            )
            .with_hint(format!("its log: {}", paths.log.display())));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
