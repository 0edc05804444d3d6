//! `mpt feed prepare|mine`: its flags (`args.rs`) and env turned into a feed job, and its results
//! printed (the MINE_SOURCE line, or one JSON document). The engine is `mpt_feed`.

mod args;
mod doc;
pub mod helper;
mod mine;
mod prepare;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::commands::Ctx;
pub use args::{FeedAction, FeedArgs, FeedCommon};
use doc::prepare_doc;
use mpt_base::config::Config;
use mpt_base::config::feed::validate_wing;
use mpt_base::error::{Exit, MptError, Result};
use mpt_feed::fleet::{self, FleetFeed, Ship};
use mpt_feed::job::{self, FeedJob, FeedRun};
use mpt_feed::remote::RemoteInbox;
use mpt_feed::{GateConfig, Harness, PrepareOptions, Progress, Reason, claude, codex};
use mpt_palace::harness::opencode;
use mpt_palace::paths::{absolute, realpath};

pub fn run(ctx: &Ctx, args: FeedArgs) -> Result<Exit> {
    match args.action {
        FeedAction::Prepare(a) => prepare::run(ctx, a),
        FeedAction::Mine(a) => mine::run(ctx, a),
        FeedAction::InstallHelper(a) => helper::install(ctx, a),
    }
}

/// What a feed command will do: run a job, or nothing (and why).
enum Plan {
    Run(Box<FeedJob>, Meta),
    /// Nothing to do, and why; `warn`: a configuration gap the user should hear about.
    Inactive {
        meta: Meta,
        why: String,
        warn: bool,
    },
}

/// The facts printed beside the engine's report.
struct Meta {
    harness: Harness,
    reason: String,
    wing: String,
    sessions_dir: PathBuf,
    stage_dir: PathBuf,
    state_file: PathBuf,
    lock_file: PathBuf,
    inbox: Option<RemoteInbox>,
}

/// The harnesses a run feeds: those named by `--harness`, else every one found on this device
/// (pi's sessions folder, opencode's database), else pi (which then says it found nothing).
/// `--sessions` and `--out` name pi's folders, so without `--harness` they mean pi alone.
fn harnesses(ctx: &Ctx, config: &Config, c: &FeedCommon) -> Result<Vec<Harness>> {
    if !c.harness.is_empty() {
        let mut h = c.harness.clone();
        h.sort();
        h.dedup();
        if h.len() > 1 && c.out.is_some() {
            return Err(MptError::usage(
                "--out names one staging folder, but several harnesses are fed (each has its own)",
            )
            .with_hint("give one --harness with --out, or leave --out out"));
        }
        return Ok(h);
    }
    if c.out.is_some() || c.sessions.is_some() {
        return Ok(vec![Harness::Pi]);
    }
    let home = ctx.env.home()?;
    let mut found = Vec::new();
    if config.feed.sessions_dir(&home).is_dir() {
        found.push(Harness::Pi);
    }
    if opencode::database(&ctx.env).is_some_and(|db| db.is_file()) {
        found.push(Harness::Opencode);
    }
    if claude::projects_dir(&ctx.env, &home).is_dir() {
        found.push(Harness::Claude);
    }
    if codex::sessions_dir(&ctx.env, &home).is_dir() {
        found.push(Harness::Codex);
    }
    if found.is_empty() {
        found.push(Harness::Pi);
    }
    Ok(found)
}

/// One plan per harness fed (see [`harnesses`]).
fn plans(
    ctx: &Ctx,
    config: &Config,
    c: &FeedCommon,
    reason: &str,
    what: &str,
) -> Result<Vec<Plan>> {
    harnesses(ctx, config, c)?
        .into_iter()
        .map(|h| plan(ctx, config, c, h, reason, what))
        .collect()
}

