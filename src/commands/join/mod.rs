//! `mpt join URL`: this device joins the fleet with the code `mpt gateway invite` made: the code
//! exchanged for its token (a 0600 file), its settings into mpt's config file, its harnesses
//! wired to the edge, the flush timer, then doctor's verdict; `--leave` (in `leave.rs`) undoes it.

mod leave;

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use crate::commands::Ctx;
use crate::error::{Exit, MptError, Result};
use crate::harness::wire::{self, Action};
use crate::join::{code, exchange, settings};

#[derive(Debug, Args)]
pub struct JoinArgs {
    /// The gateway as the invite named it (e.g. https://palace.lan:8765)
    #[arg(required_unless_present = "leave")]
    pub url: Option<String>,
    /// Refused: every user of this host can read a command line (give the code on the terminal,
    /// piped, or with --code-file)
    #[arg(hide = true)]
    pub code: Option<String>,
    /// Read the code from this file (mode 0600), e.g. the one `mpt gateway invite --out` wrote
    #[arg(long, value_name = "FILE")]
    pub code_file: Option<PathBuf>,
    /// The SHA-256 of a certificate the gateway presents (the invite prints it): checked before
    /// anything is sent, then kept as the device's CA for the gateway (`ca_file`)
    #[arg(long, value_name = "HASH", conflicts_with = "ca_file")]
    pub ca_sha256: Option<String>,
    /// Trust this CA (PEM) for the gateway's certificate, as the device's `ca_file` from now on
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// Change settings the config file already holds with other values
    #[arg(long)]
    pub yes: bool,
    /// Allow plain http:// to a host that is not this one (a tunnel already encrypts the link)
    #[arg(long)]
    pub allow_insecure: bool,
    /// Leave the harnesses' configs as they are
    #[arg(long)]
    pub no_wire: bool,
    /// Install no flush timer (a systemd user timer, else the cron line is printed)
    #[arg(long)]
    pub no_timer: bool,
    /// Undo a join: the harnesses unwired, the settings as they were, the timer, token and pinned
    /// certificate removed; then revoke the device's token on the primary host
    #[arg(long, conflicts_with_all = ["code_file", "ca_sha256", "ca_file", "no_wire", "no_timer", "url"])]
    pub leave: bool,
}

/// `mpt join --json` (`mpt.join/v1`): never the token, only its file.
#[derive(serde::Serialize)]
struct JoinDoc<'a> {
    schema: &'static str,
    gateway: &'a str,
    device: &'a str,
    role: Option<&'a str>,
    token_id: &'a str,
    token_file: &'a Path,
    expires: Option<&'a str>,
    config: ConfigDoc<'a>,
    wired: Vec<Wired>,
    /// The flush timer (`null` with `--no-timer`).
    timer: Option<crate::join::timer::Timer>,
    doctor: Verdict,
}

#[derive(serde::Serialize)]
struct ConfigDoc<'a> {
    file: &'a Path,
    backup: Option<PathBuf>,
    settings: &'a [settings::Setting],
    /// Settings the environment sets otherwise (it wins over the file).
    overridden: Vec<&'static str>,
}

#[derive(serde::Serialize)]
struct Wired {
    harness: &'static str,
    file: Option<PathBuf>,
    action: String,
    note: String,
    /// Whether mpt changed the file (what `--leave` puts back).
    #[serde(skip)]
    changed: bool,
}

#[derive(serde::Serialize)]
struct Verdict {
    ok: usize,
    warn: usize,
    fail: usize,
    /// Each failure and warning: its check, what it found, its fix.
    findings: Vec<Finding>,
}

#[derive(serde::Serialize)]
struct Finding {
    check: &'static str,
    status: crate::doctor::Status,
    summary: String,
    fix: Option<String>,
}

