//! Phase 2 steps: `edge-wiring` (each harness as the opt-in says; `mpt edge wire` changes it),
//! `palace-volume` (the local palace persisted under edge mode), `r1` (no opt-in, no edge).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Finding, Inputs, State, Step, cannot_run};
use mpt_base::config::Env;
use mpt_base::which::which;
use mpt_palace::harness::claude;
use mpt_palace::harness::opencode::{self, EntryKind, Wiring};
use mpt_palace::harness::pi::{self, EDGE_TOKEN};
use mpt_palace::hygiene::ephemeral_fs;
use mpt_palace::procs::Role;

/// `mempalace-mcp` on PATH when it is really `mpt` (a shim): its path.
pub fn mpt_shim(env: &Env) -> Option<PathBuf> {
    let found = which("mempalace-mcp", env)?;
    let real = std::fs::canonicalize(&found).ok()?;
    let me = std::env::current_exe()
        .ok()
        .and_then(|e| std::fs::canonicalize(e).ok());
    if real.file_name().is_some_and(|n| n == "mpt") || me.as_deref() == Some(real.as_path()) {
        return Some(found);
    }
    let mut head = vec![0u8; 4096];
    let n = std::fs::File::open(&real)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let text = String::from_utf8_lossy(&head[..n]);
    let script_runs_edge = text.starts_with("#!")
        && text.lines().any(|l| {
            !l.trim_start().starts_with('#')
                && l.split_whitespace()
                    .any(|w| Path::new(w).file_name().is_some_and(|n| n == "mpt"))
                && l.contains("edge")
        });
    script_runs_edge.then_some(found)
}

/// The opt-in as this machine resolves it: the environment, else the config file.
fn opt_in(inputs: &Inputs) -> String {
    use mpt_base::config::device::Origin;
    let env = &inputs.env;
    let from = |o: Origin| match o {
        Origin::File => " (the config file)",
        _ => "",
    };
    match &inputs.config {
        Ok(c) => format!(
            "opt-in here: MEMPALACE_REMOTE_URL {}{}, MEMPALACE_EDGE {}{}",
            if c.remote.is_some() { "set" } else { "unset" },
            from(c.origins.remote_url),
            u8::from(c.edge_opt_in),
            from(c.origins.edge),
        ),
        Err(_) => format!(
            "opt-in here: MEMPALACE_REMOTE_URL {}, MEMPALACE_EDGE {}",
            if env.get("MEMPALACE_REMOTE_URL").is_some() {
                "set"
            } else {
                "unset"
            },
            env.get("MEMPALACE_EDGE").unwrap_or("unset")
        ),
    }
}

pub fn wiring(inputs: &Inputs) -> Step {
    let id = "edge-wiring";
    let c = match &inputs.config {
        Ok(c) => c,
        Err(e) => return cannot_run(id, e),
    };
    let (remote, edge) = (c.remote.is_some(), c.edge_opt_in);
    let expected = mpt_palace::harness::kind::expected(remote, edge);
    let mut findings = Vec::new();
    let mut evidence = vec![format!("{}: expects {expected:?} entries", opt_in(inputs))];
    let w = Wiring::read(&inputs.env, &inputs.cwd);
    if w.installed() {
        for (f, why) in &w.unparsable {
            findings.push(Finding::at(
                f,
                0,
                format!("does not parse ({why}): opencode may ignore it"),
            ));
        }
        let active = w.active();
        if active.is_empty() {
            let f = w
                .files
                .first()
                .cloned()
                .or_else(|| opencode::global_dir(&inputs.env))
                .unwrap_or_default();
            findings.push(
                Finding::at(
                    &f,
                    0,
                    "opencode registers no MemPalace server: its agent has no palace tools",
                )
                .replacement("mpt edge wire opencode"),
            );
        }
        for e in &active {
            evidence.push(format!(
                "opencode: '{}' in {} is {:?}",
                e.name,
                e.file.display(),
                e.kind
            ));
        }
        for e in w.mismatched(expected) {
            findings.push(
                Finding::at(
                    &e.file,
                    0,
                    format!(
                        "opencode's entry '{}' is {:?} but the opt-in says {expected:?}",
                        e.name, e.kind
                    ),
                )
                .replacement("mpt edge wire opencode"),
            );
        }
    }
    let pi_dir = pi::agent_dir(&inputs.env).ok().filter(|d| d.exists());
    if let Some(dir) = &pi_dir {
        let ext = pi::extension(dir).ok().flatten();
        let branch = ext.as_ref().is_some_and(|e| e.count(EDGE_TOKEN) > 0);
        let shim = mpt_shim(&inputs.env);
        evidence.push(format!(
            "pi: extension edge branch {}, mempalace-mcp on PATH {}",
            if branch { "present" } else { "absent" },
            shim.as_ref()
                .map_or("is MemPalace's own (or absent)".into(), |s| format!(
                    "is mpt ({})",
                    s.display()
                ))
        ));
        if remote && edge && !branch && shim.is_none() {
            let f = ext.map_or(dir.join("extensions/mempalace.ts"), |e| e.resolved);
            findings.push(Finding::at(&f, 0, "MEMPALACE_EDGE=1 with a remote URL, but pi never reaches an edge: the extension goes straight to the primary").replacement("mpt edge wire pi"));
        }
    }
    let claude = claude_wiring(inputs, expected, &mut evidence, &mut findings);
    let codex = codex_wiring(inputs, remote && edge, &mut evidence, &mut findings);
    if !w.installed() && pi_dir.is_none() && !claude && !codex {
        return Step::new(
            id,
            State::NotApplicable,
            "no harness (pi, opencode, Claude Code, Codex) is set up for this user",
        );
    }
    let mut s = Step::from_findings(
        id,
        findings,
        "every harness here is wired as the opt-in says",
        |n| format!("{n} harness wiring(s) disagree with the opt-in"),
    );
    s.evidence = evidence;
    if s.state == State::ToDo {
        s = s.manual("`mpt edge wire <harness>` rewires one harness to match MEMPALACE_REMOTE_URL / MEMPALACE_EDGE (it edits that one entry and nothing else)");
    }
    s
}

