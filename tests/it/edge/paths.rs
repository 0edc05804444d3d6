//! Where `mpt edge` keeps its files, through a real child: the owner's socket stays short under a
//! long HOME, and the state folder and owner log it creates are private (issue 12, items 8, 11).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::support::harness::Harness;
use crate::support::{TestEnv, testbed};

/// A HOME exactly `len` characters long inside the test's folder, with the seeded model cache.
fn home_of_length(env: &TestEnv, len: usize) -> PathBuf {
    let base = env.dir.path().join("h");
    let pad = len - base.as_os_str().len() - 1;
    let home = base.join("x".repeat(pad));
    assert_eq!(home.as_os_str().len(), len);
    std::fs::create_dir_all(home.join(".cache")).unwrap();
    std::os::unix::fs::symlink(
        testbed().join("model-home/.cache/chroma"),
        home.join(".cache/chroma"),
    )
    .unwrap();
    home
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn an_edge_under_an_80_character_home_answers_initialize_and_tools_list() {
    let env = TestEnv::new();
    let home = home_of_length(&env, 80);
    let palace = env.palace("local");
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap()],
        &[("HOME", home.to_str().unwrap())],
    );
    h.owner_lock_dir = home.join(".mempalace/edge");
    let init = h.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "mempalace", "{init}");
    let tools = h.request("tools/list", json!({}));
    assert!(
        !tools["result"]["tools"].as_array().unwrap().is_empty(),
        "{tools}"
    );
    assert!(h.close().success());
}

#[test]
fn the_edge_state_folder_is_0700_and_the_owner_log_0600() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let edge_dir = env.home().join(".mempalace/edge");
    assert!(!edge_dir.exists());
    let mut h = Harness::start(&env, &["--palace", palace.to_str().unwrap()], &[]);
    h.initialize();
    assert_eq!(mode(&edge_dir), 0o700);
    let logs: Vec<PathBuf> = std::fs::read_dir(&edge_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".owner.log"))
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(mode(&logs[0]), 0o600);
    assert!(h.close().success());
}
