//! Phase 4's automated steps, each safe and reversible: a starter `policy.json` where none is
//! (from the devices the gateway met, or `--device`), and the gateway's files tightened to 0600.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;

use super::apply::{Applied, Change, ModeCheck, Verification};
use super::backup::{backup_dir, manifest, sh, size};
use super::gateway::{known_devices, loose};
use super::scan::ScanSet;
use super::{Inputs, State};
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_gateway::StateDir;
use mpt_gateway::decide::policy::{Policy, valid_device_name};

/// `apply gateway-policy`: writes a starter policy (each device a member) where none exists.
pub fn policy(inputs: &Inputs, scan: &ScanSet, yes: bool) -> Result<Applied> {
    let dir = StateDir::resolve(&inputs.env)?;
    let path = dir.policy();
    if path.exists() {
        return Err(MptError::usage(format!(
            "{} exists: apply writes a starter policy only where there is none",
            path.display()
        ))
        .with_hint("edit it by hand: each device under \"devices\" with its role"));
    }
    let mut devices: BTreeSet<String> = known_devices(&dir);
    devices.extend(inputs.devices.iter().cloned());
    if let Some(bad) = devices.iter().find(|d| !valid_device_name(d)) {
        return Err(MptError::usage(format!(
            "'{bad}' is not a device name (printable, no spaces, at most 64 bytes)"
        )));
    }
    if devices.is_empty() {
        return Err(
            MptError::usage("the gateway has met no device yet, and none was named").with_hint(
                "name them: `mpt runbook apply gateway-policy --device laptop --device desk --yes`",
            ),
        );
    }
    let names: Vec<&str> = devices.iter().map(String::as_str).collect();
    let doc = StarterPolicy {
        schema: mpt_base::schema::GATEWAY_POLICY,
        allow_sync: false,
        devices: devices
            .iter()
            .map(|d| (d.as_str(), Member::MEMBER))
            .collect(),
    };
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    );
    let mut out = Applied {
        step: "gateway-policy",
        dry_run: !yes,
        state_before: State::ToDo,
        state_after: State::ToDo,
        summary: format!(
            "a starter {} naming {} as members (writes; no delete, maintenance or settings): make your own device admin by hand if it needs those",
            path.display(),
            names.join(", ")
        ),
        changes: vec![Change {
            action: "create",
            path: path.clone(),
            to: None,
            bytes: text.len() as u64,
            note: format!("{} device(s), each a member", names.len()),
        }],
        backup: None,
        verification: None,
        undo: None,
    };
    if !yes {
        return Ok(out);
    }
    mpt_gateway::state::prepare(&dir)?;
    let backup = backup_dir(&inputs.env.home()?, "gateway-policy")?;
    mpt_base::private_fs::write_private(&path, text.as_bytes())
        .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))?;
    out.undo = Some(format!("rm -f {}", sh(&path)));
    out.backup = Some(backup.clone());
    let read_back = Policy::load(&path);
    let ok = read_back
        .as_ref()
        .is_ok_and(|p| devices.iter().all(|d| p.device(d).is_some()));
    out.verification = Some(Verification::Policy {
        file: path.clone(),
        parses: read_back.is_ok(),
        devices: read_back
            .as_ref()
            .map(|p| p.devices.keys().cloned().collect())
            .unwrap_or_default(),
        ok,
    });
    out.state_after = super::gateway::policy(inputs, scan).state;
    manifest(&backup, &out)?;
    if !ok {
        return Err(read_back_failed(&out));
    }
    Ok(out)
}

/// `apply gateway-modes`: each loose file (and the folder) to its mode; the old ones in the
/// manifest and the undo line.
pub fn modes(inputs: &Inputs, _scan: &ScanSet, yes: bool) -> Result<Applied> {
    let dir = StateDir::resolve(&inputs.env)?;
    let found = loose(&dir);
    let mut out = Applied {
        step: "gateway-modes",
        dry_run: !yes,
        state_before: State::ToDo,
        state_after: State::ToDo,
        summary: format!("chmod {} of the gateway's files", found.len()),
        changes: found
            .iter()
            .map(|l| Change {
                action: "chmod",
                path: l.path.clone(),
                to: None,
                bytes: size(&l.path),
                note: format!("{:04o} -> {:04o}", l.mode, l.want),
            })
            .collect(),
        backup: None,
        verification: None,
        undo: None,
    };
    if !yes {
        return Ok(out);
    }
    let backup = backup_dir(&inputs.env.home()?, "gateway-modes")?;
    let mut undo = Vec::new();
    for l in &found {
        std::fs::set_permissions(&l.path, std::fs::Permissions::from_mode(l.want))
            .map_err(|e| MptError::io(format!("chmod {}", l.path.display()), &e))?;
        undo.push(format!("chmod {:04o} {}", l.mode, sh(&l.path)));
    }
    let still = loose(&dir);
    out.backup = Some(backup.clone());
    out.undo = Some(undo.join(" && "));
    out.verification = Some(Verification::Modes {
        files: found
            .iter()
            .map(|l| ModeCheck {
                file: l.path.clone(),
                mode: mpt_gateway::state::mode(&l.path).map(|m| format!("{m:04o}")),
            })
            .collect(),
        ok: still.is_empty(),
    });
    out.state_after = super::gateway::modes(inputs).state;
    manifest(&backup, &out)?;
    if !still.is_empty() {
        return Err(read_back_failed(&out));
    }
    Ok(out)
}

fn read_back_failed(out: &Applied) -> MptError {
    MptError::new(
        ErrorKind::Io,
        format!(
            "the read-back of {} does not match what was written",
            out.step
        ),
    )
    .with_hint(format!("undo: {}", out.undo.clone().unwrap_or_default()))
    .with_detail(serde_json::to_value(out).unwrap_or_default())
}

/// The starter `policy.json`: each named device a member, by name.
#[derive(serde::Serialize)]
struct StarterPolicy<'a> {
    schema: &'static str,
    allow_sync: bool,
    devices: std::collections::BTreeMap<&'a str, Member>,
}

#[derive(serde::Serialize)]
struct Member {
    role: &'static str,
}

impl Member {
    const MEMBER: Member = Member { role: "member" };
}
