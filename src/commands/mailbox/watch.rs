//! `mpt mailbox watch`: derive, announce only what became owed; woken by the primary's live stream
//! (`coord::follow`; through the edge owner's one stream when it runs) or, where it is unavailable, by the poll interval, saying which and why.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::Reading;
use crate::commands::Ctx;
use crate::mailbox::{self, Announcer, NotifyMode, Route, docs};
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::{log_debug, log_warn};
use mpt_coord::follow::{self as live, Mode, Wake};
use mpt_edge::log_fanout::{ASK_EVERY, LISTENER_HARNESS, LOG_SINCE_METHOD};
use mpt_mcp::http::{HttpClient, HttpOptions};
use mpt_mcp::route::{Dial, Route as McpRoute, Rule};
use mpt_mcp::{Deadline, McpClient};

/// How long the first derivation waits for the stream to open (or be refused).
const FIRST_MODE_WAIT: Duration = Duration::from_secs(10);

/// How a watch is woken.
pub(super) struct Watch {
    pub interval_ms: Option<u64>,
    pub max_polls: Option<u64>,
    /// `--poll`: never subscribe.
    pub poll_only: bool,
}

pub(super) async fn run(ctx: &Ctx, r: &Reading<'_>, w: Watch) -> Result<Exit> {
    let floor = mpt_base::config::edge::mailbox_poll_floor(&ctx.env)?;
    let interval = w.interval_ms.unwrap_or(floor);
    if interval < floor {
        return Err(MptError::usage(format!("--interval-ms {interval} is below the poll floor of {floor} ms (MEMPALACE_MAILBOX_POLL_MS)"))
            .with_hint("polling faster only loads the primary: raise --interval-ms, or lower MEMPALACE_MAILBOX_POLL_MS deliberately"));
    }
    let silence = mpt_base::config::edge::mailbox_stream_silence(&ctx.env)?;
    let mode = super::notify::mode(ctx)?;
    // Chosen once (tmux asked once): a tmux that drops the ping is said now, with the fix, and
    // the ping is still sent wrapped, so turning passthrough on needs no restart.
    let route = Route::choose(mode, &ctx.env);
    if let Some((why, fix)) = route.as_ref().and_then(Route::dropped) {
        log_warn!("mailbox notifications will not reach the terminal: {why}; run: {fix}");
    }
    let mut wakes = if w.poll_only {
        say(
            ctx,
            &Mode::Polling {
                reason: "asked".into(),
                why: "--poll: the live stream is not used".into(),
                retry_in_ms: 0,
            },
            interval,
        )?;
        None
    } else {
        follower(ctx, r, silence)?
    };
    // Subscribed (or told why not) before the first derivation, so nothing appended between
    // the two is missed; a stream that does not answer within its deadline polls meanwhile.
    if let Some(rx) = wakes.as_mut()
        && let Ok(Some(first)) = tokio::time::timeout(FIRST_MODE_WAIT, rx.recv()).await
    {
        match first {
            Wake::Mode(m) => say(ctx, &m, interval)?,
            other => log_debug!("mailbox: {other:?} before the first derivation"),
        }
    }
    let mut announcer = Announcer::new();
    let mut polls = 0u64;
    let tick = Duration::from_millis(interval);
    loop {
        polls += 1;
        derive(ctx, r, &mut announcer, mode, route.as_ref()).await?;
        if w.max_polls.is_some_and(|m| polls >= m) {
            return Ok(Exit::Ok);
        }
        // Woken by a frame (or a restart), else by the interval: the fallback while polling and,
        // while live, a safety net at the same floor.
        let deadline = tokio::time::Instant::now() + tick;
        loop {
            let woke = match wakes.as_mut() {
                Some(rx) => tokio::select! {
                    got = rx.recv() => got,
                    () = tokio::time::sleep_until(deadline) => break,
                },
                None => {
                    tokio::time::sleep_until(deadline).await;
                    break;
                }
            };
            match woke {
                Some(Wake::Frame(id)) => {
                    log_debug!("mailbox: event {id} appended");
                    drain(wakes.as_mut(), ctx, interval)?;
                    break;
                }
                Some(Wake::Rederive) => break,
                Some(Wake::Mode(m)) => say(ctx, &m, interval)?,
                None => wakes = None,
            }
        }
    }
}

/// The device's stream: through the palace's edge owner when one runs (its one subscription
/// serves every watcher), else followed here; `None` without a primary.
fn follower(
    ctx: &Ctx,
    r: &Reading<'_>,
    silence: Duration,
) -> Result<Option<UnboundedReceiver<Wake>>> {
    let Some(remote) = &r.config.remote else {
        return Ok(None);
    };
    let opts = HttpOptions::for_remote(remote, r.config);
    let head_deadline = opts.connect_timeout + opts.init_timeout.unwrap_or(Duration::from_secs(10));
    let direct = live::Follow {
        client: Arc::new(HttpClient::new(opts).map_err(MptError::from)?),
        head_deadline,
        silence,
    };
    let owner = r.local.palace().and_then(|p| {
        match McpRoute::choose(&ctx.env, r.config, || Ok(p.clone()), Rule::LOCAL) {
            Ok(route @ McpRoute::EdgeOwner { .. }) => Some(route),
            _ => None,
        }
    });
    let Some(owner) = owner else {
        return Ok(Some(live::spawn(direct)));
    };
    let client = owner.client(&ctx.env, r.config, &Dial::as_harness(LISTENER_HARNESS))?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        listen(&client, &tx).await;
        client.shutdown().await;
        // The owner went away: this watch follows the stream itself. That stream starts at
        // its tail, so once it says how it runs, derive once more: what was appended between
        // the owner's last relay and this subscription is not missed.
        let mut own = live::spawn(direct);
        let mut rederived = false;
        while let Some(w) = own.recv().await {
            let told = matches!(w, Wake::Mode(_));
            if tx.send(w).is_err() {
                return;
            }
            if told && !rederived {
                rederived = true;
                if tx.send(Wake::Rederive).is_err() {
                    return;
                }
            }
        }
    });
    Ok(Some(rx))
}

