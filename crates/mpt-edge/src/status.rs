//! `mpt edge status` computed: whether the palace's owner runs (and who lingers to flush), whether
//! the primary answers, the outbox's backlog and the pull's record; its document `mpt.edge.status/v1`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::owner::{self, OwnerPaths};
use super::stop_gate::Attached;
use mpt_base::config::{Config, Env, Remote};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_coord::puller::{self, PullPaths, PullRecord, PullStatus};
use mpt_mcp::http::{HttpClient, HttpOptions};
use mpt_mcp::whoami::WhoamiDoc;
use mpt_outbox::{self as outbox, LastFlushDoc, OpDoc, OutboxStatus};

/// What `mpt edge status` found, kept whole; `doc` is its document.
#[derive(Debug)]
pub struct EdgeStatus {
    pub palace: PathBuf,
    pub owner_running: bool,
    pub owner_pid: Option<u32>,
    pub socket: PathBuf,
    pub log: PathBuf,
    /// The owner's connections (`None`: no owner answered).
    pub sessions: Option<Vec<Attached>>,
    /// An edge that stays after its last session to flush the outbox.
    pub lingering_flusher_pid: Option<u32>,
    /// `None`: no primary set, the edge passes through to its local child.
    pub primary: Option<Primary>,
    pub outbox: Option<(PathBuf, OutboxStatus)>,
    pub pull: Option<PullRecord>,
}

/// `mpt edge status --json` (`mpt.edge.status/v1`).
#[derive(Debug, Serialize)]
pub struct StatusDoc<'a> {
    pub schema: &'static str,
    pub palace: &'a Path,
    pub owner: OwnerDoc<'a>,
    pub lingering_flusher_pid: Option<u32>,
    pub primary: Option<&'a Primary>,
    pub outbox: Option<BacklogDoc<'a>>,
    pub pull: Option<PullStatus<'a>>,
}

#[derive(Debug, Serialize)]
pub struct OwnerDoc<'a> {
    pub running: bool,
    pub pid: Option<u32>,
    pub socket: &'a Path,
    pub log: &'a Path,
    pub sessions: Option<&'a [Attached]>,
}

/// The primary as the flusher reaches it: reached (and who a gateway takes this device for), or
/// not (refused, or unreachable) and why.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Primary {
    Reached(Reached),
    Unreached(Unreached),
}

#[derive(Debug, Serialize)]
pub struct Reached {
    pub url: String,
    /// Always `true`.
    pub reachable: bool,
    /// Always `"ok"`.
    pub auth: &'static str,
    /// Always null.
    pub error: Option<()>,
    pub gateway: Option<WhoamiDoc>,
    pub identity_mismatch: Option<String>,
    pub fix: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Unreached {
    pub url: String,
    /// Always `false`.
    pub reachable: bool,
    /// `"refused"` when the primary refused the token or Host; null when it did not answer.
    pub auth: Option<&'static str>,
    /// A gateway's word on the token (`"revoked"`, `"expired"`, ...).
    pub token: Option<Value>,
    pub error: ProbeError,
}

#[derive(Debug, Serialize)]
pub struct ProbeError {
    pub kind: &'static str,
    pub message: String,
    pub hint: Option<String>,
}

/// What the outbox holds: open and failed ops, those held back, the first failure, the last flush.
#[derive(Debug, Serialize)]
pub struct BacklogDoc<'a> {
    pub path: &'a Path,
    pub open: i64,
    pub failed: i64,
    pub held_back: i64,
    pub pending_local: i64,
    pub first_failed: Option<OpDoc<'a>>,
    pub last_flush: Option<String>,
    pub last_flush_error: Option<LastFlushDoc<'a>>,
}

impl Primary {
    pub fn refused(&self) -> bool {
        matches!(self, Primary::Unreached(u) if u.auth == Some("refused"))
    }
}

impl EdgeStatus {
    pub fn doc(&self) -> StatusDoc<'_> {
        StatusDoc {
            schema: mpt_base::schema::EDGE_STATUS,
            palace: &self.palace,
            owner: OwnerDoc {
                running: self.owner_running,
                pid: self.owner_pid,
                socket: &self.socket,
                log: &self.log,
                sessions: self.sessions.as_deref(),
            },
            lingering_flusher_pid: self.lingering_flusher_pid,
            primary: self.primary.as_ref(),
            outbox: self.outbox.as_ref().map(|(path, s)| BacklogDoc {
                path,
                open: s.open,
                failed: s.count(outbox::OpState::Failed),
                held_back: s.backlog.held_back,
                pending_local: s.pending_local,
                first_failed: s.first_failed().map(|o| o.doc(false)),
                last_flush: s.last_flushed_at.map(outbox::util::rfc3339),
                last_flush_error: s.last_flush_error.as_ref().map(|l| l.doc()),
            }),
            pull: self.pull.as_ref().map(PullRecord::to_status),
        }
    }
}

