//! The runbook's values: phases, a step's state, findings and result, the step definition the
//! table is made of, and the inputs every step reads.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Serialize;

use super::apply::Applied;
use super::scan::ScanSet;
use super::step_def;
use mpt_base::config::{Config, Env};
use mpt_base::error::{MptError, Result};
use mpt_palace::PalacePaths;
use mpt_palace::procs::{self, Proc};

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
        self.text = Some(mpt_palace::hygiene::redact(line.trim()));
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
    pub(super) fn new(id: &'static str, state: State, summary: impl Into<String>) -> Step {
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

    pub(super) fn evidence(mut self, line: impl Into<String>) -> Step {
        self.evidence.push(line.into());
        self
    }

    pub(super) fn manual(mut self, m: impl Into<String>) -> Step {
        self.manual = Some(m.into());
        self
    }

    /// Done when nothing was found, else to do: the common shape of a scanning step.
    pub(super) fn from_findings(
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
    pub bind_ok: Option<mpt_base::config::ServeBind>,
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
    pub fn deliberate_bind(&self) -> Option<(mpt_base::config::ServeBind, String)> {
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

fn bind_name(b: mpt_base::config::ServeBind) -> &'static str {
    match b {
        mpt_base::config::ServeBind::Loopback => "loopback",
        mpt_base::config::ServeBind::Lan => "lan",
    }
}

/// A step that cannot run because the configuration or the palace does not resolve.
pub(super) fn cannot_run(id: &'static str, e: &MptError) -> Step {
    Step::new(id, State::Blocked, format!("not checked: {}", e.message)).manual(
        e.hint
            .clone()
            .unwrap_or_else(|| "fix the configuration".into()),
    )
}
