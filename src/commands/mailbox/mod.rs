//! `mpt mailbox`: what this device owes (list, `--count`), `watch` (poll and announce only what
//! became owed), `ack` (answer an ask so the derivation closes it), `notify` (the road a ping takes).

mod notify;
mod watch;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::commands::Ctx;
use crate::mailbox::offline::{LocalLog, View};
use crate::mailbox::{self, Me, ack, docs};
use mpt_base::error::{Exit, Result};
use mpt_base::log_debug;
use mpt_base::time::{human_age, now_unix};
use mpt_mcp::McpClient;
use mpt_mcp::route::{self, Dial, PrimaryFirst, Rule};
use mpt_palace::PalacePaths;

#[derive(Debug, Args)]
#[command(after_help = "\
What any *@$MEMPALACE_PI_DEVICE identity owes (one per harness: pi@lap, opencode@lap), or --as's.
Read from the primary (with this device's own events not on it yet), then the local copy of its
log brought up to date. With the primary unreachable, answered from that copy: exit 0,
\"stale\": true and the age of the last pull (a STALE: first line for people). Exit 7 only
when this device has no local log at all. `ack` answers as the ask's addressee, through the edge
owner when one runs; with none and the primary unreachable it is queued in the outbox.")]
pub struct MailboxArgs {
    #[command(subcommand)]
    pub action: Option<MailboxAction>,
    /// Act as this one identity (default: every *@$MEMPALACE_PI_DEVICE identity)
    #[arg(long = "as", value_name = "AGENT", global = true)]
    pub as_identity: Option<String>,
    /// Print only the number of owed asks (for prompts and status bars)
    #[arg(long)]
    pub count: bool,
}

#[derive(Debug, Subcommand)]
pub enum MailboxAction {
    /// Announce only what became owed: woken by the primary's live stream, else by polling
    #[command(after_help = "\
Subscribes to the primary's GET /logstream/stream: each append wakes the derivation, so an ask is
announced within about a second. Where the stream is unavailable it polls at the interval and says
which and why (stderr; a mpt.mailbox.watch/v1 line under --json): the route absent (the server's
own 404: a MemPalace without it) or blocked (a proxy's 403/404, the mpt gateway's denial); the
stream is retried with backoff meanwhile. A dropped stream resumes from its last event id
(Last-Event-ID); one silent past MPT_MAILBOX_STREAM_SILENCE_MS (default 25000) is taken as dead.
While live, the interval is still a safety net.")]
    Watch {
        /// Poll interval (not below MEMPALACE_MAILBOX_POLL_MS, default 300000)
        #[arg(long, value_name = "MS")]
        interval_ms: Option<u64>,
        /// Stop after this many derivations (polls and stream wake-ups)
        #[arg(long, value_name = "N")]
        max_polls: Option<u64>,
        /// Poll only: never subscribe to the live stream
        #[arg(long)]
        poll: bool,
    },
    /// Answer an ask with a terminal status, as the identity it was addressed to (or --as)
    Ack {
        /// The event id of the ask (evt_...)
        event: String,
        /// The terminal status that closes it
        #[arg(long, value_enum)]
        status: AckStatus,
        /// A reply body
        #[arg(long)]
        body: Option<String>,
    },
    /// Say which road a notification takes to the human (OSC 99, OSC 777, through tmux, or
    /// nowhere and why); exit 3 when nowhere
    #[command(after_help = "\
Reads MEMPALACE_MAILBOX_NOTIFY, the terminal ($TERM, $KITTY_WINDOW_ID) and tmux ($TMUX: then its
allow-passthrough, the pane's, the window's, then the global). With --test it also sends a test
notification on stderr: exit 0 when the sequence was written, 3 when it could not reach a terminal
(and the one command that fixes it). Needs no palace.")]
    Notify {
        /// Send a test notification on stderr now
        #[arg(long)]
        test: bool,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum AckStatus {
    Applied,
    Failed,
    Blocked,
    Superseded,
}

impl AckStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AckStatus::Applied => "applied",
            AckStatus::Failed => "failed",
            AckStatus::Blocked => "blocked",
            AckStatus::Superseded => "superseded",
        }
    }
}

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
    // By default every `*@<device>` identity (what the edge stamps per harness), shown as the
    // stamp identity; `--as` narrows it to one.
    let me = match (&args.as_identity, config.stamp_identity(), &config.remote) {
        (_, _, None) => {
            return inert(
                ctx,
                "no shared palace (MEMPALACE_REMOTE_URL is unset): a solitary palace owes nobody",
            );
        }
        (Some(one), _, Some(_)) => Me::one(one),
        (None, Some(shown), Some(_)) => Me::device(config.device.as_deref().unwrap_or(""), &shown),
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
        // Reads go to the primary; `ack` through the palace's edge owner when one runs: the one
        // writer, which answers offline too (applied locally, queued for the primary).
        let rule = Rule {
            primary: PrimaryFirst::AfterOwner,
            ..Rule::PRIMARY_FIRST
        };
        let way = match (&args.action, &paths) {
            (Some(MailboxAction::Ack { .. }), Some(p)) => {
                route::Route::choose(&ctx.env, &config, || Ok(p.clone()), rule)?
            }
            _ => route::Route::primary(&config).expect("a primary: checked above"),
        };
        // Without one, an ack the primary cannot take now waits in the outbox.
        let queue = match way {
            route::Route::EdgeOwner { .. } => None,
            _ => Some(ack::Queue {
                path: mpt_palace::edge_outbox(
                    &ctx.env,
                    &config,
                    paths.as_ref().map(|p| p.palace.as_path()),
                )?,
                opts: mpt_outbox::open_options(&ctx.env)?,
                origin: mpt_outbox::Origin::from_config(&config),
            }),
        };
        let client = way.client(&ctx.env, &config, &Dial::as_harness(&config.harness))?;
        let local = LocalLog::new(&ctx.env, &config, paths);
        let reading = Reading {
            client: &client,
            local: &local,
            me: &me,
            config: &config,
        };
        let res = match args.action {
            None => list(ctx, &reading, args.count).await,
            Some(MailboxAction::Watch {
                interval_ms,
                max_polls,
                poll,
            }) => {
                let w = watch::Watch {
                    interval_ms,
                    max_polls,
                    poll_only: poll,
                };
                watch::run(ctx, &reading, w).await
            }
            Some(MailboxAction::Ack {
                event,
                status,
                body,
            }) => {
                let answer = Answer {
                    event: &event,
                    status,
                    body,
                    as_identity: args.as_identity.as_deref(),
                };
                ack(ctx, &reading, queue.as_ref(), answer).await
            }
            Some(MailboxAction::Notify { .. }) => unreachable!("answered before the gates"),
        };
        client.shutdown().await;
        res
    })
}

