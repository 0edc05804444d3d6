//! `mpt edge` as each harness runs it: a thin stdio relay to the palace's owner over its Unix
//! socket, starting the owner when none runs, and restarting it if it dies. No harness waits
//! forever: a request the owner does not answer within its tool's deadline, or that its death
//! cut short, gets an error naming the owner, saying whether calling again is safe (`inflight`).

use std::process::Child;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::mpsc;

use super::identity::{self, Identity, Welcome};
use super::inflight::{Deadlines, Inflight};
use super::owner::{Hello, OwnerPaths};
use crate::error::{ErrorKind, MptError, Result};
use crate::{log_debug, log_warn};

/// Owner restarts tolerated before the shim gives up.
const MAX_RESTARTS: u32 = 5;

/// Lines for stdout, written whole by one thread (no interleaving, no blocking-pool hop).
type Stdout = std::sync::mpsc::Sender<Vec<u8>>;

fn stdout_thread() -> (Stdout, std::thread::JoinHandle<()>) {
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let handle = std::thread::spawn(move || {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        for line in rx {
            let line = crate::secrets::scrub_bytes(&line);
            if out.write_all(&line).and_then(|_| out.flush()).is_err() {
                return;
            }
        }
    });
    (tx, handle)
}

/// Relays stdin/stdout to the owner until stdin ends and every reply has been written.
pub async fn run(
    paths: &OwnerPaths,
    harness: &str,
    identity: &Identity,
    start_owner: impl Fn() -> std::io::Result<Child>,
    wait: Duration,
    deadlines: Deadlines,
) -> Result<()> {
    let inflight = Arc::new(Inflight::default());
    let (stdout, stdout_done) = stdout_thread();
    let (tx, mut from_stdin) = mpsc::unbounded_channel::<Vec<u8>>();
    let tracked = Arc::clone(&inflight);
    std::thread::spawn(move || {
        use std::io::BufRead;
        let mut lines = std::io::stdin().lock();
        loop {
            let mut buf = Vec::new();
            match lines.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    tracked.track(&buf, &deadlines);
                    if tx.send(buf).is_err() {
                        break;
                    }
                }
            }
        }
    });
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
        let mut pump = tokio::spawn(pump(rd, stdout.clone(), Arc::clone(&inflight)));
        let mut watch = tokio::time::interval(Duration::from_millis(250));
        let owner_gone = loop {
            tokio::select! {
                // A stuck owner (alive, not answering) gets no harness waiting past a deadline.
                _ = watch.tick() => send_all(&stdout, inflight.answer_overdue(owner)),
                line = from_stdin.recv() => match line {
                    Some(l) => {
                        if wr.write_all(&l).await.is_err() {
                            break true;
                        }
                    }
                    None => {
                        // The harness is done: let the owner finish what it was asked, then leave.
                        let _ = wr.shutdown().await;
                        let _ = pump.await;
                        drop(stdout);
                        // Every reply is written before the process ends.
                        let _ = tokio::task::spawn_blocking(move || stdout_done.join()).await;
                        return Ok(());
                    }
                },
                _ = &mut pump => break true,
                // SIGTERM: no new work; what is in flight is answered (bounded), then leave.
                _ = term.recv() => {
                    let _ = wr.shutdown().await;
                    let _ = tokio::time::timeout(Duration::from_secs(10), &mut pump).await;
                    send_all(&stdout, inflight.answer_lost(owner));
                    drop(stdout);
                    let _ = tokio::task::spawn_blocking(move || stdout_done.join()).await;
                    return Ok(());
                }
            }
        };
        if owner_gone {
            restarts += 1;
            send_all(&stdout, inflight.answer_lost(owner));
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
}

/// Owner → harness: every line to stdout; a reply clears its request from the in-flight set,
/// and one to a request the shim already answered (past its deadline) is dropped.
async fn pump(rd: tokio::net::unix::OwnedReadHalf, stdout: Stdout, inflight: Arc<Inflight>) {
    let mut lines = BufReader::new(rd);
    loop {
        let mut buf = Vec::new();
        match lines.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if !inflight.settle(&buf) {
            continue;
        }
        if stdout.send(buf).is_err() {
            return;
        }
    }
}

/// Replies the shim makes itself, one per line.
fn send_all(stdout: &Stdout, replies: Vec<Value>) {
    for reply in replies {
        let _ = stdout.send(format!("{reply}\n").into_bytes());
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
