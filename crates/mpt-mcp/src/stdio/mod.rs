//! Supervising a stdio MCP child (`mempalace-mcp`): the handshake, requests matched by id with
//! deadlines, a stall killing the child, bounded self-heal respawns. `session` is one running child.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::Mutex;

mod session;
mod waiters;

use session::Session;
use waiters::Answer;

use super::{CallError, Deadline, Handshake, handshake, jsonrpc};
use mpt_base::config::McpKnobs;
use mpt_base::{log_debug, log_trace};

/// What to run.
#[derive(Debug, Clone)]
pub struct ChildSpec {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Added to the inherited environment (or, with `clear_env`, the whole environment).
    pub env: Vec<(OsString, OsString)>,
    pub clear_env: bool,
    /// The setting that named `program` (`--child`, the config's `child`), when one did: a
    /// program it names that cannot start is that setting's bad value (exit 2).
    pub named_by: Option<String>,
}

impl ChildSpec {
    pub fn label(&self) -> String {
        self.program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.program.display().to_string())
    }
}

#[derive(Debug, Clone)]
pub struct StdioOptions {
    pub knobs: McpKnobs,
    /// Forward the child's stderr to ours (`-v` or `MEMPALACE_EXT_DEBUG=1`).
    pub show_stderr: bool,
    /// How long SIGTERM gets before SIGKILL.
    pub kill_grace: Duration,
}

impl StdioOptions {
    pub fn new(knobs: McpKnobs, show_stderr: bool) -> Self {
        StdioOptions {
            knobs,
            show_stderr,
            kill_grace: Duration::from_secs(2),
        }
    }
}

struct Slot {
    session: Option<Arc<Session>>,
    started_once: bool,
}

/// A client for one stdio MCP server child, safe to share across tasks.
pub struct StdioClient {
    spec: ChildSpec,
    opts: StdioOptions,
    slot: Mutex<Slot>,
    /// Why the last child died or failed to start (for the "stays down" message).
    last_failure: StdMutex<Option<String>>,
    /// Respawns since the last good answer; reset by any response to a call.
    respawns: AtomicU32,
    next_id: AtomicU64,
}

impl StdioClient {
    pub fn new(spec: ChildSpec, opts: StdioOptions) -> Self {
        StdioClient {
            spec,
            opts,
            slot: Mutex::new(Slot {
                session: None,
                started_once: false,
            }),
            last_failure: StdMutex::new(None),
            respawns: AtomicU32::new(0),
            next_id: AtomicU64::new(1),
        }
    }

    /// Starts the child (with the same bounded respawn as later calls) and returns its handshake.
    pub async fn connect(&self) -> Result<Handshake, CallError> {
        let s = self.session().await?;
        Ok(s.handshake
            .lock()
            .unwrap()
            .clone()
            .expect("a live session has its handshake"))
    }

    /// The pid of the current child, if one runs.
    pub async fn pid(&self) -> Option<u32> {
        let slot = self.slot.lock().await;
        slot.session
            .as_ref()
            .filter(|s| s.alive.load(Ordering::SeqCst))
            .map(|s| s.pid)
    }

