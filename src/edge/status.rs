//! `mpt edge status` computed: whether the palace's owner runs (and who lingers to flush), whether
//! the primary answers, the outbox's backlog and the pull's record, as `mpt.edge.status/v1`.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::owner::{self, OwnerPaths};
use crate::config::{Config, Env, Remote};
use crate::coord::puller::{self, PullPaths};
use crate::error::{ErrorKind, MptError, Result};
use crate::mcp::http::{HttpClient, HttpOptions};
use crate::outbox;

/// The status document of the edge serving `palace` (its owner found through `paths`).
pub async fn collect(
    env: &Env,
    config: &Config,
    paths: &OwnerPaths,
    palace: &Path,
) -> Result<Value> {
    let owner_up = tokio::net::UnixStream::connect(&paths.socket).await.is_ok();
    let primary = match &config.remote {
        None => json!(null),
        Some(r) => probe_primary(r, config).await,
    };
    let queue = match &config.remote {
        None => json!(null),
        Some(_) => outbox_backlog(env, config, palace)?,
    };
    let pull = match &config.remote {
        None => json!(null),
        Some(_) => puller::read_record(&PullPaths::beside(&paths.lock).record)
            .map_or(json!(null), |r| r.to_status()),
    };
    let owner_pid = owner::owner_pid(paths).filter(|_| owner_up);
    let sessions = owner_up
        .then(|| super::stop::ask(paths, true, Duration::from_secs(2)))
        .flatten()
        .map(|a| a.sessions);
    let lingering = owner::lingering_pid(paths);
    Ok(json!({
        "schema": crate::schema::EDGE_STATUS,
        "palace": palace,
        "owner": {"running": owner_up, "pid": owner_pid, "socket": paths.socket, "log": paths.log, "sessions": sessions},
        "lingering_flusher_pid": lingering,
        "primary": primary,
        "outbox": queue,
        "pull": pull,
    }))
}

/// The primary as the flusher reaches it: the MCP handshake with the token (`/healthz` needs
/// none, so it would call a primary that refuses the token reachable). A refused token or Host is
/// `"reachable": false, "auth": "refused"` (a gateway's 401 also says why: `"token": "revoked"`);
/// unreachable leaves `auth` unknown (null). Behind `mpt gateway`, `gateway` is who it takes this
/// device for (`/whoami`), and `identity_mismatch` says when that is not `MEMPALACE_PI_DEVICE`.
async fn probe_primary(r: &Remote, config: &Config) -> Value {
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
            let who = crate::mcp::whoami::ask(&h, crate::mcp::Deadline::Default)
                .await
                .ok()
                .flatten();
            let mismatch = who
                .as_ref()
                .and_then(|w| w.mismatch(config.device.as_deref()));
            json!({"url": r.url, "reachable": true, "auth": "ok", "error": null,
                   "gateway": who.as_ref().map(|w| w.to_json()), "identity_mismatch": mismatch,
                   "fix": who.as_ref().filter(|_| mismatch.is_some()).map(|w| w.mismatch_fix(config.device.as_deref()))})
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
                .map(|h| crate::mcp::fix_for_device(&h, config.device.as_deref()) + &after);
            json!({"url": r.url, "reachable": false, "auth": auth, "token": token,
                   "error": {"kind": e.kind.as_str(), "message": e.message, "hint": hint}})
        }
    }
}

/// What the outbox holds: open and failed ops, those held back, the first failure, the last flush
/// (read-only, as `mpt outbox` reads it: a full disk never hides the backlog).
fn outbox_backlog(env: &Env, config: &Config, palace: &Path) -> Result<Value> {
    let path = outbox::resolve_path(env, config, Some(palace))?;
    let now = outbox::util::now_ms();
    let s = outbox::status_at(&path, outbox::open_options(env)?, now)?.unwrap_or_default();
    Ok(
        json!({"path": path, "open": s.open, "failed": s.count(outbox::OpState::Failed),
           "held_back": s.backlog.held_back,
           "pending_local": s.pending_local,
           "first_failed": s.first_failed().map(|o| o.to_json(false)),
           "last_flush": s.last_flushed_at.map(outbox::util::rfc3339),
           "last_flush_error": s.last_flush_error.as_ref().map(|l| l.to_json())}),
    )
}