/// Claude Code's entries: the user scope as the opt-in says, and no local or project entry
/// shadowing it; whether Claude Code is set up here.
fn claude_wiring(
    inputs: &Inputs,
    expected: EntryKind,
    evidence: &mut Vec<String>,
    findings: &mut Vec<Finding>,
) -> bool {
    let Ok(home) = inputs.env.home() else {
        return false;
    };
    let w = claude::Wiring::read(&inputs.env, &home, &inputs.cwd);
    if !w.installed {
        return false;
    }
    for (f, why) in &w.unparsable {
        findings.push(Finding::at(
            f,
            0,
            format!("does not parse ({why}): Claude Code may ignore it"),
        ));
    }
    for e in &w.entries {
        evidence.push(format!(
            "claude: '{}' in {} ({}) is {}",
            e.name,
            e.file.display(),
            match &e.scope {
                claude::Scope::User => "user scope".to_string(),
                claude::Scope::Local(dir) => format!("local scope of {dir}"),
                claude::Scope::Project => "project scope".to_string(),
            },
            e.kind.label()
        ));
    }
    let user = w.user();
    // Without an opt-in no entry is R1's business: nothing of mpt's goes in.
    if user.is_empty() {
        if expected != EntryKind::Mempalace {
            findings.push(
                Finding::at(
                    &w.state_file,
                    0,
                    "Claude Code has no user-scope MemPalace entry: its sessions outside a wired folder have no palace tools",
                )
                .replacement("mpt edge wire claude"),
            );
        }
    } else {
        for e in user.into_iter().filter(|e| e.kind != expected) {
            findings.push(
                Finding::at(
                    &e.file,
                    0,
                    format!(
                        "Claude Code's user-scope entry '{}' is {} but the opt-in says {}",
                        e.name,
                        e.kind.label(),
                        expected.label()
                    ),
                )
                .replacement("mpt edge wire claude"),
            );
        }
    }
    for e in w.shadowing(expected) {
        findings.push(
            Finding::at(
                &e.file,
                0,
                format!(
                    "Claude Code's {} entry '{}' ({:?}) shadows the user-scope one where it applies",
                    e.kind.label(),
                    e.name,
                    e.scope
                ),
            )
            .replacement("mpt edge wire claude --all-scopes"),
        );
    }
    true
}

/// Codex's entry: the edge (passing mpt's variables on) when opted in, not the edge otherwise;
/// whether Codex is set up here.
fn codex_wiring(
    inputs: &Inputs,
    edge: bool,
    evidence: &mut Vec<String>,
    findings: &mut Vec<Finding>,
) -> bool {
    use mpt_palace::harness::{codex, wire};
    let Ok(home) = inputs.env.home() else {
        return false;
    };
    if !codex::home_dir(&inputs.env, &home).is_dir() {
        return false;
    }
    let file = codex::config_file(&inputs.env, &home);
    let entry = match wire::codex::entry(&file) {
        Ok(e) => e,
        Err(why) => {
            findings.push(Finding::at(
                &file,
                0,
                format!("is not valid TOML ({why}): Codex refuses to start"),
            ));
            return true;
        }
    };
    let is_edge = entry.as_ref().is_some_and(|e| e.kind == EntryKind::Edge);
    evidence.push(match &entry {
        Some(e) => format!(
            "codex: '{}' in {} is {}",
            e.name,
            e.file.display(),
            e.kind.label()
        ),
        None => format!("codex: no MemPalace entry in {}", file.display()),
    });
    let wrong = match (&entry, edge) {
        (_, true) if !is_edge => Some("Codex does not run the edge, but the opt-in says it should"),
        (Some(e), true) if !e.env_vars.iter().any(|v| v == "MEMPALACE_REMOTE_URL") => Some(
            "Codex runs the edge without passing the opt-in on (env_vars): the edge never sees it",
        ),
        (_, false) if is_edge => Some("Codex runs the edge, but this machine is not opted in"),
        _ => None,
    };
    if let Some(what) = wrong {
        findings.push(Finding::at(&file, 0, what).replacement("mpt edge wire codex"));
    }
    true
}

