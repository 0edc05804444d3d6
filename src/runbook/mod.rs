//! `mpt runbook`'s engine: RFC 001's phases (§7, §8) as steps that each check where this machine
//! stands, say why, and (where safe) apply with a backup, a read-back and an undo line.

mod apply;
mod backup;
mod binds;
mod compose;
mod credentials;
mod docs;
mod edge_opt_in;
mod env_file;
mod gateway;
mod gateway_apply;
mod kg;
mod kg_move;
mod primary;
mod provenance;
mod scan;
mod seed;
mod serve_configs;
mod serve_line;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Serialize;

pub use apply::{Applied, Change, Holder, apply};
pub use scan::{Kind, ScanSet};

use crate::error::Result;

use crate::config::{Config, Env};
use crate::error::MptError;
use crate::palace::PalacePaths;
use crate::palace::procs::{self, Proc};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Phase0,
    Phase1,
    Phase2,
    /// Per-device tokens behind `mpt gateway` (RFC 001 §6, §8): part of a plain `mpt runbook`
    /// only where it is in use (`gateway::in_use`).
    Phase4,
}

impl Phase {
    pub fn parse(s: &str) -> Option<Phase> {
        match s {
            "phase0" | "0" => Some(Phase::Phase0),
            "phase1" | "1" => Some(Phase::Phase1),
            "phase2" | "2" => Some(Phase::Phase2),
            "phase4" | "4" => Some(Phase::Phase4),
            _ => None,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Phase::Phase0 => "Phase 0: hygiene, before any cutover (RFC 001 §7)",
            Phase::Phase1 => "Phase 1: the primary up (mempalace serve)",
            Phase::Phase2 => "Phase 2: the edge, opt-in only",
            Phase::Phase4 => "Phase 4: a token per device behind mpt gateway (RFC 001 §6, §8)",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Done,
    ToDo,
    Blocked,
    NotApplicable,
}

impl State {
    pub fn label(self) -> &'static str {
        match self {
            State::Done => "done",
            State::ToDo => "to do",
            State::Blocked => "blocked",
            State::NotApplicable => "not applicable",
        }
    }
}

/// One place a step found something: a file and line, what is wrong, and the line to put there.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub file: PathBuf,
    /// 0 when the finding is about the whole file (its mode, git) or a process.
    pub line: usize,
    pub what: String,
    /// The offending line, secrets redacted.
    pub text: Option<String>,
    pub replacement: Option<String>,
}

impl Finding {
    pub fn at(file: &Path, line: usize, what: impl Into<String>) -> Finding {
        Finding {
            file: file.to_path_buf(),
            line,
            what: what.into(),
            text: None,
            replacement: None,
        }
    }

    pub fn text(mut self, line: &str) -> Finding {
        self.text = Some(crate::palace::hygiene::redact(line.trim()));
        self
    }

    pub fn replacement(mut self, r: impl Into<String>) -> Finding {
        self.replacement = Some(r.into());
        self
    }

