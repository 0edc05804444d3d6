//! `mpt gateway serve`: the checks before listening (no plain HTTP off loopback without
//! `--allow-insecure`), the state loaded (policy, tokens, audit), then the front until stopped.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::decide::policy::Policy;
use crate::http::upstream::{Failed, Upstream};
use crate::keys::reload::Watched;
use crate::keys::tokens::TokenFile;
use crate::record::audit::AuditLog;
use crate::shared::Shared;
use crate::state::{StateDir, tighten};
use mpt_base::config::gateway::GatewayKnobs;
use mpt_base::error::{MptError, Result};
use mpt_base::log_warn;

/// How often the last-used times are written (and the refusal windows, the free space and a
/// due pruning looked at).
const LAST_USED_EVERY: Duration = Duration::from_secs(2);
/// The ticks between two prunings by age (an hour).
const PRUNE_EVERY_TICKS: u64 = 1_800;

pub struct ServeOptions {
    pub listen: SocketAddr,
    pub upstream: String,
    pub tls: Option<(PathBuf, PathBuf)>,
    pub allow_insecure: bool,
    pub knobs: GatewayKnobs,
    pub dir: StateDir,
}

/// The gateway is up: where, in front of what, and what it noticed on the way.
pub struct Listening {
    pub url: String,
    pub upstream: String,
    pub dir: PathBuf,
    pub notes: Vec<String>,
}

/// Checks, loads and listens; `ready` hears where once the port is bound; serves until `stop`.
pub async fn serve(
    opts: ServeOptions,
    ready: impl FnOnce(&Listening) -> Result<()>,
    stop: impl std::future::Future<Output = ()>,
) -> Result<()> {
    let upstream = Upstream::new(
        &opts.upstream,
        opts.knobs.upstream_token.as_ref(),
        opts.knobs.ca_file.as_deref(),
    )?;
    refuse_insecure(&opts, &upstream)?;
    let mut notes = Vec::new();
    let dir = &opts.dir;
    if let Some(old) = crate::state::prepare(dir)? {
        notes.push(format!(
            "{} was mode {old:04o}: tightened to 0700 (it holds the token hashes and the audit log)",
            dir.root.display()
        ));
    }
    if opts.knobs.upstream_token.is_none() {
        log_warn!(
            "no upstream token (MEMPALACE_MCP_HTTP_TOKEN or MPT_GATEWAY_UPSTREAM_TOKEN_FILE): anything on this host can reach {} around the gateway",
            upstream.base
        );
    }
    // One gateway per folder: two would append the same sequence numbers and fork the chain.
    let held = mpt_base::lock::try_acquire(&dir.serve_lock(), "mpt gateway serve")
        .map_err(|e| MptError::io(format!("locking {}", dir.serve_lock().display()), &e))?;
    let Some(_serving) = held else {
        return Err(MptError::new(
            mpt_base::error::ErrorKind::Busy,
            format!(
                "another gateway ({}) already serves {}: two would fork its audit chain",
                mpt_base::lock::describe_holder(&dir.serve_lock()),
                dir.root.display()
            ),
        )
        .with_hint("stop that gateway first, or give this one its own folder (MPT_GATEWAY_DIR)"));
    };
    if crate::decide::policy::enroll::write_empty(&dir.policy())? {
        notes.push(format!(
            "there was no policy: {} now names no device, so every token is refused until `mpt gateway invite DEVICE` adds one",
            dir.policy().display()
        ));
    }
    let policy = Watched::open(&dir.policy(), Policy::load_tested)?;
    // Ours and loose: tightened at start (a note says so); at a reload, refused.
    if dir.tokens().exists()
        && let Some(old) = tighten(&dir.tokens(), 0o600)
            .map_err(|e| MptError::io(format!("making {} private", dir.tokens().display()), &e))?
    {
        notes.push(format!(
            "{} was mode {old:04o}: tightened to 0600",
            dir.tokens().display()
        ));
    }
    let tokens = Watched::open(&dir.tokens(), TokenFile::load)?;
    let (audit, note) = AuditLog::open(dir, opts.knobs.audit_max_bytes)?;
    notes.extend(note);
    // The folder's own checks first (they fail fast); then serve's answer to our token.
    probe_upstream(&upstream).await?;
    let acceptor = match &opts.tls {
        Some((cert, key)) => Some(crate::http::tls::acceptor(cert, key)?),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(opts.listen)
        .await
        .map_err(|e| MptError::io(format!("listening on {}", opts.listen), &e))?;
    let bound = listener
        .local_addr()
        .map_err(|e| MptError::io("reading the bound address", &e))?;
    let scheme = if acceptor.is_some() { "https" } else { "http" };
    ready(&Listening {
        url: format!("{scheme}://{bound}"),
        upstream: upstream.base.clone(),
        dir: dir.root.clone(),
        notes,
    })?;
    let shared = Arc::new(Shared::new(
        dir.clone(),
        upstream,
        policy,
        tokens,
        audit,
        &opts.knobs,
    ));
    shared.measure_free();
    shared.prune_audit(true);
    let flusher = {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(LAST_USED_EVERY);
            let mut ticks: u64 = 0;
            loop {
                every.tick().await;
                ticks += 1;
                // Its write is fsynced: on a blocking thread, not a worker a request waits for.
                let sh = Arc::clone(&shared);
                let _ = tokio::task::spawn_blocking(move || {
                    sh.flush_last_used();
                    sh.flush_refusals(false);
                    sh.measure_free();
                    // After a rotation, and hourly for the age limit.
                    sh.prune_audit(ticks.is_multiple_of(PRUNE_EVERY_TICKS));
                })
                .await;
            }
        })
    };
    crate::http::front::run(listener, acceptor, Arc::clone(&shared), stop).await;
    flusher.abort();
    shared.flush_last_used();
    shared.flush_refusals(true);
    // Said unless -q: an operator reading the log sees why requests stopped.
    if mpt_base::log::verbosity() >= 0 {
        mpt_base::log::log_line(
            "note",
            &format!(
                "stopped serving {} (asked to stop); its audit and last-used times are written",
                dir.root.display()
            ),
        );
    }
    Ok(())
}

