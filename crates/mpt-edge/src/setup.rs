//! Building an edge from the configuration: the local child (always `--palace`), the primary's
//! client, the outbox and its flusher, the puller, and the embedder gate for merged searches.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::Value;

use super::health::Health;
use super::owner::OwnerPaths;
use super::proxy::{Primary, Proxy, WriteLog};
use super::replicate::{self, OutboxLog};
use super::{pull_loop, unopened};
use mpt_base::config::{Config, Env};
use mpt_base::error::Result;
use mpt_coord::puller;
use mpt_coord::puller::PullPaths;
use mpt_gateway::decide::policy::OwnJudge;
use mpt_mcp::client::{local_child_program, local_child_spec, primary_client};
use mpt_mcp::stdio::{StdioClient, StdioOptions};
use mpt_mcp::{Deadline, McpClient};
use mpt_outbox::policy::Policy;

pub struct EdgeOptions {
    pub palace: PathBuf,
    pub child: Option<PathBuf>,
    pub show_stderr: bool,
}

/// The child, the primary side, the outbox and its flusher, the embedder watch: one edge.
pub async fn start(
    config: &Config,
    env: &Env,
    paths: &OwnerPaths,
    opts: EdgeOptions,
) -> Result<(Arc<Proxy>, Option<Arc<OutboxLog>>)> {
    let program = local_child_program(config, opts.child.as_deref()).0;
    let pulls = PullPaths::beside(&paths.lock);
    let puller = puller::configure(config, env, &opts.palace, &program, &pulls);
    // An outbox that cannot be opened (a full disk) does not stop the edge: writes fail loudly.
    let (log, write_log) = match &config.remote {
        None => (None, None),
        Some(_) => {
            let path = mpt_palace::edge_outbox(env, config, Some(&opts.palace))?;
            let open = mpt_outbox::open_options(env)?;
            let origin = mpt_outbox::Origin::from_config(config);
            let (log, write_log) = unopened::open(path, open, origin, opts.palace.clone());
            (log, Some(write_log))
        }
    };
    if let Some(e) = &config.cut_off {
        mpt_base::log_warn!("{}", cut_off_reason(e));
    }
    let proxy = Arc::new(build(config, &opts, write_log).await?);
    // Before serving: the writes a dead owner left between its intent and its answer.
    if let Some(settler) = super::settle::Settler::of(&proxy) {
        settler.at_start().await;
    }
    if let (Some(log), Some(client)) = (log.clone(), primary_client(config)?) {
        replicate::spawn_flusher(Arc::clone(&proxy), log.clone(), client);
        if let Some(client) = primary_client(config)? {
            super::mine_lane::spawn(Arc::clone(&proxy), log, client);
        }
    }
    if let Some(puller) = puller {
        pull_loop::spawn(Arc::clone(&proxy), puller);
    }
    let gate = Arc::clone(&proxy);
    tokio::spawn(async move {
        while !learn_primary_embedder(&gate).await {
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
    });
    let ask = Arc::clone(&proxy);
    let device = config.device.clone();
    tokio::spawn(async move {
        let Some(primary) = &ask.primary else { return };
        // Asked once already while the child started (`build`): the next ask is a refresh.
        if primary.identity.read().unwrap().is_some() {
            tokio::time::sleep(IDENTITY_REFRESH).await;
        }
        loop {
            let wait = match learn_identity(primary, device.as_deref()).await {
                Learned::Nothing => break,
                Learned::Identity => IDENTITY_REFRESH,
                Learned::NotYet => Duration::from_secs(5),
            };
            tokio::time::sleep(wait).await;
        }
    });
    Ok((proxy, log))
}

/// Starts the child (handshake included) and prepares the primary side.
pub async fn build(
    config: &Config,
    opts: &EdgeOptions,
    log: Option<Arc<dyn WriteLog>>,
) -> Result<Proxy> {
    let spec = local_child_spec(config, &opts.palace, opts.child.as_deref());
    let child = Arc::new(StdioClient::new(
        spec,
        StdioOptions::new(config.mcp, opts.show_stderr || config.ext_debug),
    ));
    let primary = match &config.remote {
        None => None,
        Some(_) => Some(Primary {
            client: primary_client(config)?.expect("a remote is configured"),
            health: Health::default(),
            embedder: RwLock::new(config.file.primary_embedder.clone()),
            local_sidecar: opts.palace.join("mempalace_embedder.json"),
            read_deadline: config.edge.read_deadline,
            palace: opts.palace.clone(),
            pull_wake: Arc::new(tokio::sync::Notify::new()),
            log_stream: super::log_fanout::Fanout::for_config(config),
            identity: RwLock::new(None),
            judge: RwLock::new(None),
        }),
    };
    // Who the gateway takes this edge for, asked while the child starts: the first write is
    // judged by the device's policy whenever the gateway answers by then (or shortly after).
    let (started, started_rx) = tokio::sync::oneshot::channel::<()>();
    let connect = async {
        let h = child.connect().await;
        let _ = started.send(());
        h
    };
    let ask = async {
        let Some(p) = &primary else { return };
        let learn = learn_identity(p, config.device.as_deref());
        tokio::pin!(learn);
        tokio::select! {
            _ = &mut learn => {}
            _ = started_rx => {
                let _ = tokio::time::timeout(IDENTITY_PAST_START, &mut learn).await;
            }
        }
    };
    let (handshake, ()) = tokio::join!(connect, ask);
    let handshake = handshake?;
    Ok(Proxy {
        child,
        handshake,
        primary,
        policy: Policy::new(config.file.replication.clone()),
        log,
        trusted: super::trust::Trusted::new(
            config.file.trusted_devices.as_deref(),
            config.device.as_deref(),
        ),
        cut_off: config.cut_off.as_ref().map(cut_off_reason),
    })
}

/// What each reply of a cut-off edge says: why, the fix, and that the session must restart.
fn cut_off_reason(e: &mpt_base::error::MptError) -> String {
    format!(
        "this edge serves the local palace alone, not the fleet: {}{}; then start a new harness session",
        e.message,
        e.hint
            .as_deref()
            .map(|h| format!(" (fix: {h})"))
            .unwrap_or_default()
    )
}

/// Learns the primary's embedder identity (`/sync/version_vector`); `true` once it is known.
pub async fn learn_primary_embedder(proxy: &Proxy) -> bool {
    let Some(primary) = &proxy.primary else {
        return true;
    };
    if primary.embedder.read().unwrap().is_some() {
        return true;
    }
    let McpClient::Remote(http) = &primary.client else {
        return true;
    };
    let Ok((200, body)) = http
        .get(
            "/sync/version_vector",
            Deadline::After(Duration::from_secs(3)),
        )
        .await
    else {
        return false;
    };
    let name = serde_json::from_str::<Value>(&body).ok().and_then(|v| {
        v.pointer("/profile/accelerator/embedder")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let known = name.is_some();
    *primary.embedder.write().unwrap() = name;
    known
}

/// The longest the edge's start waits on `/whoami` once its child has started.
const IDENTITY_PAST_START: Duration = Duration::from_millis(500);

/// How often the edge asks the gateway again who it is: a policy edited on the primary host
/// reaches the edge's judgement of its writes within this.
const IDENTITY_REFRESH: Duration = Duration::from_secs(60);

/// What asking `/whoami` gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Learned {
    /// No gateway is there to ask (no primary, a plain `serve`), or it refused the token: not
    /// asked again.
    Nothing,
    /// The gateway answered: asked again after `IDENTITY_REFRESH`.
    Identity,
    /// It could not be reached: asked again soon.
    NotYet,
}

/// Asks the primary's front who this token is (`GET /whoami`, answered by `mpt gateway` alone),
/// and keeps the device's share of its policy, with which the edge judges its writes. A
/// gateway's name other than `MEMPALACE_PI_DEVICE`, or a refused token and why, goes to the
/// owner's log (once per change): stamps, replay checks and the mailbox use that name.
pub async fn learn_identity(primary: &Primary, device: Option<&str>) -> Learned {
    let McpClient::Remote(http) = &primary.client else {
        return Learned::Nothing;
    };
    match mpt_mcp::whoami::ask(http, Deadline::After(Duration::from_secs(3))).await {
        Ok(None) => Learned::Nothing,
        Ok(Some(w)) => {
            let judge = w
                .policy
                .as_ref()
                .and_then(|v| OwnJudge::of(&w.device, &w.token_id, v));
            *primary.judge.write().unwrap() = judge.map(Arc::new);
            let mut known = primary.identity.write().unwrap();
            if known.as_ref() != Some(&w) {
                match w.mismatch(device) {
                    Some(why) => mpt_base::log_warn!("{why}: {}", w.mismatch_fix(device)),
                    None => mpt_base::log_debug!(
                        "the primary's gateway knows this edge as {}",
                        w.describe()
                    ),
                }
                *known = Some(w);
            }
            Learned::Identity
        }
        Err(e) if !e.is_transient() => {
            let m = mpt_base::error::MptError::from(e);
            mpt_base::log_warn!("{} ({})", m.message, m.hint.unwrap_or_default());
            Learned::Nothing
        }
        Err(_) => Learned::NotYet,
    }
}
