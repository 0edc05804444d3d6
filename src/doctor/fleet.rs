//! Checks `half-flip` and `false-positive`: a harness picks its transport once, at load, from ITS
//! environment; a remote machine's local palace is a frozen archive the CLI still reads (not so
//! under the edge, where it is live and holds the writes not flushed yet).

use super::{Check, Inputs, Status};
use mpt_palace::chroma;
use mpt_palace::procs::{self, Proc, Role};

pub fn half_flip(inputs: &Inputs, procs: &[Proc]) -> Check {
    let id = "half-flip";
    // The URL as resolved: the environment, else the config file, whose `remote_url` reaches
    // whatever runs `mpt edge` (opencode's or Claude Code's entry) but not pi's bridge, which reads its
    // environment alone.
    let (shell_url, from_file) = match &inputs.config {
        Ok(c) => (
            c.remote
                .as_ref()
                .map(|r| mpt_base::secrets::redact_url(&r.url)),
            c.origins.remote_url == mpt_base::config::device::Origin::File,
        ),
        Err(_) => (
            inputs
                .env
                .get("MEMPALACE_REMOTE_URL")
                .map(mpt_base::secrets::redact_url),
            false,
        ),
    };
    let harnesses: Vec<&Proc> = procs
        .iter()
        .filter(|p| {
            matches!(
                p.role,
                Some(Role::Pi | Role::Opencode | Role::Claude | Role::Codex)
            )
        })
        // npm's launcher and the native binary it starts are one harness: the launcher's pid.
        .filter(|p| !procs.iter().any(|q| q.pid == p.ppid && q.role == p.role))
        .collect();
    if harnesses.is_empty() {
        return Check::new(
            id,
            Status::Ok,
            "no pi, opencode, Claude Code or Codex of this user is running",
        );
    }
    let mut c = Check::new(id, Status::Ok, "");
    let mut fails = Vec::new();
    let mut warns = Vec::new();
    for h in &harnesses {
        let name = match h.role {
            Some(Role::Pi) => "pi",
            Some(Role::Claude) => "claude",
            Some(Role::Codex) => "codex",
            _ => "opencode",
        };
        let theirs = h.environ().and_then(|e| {
            e.get("MEMPALACE_REMOTE_URL")
                .filter(|v| !v.is_empty())
                .map(|v| mpt_base::secrets::redact_url(v))
        });
        c = c.evidence(format!(
            "pid {} ({name}): MEMPALACE_REMOTE_URL {}",
            h.pid,
            theirs.as_deref().unwrap_or("unset")
        ));
        match (&shell_url, &theirs) {
            (Some(_), None) if from_file && h.role != Some(Role::Pi) => {}
            (Some(_), None) if from_file => fails.push(format!("pid {} ({name}) was started without MEMPALACE_REMOTE_URL: the config file's remote_url reaches `mpt edge`, but pi's bridge reads only its environment, so it still writes to the local palace", h.pid)),
            (Some(_), None) => fails.push(format!("pid {} ({name}) was started without MEMPALACE_REMOTE_URL: it still writes to the local palace", h.pid)),
            (Some(s), Some(t)) if s != t => warns.push(format!("pid {} ({name}) uses {t}, this shell {s}", h.pid)),
            (None, Some(t)) => warns.push(format!("pid {} ({name}) uses the primary {t} while this shell is local", h.pid)),
            _ => {}
        }
    }
    if shell_url.is_some() {
        for child in procs.iter().filter(|p| p.role == Some(Role::Child)) {
            let chain = procs::ancestors(procs, child.pid);
            let through_edge = chain.iter().any(|a| a.role == Some(Role::Edge));
            if let Some(h) = chain.iter().find(|a| {
                matches!(
                    a.role,
                    Some(Role::Pi | Role::Opencode | Role::Claude | Role::Codex)
                )
            }) && !through_edge
            {
                fails.push(format!("pid {} (mempalace-mcp, started by pid {}) serves a harness from the local palace while the URL is set", child.pid, h.pid));
            }
        }
    }
    if let Some(first) = fails.first() {
        c.status = Status::Fail;
        c.summary = first.clone();
        for f in &fails[1..] {
            c = c.evidence(f.clone());
        }
        return c.fix("quit that harness and start it again from a shell that exports MEMPALACE_REMOTE_URL (a GUI launch or a pre-export start keeps the old transport)");
    }
    if let Some(first) = warns.first() {
        c.status = Status::Warn;
        c.summary = first.clone();
        return c
            .fix("restart the harness from a shell with the same MEMPALACE_* exports as this one");
    }
    c.summary = format!(
        "{} running harness(es) on this shell's transport",
        harnesses.len()
    );
    c
}

pub fn false_positive(inputs: &Inputs) -> Check {
    let id = "false-positive";
    let remote = match &inputs.config {
        Ok(c) => c.remote.is_some(),
        Err(_) => inputs.env.get("MEMPALACE_REMOTE_URL").is_some(),
    };
    if !remote {
        return Check::new(
            id,
            Status::Skip,
            "solitary machine (no MEMPALACE_REMOTE_URL): the local palace is the live one",
        );
    }
    let paths = match inputs.palace() {
        Ok(p) => p,
        Err(e) => return Check::new(id, Status::Skip, e.message),
    };
    if edge_opted_in(inputs) {
        return Check::new(
            id,
            Status::Ok,
            format!(
                "under the edge (MEMPALACE_EDGE=1) the local palace {} is live, not an archive: it takes the offline writes and holds those not flushed yet; keep it",
                paths.palace.display()
            ),
        )
        .evidence("the mempalace CLI reads only this local palace; the agent's tools (or `mpt call`) see the shared one through the edge");
    }
    match chroma::drawer_count(&paths.palace) {
        Ok(Some(n)) if n > 0 => Check::new(
            id,
            Status::Warn,
            format!("a local palace with {n} drawers sits at {}: `mempalace status`/`search` here read this frozen archive and look healthy", paths.palace.display()),
        )
        .evidence("the mempalace CLI has no remote support: after the flip it reads and writes this archive, not the shared palace")
        .fix("use the agent's palace tools (or `mpt call`) for the shared palace; mine backfills on the palace host; archive the local palace once `mpt outbox backfill` has sent what only it holds"),
        Ok(_) => Check::new(id, Status::Ok, format!("no local drawers at {}: nothing to mistake for the shared palace", paths.palace.display())),
        Err(e) => Check::new(id, Status::Warn, format!("cannot read the local palace: {}", e.message)),
    }
}

/// `MEMPALACE_EDGE=1`, read through the configuration when it loads (else the raw variable: a
/// broken configuration must not turn a live palace into advice to remove it).
fn edge_opted_in(inputs: &Inputs) -> bool {
    match &inputs.config {
        Ok(c) => c.edge_opt_in,
        Err(_) => inputs.env.edge_opt_in().unwrap_or(false),
    }
}
