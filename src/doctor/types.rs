//! The doctor's values: a check's status, result and findings, the check definition the table is
//! made of, the inputs every check reads, and the probe one run hands them.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::OnceLock;

use serde::Serialize;

use super::check_def;
use mpt_base::config::{Config, Env};
use mpt_base::error::MptError;
use mpt_palace::PalacePaths;
use mpt_palace::procs::{self, Proc};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Skip,
    Ok,
    Warn,
    Fail,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub id: &'static str,
    pub title: &'static str,
    pub status: Status,
    pub summary: String,
    pub evidence: Vec<String>,
    pub fix: Option<String>,
    /// A check that found several things (`config`): each with its own fix, worst first; the
    /// first is also the summary and the fix above.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
}

/// One thing a check found, with the fix for it.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub status: Status,
    pub what: String,
    pub fix: String,
}

impl Check {
    pub(super) fn new(id: &'static str, status: Status, summary: impl Into<String>) -> Check {
        let title = check_def(id).map_or("", |d| d.title);
        Check {
            id,
            title,
            status,
            summary: summary.into(),
            evidence: Vec::new(),
            fix: None,
            findings: Vec::new(),
        }
    }

    pub(super) fn evidence(mut self, line: impl Into<String>) -> Check {
        self.evidence.push(line.into());
        self
    }

    pub(super) fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }

    /// A fix naming `DEVICE` (a gateway token's: `mpt gateway token rotate DEVICE`) names this
    /// device, when it has a name.
    pub(super) fn for_device(mut self, device: Option<&str>) -> Check {
        self.fix = self.fix.map(|f| mpt_mcp::fix_for_device(&f, device));
        self
    }
}

/// A check running: some wait on the network or a child, most return at once.
pub type CheckFuture<'a> = Pin<Box<dyn Future<Output = Check> + 'a>>;

/// One doctor check: its id (`--check ID`), its title, whether it reads what the configuration
/// resolves (the primary, the palace, the outbox), and the function that runs it.
pub struct CheckDef {
    pub id: &'static str,
    pub title: &'static str,
    /// When the configuration does not load, such a check fails without running: what it would
    /// read (the palace, the primary, the outbox) may not be what the configuration names.
    pub needs_config: bool,
    pub run: for<'a> fn(&'a Probe<'a>) -> CheckFuture<'a>,
}

/// What one run hands each check: the inputs, and this user's processes read once when needed.
pub struct Probe<'a> {
    pub inputs: &'a Inputs,
    pub(super) procs: OnceLock<Vec<Proc>>,
}

impl Probe<'_> {
    pub(super) fn procs(&self) -> &[Proc] {
        self.procs
            .get_or_init(|| match self.inputs.env.home() {
                Ok(home) => procs::mine(&procs::list(), &home),
                Err(_) => Vec::new(),
            })
            .as_slice()
    }
}

/// What the checks read: the environment, the configuration (or why it failed to load), the
/// project directory, and whether network and child probes may run.
pub struct Inputs {
    pub env: Env,
    pub config: Result<Config, MptError>,
    pub cwd: PathBuf,
    pub offline: bool,
    pub show_child_stderr: bool,
}

impl Inputs {
    pub(super) fn palace(&self) -> Result<PalacePaths, MptError> {
        PalacePaths::chosen(&self.env, None, self.config.as_ref().ok())
    }
}

/// A check that needs the configuration, which did not load: a failure naming what is wrong (the
/// error names the variable or the file), never a skip that reads as nothing to worry about.
pub(super) fn config_broken(id: &'static str, e: &MptError) -> Check {
    Check::new(
        id,
        Status::Fail,
        format!(
            "not checked: the configuration does not load ({})",
            e.message
        ),
    )
    .fix(
        e.hint
            .clone()
            .unwrap_or_else(|| "fix the setting the message names, then `mpt config`".into()),
    )
}