/// Resolves flags and env into one harness's job. Disabled feeding and remote mode without an SSH
/// target are not errors: they are plans that do nothing, said out loud.
fn plan(
    ctx: &Ctx,
    config: &Config,
    c: &FeedCommon,
    harness: Harness,
    reason: &str,
    what: &str,
) -> Result<Plan> {
    let reason = validate_reason(reason)?;
    let knobs = &config.feed;
    let wing = match (&c.wing, harness) {
        (Some(w), _) => validate_wing(w, "--wing")?,
        (None, Harness::Pi) => knobs.wing.clone(),
        (None, Harness::Opencode) => knobs.opencode_wing.clone(),
        (None, Harness::Claude) => knobs.claude_wing.clone(),
        (None, Harness::Codex) => knobs.codex_wing.clone(),
    };
    let home = ctx.env.home()?;
    let feed_home = job::feed_home(&ctx.env)?;
    // Each harness keeps its own staging folder, state and lock: pi's where they always were.
    let harness_home = match harness {
        Harness::Pi => feed_home.clone(),
        Harness::Opencode => feed_home.join("opencode"),
        Harness::Claude => feed_home.join("claude"),
        Harness::Codex => feed_home.join("codex"),
    };
    // Resolved through symlinks: the lock (and the temp cleanup it licenses) must be one per
    // folder, however the folder is named.
    let stage_dir = realpath(&c.out.clone().unwrap_or_else(|| harness_home.join("staged")));
    let sessions_dir = match harness {
        Harness::Pi => absolute(
            &c.sessions
                .clone()
                .unwrap_or_else(|| knobs.sessions_dir(&home)),
        ),
        Harness::Opencode => absolute(&opencode::database(&ctx.env).ok_or_else(|| {
            MptError::usage("OPENCODE_DB=:memory: keeps opencode's sessions in memory: there is nothing to feed")
                .with_hint("unset OPENCODE_DB, or leave opencode out (--harness pi)")
        })?),
        Harness::Claude => absolute(&claude::projects_dir(&ctx.env, &home)),
        Harness::Codex => absolute(&codex::sessions_dir(&ctx.env, &home)),
    };
    let is_default = stage_dir == realpath(&harness_home.join("staged"));
    let (state_file, lock_file) = job::state_and_lock(&harness_home, &stage_dir, is_default);
    let inbox = match (&config.remote, &knobs.ssh_target) {
        (Some(_), Some(target)) => {
            let cfg = knobs.ssh_config.clone();
            if let Some(p) = cfg.as_ref().filter(|p| !p.is_file()) {
                return Err(MptError::usage(format!(
                    "MEMPALACE_PI_SSH_CONFIG={} is not a file",
                    p.display()
                ))
                .with_hint(
                    "point it at the ssh config that reaches the palace host, or unset it",
                ));
            }
            let path = knobs.remote_path_or_default(config.device.as_deref());
            Some(RemoteInbox {
                target: target.clone(),
                path: mpt_base::config::feed::harness_inbox(&path, harness.as_str()),
                ssh_config: cfg,
            })
        }
        _ => None,
    };
    let meta = Meta {
        harness,
        reason: reason.as_str().to_string(),
        wing,
        sessions_dir: sessions_dir.clone(),
        stage_dir: stage_dir.clone(),
        state_file: state_file.clone(),
        lock_file: lock_file.clone(),
        inbox: inbox.clone(),
    };
    if !knobs.enabled {
        return Ok(Plan::Inactive {
            meta,
            why: "feeding is disabled by MEMPALACE_FEED=0: nothing prepared".into(),
            warn: false,
        });
    }
    // Under the edge the local palace is always fed: a missing way to the primary is one line.
    let under_edge = config.edge_opt_in && config.remote.is_some();
    if let (Some(r), None, false) = (&config.remote, &inbox, under_edge) {
        let why = format!(
            "feeding skipped: MEMPALACE_REMOTE_URL points at a shared primary ({}), whose miner cannot read this machine's files, and MEMPALACE_PI_SSH_TARGET is unset, so there is no way to ship them to it; set MEMPALACE_PI_SSH_TARGET (and MEMPALACE_PI_SSH_CONFIG, MEMPALACE_PI_REMOTE_PATH) to feed it",
            r.url
        );
        return Ok(Plan::Inactive {
            meta,
            why,
            warn: true,
        });
    }
    if c.out.is_none() {
        create_private_dir(&harness_home)?;
    }
    let mut p = PrepareOptions::new(&sessions_dir, &stage_dir, reason);
    p.harness = harness;
    p.state_file = Some(state_file);
    p.gate = GateConfig {
        min_user_turns: c.min_user_turns,
        min_chars: c.min_chars,
        quiet_period: Duration::from_millis(c.quiet_period_ms),
        skip_subagents: !c.include_subagents,
        ..GateConfig::default()
    };
    // The lock makes every temp file in the folder a leftover of a run that died: remove them all.
    p.stale_temp_age = Duration::ZERO;
    p.progress = progress_bar(ctx);
    let fleet = match under_edge {
        false => None,
        true => Some(FleetFeed {
            why_not: inbox.is_none().then(|| NO_WAY.to_string()),
            gateway: inbox
                .is_none()
                .then(|| mpt_feed::upload::gateway_road(config, harness.as_str()))
                .flatten(),
            inbox: inbox.clone(),
            ship_file: fleet::ship_file(&meta.state_file),
            outbox: mpt_palace::edge_outbox(&ctx.env, config, None)?,
            outbox_opts: mpt_outbox::open_options(&ctx.env)?,
            origin: mpt_outbox::Origin::from_config(config),
            wing: meta.wing.clone(),
            agent: agent(config, harness),
        }),
    };
    let job = FeedJob {
        prepare: p,
        lock_file,
        what: what.to_string(),
        inbox: if under_edge { None } else { inbox },
        timeout: knobs.prepare_timeout,
        fleet,
        wait: None,
    };
    Ok(Plan::Run(Box::new(job), meta))
}

