//! Check `writers` (RFC 001 §7.5): who holds the palace's writer lease, several MemPalace
//! processes with one palace open and no hub to serialize them (the corruption cluster of
//! MemPalace epic #1963), and the same server registered twice for one harness.

use std::path::PathBuf;

use super::{Check, Inputs, Status};
use crate::config::Env;
use crate::harness::opencode;
use crate::palace::paths::realpath;
use crate::palace::procs::{Proc, Role};
use crate::palace::{PalacePaths, files};

pub fn check(inputs: &Inputs, procs: &[Proc]) -> Check {
    let id = "writers";
    let paths = match inputs.palace() {
        Ok(p) => p,
        Err(e) => return Check::new(id, Status::Skip, e.message),
    };
    let mut c = Check::new(id, Status::Ok, "");
    let lease = files::lease_holder(&paths.writer_lease).ok().flatten();
    let lease_text = match &lease {
        None => "no writer lease taken yet".to_string(),
        Some(l) if l.held => format!(
            "writer lease held by pid {} ({})",
            l.pid.map_or("?".into(), |p| p.to_string()),
            l.command.as_deref().unwrap_or("?")
        ),
        Some(l) => format!(
            "writer lease free (last holder pid {}{})",
            l.pid.map_or("?".into(), |p| p.to_string()),
            if l.pid_alive { "" } else { ", gone" }
        ),
    };
    c = c.evidence(format!("{lease_text}: {}", paths.writer_lease.display()));
    let ours = realpath(&paths.palace);
    let on_palace: Vec<&Proc> = procs
        .iter()
        .filter(|p| matches!(p.role, Some(Role::Child | Role::Hub)))
        .filter(|p| palace_of(p).is_some_and(|pp| realpath(&pp) == ours))
        .collect();
    for p in &on_palace {
        c = c.evidence(format!(
            "pid {} {:?}: {}",
            p.pid,
            p.role.unwrap(),
            p.command_line()
        ));
    }
    let hub_live = files::server_info(&paths.serverinfo)
        .ok()
        .flatten()
        .is_some_and(|h| h.alive)
        || on_palace.iter().any(|p| p.role == Some(Role::Hub));
    let children = on_palace
        .iter()
        .filter(|p| p.role == Some(Role::Child))
        .count();
    let mut registrations = Vec::new();
    for f in opencode::files(&inputs.env, &inputs.cwd) {
        registrations.extend(
            opencode::entries(&f)
                .unwrap_or_default()
                .into_iter()
                .filter(|e| e.enabled),
        );
    }
    if children > 1 && !hub_live {
        c.status = Status::Fail;
        c.summary = format!(
            "{children} MemPalace processes have {} open and no hub serializes them: concurrent writers are how palaces corrupt (MemPalace epic #1963)",
            paths.palace.display()
        );
        return c.fix("close all but one harness session on this palace, or run `mempalace serve` for it so every mempalace-mcp forwards to that one writer");
    }
    if registrations.len() > 1 {
        c.status = Status::Fail;
        let where_: Vec<String> = registrations
            .iter()
            .map(|e| format!("'{}' in {}", e.name, e.file.display()))
            .collect();
        c.summary = format!(
            "opencode registers MemPalace {} times ({}): two writers without knowing",
            registrations.len(),
            where_.join(", ")
        );
        return c.fix("keep one entry (project or global) and remove the others");
    }
    c.summary = format!(
        "{lease_text}; {children} local child(ren){}",
        if hub_live { ", behind a live hub" } else { "" }
    );
    c
}

/// The palace a MemPalace process serves: its `--palace`, else its own environment's rules.
fn palace_of(p: &Proc) -> Option<PathBuf> {
    if let Some(pp) = p.palace_arg() {
        return Some(pp);
    }
    let env = Env::from_pairs(p.environ()?);
    PalacePaths::resolve(&env, None).ok().map(|x| x.palace)
}
