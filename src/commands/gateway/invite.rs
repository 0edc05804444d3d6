//! `mpt gateway invite DEVICE`: the device added to the policy with its day-one grants (shown as
//! a diff, the old file backed up), and a single-use join code for `mpt join` on the device.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::commands::Ctx;
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::time::{now_unix, parse_duration};
use mpt_gateway::StateDir;
use mpt_gateway::decide::policy::{Role, enroll};
use mpt_gateway::keys::envfile::write_token_file;
use mpt_gateway::keys::invites::Editor;

#[derive(Debug, Args)]
pub struct GatewayInviteArgs {
    /// The device's name (one word: letters, digits and . _ - @)
    pub device: String,
    /// Its role, when the policy does not name it yet
    #[arg(long, value_enum, default_value = "member")]
    pub role: InviteRole,
    /// Narrow its wings, when the policy does not name it yet: a member's or an admin's writes,
    /// an observer's reads (default: a member writes wing_<device>*, its agents' diaries and the
    /// harnesses' conversation wings, and reads every wing)
    #[arg(long, value_name = "GLOB", num_args = 1..)]
    pub wings: Vec<String>,
    /// The lifetime of the token the code is exchanged for ("never": none, doctor warns)
    #[arg(long, value_name = "DURATION", default_value = "90d")]
    pub expires: String,
    /// How long the code can be used
    #[arg(long, value_name = "DURATION", default_value = "15m")]
    pub valid: String,
    /// The gateway as devices reach it (else the address the running gateway listens on)
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Write the code alone into this new file (0600) instead of the terminal (needed with --json)
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// With --out, replace a file that is already there
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Revoke the device's pending code instead (its tokens are `mpt gateway token revoke`'s)
    #[arg(long, conflicts_with_all = ["out", "url", "wings"])]
    pub revoke: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InviteRole {
    Member,
    Observer,
    Admin,
}

impl InviteRole {
    fn role(self) -> Role {
        match self {
            InviteRole::Member => Role::Member,
            InviteRole::Observer => Role::Observer,
            InviteRole::Admin => Role::Admin,
        }
    }
}

/// `mpt gateway invite --json` (`mpt.gateway.invite/v1`): never the code, only where it went.
#[derive(serde::Serialize)]
struct InviteDoc<'a> {
    schema: &'static str,
    device: &'a str,
    /// The policy's edit: `null` when the policy named the device already.
    policy: Option<PolicyEdit<'a>>,
    code_id: &'a str,
    code_file: Option<&'a Path>,
    code_expires: &'a str,
    token_expires: Option<u64>,
    /// The certificate the device checks before it sends the code (https only).
    ca_sha256: Option<&'a str>,
    join: String,
}

#[derive(serde::Serialize)]
struct PolicyEdit<'a> {
    file: &'a Path,
    created: bool,
    backup: Option<&'a Path>,
    diff: &'a [String],
}

/// `mpt gateway invite --revoke --json`: the codes revoked.
#[derive(serde::Serialize)]
struct RevokedDoc<'a> {
    schema: &'static str,
    device: &'a str,
    revoked: Vec<&'a str>,
}

