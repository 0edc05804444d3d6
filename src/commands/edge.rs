//! `mpt edge`: what a harness runs as its MCP server. By default a thin shim to the palace's one
//! owner process (started on demand); `--standalone` serves in-process; `status` reports.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::Ctx;
use crate::cli::{EdgeAction, EdgeArgs};
use crate::config::Config;
use crate::edge::identity::Identity;
use crate::edge::owner::{self, OwnerPaths};
use crate::edge::private_fs;
use crate::edge::replicate::{self, OutboxLog};
use crate::edge::setup::{self, EdgeOptions};
use crate::edge::stamp::Stamper;
use crate::edge::{serve, shim, unopened};
use crate::error::{ErrorKind, Exit, MptError, Result};
use crate::log_debug;
use crate::outbox;
use crate::output::verbosity;
use crate::palace::PalacePaths;

pub fn run(ctx: &Ctx, args: EdgeArgs) -> Result<Exit> {
    let config = ctx.config()?;
    let palace = PalacePaths::chosen(&ctx.env, args.palace.path.as_deref(), Some(&config))?;
    let paths = OwnerPaths::new(&palace.home, &palace.palace);
    let harness = args
        .harness
        .clone()
        .unwrap_or_else(|| config.harness.clone());
    let rt = super::runtime()?;
    match args.action {
        Some(EdgeAction::Status) => rt.block_on(status(ctx, &config, &paths, &palace.palace)),
        Some(EdgeAction::Wire {
            harness,
            config: file,
            dry_run,
        }) => super::edge_wire::run(ctx, &config, harness, file, dry_run),
        None if args.owner => {
            private_fs::prepare_socket_dir(&paths.socket)?;
            rt.block_on(run_owner(ctx, &config, &paths, &palace.palace, args.child))
        }
        None if args.standalone => rt.block_on(run_standalone(
            ctx,
            &config,
            &paths,
            &palace.palace,
            args.child,
            &harness,
        )),
        None => {
            private_fs::prepare_socket_dir(&paths.socket)?;
            let wait = config.mcp.init_timeout.unwrap_or(Duration::from_secs(300))
                + Duration::from_secs(10);
            let start = || spawn_owner(ctx, &paths, &palace.palace, args.child.as_deref());
            let identity = Identity::of(&config, &ctx.env)?;
            rt.block_on(shim::run(&paths, &harness, &identity, start, wait))?;
            Ok(Exit::Ok)
        }
    }
}

fn stamper_for(config: &Config, tools: &[serde_json::Value], harness: &str) -> Option<Stamper> {
    let identity = match (&config.device, &config.remote) {
        (Some(d), Some(_)) => Some(format!("{harness}@{d}")),
        _ => None,
    };
    Stamper::new(identity, config.device.as_deref(), tools)
}

fn edge_options(palace: &std::path::Path, child: Option<PathBuf>) -> EdgeOptions {
    EdgeOptions {
        palace: palace.to_path_buf(),
        child,
        show_stderr: verbosity() >= 1,
    }
}