/// The prefix of a harness's stderr lines: none for pi (as before opencode was fed).
fn who(h: Harness) -> &'static str {
    match h {
        Harness::Pi => "",
        Harness::Opencode => "opencode: ",
        Harness::Claude => "claude: ",
        Harness::Codex => "codex: ",
    }
}

/// `<harness>@<device>` for what a harness's conversations file: opencode's own name for opencode.
fn agent(config: &Config, harness: Harness) -> Option<String> {
    match harness {
        Harness::Pi => config.stamp_identity(),
        Harness::Opencode | Harness::Claude | Harness::Codex => config.stamp_identity().map(|_| {
            format!(
                "{}@{}",
                harness.as_str(),
                config.device.as_deref().unwrap_or_default()
            )
        }),
    }
}

/// Why an edge device without `MEMPALACE_PI_SSH_TARGET` feeds only its own palace.
const NO_WAY: &str = "no way to the primary: MEMPALACE_PI_SSH_TARGET is unset and the primary is not reached through a gateway, so these conversations are mined into this device's palace only (join it through the gateway with `mpt join`, or set MEMPALACE_PI_SSH_TARGET, and MEMPALACE_PI_SSH_CONFIG, MEMPALACE_PI_REMOTE_PATH, for the whole fleet to find them)";

/// A trigger name: a short token (it is recorded and printed).
fn validate_reason(r: &str) -> Result<Reason> {
    let ok = !r.is_empty()
        && r.len() <= 64
        && r.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !ok {
        return Err(
            MptError::usage(format!("--reason '{r}' is not a trigger name")).with_hint(
                "use pi's trigger: shutdown, settled, new, resume, fork, compact, reload or manual",
            ),
        );
    }
    Ok(Reason::parse(r))
}

fn create_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))
}

/// The bar on stderr (`Output::progress`: a terminal only, never under `--json` or `-q`).
fn progress_bar(ctx: &Ctx) -> Option<Progress> {
    let bar = ctx
        .out
        .progress("feed: {bar:30} {pos}/{len} sessions {elapsed}")?;
    Some(Progress(Arc::new(move |done, total| {
        bar.set(done as u64, total as u64);
        if done == total {
            bar.finish();
        }
    })))
}

/// Says why nothing runs: a warning for a configuration gap, a plain line otherwise.
fn say_inactive(ctx: &Ctx, why: &str, warn: bool) {
    ctx.out.note(if warn { "warning" } else { "feed" }, why);
}