pub fn run(ctx: &Ctx, a: JoinArgs) -> Result<Exit> {
    if a.leave {
        return leave::run(ctx);
    }
    let url = a.url.clone().unwrap_or_default();
    if a.code.is_some() {
        return Err(MptError::refused(
            "a join code on the command line is readable by every user of this host (and kept in shell history)",
        )
        .with_hint(format!(
            "run `mpt join {url}` and paste the code when it asks (or pipe it in, or give --code-file FILE)"
        )));
    }
    let origin = origin(&url, a.allow_insecure)?;
    let shown = origin.as_str().trim_end_matches('/').to_string();
    let remote_url = format!("{shown}/mcp");
    let config_file = config_file(ctx)?;
    // A different primary in the file is the user's: refused before the code is spent.
    let before = settings::plan(
        &config_file,
        vec![("remote_url", json!(remote_url)), ("edge", json!(true))],
    )?;
    // Once said (`--yes`, or at the terminal), not asked again for the same values.
    let mut yes = a.yes;
    if !yes && let Some(c) = before.conflicts().first() {
        if !agreed(&config_file, &before.conflicts())? {
            return Err(conflict(&config_file, c));
        }
        yes = true;
    }
    let agreed_keys: Vec<&str> = before.conflicts().iter().map(|s| s.key).collect();
    // The pinned certificate, before the code is even asked for: a wrong gateway gets nothing.
    let pinned_ca = match &a.ca_sha256 {
        Some(pin) => Some(pinned(ctx, &origin, pin)?),
        None => None,
    };
    let ca_file = pinned_ca.clone().or_else(|| {
        a.ca_file
            .as_ref()
            .map(|c| std::path::absolute(c).unwrap_or_else(|_| c.clone()))
    });
    let from = match a.code_file.clone() {
        Some(f) => code::From::File(f),
        None => match ctx
            .out
            .piped_line()
            .map_err(|e| MptError::io("reading the join code from stdin", &e))?
        {
            Some(line) => code::From::Piped(line),
            None => code::From::Terminal,
        },
    };
    let code = code::read(&from)?;
    let joined =
        super::runtime()?.block_on(exchange::exchange(&origin, &code, ca_file.as_deref()))?;
    let device = joined.device.clone();
    // The token first: whatever happens next, the device holds what the code bought.
    let token_file = crate::paths::device::token_file(&ctx.env, &device)?;
    crate::gateway::keys::envfile::write_token_file(&token_file, joined.token.expose(), true)?;
    let mut wanted = vec![
        ("remote_url", json!(remote_url)),
        ("token_file", json!(token_file)),
        ("device", json!(device)),
        ("edge", json!(true)),
    ];
    if let Some(ca) = &ca_file {
        wanted.push(("ca_file", json!(ca)));
    }
    let plan = settings::plan(&config_file, wanted)?;
    let unasked: Vec<&settings::Setting> = plan
        .conflicts()
        .into_iter()
        .filter(|s| !(yes && agreed_keys.contains(&s.key)))
        .collect();
    if !a.yes
        && let Some(c) = unasked.first()
        && !agreed(&config_file, &unasked)?
    {
        return Err(conflict(&config_file, c).with_hint(format!(
            "this device's token is in {} already; to use it, set \"{}\": {} in {} by hand, or run `mpt join {}` again with --yes and a new code",
            token_file.display(),
            c.key,
            c.to,
            config_file.display(),
            url
        )));
    }
    let settings_now = plan.settings.clone();
    let backup = plan.write()?;
    let overridden = overridden(ctx);
    // From here the device is configured: read it as every command will.
    let config = ctx.config()?;
    let wired = if a.no_wire {
        Vec::new()
    } else {
        wire_harnesses(ctx, &config)?
    };
    let timer = if a.no_timer {
        None
    } else {
        Some(crate::join::timer::install(&ctx.env, &mpt_exe(ctx)?)?)
    };
    remember(
        ctx,
        &shown,
        &joined,
        &token_file,
        pinned_ca,
        &config_file,
        &settings_now,
        &wired,
        &timer,
    )?;
    let verdict = doctor(ctx)?;
    let doc = JoinDoc {
        schema: crate::schema::JOIN,
        gateway: &shown,
        device: &device,
        role: joined.role.as_deref(),
        token_id: &joined.token_id,
        token_file: &token_file,
        expires: joined.expires.as_deref(),
        config: ConfigDoc {
            file: &config_file,
            backup,
            settings: &settings_now,
            overridden: overridden.clone(),
        },
        wired,
        timer,
        doctor: verdict,
    };
    ctx.out.emit_typed(&doc, |w| {
        writeln!(
            w,
            "joined {shown} as {device} ({}), token {} in {} (expires {})",
            doc.role.unwrap_or("?"),
            doc.token_id,
            token_file.display(),
            doc.expires.unwrap_or("never")
        )?;
        let changed: Vec<String> = settings_now
            .iter()
            .filter(|s| s.changes())
            .map(|s| format!("{} = {}", s.key, s.to))
            .collect();
        if changed.is_empty() {
            writeln!(w, "{}: unchanged", config_file.display())?;
        } else {
            writeln!(w, "{}: {}", config_file.display(), changed.join(", "))?;
        }
        for key in &overridden {
            writeln!(
                w,
                "  note: the environment sets {key} otherwise, and it wins over the file"
            )?;
        }
        for h in &doc.wired {
            writeln!(w, "{}: {} ({})", h.harness, h.action, h.note)?;
        }
        match &doc.timer {
            Some(crate::join::timer::Timer::Systemd { timer, .. }) => {
                writeln!(w, "flush: every 10 minutes by {}", timer.display())?;
            }
            Some(crate::join::timer::Timer::Cron { line, why, .. }) => {
                writeln!(w, "flush: no systemd timer here ({why}); add this line to your crontab (`crontab -e`):\n    {line}")?;
            }
            None => {}
        }
        let v = &doc.doctor;
        writeln!(
            w,
            "doctor: {} ok, {} warning(s), {} failure(s)",
            v.ok, v.warn, v.fail
        )?;
        for f in &v.findings {
            let label = match f.status {
                crate::doctor::Status::Fail => "failure",
                _ => "warning",
            };
            writeln!(w, "  {label} {}: {}", f.check, f.summary)?;
            if let Some(fix) = &f.fix {
                writeln!(w, "    fix: {fix}")?;
            }
        }
        Ok(())
    })?;
    Ok(if doc.doctor.fail > 0 {
        Exit::CheckFailed
    } else {
        Exit::Ok
    })
}

