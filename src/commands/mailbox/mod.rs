//! `mpt mailbox`: what this device owes (list, `--count`), `watch` (poll and announce only what
//! became owed), `ack` (answer an ask so the derivation closes it), `notify` (the road a ping takes).

mod notify;

use std::time::Duration;

use serde_json::{Value, json};

use crate::Ctx;
use crate::cli::{AckStatus, MailboxAction, MailboxArgs};
use crate::error::{Exit, MptError, Result};
use crate::mailbox::offline::{LocalLog, View};
use crate::mailbox::{self, Announcer, NotifyMode, Route};
use crate::mcp::{Deadline, McpClient};
use crate::palace::PalacePaths;
use crate::time::{human_age, now_unix};
use crate::{log_debug, log_warn};

const DEFAULT_POLL_MS: u64 = 300_000;

pub fn run(ctx: &Ctx, args: MailboxArgs) -> Result<Exit> {
    // The terminal's road needs no palace, no device name and no config.
    if let Some(MailboxAction::Notify { test }) = args.action {
        return notify::run(ctx, test);
    }
    let config = ctx.config()?;
    if matches!(
        ctx.env.get("MEMPALACE_MAILBOX"),
        Some("0" | "off" | "false")
    ) {
        return inert(ctx, "disabled by MEMPALACE_MAILBOX=0");
    }
    let me = match (&args.as_identity, config.stamp_identity(), &config.remote) {
        (_, _, None) => {
            return inert(
                ctx,
                "no shared palace (MEMPALACE_REMOTE_URL is unset): a solitary palace owes nobody",
            );
        }
        (Some(me), _, Some(_)) => me.clone(),
        (None, Some(me), Some(_)) => me,
        (None, None, Some(_)) => {
            return inert(
                ctx,
                "no device name (MEMPALACE_PI_DEVICE is unset): an unstamped client has no address to be reached at",
            );
        }
    };
    let rt = super::runtime()?;
    rt.block_on(async {
        let paths = PalacePaths::chosen(&ctx.env, None, Some(&config)).ok();
        let palace = paths.as_ref().map(|p| p.palace.clone()).unwrap_or_default();
        // `ack` goes through the palace's edge owner when one runs: the one writer, which
        // answers offline too (applied locally, queued for the primary).
        let owner = match (&args.action, &paths) {
            (Some(MailboxAction::Ack { .. }), Some(p)) => {
                crate::edge::owner::live(&p.home, &p.palace)
            }
            _ => None,
        };
        let client = match owner {
            Some(o) => crate::edge::owner::client(&o, &config.harness, None),
            None => McpClient::from_config(&config, &palace, None, false)?,
        };
        let local = LocalLog::new(&ctx.env, &config, paths);
        let res = match args.action {
            None => list(ctx, &client, &local, &me, args.count).await,
            Some(MailboxAction::Watch {
                interval_ms,
                max_polls,
            }) => watch(ctx, &client, &local, &me, interval_ms, max_polls).await,
            Some(MailboxAction::Ack {
                event,
                status,
                body,
            }) => ack(ctx, &client, &me, &event, status, body).await,
            Some(MailboxAction::Notify { .. }) => unreachable!("answered before the gates"),
        };
        client.shutdown().await;
        res
    })
}

fn inert(ctx: &Ctx, why: &str) -> Result<Exit> {
    let doc = json!({"schema": mailbox::SCHEMA, "active": false, "reason": why, "owed": [], "dormant": []});
    ctx.out
        .emit(&doc, |w| writeln!(w, "mailbox inactive: {why}"))?;
    Ok(Exit::Ok)
}

