//! The audit against an attacker and a new user (issue 55): one gateway per folder, a log removed
//! or cut under a running gateway stops its writes, a cut front or a removed file is reported by
//! `verify`, pruning is recorded, and a policy others may write is refused.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::gateway::{Setup, call, mpt};
use crate::support::{TestEnv, json, stderr};

fn verify(env: &TestEnv, dir: &Path) -> (Option<i32>, Value) {
    let o = mpt(env, dir, &["--json", "gateway", "audit", "verify"]);
    (o.status.code(), json(&o))
}

fn add(port: u16, token: &str, content: &str) -> crate::support::gateway::Reply {
    call(
        port,
        token,
        "mempalace_add_drawer",
        json!({"wing": "wing_a", "room": "r", "content": content}),
    )
}

#[test]
fn a_second_gateway_on_the_folder_is_refused_naming_the_first() {
    let s = Setup::new(json!({"mem": {"role": "member"}}));
    let o = s
        .env
        .mpt_command(&[
            "gateway",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            &s.p.base_url(),
        ])
        .env("MPT_GATEWAY_DIR", &s.dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    let said = stderr(&o);
    assert!(
        said.contains(&format!("pid {}", s.gw.pid())),
        "names the running one: {said}"
    );
    assert_eq!(
        add(s.gw.port, &s.token("mem"), "the first goes on").status,
        200
    );
}

#[test]
fn a_log_removed_or_cut_under_a_running_gateway_stops_its_writes() {
    for cut in [false, true] {
        let s = Setup::new(json!({"mem": {"role": "member"}}));
        let mem = s.token("mem");
        assert_eq!(add(s.gw.port, &mem, "before").status, 200);
        let log = s.dir.join("audit.jsonl");
        if cut {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&log)
                .unwrap()
                .set_len(20)
                .unwrap();
        } else {
            std::fs::remove_file(&log).unwrap();
        }
        let r = add(s.gw.port, &mem, "must not land unaudited");
        assert_eq!(r.status, 503, "cut {cut}: {}", r.text());
        assert_eq!(r.json(), json!({"error": "audit_unavailable"}));
        let said = s.gw.stderr();
        assert!(
            said.contains(if cut { "was cut" } else { "was removed" }),
            "{said}"
        );
        let wings = s.p.call("mempalace_list_wings", json!({})).unwrap();
        assert_eq!(
            wings["wings"]["wing_a"], 1,
            "only the first landed: {wings}"
        );
    }
}