    /// Sends one request and waits for its response, within the deadline. On a stall the
    /// request fails AND the child is killed; the next call respawns it.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        deadline: Deadline,
    ) -> Result<Value, CallError> {
        mpt_base::hop!(OwnerCallsChild);
        let session = self.session().await?;
        let resp = self
            .exchange(
                &session,
                method,
                params,
                deadline.resolve(self.opts.knobs.timeout),
            )
            .await?;
        // Proof of life: the self-heal budget starts over.
        self.respawns.store(0, Ordering::SeqCst);
        jsonrpc::into_result(resp)
    }

    /// Sends a notification (no reply is read).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), CallError> {
        let session = self.session().await?;
        self.write(&session, &jsonrpc::notification(method, params))
            .await
    }

    /// Clean stop: close stdin, then SIGTERM, then SIGKILL.
    pub async fn shutdown(&self) {
        let mut slot = self.slot.lock().await;
        if let Some(s) = slot.session.take() {
            s.terminate(self.opts.kill_grace, true).await;
        }
    }

    async fn exchange(
        &self,
        session: &Arc<Session>,
        method: &str,
        params: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<Value, CallError> {
        let id = json!(self.next_id.fetch_add(1, Ordering::SeqCst));
        let key = jsonrpc::id_key(&id);
        let started = Instant::now();
        // The session's watchdog fails it once `timeout` passes (no timer per request: setting
        // one wakes the runtime's driver each call).
        let rx = session
            .waiters
            .wait(key.clone(), timeout.map(|d| started + d));
        if let Err(e) = self
            .write(session, &jsonrpc::request(&id, method, params))
            .await
        {
            session.waiters.forget(&key);
            return Err(e);
        }
        match rx.await {
            Ok(Answer::Reply(resp)) => {
                log_trace!(
                    "{method} answered in {:.1} ms",
                    started.elapsed().as_secs_f64() * 1e3
                );
                Ok(resp)
            }
            Err(_) => Err(self.exited(session).await),
            Ok(Answer::Stalled) => {
                let ms = timeout.map(|d| d.as_millis() as u64).unwrap_or(0);
                log_debug!(
                    "{method} stalled past {ms} ms: killing child {}",
                    session.pid
                );
                let s = Arc::clone(session);
                let grace = self.opts.kill_grace;
                s.alive.store(false, Ordering::SeqCst);
                tokio::spawn(async move { s.terminate(grace, false).await });
                *self.last_failure.lock().unwrap() = Some(format!("{method} stalled"));
                Err(CallError::Timeout {
                    what: format!("{} request '{method}'", self.spec.label()),
                    ms,
                })
            }
        }
    }

    async fn write(&self, session: &Session, msg: &Value) -> Result<(), CallError> {
        let mut line = serde_json::to_vec(msg).map_err(|e| CallError::Protocol(e.to_string()))?;
        line.push(b'\n');
        let mut stdin = session.stdin.lock().await;
        let Some(w) = stdin.as_mut() else {
            return Err(self.exited(session).await);
        };
        mpt_base::hop!(OwnerSendsChild);
        if w.write_all(&line).await.is_err() || w.flush().await.is_err() {
            drop(stdin);
            return Err(self.exited(session).await);
        }
        Ok(())
    }

    async fn exited(&self, session: &Session) -> CallError {
        session.alive.store(false, Ordering::SeqCst);
        let reason = {
            let mut child = session.child.lock().await;
            match child.as_mut() {
                Some(c) => match tokio::time::timeout(Duration::from_millis(500), c.wait()).await {
                    Ok(Ok(status)) => status.to_string(),
                    _ => "its stdout closed".to_string(),
                },
                None => "it was stopped".to_string(),
            }
        };
        *self.last_failure.lock().unwrap() = Some(reason.clone());
        CallError::ChildExited {
            program: self.spec.label(),
            reason,
            stderr_tail: session.tail(),
        }
    }

    /// A live session: the current one, or a new child within the respawn budget.
    async fn session(&self) -> Result<Arc<Session>, CallError> {
        let mut slot = self.slot.lock().await;
        if let Some(s) = &slot.session
            && s.alive.load(Ordering::SeqCst)
        {
            return Ok(Arc::clone(s));
        }
        if let Some(old) = slot.session.take() {
            // One writer per palace: the old child must be gone before a new one opens it.
            old.terminate(self.opts.kill_grace, false).await;
        }
        loop {
            if slot.started_once {
                let used = self.respawns.load(Ordering::SeqCst);
                let max = self.opts.knobs.max_respawns;
                if used >= max {
                    return Err(CallError::Down {
                        program: self.spec.label(),
                        respawns: used,
                        last: self
                            .last_failure
                            .lock()
                            .unwrap()
                            .clone()
                            .unwrap_or_else(|| "unknown".into()),
                    });
                }
                let backoff = self
                    .opts
                    .knobs
                    .respawn_backoff
                    .saturating_mul(1u32 << used.min(16));
                log_debug!(
                    "respawning {} in {} ms (attempt {} of {max})",
                    self.spec.label(),
                    backoff.as_millis(),
                    used + 1
                );
                tokio::time::sleep(backoff).await;
                self.respawns.fetch_add(1, Ordering::SeqCst);
            }
            slot.started_once = true;
            match self.spawn_and_handshake().await {
                Ok(s) => {
                    slot.session = Some(Arc::clone(&s));
                    return Ok(s);
                }
                Err(e) => {
                    log_debug!("starting {} failed: {e}", self.spec.label());
                    *self.last_failure.lock().unwrap() = Some(e.to_string());
                    // A missing or non-executable program does not heal by waiting.
                    if self.opts.knobs.max_respawns == 0 || matches!(e, CallError::NoProgram { .. })
                    {
                        return Err(e);
                    }
                }
            }
        }
    }

    async fn spawn_and_handshake(&self) -> Result<Arc<Session>, CallError> {
        let session = Session::spawn(&self.spec, self.opts.show_stderr)?;
        let result = handshake::run(&HandshakePeer {
            client: self,
            session: &session,
            timeout: self.opts.knobs.init_timeout,
        })
        .await;
        match result {
            Ok(h) => {
                log_debug!(
                    "{} (pid {}) ready in {:.0} ms with {} tools",
                    self.spec.label(),
                    session.pid,
                    h.elapsed.as_secs_f64() * 1e3,
                    h.tools.len()
                );
                *session.handshake.lock().unwrap() = Some(h);
                Ok(session)
            }
            Err(e) => {
                session.terminate(self.opts.kill_grace, false).await;
                Err(match e {
                    CallError::Timeout { ms, .. } => CallError::Timeout {
                        what: format!(
                            "{} handshake (MEMPALACE_MCP_INIT_TIMEOUT_MS)",
                            self.spec.label()
                        ),
                        ms,
                    },
                    other => other,
                })
            }
        }
    }
}

/// One child session as the handshake's peer, each request within the handshake's deadline.
struct HandshakePeer<'a> {
    client: &'a StdioClient,
    session: &'a Arc<Session>,
    timeout: Option<Duration>,
}

impl handshake::Peer for HandshakePeer<'_> {
    async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, CallError> {
        self.client
            .exchange(self.session, method, params, self.timeout)
            .await
            .and_then(jsonrpc::into_result)
    }

    async fn notify(&self, method: &str) -> Result<(), CallError> {
        self.client
            .write(self.session, &jsonrpc::notification(method, None))
            .await
    }
}
