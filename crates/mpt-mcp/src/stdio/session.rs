//! One running stdio child and its pipes: spawned with piped stdio, responses routed to waiting
//! requests by id, stderr drained (its tail kept), and stopped with stdin close, SIGTERM, SIGKILL.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::Mutex;

use super::ChildSpec;
use super::waiters::Waiters;
use crate::{CallError, Handshake, jsonrpc};
use mpt_base::{log_debug, log_trace};

const STDERR_TAIL: usize = 20;

/// Why `spec` did not start. A program that is missing, not executable or not a program never
/// heals by waiting (`NoProgram`: no respawn, no backoff); anything else may (`Spawn`).
fn spawn_error(spec: &ChildSpec, e: &std::io::Error) -> CallError {
    let program = spec.program.display().to_string();
    let reason = match (e.kind(), e.raw_os_error()) {
        (std::io::ErrorKind::NotFound, _) => missing(&spec.program),
        (std::io::ErrorKind::PermissionDenied, _) => not_runnable(&spec.program),
        (_, Some(libc::ENOEXEC)) => {
            "it is not a program this machine runs (no `#!` line, or another architecture)".into()
        }
        _ => {
            return CallError::Spawn {
                program,
                reason: e.to_string(),
            };
        }
    };
    CallError::NoProgram {
        program,
        reason,
        named_by: spec.named_by.clone(),
    }
}

/// A bare name is looked up on the PATH the child inherits; a path is where it is.
fn on_path(program: &std::path::Path) -> Vec<std::path::PathBuf> {
    if program.components().count() > 1 {
        return std::fs::symlink_metadata(program)
            .map(|_| vec![program.to_path_buf()])
            .unwrap_or_default();
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .collect()
}

fn missing(program: &std::path::Path) -> String {
    match on_path(program).first() {
        None if program.components().count() == 1 => "it is not on PATH".into(),
        None => "there is no such file".into(),
        Some(p) => match std::fs::read_link(p) {
            Ok(target) if !p.exists() => {
                format!(
                    "{} is a link to {}, which does not exist",
                    p.display(),
                    target.display()
                )
            }
            _ => format!(
                "{} exists, but the interpreter its `#!` line names does not (a moved or deleted venv?)",
                p.display()
            ),
        },
    }
}

fn not_runnable(program: &std::path::Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let found = on_path(program);
    let Some(p) = found.first() else {
        return "permission denied".into();
    };
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => format!("{} is a directory", p.display()),
        Ok(m) if m.permissions().mode() & 0o111 == 0 => format!(
            "{} is not executable (mode {:04o})",
            p.display(),
            m.permissions().mode() & 0o7777
        ),
        _ => format!(
            "permission denied running {} (a folder on its path we may not enter, or a noexec mount)",
            p.display()
        ),
    }
}

/// One running child and what it told us at its handshake.
pub(super) struct Session {
    pub(super) pid: u32,
    pub(super) stdin: Mutex<Option<ChildStdin>>,
    pub(super) waiters: Arc<Waiters>,
    pub(super) alive: Arc<AtomicBool>,
    pub(super) child: Mutex<Option<Child>>,
    pub(super) stderr_tail: Arc<StdMutex<VecDeque<String>>>,
    pub(super) handshake: StdMutex<Option<Handshake>>,
}

impl Session {
    /// Starts the child with piped stdio, a stdout router and a stderr drain.
    pub(super) fn spawn(spec: &ChildSpec, show_stderr: bool) -> Result<Arc<Session>, CallError> {
        let mut cmd = Command::new(&spec.program);
        if spec.clear_env {
            cmd.env_clear();
        }
        // A MemPalace child never needs the primary's token: it is not inherited.
        for k in mpt_base::secrets::WITHHELD_FROM_CHILDREN {
            cmd.env_remove(k);
        }
        cmd.args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| spawn_error(spec, &e))?;
        let pid = child.id().unwrap_or(0);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let waiters = Arc::new(Waiters::default());
        let alive = Arc::new(AtomicBool::new(true));
        let tail = Arc::new(StdMutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let watchdog = Arc::clone(&waiters);
        tokio::spawn(async move { watchdog.watch().await });
        tokio::spawn(read_stdout(
            stdout,
            Arc::clone(&waiters),
            Arc::clone(&alive),
            pid,
        ));
        tokio::spawn(drain_stderr(
            stderr,
            Arc::clone(&tail),
            show_stderr,
            spec.label(),
            pid,
        ));
        log_debug!("started {} (pid {pid})", spec.program.display());
        Ok(Arc::new(Session {
            pid,
            stdin: Mutex::new(stdin),
            waiters,
            alive,
            child: Mutex::new(Some(child)),
            stderr_tail: tail,
            handshake: StdMutex::new(None),
        }))
    }

    pub(super) fn tail(&self) -> Vec<String> {
        self.stderr_tail.lock().unwrap().iter().cloned().collect()
    }

    /// Stops the child: close stdin, SIGTERM, wait `grace`, SIGKILL. Idempotent.
    pub(super) async fn terminate(&self, grace: Duration, close_stdin_first: bool) {
        self.alive.store(false, Ordering::SeqCst);
        let mut guard = self.child.lock().await;
        let Some(mut child) = guard.take() else {
            return;
        };
        if close_stdin_first {
            self.stdin.lock().await.take();
            if tokio::time::timeout(grace, child.wait()).await.is_ok() {
                return;
            }
        }
        // The pid of a child we spawned and have not yet reaped.
        mpt_base::sys::signal(self.pid, mpt_base::sys::Sig::TERM);
        if tokio::time::timeout(grace, child.wait()).await.is_err() {
            log_debug!("child {} ignored SIGTERM; sending SIGKILL", self.pid);
            let _ = child.kill().await;
        }
    }
}

/// Routes each response line to the request waiting for its id; on EOF fails them all.
async fn read_stdout(
    stdout: tokio::process::ChildStdout,
    waiters: Arc<Waiters>,
    alive: Arc<AtomicBool>,
    pid: u32,
) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        mpt_base::hop!(OwnerReadChild);
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        let msg: Value = match serde_json::from_slice(text) {
            Ok(v) => v,
            Err(e) => {
                log_debug!("child {pid} wrote a line that is not JSON ({e}); ignored");
                continue;
            }
        };
        match jsonrpc::classify(&msg) {
            jsonrpc::Kind::Response => {
                let key = jsonrpc::id_key(&msg["id"]);
                if !waiters.answer(&key, msg) {
                    log_debug!(
                        "child {pid} answered id {key}, which nobody waits for (late reply after a timeout?)"
                    );
                }
            }
            other => log_trace!("child {pid} sent a {other:?}; ignored"),
        }
    }
    alive.store(false, Ordering::SeqCst);
    // Every waiter hears "exited".
    waiters.close();
}

async fn drain_stderr(
    stderr: tokio::process::ChildStderr,
    tail: Arc<StdMutex<VecDeque<String>>>,
    show: bool,
    label: String,
    pid: u32,
) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line = mpt_base::secrets::scrubbed(&line);
        if show {
            mpt_base::log::child_line(&label, pid, &line);
        }
        let mut t = tail.lock().unwrap();
        if t.len() == STDERR_TAIL {
            t.pop_front();
        }
        t.push_back(line);
    }
}
