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
mod types;

pub use apply::{Applied, Change, Holder, apply};
pub use scan::{Kind, ScanSet};
use types::cannot_run;
pub use types::{ApplyFn, CheckFn, Finding, Inputs, Phase, State, Step, StepDef};

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

#[cfg(test)]
mod tests;