    pub fn location(&self) -> String {
        if self.line > 0 {
            format!("{}:{}", self.file.display(), self.line)
        } else {
            self.file.display().to_string()
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub id: &'static str,
    pub phase: Phase,
    pub title: &'static str,
    pub state: State,
    pub summary: String,
    pub evidence: Vec<String>,
    pub findings: Vec<Finding>,
    /// What `mpt runbook apply ID --yes` would do, when the step is automated and not done.
    pub apply: Option<String>,
    /// What to do (or decide) by hand.
    pub manual: Option<String>,
    /// `mpt runbook apply` can do this step.
    pub automated: bool,
}

impl Step {
    fn new(id: &'static str, state: State, summary: impl Into<String>) -> Step {
        let def = step_def(id).expect("every step is in STEPS");
        Step {
            id,
            phase: def.phase,
            title: def.title,
            state,
            summary: summary.into(),
            evidence: Vec::new(),
            findings: Vec::new(),
            apply: None,
            manual: None,
            automated: def.apply.is_some(),
        }
    }

    fn evidence(mut self, line: impl Into<String>) -> Step {
        self.evidence.push(line.into());
        self
    }

    fn manual(mut self, m: impl Into<String>) -> Step {
        self.manual = Some(m.into());
        self
    }

    /// Done when nothing was found, else to do: the common shape of a scanning step.
    fn from_findings(
        id: &'static str,
        findings: Vec<Finding>,
        clean: impl Into<String>,
        found: impl FnOnce(usize) -> String,
    ) -> Step {
        if findings.is_empty() {
            return Step::new(id, State::Done, clean);
        }
        let mut s = Step::new(id, State::ToDo, found(findings.len()));
        s.findings = findings;
        s
    }
}

/// Checks where this machine stands on one step.
pub type CheckFn = fn(&Inputs, &ScanSet) -> Step;
/// Applies one step: a dry run unless `yes`, else the change with backup, read-back and undo.
pub type ApplyFn = fn(&Inputs, &ScanSet, bool) -> Result<Applied>;

/// One runbook step: its id, phase and title, how it is checked and (when automated) applied.
pub struct StepDef {
    pub id: &'static str,
    pub phase: Phase,
    pub title: &'static str,
    pub check: CheckFn,
    /// `mpt runbook apply ID` can do this step.
    pub apply: Option<ApplyFn>,
}

/// Every step, in the order it runs and prints.
pub static STEPS: &[StepDef] = &[
    StepDef {
        id: "kg-location",
        phase: Phase::Phase0,
        title: "one knowledge graph, palace-local, that every process finds",
        check: |i, _| kg::check(i),
        apply: Some(kg_move::apply),
    },
    StepDef {
        id: "provenance",
        phase: Phase::Phase0,
        title: "a device name and a path that stamps it",
        check: provenance::check,
        apply: None,
    },
    StepDef {
        id: "no-sync",
        phase: Phase::Phase0,
        title: "no `mempalace sync` that could reach a shared palace",
        check: |_, s| docs::no_sync(s),
        apply: None,
    },
    StepDef {
        id: "credentials",
        phase: Phase::Phase0,
        title: "the token only in .env or the token file (0600, gitignored), never in compose or argv",
        check: credentials::check,
        apply: Some(credentials::apply),
    },
    StepDef {
        id: "stale-docs",
        phase: Phase::Phase0,
        title: "no doc advertises the unauthenticated transport or an http:// primary",
        check: |_, s| docs::stale(s),
        apply: None,
    },
    StepDef {
        id: "serve-bind",
        phase: Phase::Phase1,
        title: "the primary binds the docker0 gateway, not the LAN or loopback",
        check: primary::check_bind,
        apply: None,
    },
    StepDef {
        id: "serve-token",
        phase: Phase::Phase1,
        title: "the primary requires a token",
        check: primary::check_token,
        apply: None,
    },
    StepDef {
        id: "serve-tls",
        phase: Phase::Phase1,
        title: "TLS on a bind other machines reach",
        check: primary::check_tls,
        apply: None,
    },
    StepDef {
        id: "serve-port",
        phase: Phase::Phase1,
        title: "the primary's port is free",
        check: primary::check_port,
        apply: None,
    },
    StepDef {
        id: "edge-wiring",
        phase: Phase::Phase2,
        title: "each harness wired as the opt-in says",
        check: |i, _| edge_opt_in::wiring(i),
        apply: None,
    },
    StepDef {
        id: "palace-volume",
        phase: Phase::Phase2,
        title: "the local palace persisted under edge mode",
        check: |i, _| edge_opt_in::volume(i),
        apply: None,
    },
    StepDef {
        id: "seed-primary",
        phase: Phase::Phase2,
        title: "the primary seeded with this device's memory (`mpt outbox backfill`)",
        check: |i, _| seed::check(i),
        apply: None,
    },
    StepDef {
        id: "r1",
        phase: Phase::Phase2,
        title: "R1: with no MEMPALACE_* set, no edge in any path",
        check: |i, _| edge_opt_in::r1(i),
        apply: None,
    },
    StepDef {
        id: "gateway-front",
        phase: Phase::Phase4,
        title: "`serve` bound to loopback, `mpt gateway` in front of it",
        check: gateway::front,
        apply: None,
    },
    StepDef {
        id: "gateway-policy",
        phase: Phase::Phase4,
        title: "a policy that parses and names every device",
        check: gateway::policy,
        apply: Some(gateway_apply::policy),
    },
    StepDef {
        id: "gateway-tokens",
        phase: Phase::Phase4,
        title: "each device its own token (the shared one gone from devices)",
        check: |i, _| gateway::tokens(i),
        apply: None,
    },
    StepDef {
        id: "gateway-audit",
        phase: Phase::Phase4,
        title: "the gateway's audit chain verifies",
        check: |i, _| gateway::audit(i),
        apply: None,
    },
    StepDef {
        id: "gateway-modes",
        phase: Phase::Phase4,
        title: "the gateway's folder 0700, its token and audit files 0600",
        check: |i, _| gateway::modes(i),
        apply: Some(gateway_apply::modes),
    },
];

/// The step named `id`.
pub fn step_def(id: &str) -> Option<&'static StepDef> {
    STEPS.iter().find(|d| d.id == id)
}

/// What the steps read.
pub struct Inputs {
    pub env: Env,
    pub config: Result<Config, MptError>,
    /// `--mpt-config`: the config file named on the command line, read again by a step that
    /// must see past a configuration that refuses to load (the token file at 0644).
    pub config_flag: Option<PathBuf>,
    pub cwd: PathBuf,
    /// `--scan`: extra files and folders to search.
    pub scan: Vec<PathBuf>,
    /// `--serve-cmd`: the primary's command line, judged instead of what is found.
    pub serve_cmd: Option<String>,
    /// `--bind-ok`: a loopback or LAN bind chosen on purpose (else the config's `serve_bind`).
    pub bind_ok: Option<crate::config::ServeBind>,
    /// `--palace`: the palace (else the config's, else MemPalace's own rules).
    pub palace: Option<PathBuf>,
    /// `--device`: the fleet's device names, for a starter gateway policy.
    pub devices: Vec<String>,
    /// The processes, read from `/proc` once per run (`Inputs::procs`).
    pub procs_cache: OnceLock<(Vec<Proc>, Vec<Proc>)>,
}

impl Inputs {
    /// Every readable process, and this user's (same uid and HOME): read once, shared by steps.
    pub fn procs(&self) -> (&[Proc], &[Proc]) {
        let (all, mine) = self.procs_cache.get_or_init(|| {
            let all = procs::list();
            let mine = match self.env.home() {
                Ok(h) => procs::mine(&all, &h),
                Err(_) => Vec::new(),
            };
            (all, mine)
        });
        (all, mine)
    }

