//! `mpt gateway token issue|list|rotate|revoke`: the secret shown once (alone on stdout, into a new
//! file of its own with `--out`, or an env file's line with `--env-file`), never in `--json`.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::commands::Ctx;
use mpt_base::error::{Exit, MptError, Result};
use mpt_base::time::{now_unix, parse_duration};
use mpt_gateway::StateDir;
use mpt_gateway::decide::policy::Policy;
use mpt_gateway::keys::envfile::{write_token_file, write_token_line};
use mpt_gateway::keys::tokens::edit::{Editor, Issued};
use mpt_gateway::keys::tokens::{Entry, TokenFile};
use mpt_gateway::record::last_used::LastUsed;

#[derive(Debug, Args)]
pub struct GatewayTokenArgs {
    #[command(subcommand)]
    pub action: GatewayTokenAction,
}

#[derive(Debug, Subcommand)]
pub enum GatewayTokenAction {
    /// A new token for a device the policy names: shown once, alone on stdout or into --out
    Issue {
        /// The device (a key of "devices" in policy.json)
        device: String,
        /// Refused after this long (e.g. 90d); without it the token never expires (doctor warns)
        #[arg(long, value_name = "DURATION")]
        expires: Option<String>,
        #[command(flatten)]
        to: Delivery,
    },
    /// Every token: id, device, state, created, last used, expiry (never a secret)
    List,
    /// A new token for a device; its old one keeps working for the overlap, then is expired
    Rotate {
        device: String,
        /// How long the old token keeps working
        #[arg(long, value_name = "DURATION", default_value = "24h")]
        overlap: String,
        /// The new token's lifetime (else the old one's, else none)
        #[arg(long, value_name = "DURATION")]
        expires: Option<String>,
        #[command(flatten)]
        to: Delivery,
    },
    /// Refuse a token (by id) or every token of a device, at once
    Revoke {
        /// A token id, or a device
        #[arg(value_name = "ID|DEVICE")]
        target: String,
    },
}

/// Where a new token goes instead of stdout.
#[derive(Debug, Args)]
pub struct Delivery {
    /// Write the token alone into this new file (0600, its folders made 0700): what the
    /// device's MPT_TOKEN_FILE points at
    #[arg(long, value_name = "FILE", conflicts_with = "env_file")]
    out: Option<PathBuf>,
    /// With --out, replace a file that is already there
    #[arg(long, requires = "out")]
    force: bool,
    /// Set the MEMPALACE_REMOTE_TOKEN=<token> line in this env file (0600; its other lines kept)
    #[arg(long, value_name = "FILE")]
    env_file: Option<PathBuf>,
}

impl Delivery {
    fn any(&self) -> bool {
        self.out.is_some() || self.env_file.is_some()
    }

    /// Writes the token (before it exists in `tokens.json`: a refused file issues nothing).
    fn write(&self, token: &str) -> Result<()> {
        if let Some(p) = &self.out {
            write_token_file(p, token, self.force)?;
        }
        if let Some(p) = &self.env_file {
            write_token_line(p, token)?;
        }
        Ok(())
    }
}

pub fn run(ctx: &Ctx, dir: &StateDir, action: GatewayTokenAction) -> Result<Exit> {
    match action {
        GatewayTokenAction::Issue {
            device,
            expires,
            to,
        } => {
            let expires = expires.as_deref().map(parse_duration).transpose()?;
            check_out(ctx, &to)?;
            let policy = Policy::load(&dir.policy())?;
            let mut ed = Editor::open(dir)?;
            let issued = ed.issue(&policy, &device, expires, now_unix())?;
            deliver(ctx, ed, issued, &to, &[])
        }
        GatewayTokenAction::Rotate {
            device,
            overlap,
            expires,
            to,
        } => {
            let overlap = parse_duration(&overlap)?;
            let expires = expires.as_deref().map(parse_duration).transpose()?;
            check_out(ctx, &to)?;
            let policy = Policy::load(&dir.policy())?;
            let mut ed = Editor::open(dir)?;
            let previous = ed.latest(&device).cloned();
            let now = now_unix();
            let (issued, old) = ed.rotate(&policy, &device, overlap, expires, now)?;
            if old.is_empty() {
                let lifetime = if expires.is_some() {
                    "the lifetime --expires gives"
                } else {
                    "its lifetime"
                };
                let said = match &previous {
                    None => format!("{device} had no token: this is its first"),
                    Some(p) => format!(
                        "{device}'s latest token {} {}: the new one replaces it, with {lifetime}",
                        p.id,
                        match p.state(now) {
                            mpt_gateway::keys::tokens::TokenState::Revoked =>
                                format!("was revoked at {}", p.revoked.as_deref().unwrap_or("?")),
                            _ => format!("expired at {}", p.expires.as_deref().unwrap_or("?")),
                        }
                    ),
                };
                ctx.out.note("note", &said);
            }
            deliver(ctx, ed, issued, &to, &old)
        }
        GatewayTokenAction::List => list(ctx, dir),
        GatewayTokenAction::Revoke { target } => revoke(ctx, dir, &target),
    }
}

/// Under `--json` stdout holds the document alone, so the secret needs a file.
fn check_out(ctx: &Ctx, to: &Delivery) -> Result<()> {
    if ctx.out.json && !to.any() {
        return Err(MptError::usage(
            "with --json the token has nowhere to go: --json never carries the secret",
        )
        .with_hint("add --out FILE (the token file the device's MPT_TOKEN_FILE names), or leave out --json"));
    }
    Ok(())
}

