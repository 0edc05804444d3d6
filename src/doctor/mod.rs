//! `mpt doctor`'s engine: each check finds one failure that looks like success, says why it
//! matters and names the one fix. Checks return data; the command prints it.

mod empty_primary;
mod extension;
mod fleet;
mod gateway;
mod graph;
mod pull;
mod queue;
mod remote_entry;
mod settings;
mod transport;
mod writers;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::OnceLock;

use serde::Serialize;

use crate::config::{Config, Env};
use crate::error::MptError;
use crate::palace::PalacePaths;
use crate::palace::procs::{self, Proc};

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
    fn new(id: &'static str, status: Status, summary: impl Into<String>) -> Check {
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

    fn evidence(mut self, line: impl Into<String>) -> Check {
        self.evidence.push(line.into());
        self
    }

    fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }

    /// A fix naming `DEVICE` (a gateway token's: `mpt gateway token rotate DEVICE`) names this
    /// device, when it has a name.
    fn for_device(mut self, device: Option<&str>) -> Check {
        self.fix = self.fix.map(|f| crate::mcp::fix_for_device(&f, device));
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

/// Every check, in the order it runs and prints.
pub static CHECKS: &[CheckDef] = &[
    CheckDef {
        id: "extension",
        title: "pi's deployed MemPalace extension",
        needs_config: false,
        run: |p| Box::pin(async { extension::check(p.inputs) }),
    },
    CheckDef {
        id: "config",
        title: "settings that silently disable a feature",
        needs_config: false,
        run: |p| Box::pin(async { settings::check(p.inputs, &|| p.procs()) }),
    },
    CheckDef {
        id: "transport",
        title: "the transport the bridge picks",
        needs_config: true,
        run: |p| Box::pin(transport::check(p.inputs)),
    },
    CheckDef {
        id: "half-flip",
        title: "running harnesses on this shell's transport",
        needs_config: false,
        run: |p| Box::pin(async { fleet::half_flip(p.inputs, p.procs()) }),
    },
    CheckDef {
        id: "false-positive",
        title: "a frozen local archive on a remote machine",
        needs_config: true,
        run: |p| Box::pin(async { fleet::false_positive(p.inputs) }),
    },
    CheckDef {
        id: "kg-path",
        title: "one knowledge graph where every writer finds it",
        needs_config: true,
        run: |p| Box::pin(async { graph::kg_path(p.inputs) }),
    },
    CheckDef {
        id: "embedder",
        title: "embedder identity, local and primary",
        needs_config: true,
        run: |p| Box::pin(graph::embedder(p.inputs)),
    },
    CheckDef {
        id: "writers",
        title: "one writer per palace",
        needs_config: true,
        run: |p| Box::pin(async { writers::check(p.inputs, p.procs()) }),
    },
    CheckDef {
        id: "outbox",
        title: "writes that will not reach the primary",
        needs_config: true,
        run: |p| Box::pin(async { queue::check(p.inputs) }),
    },
    CheckDef {
        id: "pull",
        title: "the pull of the primary's coordination log",
        needs_config: true,
        run: |p| Box::pin(async { pull::check(p.inputs) }),
    },
    CheckDef {
        id: "gateway",
        title: "device tokens of this host's mpt gateway",
        needs_config: false,
        run: |p| Box::pin(async { gateway::check(p.inputs) }),
    },
];

/// The check named `id`.
pub fn check_def(id: &str) -> Option<&'static CheckDef> {
    CHECKS.iter().find(|d| d.id == id)
}

/// What one run hands each check: the inputs, and this user's processes read once when needed.
pub struct Probe<'a> {
    pub inputs: &'a Inputs,
    procs: OnceLock<Vec<Proc>>,
}

impl Probe<'_> {
    fn procs(&self) -> &[Proc] {
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
    fn palace(&self) -> Result<PalacePaths, MptError> {
        PalacePaths::chosen(&self.env, None, self.config.as_ref().ok())
    }
}

/// Runs every check (or only `only`), in order.
pub async fn run(inputs: &Inputs, only: Option<&str>) -> Vec<Check> {
    let probe = Probe {
        inputs,
        procs: OnceLock::new(),
    };
    let mut out = Vec::new();
    for def in CHECKS.iter().filter(|d| only.is_none_or(|o| o == d.id)) {
        out.push(match &inputs.config {
            Err(e) if def.needs_config => config_broken(def.id, e),
            _ => (def.run)(&probe).await,
        });
    }
    out
}

/// A check that needs the configuration, which did not load: a failure naming what is wrong (the
/// error names the variable or the file), never a skip that reads as nothing to worry about.
fn config_broken(id: &'static str, e: &MptError) -> Check {
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

#[cfg(test)]
mod tests;