/// The mpt a timer runs: the one on PATH when it is this binary, else this binary's path.
fn mpt_exe(ctx: &Ctx) -> Result<PathBuf> {
    let current =
        std::env::current_exe().map_err(|e| MptError::io("locating the mpt binary", &e))?;
    Ok(crate::harness::wire::exe::choose(ctx.env.get("PATH"), &current).path)
}

/// `joined.json`: what this join changed, for `--leave`. A second join keeps the first one's
/// record of the settings before (the user's own), and adds what it wired.
#[allow(clippy::too_many_arguments)]
fn remember(
    ctx: &Ctx,
    gateway: &str,
    joined: &exchange::Joined,
    token_file: &Path,
    pinned_ca: Option<PathBuf>,
    config_file: &Path,
    settings: &[settings::Setting],
    wired: &[Wired],
    timer: &Option<crate::join::timer::Timer>,
) -> Result<()> {
    use crate::join::record::{self, Record};
    let path = record::path(&ctx.env)?;
    let earlier = Record::load(&path)?;
    let mut before: Vec<record::Before> = earlier
        .as_ref()
        .map(|r| r.before.clone())
        .unwrap_or_default();
    for s in settings {
        if !before.iter().any(|b| b.key == s.key) {
            before.push(record::Before {
                key: s.key.to_string(),
                value: s.from.clone(),
            });
        }
    }
    let mut files: Vec<PathBuf> = earlier
        .as_ref()
        .map(|r| r.wired.clone())
        .unwrap_or_default();
    for w in wired {
        if let Some(f) = &w.file
            && w.changed
            && !files.contains(f)
        {
            files.push(f.clone());
        }
    }
    Record {
        schema: record::SCHEMA.into(),
        gateway: gateway.to_string(),
        device: joined.device.clone(),
        token_id: joined.token_id.clone(),
        token_file: token_file.to_path_buf(),
        pinned_ca,
        config_file: config_file.to_path_buf(),
        before,
        wired: files,
        systemd_timer: matches!(timer, Some(crate::join::timer::Timer::Systemd { .. }))
            || earlier.is_some_and(|r| r.systemd_timer),
    }
    .write(&path)
}