/// The status of the edge serving `palace` (its owner found through `paths`).
pub async fn collect(
    env: &Env,
    config: &Config,
    paths: &OwnerPaths,
    palace: &Path,
) -> Result<EdgeStatus> {
    let owner_running = tokio::net::UnixStream::connect(&paths.socket).await.is_ok();
    let (primary, queue, pull) = match &config.remote {
        None => (None, None, None),
        Some(r) => (
            Some(probe_primary(r, config).await),
            Some(outbox_backlog(env, config, palace)?),
            puller::read_record(&PullPaths::beside(&paths.lock).record),
        ),
    };
    let sessions = owner_running
        .then(|| super::stop::ask(paths, true, Duration::from_secs(2)))
        .flatten()
        .map(|a| a.sessions);
    Ok(EdgeStatus {
        palace: palace.to_path_buf(),
        owner_running,
        owner_pid: owner::owner_pid(paths).filter(|_| owner_running),
        socket: paths.socket.clone(),
        log: paths.log.clone(),
        sessions,
        lingering_flusher_pid: owner::lingering_pid(paths),
        primary,
        outbox: queue,
        pull,
    })
}

/// The primary as the flusher reaches it: the MCP handshake with the token (`/healthz` needs
/// none, so it would call a primary that refuses the token reachable). A refused token or Host is
/// `"reachable": false, "auth": "refused"` (a gateway's 401 also says why: `"token": "revoked"`);
/// unreachable leaves `auth` unknown (null). Behind `mpt gateway`, `gateway` is who it takes this
/// device for (`/whoami`), and `identity_mismatch` says when that is not `MEMPALACE_PI_DEVICE`.
async fn probe_primary(r: &Remote, config: &Config) -> Primary {
    let http = HttpClient::new(HttpOptions {
        timeout: Some(Duration::from_secs(5)),
        init_timeout: Some(Duration::from_secs(5)),
        connect_timeout: Duration::from_secs(3),
        ..HttpOptions::for_remote(r, config)
    });
    let result = match &http {
        Ok(h) => h.handshake().await.map(|_| ()),
        Err(e) => Err(e.clone()),
    };
    match (result, http) {
        (Ok(()), Ok(h)) => {
            let who = mpt_mcp::whoami::ask(&h, mpt_mcp::Deadline::Default)
                .await
                .ok()
                .flatten();
            let device = config.device.as_deref();
            let mismatch = who.as_ref().and_then(|w| w.mismatch(device));
            let fix = who
                .as_ref()
                .filter(|_| mismatch.is_some())
                .map(|w| w.mismatch_fix(device));
            Primary::Reached(Reached {
                url: r.url.clone(),
                reachable: true,
                auth: "ok",
                error: None,
                gateway: who.as_ref().map(|w| w.doc()),
                identity_mismatch: mismatch,
                fix,
            })
        }
        (Err(e), _) | (Ok(()), Err(e)) => {
            let e = MptError::from(e);
            let auth = (e.kind == ErrorKind::Auth).then_some("refused");
            let token = e.detail.as_ref().and_then(|d| d.get("token")).cloned();
            let after = match (&r.token, e.kind) {
                (Some((_, source)), ErrorKind::Auth) => source.after_a_new_token(),
                _ => String::new(),
            };
            let hint = e
                .hint
                .map(|h| mpt_mcp::fix_for_device(&h, config.device.as_deref()) + &after);
            Primary::Unreached(Unreached {
                url: r.url.clone(),
                reachable: false,
                auth,
                token,
                error: ProbeError {
                    kind: e.kind.as_str(),
                    message: e.message,
                    hint,
                },
            })
        }
    }
}

/// The outbox and its status, read-only as `mpt outbox` reads it: a full disk never hides the
/// backlog.
fn outbox_backlog(env: &Env, config: &Config, palace: &Path) -> Result<(PathBuf, OutboxStatus)> {
    let path = mpt_palace::edge_outbox(env, config, Some(palace))?;
    let now = outbox::util::now_ms();
    let s = outbox::status_at(&path, outbox::open_options(env)?, now)?.unwrap_or_default();
    Ok((path, s))
}
