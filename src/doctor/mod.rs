//! `mpt doctor`'s engine: each check finds one failure that looks like success, says why it
//! matters and names the one fix. Checks return data; the command prints it.

mod empty_primary;
mod extension;
mod fleet;
mod gateway;
mod graph;
mod mailbox;
mod pull;
mod queue;
mod remote_entry;
mod settings;
mod transport;
mod types;
mod writers;

use std::sync::OnceLock;

use types::config_broken;
pub use types::{Check, CheckDef, CheckFuture, Finding, Inputs, Probe, Status};

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
        id: "mailbox",
        title: "asks pushed live or polled",
        needs_config: true,
        run: |p| Box::pin(mailbox::check(p.inputs)),
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

/// Runs every check (or only `only`), in order.
pub async fn run(inputs: &Inputs, only: &[String]) -> Vec<Check> {
    let probe = Probe {
        inputs,
        procs: OnceLock::new(),
    };
    let mut out = Vec::new();
    // In the table's order, each once, however often `--check` named it.
    for def in CHECKS
        .iter()
        .filter(|d| only.is_empty() || only.iter().any(|o| o == d.id))
    {
        out.push(match &inputs.config {
            Err(e) if def.needs_config => config_broken(def.id, e),
            _ => (def.run)(&probe).await,
        });
    }
    out
}

#[cfg(test)]
mod tests;