    pub fn palace(&self) -> Result<PalacePaths, MptError> {
        PalacePaths::chosen(&self.env, self.palace.as_deref(), self.config.as_ref().ok())
    }

    /// The primary's bind chosen on purpose, and where that was said (`--bind-ok` wins over
    /// the config's `serve_bind`).
    pub fn deliberate_bind(&self) -> Option<(crate::config::ServeBind, String)> {
        if let Some(b) = self.bind_ok {
            return Some((b, format!("--bind-ok {}", bind_name(b))));
        }
        let c = self.config.as_ref().ok()?;
        let b = c.file.serve_bind?;
        let file = c
            .file_path
            .as_ref()
            .map_or("the mpt config".into(), |p| p.display().to_string());
        Some((b, format!("serve_bind \"{}\" in {file}", bind_name(b))))
    }
}

fn bind_name(b: crate::config::ServeBind) -> &'static str {
    match b {
        crate::config::ServeBind::Loopback => "loopback",
        crate::config::ServeBind::Lan => "lan",
    }
}

/// Runs the steps of `phases`, in order; none named: Phases 0-2, and Phase 4 where this host or
/// device uses `mpt gateway`.
pub fn run(inputs: &Inputs, phases: &[Phase]) -> Vec<Step> {
    let scan = ScanSet::collect(inputs);
    let with_gateway = phases.is_empty() && gateway::in_use(inputs);
    STEPS
        .iter()
        .filter(|d| {
            phases.contains(&d.phase)
                || (phases.is_empty() && (d.phase != Phase::Phase4 || with_gateway))
        })
        .map(|d| (d.check)(inputs, &scan))
        .collect()
}

/// A step that cannot run because the configuration or the palace does not resolve.
fn cannot_run(id: &'static str, e: &MptError) -> Step {
    Step::new(id, State::Blocked, format!("not checked: {}", e.message)).manual(
        e.hint
            .clone()
            .unwrap_or_else(|| "fix the configuration".into()),
    )
}

#[cfg(test)]
mod tests;