/// The gateway's origin from what the user typed (a trailing `/mcp` or `/` allowed); plain
/// http only to this host unless `allow_insecure`.
fn origin(url: &str, allow_insecure: bool) -> Result<reqwest::Url> {
    let bad = |why: &str| {
        MptError::usage(format!("'{url}' {why}")).with_hint(
            "give the URL `mpt gateway invite` printed, e.g. `mpt join https://palace.lan:8765`",
        )
    };
    let parsed = reqwest::Url::parse(url).map_err(|_| bad("is not a URL"))?;
    if crate::secrets::has_userinfo(&parsed) {
        return Err(bad(
            "carries a user name or password: mpt never puts a secret in a URL",
        ));
    }
    let host = parsed.host_str().ok_or_else(|| bad("has no host"))?;
    match parsed.scheme() {
        "https" => {}
        "http" if allow_insecure || loopback(host) => {}
        "http" => {
            return Err(MptError::refused(format!(
                "'{url}' is plain http to another host: the join code and the token would cross the network readable"
            ))
            .with_hint("use the gateway's https:// URL; over a tunnel that already encrypts (tailscale, ssh), add --allow-insecure"));
        }
        _ => return Err(bad("is not http:// or https://")),
    }
    let path = parsed.path().trim_end_matches('/');
    if !path.is_empty() && path != "/mcp" {
        return Err(bad("names a path: give the gateway's address alone"));
    }
    let mut o = parsed.clone();
    o.set_path("/");
    o.set_query(None);
    o.set_fragment(None);
    Ok(o)
}

/// The gateway's certificate whose SHA-256 is `pin`, read from the handshake (nothing sent) and
/// kept in mpt's config folder as `<host>-ca.pem`; its path.
fn pinned(ctx: &Ctx, origin: &reqwest::Url, pin: &str) -> Result<PathBuf> {
    use crate::join::pin;
    let pin = pin::parse(pin)?;
    if origin.scheme() != "https" {
        return Err(MptError::usage(format!(
            "--ca-sha256 pins a TLS certificate, and {origin} is plain http"
        ))
        .with_hint(
            "leave --ca-sha256 out for an http:// gateway on this host, or give its https:// URL",
        ));
    }
    let host = origin.host_str().unwrap_or_default();
    let port = origin.port_or_known_default().unwrap_or(443);
    let chain = super::runtime()?.block_on(pin::presented(host, port))?;
    let cert = pin::matching(&chain, &pin, origin.as_str())?;
    let path = crate::paths::device::pinned_ca(&ctx.env, host)?;
    if let Some(dir) = path.parent() {
        crate::private_fs::create_private_dir(dir)
            .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    }
    pin::write_pem(&path, cert)?;
    Ok(path)
}

fn loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The config file this device reads: `--mpt-config`, else `MPT_CONFIG`, else the default.
fn config_file(ctx: &Ctx) -> Result<PathBuf> {
    if let Some(p) = &ctx.config_flag {
        return Ok(p.clone());
    }
    if let Some(p) = crate::config::values::env_path(&ctx.env, "MPT_CONFIG")? {
        return Ok(p);
    }
    crate::paths::config_file(&ctx.env).ok_or_else(|| {
        MptError::usage("HOME is not set: mpt has no config file to write")
            .with_hint("set HOME, or name the file: MPT_CONFIG=/path/to/config.json mpt join …")
    })
}

/// A person at the terminal shown the values the file holds otherwise, and asked; `false` with
/// no one there (a script gives --yes).
fn agreed(file: &Path, conflicts: &[&settings::Setting]) -> Result<bool> {
    use crate::join::tty;
    if !tty::available() {
        return Ok(false);
    }
    let mut lines = vec![format!("{} holds other values:", file.display())];
    for s in conflicts {
        let from = s.from.as_ref().map(|v| v.to_string()).unwrap_or_default();
        lines.push(format!("  {}: {from} -> {}", s.key, s.to));
    }
    tty::confirm(&lines, "replace them (the file is backed up first)?")
        .map_err(|e| MptError::io("asking on the terminal", &e))
}

