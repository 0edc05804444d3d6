//! The check table: every entry is found by its id and runs the check that reports that id, so
//! `--check ID` can neither miss a check nor run another one.

use std::collections::BTreeSet;

use super::*;
use mpt_base::config::{Config, Env};

#[test]
fn every_check_is_reachable_by_its_id() {
    let ids: BTreeSet<&str> = CHECKS.iter().map(|d| d.id).collect();
    assert_eq!(ids.len(), CHECKS.len(), "check ids are unique");
    for def in CHECKS {
        let found = check_def(def.id).expect("found by id");
        assert!(std::ptr::eq(found, def), "{} finds its own entry", def.id);
    }
    assert!(check_def("no-such-check").is_none());
}

#[test]
fn every_check_runs_as_its_own_id_offline() {
    let home = tempfile::tempdir().unwrap();
    let env = Env::from_pairs([("HOME", home.path().to_str().unwrap())]);
    let inputs = Inputs {
        config: Config::load(&env, None),
        env,
        cwd: home.path().to_path_buf(),
        offline: true,
        show_child_stderr: false,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for def in CHECKS {
        let only = rt.block_on(run(&inputs, &[def.id.to_string()]));
        assert_eq!(only.len(), 1, "{}", def.id);
        assert_eq!((only[0].id, only[0].title), (def.id, def.title));
    }
    let all = rt.block_on(run(&inputs, &[]));
    let ran: Vec<&str> = all.iter().map(|c| c.id).collect();
    let table: Vec<&str> = CHECKS.iter().map(|d| d.id).collect();
    assert_eq!(ran, table);
}
