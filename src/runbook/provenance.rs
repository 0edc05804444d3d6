//! Step `provenance` (RFC 001 §7.3, impossible to backfill): a device name set, and a path that
//! stamps it for each harness here: the deployed pi extension's version gate, `mpt edge`, or the gateway.

use super::edge_opt_in::mpt_shim;
use super::scan::{Kind, ScanSet};
use super::{Inputs, State, Step};
use mpt_palace::harness::opencode::{EntryKind, Wiring};
use mpt_palace::harness::pi;

const DEVICE: &str = "MEMPALACE_PI_DEVICE";

/// Where the device name is set: the environment, or an `.env` / compose line.
fn device(inputs: &Inputs, scan: &ScanSet) -> Option<(String, String)> {
    if let Some(d) = inputs.env.get(DEVICE) {
        return Some(("the environment".into(), d.to_string()));
    }
    for f in scan.of(|k| matches!(k, Kind::Env | Kind::Compose)) {
        for (n, line) in f.lines() {
            let l = line
                .trim()
                .trim_start_matches("- ")
                .trim_start_matches("export ");
            if l.starts_with('#') {
                continue;
            }
            let Some(rest) = l.strip_prefix(DEVICE) else {
                continue;
            };
            let v = rest
                .trim_start_matches(['=', ':', ' '])
                .trim_matches(['"', '\'']);
            if !v.is_empty() && !v.starts_with('$') {
                return Some((format!("{}:{n}", f.path.display()), v.to_string()));
            }
        }
    }
    None
}

pub fn check(inputs: &Inputs, scan: &ScanSet) -> Step {
    let id = "provenance";
    let mut ok = Vec::new();
    let mut missing = Vec::new();
    if let Ok(dir) = pi::agent_dir(&inputs.env)
        && dir.exists()
    {
        match pi::extension(&dir) {
            Ok(Some(ext)) if ext.count(DEVICE) > 0 => ok.push(format!(
                "pi: the deployed extension {} stamps ({} {DEVICE} line(s))",
                ext.resolved.display(),
                ext.count(DEVICE)
            )),
            Ok(ext) => match mpt_shim(&inputs.env) {
                Some(shim) => ok.push(format!(
                    "pi: mempalace-mcp on PATH is mpt ({}): `mpt edge` stamps",
                    shim.display()
                )),
                None => missing.push(format!(
                    "pi: {} cannot stamp: update the extension (toolkit 553d8657, 2026-08-25) or `mpt edge wire pi`",
                    ext.map_or("no extension deployed".into(), |e| format!(
                        "the deployed extension {}",
                        e.resolved.display()
                    ))
                )),
            },
            Err(e) => missing.push(format!("pi: {}", e.message)),
        }
    }
    let w = Wiring::read(&inputs.env, &inputs.cwd);
    if w.installed() {
        let kinds: Vec<EntryKind> = w.active().iter().map(|e| e.kind).collect();
        Stamps::of("opencode", strongest(&kinds), "mpt edge wire opencode")
            .sort_into(&mut ok, &mut missing);
    }
    if let Some(line) = claude_stamps(inputs) {
        line.sort_into(&mut ok, &mut missing);
    }
    if let Some(line) = codex_stamps(inputs) {
        line.sort_into(&mut ok, &mut missing);
    }
    if ok.is_empty() && missing.is_empty() {
        return Step::new(
            id,
            State::NotApplicable,
            "no harness (pi, opencode, Claude Code, Codex) is set up for this user",
        );
    }
    let dev = device(inputs, scan);
    let state = if dev.is_some() && missing.is_empty() {
        State::Done
    } else {
        State::ToDo
    };
    let summary = match (&dev, missing.len()) {
        (Some((_, d)), 0) => format!("device '{d}' set and every harness here stamps it"),
        (Some((_, d)), n) => format!("device '{d}' set, but {n} harness(es) cannot stamp it"),
        (None, _) => format!(
            "{DEVICE} is not set: every record from this machine says which agent wrote it, never which machine"
        ),
    };
    let mut s = Step::new(id, state, summary);
    s = s.evidence(match &dev {
        Some((w, d)) => format!("{DEVICE}={d} ({w})"),
        None => {
            format!("{DEVICE}: not in the environment, nor in an .env or compose file searched")
        }
    });
    for e in ok.iter().chain(&missing) {
        s = s.evidence(e.clone());
    }
    s.evidence.push("stamping needs both gates: the device name AND a remote URL; set the name now so every write after the cutover carries it".into());
    if state == State::ToDo {
        s = s.manual(format!(
            "set {DEVICE}=<this machine's name> in .env (containers) or your shell rc (native); give each harness a stamping path as listed"
        ));
    }
    s
}

/// One harness's answer: it stamps (or writes nowhere), or it cannot, with the fix.
enum Stamps {
    Yes(String),
    No(String),
}

impl Stamps {
    fn sort_into(self, ok: &mut Vec<String>, missing: &mut Vec<String>) {
        match self {
            Stamps::Yes(l) => ok.push(l),
            Stamps::No(l) => missing.push(l),
        }
    }

    /// What an entry of `kind` means for `harness`'s writes; `fix` wires it to the edge.
    fn of(harness: &str, kind: Option<EntryKind>, fix: &str) -> Stamps {
        match kind {
            Some(EntryKind::Edge) => Stamps::Yes(format!(
                "{harness}: its entry runs `mpt edge`, which stamps"
            )),
            Some(EntryKind::Remote) => Stamps::Yes(format!(
                "{harness}: its entry is remote: `mpt gateway` stamps the device its token names (a bare `mempalace serve` stamps nothing)"
            )),
            Some(EntryKind::Mempalace) => Stamps::No(format!(
                "{harness}: its entry runs MemPalace directly; nothing stamps its writes: `{fix}`"
            )),
            None => Stamps::Yes(format!(
                "{harness}: no MemPalace entry, so nothing of it writes to a palace"
            )),
        }
    }
}

/// Of a harness's active entries, the one that stamps if any: the edge's, then a remote one.
fn strongest(kinds: &[EntryKind]) -> Option<EntryKind> {
    [EntryKind::Edge, EntryKind::Remote, EntryKind::Mempalace]
        .into_iter()
        .find(|k| kinds.contains(k))
}

/// Claude Code's user-scope entry (the one its sessions use outside a wired folder), when it is
/// set up here: the edge's first, then a remote one.
fn claude_stamps(inputs: &Inputs) -> Option<Stamps> {
    use mpt_palace::harness::claude;
    let home = inputs.env.home().ok()?;
    let w = claude::Wiring::read(&inputs.env, &home, &inputs.cwd);
    if !w.installed {
        return None;
    }
    let kinds: Vec<EntryKind> = w.user().iter().map(|e| e.kind).collect();
    Some(Stamps::of(
        "claude",
        strongest(&kinds),
        "mpt edge wire claude",
    ))
}

/// Codex's entry, when Codex is set up here (a `config.toml` Codex cannot read is the edge-wiring
/// step's finding, not this one's).
fn codex_stamps(inputs: &Inputs) -> Option<Stamps> {
    use mpt_palace::harness::{codex, wire};
    let home = inputs.env.home().ok()?;
    if !codex::home_dir(&inputs.env, &home).is_dir() {
        return None;
    }
    let entry = wire::codex::entry(&codex::config_file(&inputs.env, &home)).ok()?;
    Some(Stamps::of(
        "codex",
        entry.map(|e| e.kind),
        "mpt edge wire codex",
    ))
}