fn conflict(file: &Path, s: &settings::Setting) -> MptError {
    let from = s.from.as_ref().map(|v| v.to_string()).unwrap_or_default();
    MptError::usage(format!(
        "{} sets {} to {from}; joining would set it to {}",
        file.display(),
        s.key,
        s.to
    ))
    .with_hint("run `mpt join` again with --yes to replace it (the file is backed up first), or join with another config file (MPT_CONFIG)")
}

/// The device settings the environment sets (it wins over the file, a setting at a time).
fn overridden(ctx: &Ctx) -> Vec<&'static str> {
    [
        ("MEMPALACE_REMOTE_URL", "remote_url"),
        ("MEMPALACE_REMOTE_TOKEN", "token_file"),
        ("MPT_TOKEN_FILE", "token_file"),
        (crate::config::values::DEVICE_VAR, "device"),
        ("MEMPALACE_EDGE", "edge"),
    ]
    .into_iter()
    .filter(|(var, _)| ctx.env.get(var).is_some())
    .map(|(_, key)| key)
    .collect()
}

/// opencode wired to the edge where it is set up here; pi's extension checked (mpt never edits it).
fn wire_harnesses(ctx: &Ctx, config: &crate::config::Config) -> Result<Vec<Wired>> {
    let mut out = Vec::new();
    let file = super::edge::wire::opencode_file(ctx)?;
    let present = file.parent().is_some_and(Path::exists)
        || crate::which::which("opencode", &ctx.env).is_some();
    if present {
        let (plan, _) = super::edge::wire::opencode_plan(ctx, config, &file)?;
        let backup = wire::apply(&plan)?;
        let note = match (&plan.action, backup) {
            (Action::Skipped | Action::Untouched, _) => plan.reason.clone(),
            (_, Some(b)) => format!("{}; backup {}", plan.reason, b.display()),
            (_, None) => plan.reason.clone(),
        };
        out.push(Wired {
            harness: "opencode",
            file: Some(plan.file.clone()),
            action: format!("{:?}", plan.action).to_lowercase(),
            note,
            changed: !matches!(plan.action, Action::Skipped | Action::Untouched),
        });
    }
    if let Ok(agent) = crate::harness::pi::agent_dir(&ctx.env)
        && let Ok(Some(ext)) = crate::harness::pi::extension(&agent)
    {
        let wired = ext.count(crate::harness::pi::EDGE_TOKEN) > 0;
        out.push(Wired {
            harness: "pi",
            file: Some(ext.resolved.clone()),
            action: if wired { "untouched" } else { "needs_edit" }.into(),
            note: if wired {
                "its extension starts `mpt edge` with the edge opted in".into()
            } else {
                "its extension needs one edit mpt does not make: `mpt edge wire pi` shows it".into()
            },
            changed: false,
        });
    }
    Ok(out)
}

/// Doctor's checks, as `mpt doctor` runs them, on the configuration just written.
fn doctor(ctx: &Ctx) -> Result<Verdict> {
    use crate::doctor::Status;
    let inputs = crate::doctor::Inputs {
        env: ctx.env.clone(),
        config: ctx.config(),
        cwd: std::env::current_dir()
            .map_err(|e| MptError::io("reading the current directory", &e))?,
        offline: false,
        show_child_stderr: false,
    };
    let checks = super::runtime()?.block_on(crate::doctor::run(&inputs, &[]));
    let count = |s: Status| checks.iter().filter(|c| c.status == s).count();
    Ok(Verdict {
        ok: count(Status::Ok),
        warn: count(Status::Warn),
        fail: count(Status::Fail),
        findings: checks
            .into_iter()
            .filter(|c| matches!(c.status, Status::Fail | Status::Warn))
            .map(|c| Finding {
                check: c.id,
                status: c.status,
                summary: c.summary,
                fix: c.fix,
            })
            .collect(),
    })
}