/// The child, the primary side, the outbox and its flusher, the embedder watch: one edge.
async fn start_edge(
    ctx: &Ctx,
    config: &Config,
    paths: &OwnerPaths,
    palace: &std::path::Path,
    child: Option<PathBuf>,
) -> Result<(Arc<crate::edge::proxy::Proxy>, Option<Arc<OutboxLog>>)> {
    let program = crate::mcp::client::local_child_spec(config, palace, child.as_deref()).program;
    let puller = crate::edge::puller::configure(config, &ctx.env, palace, &program, paths)?;
    // An outbox that cannot be opened (a full disk) does not stop the edge: writes fail loudly.
    let (log, write_log) = match &config.remote {
        None => (None, None),
        Some(_) => {
            let path = outbox::resolve_path(&ctx.env, config)?;
            let opts = outbox::open_options(&ctx.env)?;
            let (log, write_log) = unopened::open(path, opts, outbox::Origin::from_config(config));
            (log, Some(write_log))
        }
    };
    let proxy =
        Arc::new(setup::build(config, &ctx.env, &edge_options(palace, child), write_log).await?);
    if let (Some(log), Some(client)) = (log.clone(), setup::primary_client(config)?) {
        replicate::spawn_flusher(Arc::clone(&proxy), log, client);
    }
    if let Some(puller) = puller {
        crate::edge::puller::spawn(Arc::clone(&proxy), puller);
    }
    let gate = Arc::clone(&proxy);
    tokio::spawn(async move {
        while !setup::learn_primary_embedder(&gate).await {
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
    });
    Ok((proxy, log))
}

async fn run_owner(
    ctx: &Ctx,
    config: &Config,
    paths: &OwnerPaths,
    palace: &std::path::Path,
    child: Option<PathBuf>,
) -> Result<Exit> {
    let Some(lock) = owner::take_lock(paths)? else {
        return Err(MptError::new(
            ErrorKind::Busy,
            "another edge owner serves this palace",
        ));
    };
    let grace = millis_env(ctx, "MPT_EDGE_GRACE_MS", 30_000)?;
    let linger = millis_env(ctx, "MPT_EDGE_LINGER_MS", 900_000)?;
    let (proxy, log) = start_edge(ctx, config, paths, palace, child).await?;
    log_debug!("edge owner ready on {}", paths.socket.display());
    let tools = proxy.handshake.tools.clone();
    let identity = Identity::of(config, &ctx.env)?;
    let ended = owner::run(
        proxy,
        paths,
        grace,
        |h| stamper_for(config, &tools, h),
        &identity,
    )
    .await?;
    // The child is stopped and the socket gone: a new `mpt edge` starts a new owner, whose
    // flusher takes turns with this one on the flush lock.
    drop(lock);
    if ended == owner::Ended::Idle
        && let Some(log) = log
        && let Some(_lingering) = owner::take_pid_lock(&paths.linger)?
    {
        replicate::linger(&log, linger).await;
    }
    Ok(Exit::Ok)
}

async fn run_standalone(
    ctx: &Ctx,
    config: &Config,
    paths: &OwnerPaths,
    palace: &std::path::Path,
    child: Option<PathBuf>,
    harness: &str,
) -> Result<Exit> {
    let Some(_lock) = owner::take_lock(paths)? else {
        return Err(MptError::new(
            ErrorKind::Busy,
            "an edge owner already serves this palace: one writer per palace",
        )
        .with_hint("run `mpt edge` without --standalone to share it"));
    };
    let (proxy, _) = start_edge(ctx, config, paths, palace, child).await?;
    let stamper = stamper_for(config, &proxy.handshake.tools, harness);
    serve::serve(
        Arc::clone(&proxy),
        stamper,
        tokio::io::stdin(),
        tokio::io::stdout(),
    )
    .await;
    proxy.child.shutdown().await;
    Ok(Exit::Ok)
}

/// A duration in milliseconds from the environment (exit 2 naming a malformed value).
fn millis_env(ctx: &Ctx, name: &str, default: u64) -> Result<Duration> {
    match ctx.env.get(name) {
        None => Ok(Duration::from_millis(default)),
        Some(v) => v.trim().parse().map(Duration::from_millis).map_err(|_| {
            MptError::usage(format!("{name}='{v}' is not a number of milliseconds"))
                .with_hint(format!("unset it for the default ({default})"))
        }),
    }
}

/// Starts the owner detached (its own process group, stderr to its log) with this process's env.
fn spawn_owner(
    ctx: &Ctx,
    paths: &OwnerPaths,
    palace: &std::path::Path,
    child: Option<&std::path::Path>,
) -> std::io::Result<std::process::Child> {
    let exe = std::env::current_exe()?;
    if let Some(d) = paths.log.parent() {
        private_fs::create_private_dir(d)?;
    }
    let log = private_fs::open_private_log(&paths.log)?;
    let mut cmd = Command::new(exe);
    if verbosity() >= 1 {
        cmd.arg("-v");
    }
    if let Some(c) = &ctx.config_flag {
        cmd.arg("--mpt-config").arg(c);
    }
    cmd.args(["edge", "--owner", "--palace"]).arg(palace);
    if let Some(c) = child {
        cmd.arg("--child").arg(c);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log));
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.spawn()
}

