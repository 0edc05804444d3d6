//! `mpt doctor`'s engine: each check finds one failure that looks like success, says why it
//! matters and names the one fix. Checks return data; the command prints it.

mod extension;
mod fleet;
mod graph;
mod queue;
mod settings;
mod transport;
mod writers;

use std::path::PathBuf;

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
}

impl Check {
    fn new(id: &'static str, status: Status, summary: impl Into<String>) -> Check {
        let title = CHECKS
            .iter()
            .find(|(i, _)| *i == id)
            .map_or("", |(_, t)| *t);
        Check {
            id,
            title,
            status,
            summary: summary.into(),
            evidence: Vec::new(),
            fix: None,
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
}

/// Every check, in the order it runs and prints.
pub const CHECKS: &[(&str, &str)] = &[
    ("extension", "pi's deployed MemPalace extension"),
    ("config", "settings that silently disable a feature"),
    ("transport", "the transport the bridge picks"),
    ("half-flip", "running harnesses on this shell's transport"),
    (
        "false-positive",
        "a frozen local archive on a remote machine",
    ),
    ("kg-path", "one knowledge graph where every writer finds it"),
    ("embedder", "embedder identity, local and primary"),
    ("writers", "one writer per palace"),
    ("outbox", "writes that will not reach the primary"),
];

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
        let explicit = self
            .config
            .as_ref()
            .ok()
            .and_then(|c| c.file.palace.clone());
        PalacePaths::resolve(&self.env, explicit.as_deref())
    }
}

/// Runs every check (or only `only`), in order.
pub async fn run(inputs: &Inputs, only: Option<&str>) -> Vec<Check> {
    let mut procs_cache: Option<Vec<Proc>> = None;
    let mut out = Vec::new();
    for (id, _) in CHECKS {
        if only.is_some_and(|o| o != *id) {
            continue;
        }
        let mut procs = || -> Vec<Proc> {
            procs_cache.get_or_insert_with(|| match inputs.env.home() {
                Ok(home) => procs::mine(&procs::list(), &home),
                Err(_) => Vec::new(),
            });
            procs_cache.clone().unwrap_or_default()
        };
        let check = match *id {
            "extension" => extension::check(inputs),
            "config" => settings::check(inputs),
            "transport" => transport::check(inputs).await,
            "half-flip" => fleet::half_flip(inputs, &procs()),
            "false-positive" => fleet::false_positive(inputs),
            "kg-path" => graph::kg_path(inputs),
            "embedder" => graph::embedder(inputs).await,
            "writers" => writers::check(inputs, &procs()),
            "outbox" => queue::check(inputs),
            _ => unreachable!("every id in CHECKS is dispatched"),
        };
        out.push(check);
    }
    out
}

/// A check that cannot run because the configuration did not load.
fn config_broken(id: &'static str, e: &MptError) -> Check {
    Check::new(
        id,
        Status::Skip,
        format!(
            "not checked: the configuration does not load ({})",
            e.message
        ),
    )
}