/// Writes `--out` (before the token exists in `tokens.json`: a refused file issues nothing),
/// commits, then shows the secret once.
fn deliver(ctx: &Ctx, ed: Editor, issued: Issued, to: &Delivery, old: &[Entry]) -> Result<Exit> {
    to.write(&issued.token)?;
    ed.commit()?;
    let e = &issued.entry;
    let expiry = e.expires.clone().unwrap_or_else(|| "never".into());
    if e.expires.is_none() {
        ctx.out.note(
            "warning",
            &format!(
                "token {} never expires (`mpt doctor` warns about it); give --expires, e.g. 90d",
                e.id
            ),
        );
    }
    for o in old {
        ctx.out.note(
            "note",
            &format!(
                "the old token {} keeps working until {}, then is refused as expired",
                o.id,
                o.expires.as_deref().unwrap_or("-")
            ),
        );
    }
    if !to.any() && !ctx.out.json {
        ctx.out.note(
            "note",
            &format!(
                "token {} for {} (expires {expiry}); shown once: put it alone in a 0600 file the device's MPT_TOKEN_FILE names (or in its MEMPALACE_REMOTE_TOKEN)",
                e.id, e.device
            ),
        );
        return ctx
            .out
            .write_raw(format!("{}\n", issued.token).as_bytes())
            .map(|_| Exit::Ok);
    }
    let doc = super::docs::Issued {
        schema: mpt_base::schema::GATEWAY_TOKEN,
        token_id: &e.id,
        device: &e.device,
        created: &e.created,
        expires: e.expires.as_deref(),
        out: to.out.as_deref(),
        env_file: to.env_file.as_deref(),
        replaces: old
            .iter()
            .map(|o| super::docs::Replaced {
                token_id: &o.id,
                works_until: o.expires.as_deref(),
            })
            .collect(),
    };
    ctx.out.emit_typed(&doc, |w| {
        if let Some(p) = &to.out {
            writeln!(
                w,
                "token {} for {} written to {} (the token alone: point the device's MPT_TOKEN_FILE at it; expires {expiry})",
                e.id,
                e.device,
                absolute(p).display()
            )?;
        }
        if let Some(p) = &to.env_file {
            writeln!(
                w,
                "token {} for {} set as MEMPALACE_REMOTE_TOKEN in {} (expires {expiry})",
                e.id,
                e.device,
                absolute(p).display()
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}

/// `p` made absolute against the working folder, for a message a user acts on elsewhere.
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

fn list(ctx: &Ctx, dir: &StateDir) -> Result<Exit> {
    let file = TokenFile::load(&dir.tokens())?;
    let used = LastUsed::load(&dir.last_used());
    let now = now_unix();
    let rows: Vec<super::docs::Row> = file
        .tokens
        .iter()
        .map(|e| super::docs::Row {
            id: &e.id,
            device: &e.device,
            state: e.state(now).as_str(),
            created: &e.created,
            last_used: used.get(&e.id).map(mpt_base::time::rfc3339),
            expires: e.expires.as_deref(),
            revoked: e.revoked.as_deref(),
            rotated_to: e.rotated_to.as_deref(),
        })
        .collect();
    let invites = mpt_gateway::keys::invites::InviteFile::load(&dir.invites())?;
    let pending: Vec<super::docs::Pending> = invites
        .pending(now)
        .map(|i| super::docs::Pending {
            id: &i.id,
            device: &i.device,
            created: &i.created,
            expires: &i.expires,
        })
        .collect();
    let empty = rows.is_empty() && pending.is_empty();
    let doc = super::docs::Listed {
        schema: mpt_base::schema::GATEWAY_TOKEN_LIST,
        tokens: rows,
        pending,
    };
    ctx.out.emit_typed(&doc, |w| {
        if empty {
            return writeln!(
                w,
                "no tokens yet: `mpt gateway invite DEVICE` (or `mpt gateway token issue DEVICE`) makes one"
            );
        }
        writeln!(
            w,
            "{:<10}  {:<16}  {:<8}  {:<20}  {:<20}  EXPIRES",
            "ID", "DEVICE", "STATE", "CREATED", "LAST USED"
        )?;
        for r in &doc.tokens {
            writeln!(
                w,
                "{:<10}  {:<16}  {:<8}  {:<20}  {:<20}  {}",
                r.id,
                r.device,
                r.state,
                r.created,
                r.last_used.as_deref().unwrap_or("-"),
                r.expires.unwrap_or("never")
            )?;
        }
        // A code waiting for its device: its row until it is used (then the token's is there).
        for p in &doc.pending {
            writeln!(
                w,
                "{:<10}  {:<16}  {:<8}  {:<20}  {:<20}  {} (the join code)",
                p.id, p.device, "invited", p.created, "-", p.expires
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}

fn revoke(ctx: &Ctx, dir: &StateDir, target: &str) -> Result<Exit> {
    let mut ed = Editor::open(dir)?;
    let done = ed.revoke(target, now_unix())?;
    ed.commit()?;
    let doc = super::docs::Revoked {
        schema: mpt_base::schema::GATEWAY_TOKEN_REVOKE,
        revoked: done
            .iter()
            .map(|e| super::docs::RevokedOne {
                token_id: &e.id,
                device: &e.device,
            })
            .collect(),
    };
    ctx.out.emit_typed(&doc, |w| {
        if done.is_empty() {
            return writeln!(
                w,
                "nothing to revoke: {target}'s tokens were revoked already"
            );
        }
        for e in &done {
            writeln!(
                w,
                "revoked {} ({}): the running gateway refuses it from its next request",
                e.id, e.device
            )?;
        }
        Ok(())
    })?;
    Ok(Exit::Ok)
}