pub fn volume(inputs: &Inputs) -> Step {
    let id = "palace-volume";
    let c = match &inputs.config {
        Ok(c) => c,
        Err(e) => return cannot_run(id, e),
    };
    if !(c.edge_opt_in && c.remote.is_some()) {
        return Step::new(
            id,
            State::NotApplicable,
            "not opted into the edge (MEMPALACE_EDGE=1 with a remote URL): only then must the local palace survive a recreate",
        )
        .evidence(opt_in(inputs));
    }
    let paths = match inputs.palace() {
        Ok(p) => p,
        Err(e) => return cannot_run(id, &e),
    };
    match ephemeral_fs(&paths.palace) {
        Some(fs) => Step::new(id, State::ToDo, format!("the local palace {} is on {fs}: under edge mode it holds the outbox and every local-first write, lost when the container is recreated", paths.palace.display()))
            .manual("uncomment the devbox-palace volume (devbox-palace:/home/developer/.mempalace) in docker-compose.yml before opting in"),
        None => Step::new(id, State::Done, format!("the local palace {} is on a persisted filesystem", paths.palace.display())),
    }
}

pub fn r1(inputs: &Inputs) -> Step {
    let id = "r1";
    // The opt-in is the two variables of RFC 001 §1.2's ladder; knobs (timeouts, hub forwarding)
    // tune MemPalace but opt into nothing.
    let mut opted: Vec<&str> = ["MEMPALACE_REMOTE_URL", "MEMPALACE_EDGE"]
        .into_iter()
        .filter(|k| inputs.env.get(k).is_some_and(|v| v != "0"))
        .collect();
    // Or the config file a user (or `mpt join`) wrote: the only other place an opt-in may live.
    if let Ok(c) = &inputs.config {
        use mpt_base::config::device::Origin;
        if c.origins.remote_url == Origin::File {
            opted.push("remote_url (the config file)");
        }
        if c.origins.edge == Origin::File && c.edge_opt_in {
            opted.push("edge (the config file)");
        }
    }
    let mut findings = Vec::new();
    let mut evidence = vec![if opted.is_empty() {
        "no opt-in (MEMPALACE_REMOTE_URL, MEMPALACE_EDGE) in this environment: nothing of mpt may be in any path".to_string()
    } else {
        format!(
            "this machine opts in with {}: checking the static wiring that would stay if they were removed",
            opted.join(", ")
        )
    }];
    let w = Wiring::read(&inputs.env, &inputs.cwd);
    for e in w.active().into_iter().filter(|e| e.kind == EntryKind::Edge) {
        if opted.is_empty() {
            findings.push(
                Finding::at(
                    &e.file,
                    0,
                    format!(
                        "opencode's entry '{}' runs `mpt edge` with no opt-in",
                        e.name
                    ),
                )
                .replacement("mpt edge wire opencode (back to mempalace-mcp)"),
            );
        } else {
            evidence.push(format!("opencode's entry '{}' in {} runs `mpt edge` statically: commenting out the .env lines leaves it (R6 wants it templated at start)", e.name, e.file.display()));
        }
    }
    if let Some(shim) = mpt_shim(&inputs.env) {
        if opted.is_empty() {
            findings.push(Finding::at(&shim, 0, "mempalace-mcp on PATH is mpt: a solitary session runs mpt instead of MemPalace").replacement("remove the shim from PATH, or `mpt edge wire pi` to undo it"));
        } else {
            evidence.push(format!("mempalace-mcp on PATH is mpt ({})", shim.display()));
        }
    }
    {
        for p in inputs
            .procs()
            .1
            .iter()
            .filter(|p| p.role == Some(Role::Edge))
        {
            let env = p.environ().unwrap_or_default();
            let opted_in = env.get("MEMPALACE_EDGE").is_some_and(|v| v == "1")
                && env
                    .get("MEMPALACE_REMOTE_URL")
                    .is_some_and(|v| !v.is_empty());
            if !opted_in {
                findings.push(
                    Finding::at(
                        Path::new(&format!("/proc/{}", p.pid)),
                        0,
                        format!(
                            "pid {} runs `mpt edge` without MEMPALACE_EDGE=1 and a remote URL: {}",
                            p.pid,
                            mpt_palace::hygiene::redact(&p.command_line())
                        ),
                    )
                    .replacement(
                        "find what starts it (its parent harness entry) and rewire that harness",
                    ),
                );
            } else {
                evidence.push(format!("pid {}: an opted-in `mpt edge`", p.pid));
            }
        }
    }
    let mut s = Step::from_findings(
        id,
        findings,
        "no edge in any path without the opt-in",
        |n| {
            format!(
                "{n} edge path(s) without the opt-in: R1 says a solitary machine runs exactly what it ran before"
            )
        },
    );
    s.evidence = evidence;
    s
}