fn inert(ctx: &Ctx, why: &str) -> Result<Exit> {
    let doc = mpt_base::schema::to_document(&docs::Inert::new(why))?;
    ctx.out
        .emit(&doc, |w| writeln!(w, "mailbox inactive: {why}"))?;
    Ok(Exit::Ok)
}

/// What a mailbox read needs: the client that reaches the log, this device's copy, whom for.
pub(super) struct Reading<'a> {
    client: &'a McpClient,
    local: &'a LocalLog,
    me: &'a Me,
    config: &'a mpt_base::config::Config,
}

impl Reading<'_> {
    pub(super) async fn view(&self) -> Result<View> {
        View::read(self.client, self.local, self.me, now_unix()).await
    }

    /// After a read the primary answered: the local copy brought up to date (the owner's pull
    /// woken, else one pull here), so what was seen can be answered offline.
    pub(super) async fn refresh(&self, ctx: &Ctx, view: &View) {
        if view.stale.is_none() {
            let r = mailbox::refresh::local_copy(self.local, self.config, &ctx.env).await;
            log_debug!("mailbox: local copy of the log: {r:?}");
        }
    }
}

async fn list(ctx: &Ctx, r: &Reading<'_>, count_only: bool) -> Result<Exit> {
    let view = r.view().await?;
    let label = r.me.label();
    let me = label.as_str();
    let d = &view.derivation;
    let doc = mpt_base::schema::to_document(&docs::List {
        derivation: d,
        schema: mailbox::SCHEMA,
        active: true,
        owed_count: d.owed.len(),
        dormant_count: d.dormant.len(),
        source: view.source(),
        note: (!d.owed.is_empty()).then_some(mailbox::DELIVERY_NOTE),
    })?;
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
                    "  {}  from {} to {}  {}  {} old{}  {}",
                    a.id,
                    a.from.as_deref().unwrap_or("?"),
                    a.to.as_deref().unwrap_or("?"),
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
    r.refresh(ctx, &view).await;
    Ok(Exit::Ok)
}

/// One `mailbox ack`: the ask, the terminal status, its body, and `--as`.
struct Answer<'a> {
    event: &'a str,
    status: AckStatus,
    body: Option<String>,
    as_identity: Option<&'a str>,
}

async fn ack(
    ctx: &Ctx,
    r: &Reading<'_>,
    queue: Option<&ack::Queue>,
    a: Answer<'_>,
) -> Result<Exit> {
    // As the identity the ask was addressed to (only its reply closes it), unless `--as`.
    let from = match a.as_identity {
        Some(one) => one.to_string(),
        None => addressee(r, a.event)
            .await
            .unwrap_or_else(|| r.me.shown.clone()),
    };
    let mut args = json!({"event_id": a.event, "from_agent": from, "status": a.status.as_str()});
    if let Some(b) = a.body {
        args["body"] = json!(b);
    }
    let sent = ack::send(r.client, queue, args).await?;
    let (event, queued, unconfirmed) = match &sent {
        ack::Sent::Applied(e) => (e.clone(), None, false),
        ack::Sent::Queued { op_id, unconfirmed } => {
            (Value::Null, Some(op_id.clone()), *unconfirmed)
        }
    };
    let doc = mpt_base::schema::to_document(&docs::Ack {
        schema: mpt_base::schema::MAILBOX_ACK,
        me: &from,
        acked: a.event,
        status: a.status.as_str(),
        event: event.clone(),
        queued: queued.clone(),
        unconfirmed,
    })?;
    ctx.out.emit(&doc, |w| match &queued {
        None => writeln!(
            w,
            "{} answered {} as {from} ({})",
            a.event,
            a.status.as_str(),
            event["id"].as_str().unwrap_or("?")
        ),
        Some(op) => writeln!(
            w,
            "{} answered {} as {from}: the primary is unreachable, so the ack is queued (op {}){}; `mpt outbox flush` or the next `mpt edge` sends it, and the primary validates it",
            a.event,
            a.status.as_str(),
            mpt_outbox::short(op),
            if unconfirmed { ", checked on the primary first: the send may have reached it" } else { "" }
        ),
    })?;
    Ok(Exit::Ok)
}

/// The identity the ask `event` was addressed to, as this device's mailbox sees it (owed or
/// dormant); `None` when it is not among them (answered already, not this device's, unknown).
async fn addressee(r: &Reading<'_>, event: &str) -> Option<String> {
    let view = r.view().await.ok()?;
    let d = &view.derivation;
    d.owed
        .iter()
        .chain(&d.dormant)
        .find(|a| a.id == event)
        .and_then(|a| a.to.clone())
}
