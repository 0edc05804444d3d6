//! Step `provenance` (RFC 001 §7.3, impossible to backfill): a device name set, and a path that
//! stamps it for each harness here: the deployed pi extension's version gate, or `mpt edge`.

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
        let active = w.active();
        if active.iter().any(|e| e.kind == EntryKind::Edge) {
            ok.push("opencode: its entry runs `mpt edge`, which stamps".into());
        } else if active.is_empty() {
            ok.push("opencode: no MemPalace entry, so nothing of it writes to a palace".into());
        } else {
            missing.push("opencode: its entry runs MemPalace directly; nothing stamps its writes: `mpt edge wire opencode`".into());
        }
    }
    if ok.is_empty() && missing.is_empty() {
        return Step::new(
            id,
            State::NotApplicable,
            "no harness (pi, opencode) is set up for this user",
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