async fn list(
    ctx: &Ctx,
    client: &McpClient,
    local: &LocalLog,
    me: &str,
    count_only: bool,
) -> Result<Exit> {
    let view = View::read(client, local, me, now_unix()).await?;
    let d = &view.derivation;
    let mut doc = serde_json::to_value(d)
        .map_err(|e| MptError::new(crate::error::ErrorKind::Io, e.to_string()))?;
    doc["schema"] = json!(mailbox::SCHEMA);
    doc["active"] = json!(true);
    doc["owed_count"] = json!(d.owed.len());
    doc["dormant_count"] = json!(d.dormant.len());
    view.describe(&mut doc);
    if !d.owed.is_empty() {
        doc["note"] = json!(mailbox::DELIVERY_NOTE);
    }
    ctx.out.emit(&doc, |w| {
        if count_only {
            return writeln!(w, "{}", d.owed.len());
        }
        if let Some(line) = view.stale_line() {
            writeln!(w, "{line}")?;
        }
        if d.owed.is_empty() {
            writeln!(w, "nothing owed by {me}")?;
        } else {
            writeln!(
                w,
                "{} ask{} owed by {me}:",
                d.owed.len(),
                if d.owed.len() == 1 { "" } else { "s" }
            )?;
            for a in &d.owed {
                writeln!(
                    w,
                    "  {}  from {}  {}  {} old{}  {}",
                    a.id,
                    a.from.as_deref().unwrap_or("?"),
                    a.kind,
                    a.age_secs.map_or("?".into(), |s| human_age(s * 1000)),
                    a.correlation_id
                        .as_deref()
                        .map_or(String::new(), |c| format!("  [{c}]")),
                    a.summary
                )?;
            }
        }
        if !d.dormant.is_empty() {
            let ids: Vec<&str> = d.dormant.iter().map(|a| a.id.as_str()).collect();
            writeln!(
                w,
                "{} dormant (waiting on their baselines): {}",
                ids.len(),
                ids.join(", ")
            )?;
        }
        if !d.owed.is_empty() {
            writeln!(w, "\n{}", mailbox::DELIVERY_NOTE)?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}

async fn watch(
    ctx: &Ctx,
    client: &McpClient,
    local: &LocalLog,
    me: &str,
    interval_ms: Option<u64>,
    max_polls: Option<u64>,
) -> Result<Exit> {
    let floor = match ctx.env.get("MEMPALACE_MAILBOX_POLL_MS") {
        None => DEFAULT_POLL_MS,
        Some(v) => v.trim().parse().map_err(|_| {
            MptError::usage(format!(
                "MEMPALACE_MAILBOX_POLL_MS='{v}' is not a whole number of milliseconds"
            ))
        })?,
    };
    let interval = interval_ms.unwrap_or(floor);
    if interval < floor {
        return Err(MptError::usage(format!("--interval-ms {interval} is below the poll floor of {floor} ms (MEMPALACE_MAILBOX_POLL_MS)"))
            .with_hint("polling faster only loads the primary: raise --interval-ms, or lower MEMPALACE_MAILBOX_POLL_MS deliberately"));
    }
    let mode = notify::mode(ctx)?;
    // Chosen once (tmux asked once): a tmux that drops the ping is said now, with the fix, and
    // the ping is still sent wrapped, so turning passthrough on needs no restart.
    let route = Route::choose(mode, &ctx.env);
    if let Some((why, fix)) = route.as_ref().and_then(Route::dropped) {
        log_warn!("mailbox notifications will not reach the terminal: {why}; run: {fix}");
    }
    let mut announcer = Announcer::new();
    let mut polls = 0u64;
    loop {
        polls += 1;
        match View::read(client, local, me, now_unix()).await {
            Ok(view) => {
                if view.stale.is_some() {
                    log_debug!(
                        "mailbox poll answered from the local log (the primary is unreachable)"
                    );
                }
                let d = view.derivation;
                let due = announcer.next(&d);
                if !due.is_empty() {
                    deliver(ctx, &due, d.dormant.len(), mode, route.as_ref())?;
                }
            }
            // A poll that fails is skipped, not fatal: the primary may come back.
            Err(e) => log_warn!("mailbox poll failed: {}", e.message),
        }
        if max_polls.is_some_and(|m| polls >= m) {
            return Ok(Exit::Ok);
        }
        tokio::time::sleep(Duration::from_millis(interval)).await;
    }
}

fn deliver(
    ctx: &Ctx,
    due: &[mailbox::Announcement],
    dormant: usize,
    mode: NotifyMode,
    route: Option<&Route>,
) -> Result<()> {
    // One line per delivery (JSON Lines under `--json`), flushed as it comes.
    let line = json!({"schema": crate::schema::MAILBOX_ANNOUNCE, "announcements": due, "dormant_count": dormant, "note": mailbox::DELIVERY_NOTE});
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

async fn ack(
    ctx: &Ctx,
    client: &McpClient,
    me: &str,
    event: &str,
    status: AckStatus,
    body: Option<String>,
) -> Result<Exit> {
    client.connect().await?;
    let mut args = json!({"event_id": event, "from_agent": me, "status": status.as_str()});
    if let Some(b) = body {
        args["body"] = json!(b);
    }
    let reply = client
        .call_tool("mempalace_event_ack", args, Deadline::Default)
        .await?;
    let ack = reply.payload.get("event").cloned().unwrap_or(Value::Null);
    let doc = json!({"schema": crate::schema::MAILBOX_ACK, "me": me, "acked": event, "status": status.as_str(), "event": ack});
    ctx.out.emit(&doc, |w| {
        writeln!(
            w,
            "{event} answered {} as {me} ({})",
            status.as_str(),
            ack["id"].as_str().unwrap_or("?")
        )
    })?;
    Ok(Exit::Ok)
}