/// One stderr line with the counts, every skip under its reason (`-q` silences it).
fn summary_line(run: &FeedRun) -> String {
    let r = &run.report;
    let skipped: Vec<String> = r
        .skipped
        .iter()
        .map(|(k, v)| format!("{} {v}", k.as_str()))
        .collect();
    let mut s = format!(
        "{} session{} seen: {} exported, {} unchanged, {} skipped",
        r.sessions_seen,
        if r.sessions_seen == 1 { "" } else { "s" },
        r.exported,
        r.unchanged,
        r.skipped_total
    );
    if !skipped.is_empty() {
        s.push_str(&format!(" ({})", skipped.join(", ")));
    }
    if let Some(p) = &run.pushed {
        s.push_str(&format!("; sent to {}", p.destination));
    }
    s
}

/// Under the edge, where this run's transcripts go: one line for the local palace, one for the
/// primary (a warning when its ship is pending). `mining`: `feed mine` files them itself now.
fn say_fleet(ctx: &Ctx, run: &FeedRun, mining: bool) {
    let Some(fed) = &run.fed else { return };
    if let Some(src) = &run.mine_source {
        let how = if mining {
            "mined into this device's palace now"
        } else {
            "for this device's palace (the bridge's mine, through the edge)"
        };
        ctx.out.note(
            "feed",
            &format!("local: {} staged at {src}, {how}", fed.files),
        );
    }
    let short = |id: &str| mpt_outbox::short(id).to_string();
    let (label, line) = match &fed.ship {
        Ship::NoWay { why } => ("feed", why.clone()),
        Ship::Nothing => ("feed", "primary: nothing staged to ship".to_string()),
        Ship::Pending { error, since } => (
            "warning",
            format!(
                "primary: ship: pending since {since} ({error}); the next trigger retries it, and the local palace is fed meanwhile"
            ),
        ),
        Ship::Shipped { destination, .. } => match (&fed.queued, &fed.queue_error) {
            (Some(q), _) => (
                "feed",
                format!(
                    "primary: {} shipped to {destination}; its mine queued in the outbox (op {}{})",
                    fed.files,
                    short(&q.op_id),
                    if q.deduped { ", already queued" } else { "" }
                ),
            ),
            (None, Some(e)) => (
                "warning",
                format!(
                    "primary: shipped to {destination}, but its mine could not be queued ({e}): ship: pending, retried by the next trigger"
                ),
            ),
            (None, None) => (
                "feed",
                format!(
                    "primary: {} shipped to {destination}; nothing new since its last queued mine",
                    fed.files
                ),
            ),
        },
    };
    ctx.out.note(label, &line);
}

/// A MINE_SOURCE must fit on its line.
fn check_line(source: &str) -> Result<()> {
    if source.contains(['\n', '\r']) {
        return Err(MptError::usage(format!(
            "the staging path {source:?} holds a line break: MINE_SOURCE cannot be printed as one line"
        ))
        .with_hint("choose a staging folder (--out) without line breaks"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn gate_flag_defaults_are_the_engines() {
        #[derive(Parser)]
        struct Top {
            #[command(subcommand)]
            command: crate::commands::Command,
        }
        let cli = Top::try_parse_from(["mpt", "feed", "prepare", "--reason", "x"]).unwrap();
        let crate::commands::Command::Feed(FeedArgs {
            action: FeedAction::Prepare(a),
        }) = cli.command
        else {
            panic!("parsed as feed prepare")
        };
        let g = GateConfig::default();
        assert_eq!(a.common.min_user_turns, g.min_user_turns);
        assert_eq!(a.common.min_chars, g.min_chars);
        assert_eq!(
            Duration::from_millis(a.common.quiet_period_ms),
            g.quiet_period
        );
        assert_eq!(!a.common.include_subagents, g.skip_subagents);
    }

    #[test]
    fn reasons_are_tokens() {
        assert_eq!(validate_reason("shutdown").unwrap(), Reason::Shutdown);
        assert_eq!(validate_reason("cron-1").unwrap().as_str(), "cron-1");
        for bad in ["", "a b", "x\ny", "é"] {
            assert_eq!(
                validate_reason(bad).unwrap_err().exit().code(),
                2,
                "{bad:?}"
            );
        }
    }
}