/// One authenticated request to `serve` before any device is served (`tools/list`, with the
/// upstream bearer: `/healthz` asks for none): a 401 means every device would be refused for a
/// token that is the operator's, so the gateway does not start; `serve` down only warns.
async fn probe_upstream(upstream: &Upstream) -> Result<()> {
    let body = br#"{"jsonrpc": "2.0", "id": 0, "method": "tools/list"}"#;
    let mut headers = hyper::HeaderMap::new();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    let req = upstream.request(
        hyper::Method::POST,
        "/mcp",
        &headers,
        &[],
        bytes::Bytes::from_static(body),
    );
    match upstream.send(req, Duration::from_secs(10)).await {
        Ok(_) => Ok(()),
        Err(Failed::Unauthorized) => Err(MptError::new(
            mpt_base::error::ErrorKind::Auth,
            format!(
                "the upstream {} refused the gateway's upstream token (401): it is missing or is not the one `mempalace serve` was started with, so every device would be refused",
                upstream.base
            ),
        )
        .with_hint("set MEMPALACE_MCP_HTTP_TOKEN (or MPT_GATEWAY_UPSTREAM_TOKEN_FILE, a 0600 file) to serve's MEMPALACE_MCP_HTTP_TOKEN, then start the gateway again")),
        Err(f) => {
            log_warn!(
                "the upstream {} did not answer yet ({f:?}): the gateway starts, and devices get 502 until it does",
                upstream.base
            );
            Ok(())
        }
    }
}

/// Plain HTTP off loopback, toward devices or toward the upstream, carries tokens in the clear.
fn refuse_insecure(opts: &ServeOptions, upstream: &Upstream) -> Result<()> {
    if opts.allow_insecure {
        return Ok(());
    }
    if opts.tls.is_none() && !opts.listen.ip().is_loopback() {
        return Err(MptError::refused(format!(
            "--listen {} is not loopback and has no TLS: device tokens would cross the network in the clear",
            opts.listen
        ))
        .with_hint("give --tls-cert and --tls-key, or --allow-insecure when a tunnel (tailscale serve, a VPN) already encrypts the link"));
    }
    if !upstream.https && !upstream.loopback {
        return Err(MptError::refused(format!(
            "--upstream {} is plain http:// on another host: the upstream token would cross the network in the clear",
            upstream.base
        ))
        .with_hint("bind mempalace serve to 127.0.0.1 beside the gateway, use https://, or --allow-insecure for an encrypted link"));
    }
    Ok(())
}