pub fn run(ctx: &Ctx, dir: &StateDir, a: GatewayInviteArgs) -> Result<Exit> {
    let now = now_unix();
    if a.revoke {
        let mut ed = Editor::open(dir)?;
        let done = ed.revoke(&a.device, now);
        ed.commit(now)?;
        let doc = RevokedDoc {
            schema: mpt_base::schema::GATEWAY_INVITE_REVOKE,
            device: &a.device,
            revoked: done.iter().map(|i| i.id.as_str()).collect(),
        };
        ctx.out.emit_typed(&doc, |w| match done.len() {
            0 => writeln!(w, "{} has no pending code", a.device),
            n => writeln!(w, "revoked {n} pending code(s) of {}", a.device),
        })?;
        return Ok(Exit::Ok);
    }
    let valid = parse_duration(&a.valid)?;
    let token_expires = match a.expires.as_str() {
        "never" => None,
        s => Some(parse_duration(s)?),
    };
    // The code goes to a file, or to a person at a terminal: never into a log or a document.
    let to_terminal = a.out.is_none() && !ctx.out.json && ctx.out.stdout_is_terminal();
    if a.out.is_none() && !to_terminal {
        return Err(MptError::usage(
            "the join code has nowhere to go: it is shown on a terminal only, never in --json or a pipe",
        )
        .with_hint(format!(
            "add --out FILE (a new 0600 file), e.g. `mpt gateway invite {} --out ~/{}.code`",
            a.device, a.device
        )));
    }
    // Checked as `mpt join` will check it (plain http allowed here: a tunnel may encrypt it).
    let url = match &a.url {
        Some(u) => crate::join::url::origin(u, true)?,
        None => running_url(dir)?,
    };
    let url = url.as_str().trim_end_matches('/').to_string();
    let wings = (!a.wings.is_empty()).then_some(a.wings.as_slice());
    // The inboxes the gateway writes uploads into: where the ssh road puts them on this host.
    let inboxes = ctx
        .env
        .home()
        .ok()
        .map(|h| h.join(mpt_base::config::feed::INBOXES));
    let entry = enroll::entry(&a.device, a.role.role(), wings, inboxes.as_deref());
    let enrollment = enroll::plan(&dir.policy(), &a.device, entry)?;
    if enrollment.is_none() && (!a.wings.is_empty() || a.role != InviteRole::Member) {
        ctx.out.note(
            "note",
            &format!(
                "{} is in {} already: its grants stay as written there (--role and --wings are for a new device)",
                a.device,
                dir.policy().display()
            ),
        );
    }
    let mut ed = Editor::open(dir)?;
    let (invite, code) = ed.create(&a.device, valid, token_expires, now)?;
    if let Some(p) = &a.out {
        write_token_file(p, &code, a.force)?;
    }
    let backup = match &enrollment {
        Some(e) => e.write()?,
        None => None,
    };
    ed.commit(now)?;
    let pin = pin_of(ctx, &url);
    let join = match &pin {
        Some(p) => format!("mpt join {url} --ca-sha256 {p}"),
        None => format!("mpt join {url}"),
    };
    let doc = InviteDoc {
        schema: mpt_base::schema::GATEWAY_INVITE,
        device: &a.device,
        policy: enrollment.as_ref().map(|e| PolicyEdit {
            file: &e.path,
            created: e.created,
            backup: backup.as_deref(),
            diff: &e.diff,
        }),
        code_id: &invite.id,
        code_file: a.out.as_deref(),
        code_expires: &invite.expires,
        token_expires: invite.token_expires_s,
        ca_sha256: pin.as_deref(),
        join: join.clone(),
    };
    ctx.out.emit_typed(&doc, |w| {
        if let Some(e) = &enrollment {
            let what = if e.created { "created" } else { "changed" };
            writeln!(w, "{} {what}: {} added", e.path.display(), a.device)?;
            for l in &e.diff {
                writeln!(w, "  {l}")?;
            }
            if let Some(b) = &backup {
                writeln!(w, "  (the file before: {})", b.display())?;
            }
        }
        writeln!(w, "On {}, run:\n\n    {join}\n", a.device)?;
        match &a.out {
            Some(p) => writeln!(
                w,
                "and give it the code in {} (single use, until {}).",
                p.display(),
                invite.expires
            ),
            None => writeln!(
                w,
                "and type or paste this code when it asks (single use, until {}):\n\n    {code}\n",
                invite.expires
            ),
        }
    })?;
    Ok(Exit::Ok)
}

/// For an https:// URL, the SHA-256 of the last certificate the gateway there presents (the
/// root-most of its chain): the device checks it before it sends the code. `None` for http://,
/// or when the gateway cannot be reached from here (said in a note).
fn pin_of(ctx: &Ctx, url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(url).ok()?;
    if parsed.scheme() != "https" {
        return None;
    }
    let host = parsed.host_str()?.to_string();
    let port = parsed.port_or_known_default()?;
    let read = crate::commands::runtime()
        .and_then(|rt| rt.block_on(crate::join::pin::presented(&host, port)));
    match read {
        Ok(chain) => chain
            .last()
            .map(|c| crate::join::pin::fingerprint(c.as_ref())),
        Err(e) => {
            ctx.out.note(
                "note",
                &format!(
                    "the join line has no --ca-sha256: {} (the device then trusts the gateway's certificate by its CA alone)",
                    e.message
                ),
            );
            None
        }
    }
}

/// The URL devices use, from the running gateway's `serve.json`; without one, `--url` is needed.
fn running_url(dir: &StateDir) -> Result<reqwest::Url> {
    let hint = "give the gateway's URL as devices reach it: --url https://palace.lan:8765";
    let record = mpt_gateway::serve_record::Record::load(&dir.serve_record()).ok_or_else(|| {
        MptError::usage("no running gateway says where devices reach it").with_hint(hint)
    })?;
    let url = crate::join::url::origin(&record.listening, true)?;
    // Every interface is where it listens, not an address a device can use.
    let anywhere = url
        .host_str()
        .is_some_and(|h| matches!(h.trim_matches(['[', ']']), "0.0.0.0" | "::"));
    if anywhere {
        return Err(MptError::usage(format!(
            "the gateway listens on {} (every interface): that is not an address a device can reach",
            record.listening
        ))
        .with_hint(hint));
    }
    Ok(url)
}
