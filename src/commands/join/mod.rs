//! `mpt join URL`: this device joins the fleet with the code `mpt gateway invite` made: the code
//! exchanged for its token (a 0600 file), its settings into mpt's config file, its harnesses
//! wired to the edge, the flush timer, then doctor's verdict; `--leave` (in `leave.rs`) undoes it.

mod leave;
mod steps;

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use crate::commands::Ctx;
use crate::join::{code, exchange, settings};
use mpt_base::error::{Exit, MptError, Result};

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
    let origin = crate::join::url::origin(&url, a.allow_insecure)?;
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
    let token_file = mpt_base::paths::device::token_file(&ctx.env, &device)?;
    mpt_gateway::keys::envfile::write_token_file(&token_file, joined.token.expose(), true)?;
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
    // From here the device is configured: read it as every command will.
    let config = ctx.config()?;
    let overridden = overridden(&config, &token_file);
    let wired = if a.no_wire {
        Vec::new()
    } else {
        steps::wire_harnesses(ctx, &config)?
    };
    let timer = if a.no_timer {
        None
    } else {
        let mpt = crate::commands::edge::wire::chosen_mpt(ctx)?;
        Some(crate::join::timer::install(&ctx.env, &mpt.path)?)
    };
    steps::remember(
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
    let verdict = steps::doctor(ctx)?;
    let doc = JoinDoc {
        schema: mpt_base::schema::JOIN,
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
            Some(crate::join::timer::Timer::Cron { install, why, .. }) => {
                writeln!(w, "flush: no systemd timer here ({why}); to flush from cron every 10 minutes, run:\n    {install}")?;
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
    let path = mpt_base::paths::device::pinned_ca(&ctx.env, host)?;
    if let Some(dir) = path.parent() {
        mpt_base::private_fs::create_private_dir(dir)
            .map_err(|e| MptError::io(format!("creating {}", dir.display()), &e))?;
    }
    pin::write_pem(&path, cert)?;
    Ok(path)
}

/// The config file this device reads (and `mpt join` writes).
fn config_file(ctx: &Ctx) -> Result<PathBuf> {
    mpt_base::config::chosen_file(&ctx.env, ctx.config_flag.as_deref())?
        .map(|c| c.path)
        .ok_or_else(|| {
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

/// The device settings the environment sets otherwise (it wins over the file, a setting at a
/// time), as the configuration just read says where each came from.
fn overridden(config: &mpt_base::config::Config, token_file: &Path) -> Vec<&'static str> {
    use mpt_base::config::TokenSource;
    use mpt_base::config::device::Origin;
    let o = &config.origins;
    let token_elsewhere = config
        .remote
        .as_ref()
        .and_then(|r| r.token.as_ref())
        .is_some_and(|(_, from)| match from {
            TokenSource::Env => true,
            TokenSource::File(f) => f != token_file,
        });
    [
        ("remote_url", o.remote_url == Origin::Env),
        ("token_file", token_elsewhere),
        ("device", o.device == Origin::Env),
        ("edge", o.edge == Origin::Env),
    ]
    .into_iter()
    .filter_map(|(key, env)| env.then_some(key))
    .collect()
}