/// Relays what the owner's one stream saw until the owner stops answering.
async fn listen(client: &McpClient, tx: &UnboundedSender<Wake>) {
    let mut after: Option<u64> = None;
    let mut mode: Option<Mode> = None;
    loop {
        let params = after.map(|a| json!({"after": a}));
        let got = async {
            client.connect().await?;
            client
                .request(
                    LOG_SINCE_METHOD,
                    params,
                    Deadline::After(Duration::from_secs(5)),
                )
                .await
        }
        .await;
        let v = match got {
            Ok(v) => v,
            Err(e) => {
                log_debug!(
                    "mailbox: the edge owner's log stream is gone ({e}): following the stream here"
                );
                return;
            }
        };
        let now: Option<Mode> = serde_json::from_value(v["mode"].clone()).ok();
        if let Some(m) = now.filter(|m| mode.as_ref() != Some(m)) {
            // The owner's stream may have opened after this watch derived: derive once more.
            let newly_live =
                matches!(m, Mode::Live { .. }) && !matches!(mode, Some(Mode::Live { .. }));
            mode = Some(m.clone());
            if tx.send(Wake::Mode(m)).is_err() || (newly_live && tx.send(Wake::Rederive).is_err()) {
                return;
            }
        }
        if v["gap"] == true && tx.send(Wake::Rederive).is_err() {
            return;
        }
        for w in v["wakes"].as_array().into_iter().flatten() {
            let wake = match w["id"].as_str() {
                Some(id) => Wake::Frame(id.to_string()),
                None => Wake::Rederive,
            };
            if tx.send(wake).is_err() {
                return;
            }
        }
        after = v["seq"].as_u64().or(after);
        tokio::time::sleep(ASK_EVERY).await;
    }
}

/// Frames that came together wake one derivation; a mode change among them is still said.
fn drain(rx: Option<&mut UnboundedReceiver<Wake>>, ctx: &Ctx, interval: u64) -> Result<()> {
    let Some(rx) = rx else { return Ok(()) };
    while let Ok(w) = rx.try_recv() {
        if let Wake::Mode(m) = w {
            say(ctx, &m, interval)?;
        }
    }
    Ok(())
}

/// Which way asks arrive now, and why: a note on stderr, a JSON Line under `--json`.
fn say(ctx: &Ctx, m: &Mode, interval: u64) -> Result<()> {
    let line = m.line(interval);
    if ctx.out.json {
        let doc = mpt_base::schema::to_document(&docs::WatchMode {
            mode: m,
            schema: mpt_base::schema::MAILBOX_WATCH,
            interval_ms: interval,
        })?;
        return ctx.out.stream(&doc, |_| Ok(()));
    }
    ctx.out.note("mailbox", &line);
    Ok(())
}

async fn derive(
    ctx: &Ctx,
    r: &Reading<'_>,
    announcer: &mut Announcer,
    mode: NotifyMode,
    route: Option<&Route>,
) -> Result<()> {
    match r.view().await {
        Ok(view) => {
            if view.stale.is_some() {
                log_debug!("mailbox poll answered from the local log (the primary is unreachable)");
            }
            let d = &view.derivation;
            let due = announcer.next(d);
            if !due.is_empty() {
                deliver(ctx, &due, d.dormant.len(), mode, route)?;
            }
            r.refresh(ctx, &view).await;
        }
        // A poll that fails is skipped, not fatal: the primary may come back.
        Err(e) => log_warn!("mailbox poll failed: {}", e.message),
    }
    Ok(())
}

fn deliver(
    ctx: &Ctx,
    due: &[mailbox::Announcement],
    dormant: usize,
    mode: NotifyMode,
    route: Option<&Route>,
) -> Result<()> {
    // One line per delivery (JSON Lines under `--json`), flushed as it comes.
    let line = mpt_base::schema::to_document(&docs::Delivery {
        schema: mpt_base::schema::MAILBOX_ANNOUNCE,
        announcements: due,
        dormant_count: dormant,
        note: mailbox::DELIVERY_NOTE,
    })?;
    let text = mailbox::plain_delivery(due, dormant).unwrap_or_default();
    ctx.out.stream(&line, |w| writeln!(w, "{text}"))?;
    // The notification goes to stderr (the terminal), apart from the delivery on stdout.
    if let Some(n) = mailbox::notification_for(due) {
        match (mode, route) {
            (NotifyMode::Off, _) => {}
            (_, Some(route)) => ctx.out.to_terminal(&route.bytes(&n)),
            (_, None) => ctx
                .out
                .to_terminal(format!("mpt: {}\n", mailbox::plain(&n)).as_bytes()),
        }
    }
    Ok(())
}
