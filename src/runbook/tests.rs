//! The step table: every entry is found by its id and its check reports that id, so a step can
//! be neither unreachable nor answered by another step's check.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

use super::*;
use mpt_base::config::{Config, Env};

fn hermetic_inputs(home: &Path) -> Inputs {
    let env = Env::from_pairs([("HOME", home.to_str().unwrap())]);
    Inputs {
        config: Config::load(&env, None),
        config_flag: None,
        env,
        cwd: home.to_path_buf(),
        scan: Vec::new(),
        serve_cmd: None,
        bind_ok: None,
        palace: None,
        devices: Vec::new(),
        procs_cache: OnceLock::new(),
    }
}

#[test]
fn every_step_is_reachable_by_its_id() {
    let ids: BTreeSet<&str> = STEPS.iter().map(|d| d.id).collect();
    assert_eq!(ids.len(), STEPS.len(), "step ids are unique");
    for def in STEPS {
        let found = step_def(def.id).expect("found by id");
        assert!(std::ptr::eq(found, def), "{} finds its own entry", def.id);
    }
    assert!(step_def("no-such-step").is_none());
}

#[test]
fn every_check_reports_its_own_step() {
    let home = tempfile::tempdir().unwrap();
    let inputs = hermetic_inputs(home.path());
    let scan = ScanSet::collect(&inputs);
    for def in STEPS {
        let step = (def.check)(&inputs, &scan);
        assert_eq!(step.id, def.id);
        assert_eq!(step.phase, def.phase, "{}", def.id);
        assert_eq!(step.automated, def.apply.is_some(), "{}", def.id);
    }
}

#[test]
fn only_the_safe_and_reversible_steps_are_automated() {
    let automated: Vec<&str> = STEPS
        .iter()
        .filter(|d| d.apply.is_some())
        .map(|d| d.id)
        .collect();
    assert_eq!(
        automated,
        [
            "kg-location",
            "credentials",
            "gateway-policy",
            "gateway-modes"
        ]
    );
}

#[test]
fn applying_a_manual_step_is_refused_by_the_table() {
    let home = tempfile::tempdir().unwrap();
    let inputs = hermetic_inputs(home.path());
    let e = apply(&inputs, "serve-tls", false).unwrap_err();
    assert!(e.message.contains("not automated"), "{}", e.message);
    let e = apply(&inputs, "nope", false).unwrap_err();
    assert!(e.message.contains("no step 'nope'"), "{}", e.message);
}