async fn status(
    ctx: &Ctx,
    config: &Config,
    paths: &OwnerPaths,
    palace: &std::path::Path,
) -> Result<Exit> {
    let owner_up = tokio::net::UnixStream::connect(&paths.socket).await.is_ok();
    let primary = match &config.remote {
        None => json!(null),
        Some(r) => {
            let reachable = match crate::mcp::http::HttpClient::new(crate::mcp::http::HttpOptions {
                timeout: Some(Duration::from_secs(5)),
                init_timeout: None,
                connect_timeout: Duration::from_secs(3),
                ..crate::mcp::http::HttpOptions::for_remote(r, &config.mcp)
            }) {
                Ok(h) => matches!(
                    h.get("/healthz", crate::mcp::Deadline::Default).await,
                    Ok((200, _))
                ),
                Err(_) => false,
            };
            json!({"url": r.url, "reachable": reachable})
        }
    };
    let queue = match &config.remote {
        None => json!(null),
        Some(_) => {
            let path = outbox::resolve_path(&ctx.env, config)?;
            if path.exists() {
                let store = outbox::Outbox::open(&path, outbox::open_options(&ctx.env)?)?;
                let sum = store.summary()?;
                let open: i64 = [
                    outbox::OpState::Queued,
                    outbox::OpState::Leased,
                    outbox::OpState::Failed,
                ]
                .iter()
                .map(|s| sum.count(*s))
                .sum();
                let now = outbox::util::now_ms();
                let backlog = store.backlog(now, now)?;
                json!({"path": path, "open": open, "failed": sum.count(outbox::OpState::Failed),
                       "held_back": backlog.held_back,
                       "first_failed": backlog.failed.first().map(|o| o.to_json(false)),
                       "last_flush": store.last_flushed_at()?.map(outbox::util::rfc3339)})
            } else {
                json!({"path": path, "open": 0, "failed": 0, "held_back": 0, "first_failed": null, "last_flush": null})
            }
        }
    };
    let owner_pid = owner::owner_pid(paths).filter(|_| owner_up);
    let lingering = owner::lingering_pid(paths);
    let doc = json!({
        "schema": "mpt.edge.status/v1",
        "palace": palace,
        "owner": {"running": owner_up, "pid": owner_pid, "socket": paths.socket, "log": paths.log},
        "lingering_flusher_pid": lingering,
        "primary": primary,
        "outbox": queue,
    });
    ctx.out.emit(&doc, |w| {
        writeln!(w, "palace    {}", palace.display())?;
        writeln!(
            w,
            "owner     {}",
            if owner_up {
                format!("running ({})", paths.socket.display())
            } else {
                "not running (the next `mpt edge` starts it)".into()
            }
        )?;
        if let Some(pid) = lingering {
            writeln!(
                w,
                "          pid {pid} stays after its last session to flush the outbox (MPT_EDGE_LINGER_MS)"
            )?;
        }
        match &config.remote {
            None => return writeln!(w, "primary   none: pass-through to the local child"),
            Some(r) => writeln!(
                w,
                "primary   {} ({})",
                r.url,
                if doc["primary"]["reachable"] == true {
                    "reachable"
                } else {
                    "unreachable"
                }
            )?,
        }
        let q = &doc["outbox"];
        writeln!(
            w,
            "outbox    {} open, {} failed, last flush {}",
            q["open"],
            q["failed"],
            q["last_flush"].as_str().unwrap_or("never")
        )?;
        if let Some(f) = q["first_failed"].as_object() {
            let op = f["op_id"].as_str().unwrap_or("");
            writeln!(
                w,
                "          FAILED: op {} {}: {} ({} op(s) wait for it); `mpt outbox retry {}` or `mpt outbox drop {} --yes`",
                &op[..op.len().min(12)],
                f["tool"].as_str().unwrap_or(""),
                f["error"]["message"].as_str().unwrap_or("").lines().next().unwrap_or(""),
                q["held_back"],
                &op[..op.len().min(12)],
                &op[..op.len().min(12)],
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}
