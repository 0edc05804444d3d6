//! Check `writers` (RFC 001 §7.5): who holds the palace's writer lease, several MemPalace
//! processes with one palace open and no hub to serialize them (the corruption cluster of
//! MemPalace epic #1963), and the same server registered twice for one harness.

use super::{Check, Inputs, Status};
use mpt_palace::files;
use mpt_palace::harness::opencode::Wiring;
use mpt_palace::procs::{self, Proc, Role};

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
            l.command.as_deref().unwrap_or("?"),
        ),
        Some(l) => format!(
            "writer lease free (last holder pid {}{})",
            l.pid.map_or("?".into(), |p| p.to_string()),
            if l.pid_alive { "" } else { ", gone" }
        ),
    };
    c = c.evidence(format!("{lease_text}: {}", paths.writer_lease.display()));
    let on_palace = procs::serving(procs, &paths.palace);
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
    let wiring = Wiring::read(&inputs.env, &inputs.cwd);
    let registrations = wiring.active();
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
        "{lease_text}; {children} local child(ren){}{}",
        if hub_live { ", behind a live hub" } else { "" },
        owner_note(&inputs.env, &paths, &on_palace)
    );
    c
}

/// `, the child of mpt's own edge owner …` when the palace's children are its, with the command
/// that frees the palace (a lingering owner keeps its child MPT_EDGE_GRACE_MS after its last
/// session).
fn owner_note(
    env: &mpt_base::config::Env,
    paths: &mpt_palace::PalacePaths,
    on_palace: &[&Proc],
) -> String {
    let Some(o) = mpt_edge::stop::OwnerHold::of(env, &paths.home, &paths.palace) else {
        return String::new();
    };
    if !on_palace.iter().any(|p| o.holds_as(p.pid)) {
        return String::new();
    }
    let frees = if o.sessions.is_empty() {
        " (`mpt edge stop` frees the palace)"
    } else {
        ""
    };
    format!(", the child of {}{frees}", o.described())
}
