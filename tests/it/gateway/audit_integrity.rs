//! The audit against an attacker and a new user (issue 55): one gateway per folder, a log removed
//! or cut under a running gateway stops its writes, a cut front or a removed file is reported by
//! `verify`, pruning is recorded, and a policy others may write is refused.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::gateway::{Gateway, Setup, call, mpt, payload};
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
    let first = add(s.gw.port, &s.token("mem"), "the first goes on");
    assert_eq!(payload(&first)["success"], true, "{}", first.text());
    let mut s = s;
    s.gw.stop();
    assert!(
        s.gw.stderr().contains("stopped serving"),
        "the gateway says when it stops: {}",
        s.gw.stderr()
    );
}

#[test]
fn a_log_removed_or_cut_under_a_running_gateway_stops_its_writes() {
    for cut in [false, true] {
        let s = Setup::new(json!({"mem": {"role": "member"}}));
        let mem = s.token("mem");
        let before = add(s.gw.port, &mem, "before");
        assert_eq!(payload(&before)["success"], true, "{}", before.text());
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

/// Many short requests, each a record or two.
fn traffic(port: u16, token: &str, n: usize) {
    for _ in 0..n {
        let r = crate::support::gateway::post(
            port,
            token,
            r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#,
        );
        assert_eq!(r.status, 200);
    }
}

#[test]
fn a_cut_front_and_a_removed_file_are_reported_and_an_honest_pruning_is_not() {
    let env = TestEnv::new();
    let (p, dir) = crate::support::gateway::primary_and_dir(
        &env,
        &crate::support::gateway::policy(json!({"mem": {"role": "member"}})),
    );
    let mem = crate::support::gateway::issue(&env, &dir, "mem", &[]);
    let small = [("MPT_GATEWAY_AUDIT_MAX_BYTES", "2000")];
    let mut gw = Gateway::start(&env, &dir, &p.base_url(), &[], &small);
    traffic(gw.port, &mem, 30);
    gw.stop();
    let (code, v) = verify(&env, &dir);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["start"]["seq"], 1, "{v}");
    let mut rotated: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("audit-")
        })
        .collect();
    rotated.sort();
    assert!(rotated.len() >= 3, "{rotated:?}");

    // The first file moved away: the front is cut.
    let aside = dir.join("aside.jsonl");
    std::fs::rename(&rotated[0], &aside).unwrap();
    let (code, v) = verify(&env, &dir);
    assert_eq!(code, Some(3), "{v}");
    let why = v["bad"]["why"].as_str().unwrap();
    assert!(why.contains("before it are missing"), "{why}");
    std::fs::rename(&aside, &rotated[0]).unwrap();
    // A file in the middle moved away: the link breaks.
    std::fs::rename(&rotated[1], &aside).unwrap();
    let (code, v) = verify(&env, &dir);
    assert_eq!(code, Some(3), "{v}");
    std::fs::rename(&aside, &rotated[1]).unwrap();
    assert_eq!(verify(&env, &dir).0, Some(0));

    // A retention of a few KiB: the running gateway prunes at its next rotation, recorded.
    let keep = [
        ("MPT_GATEWAY_AUDIT_MAX_BYTES", "2000"),
        ("MPT_GATEWAY_AUDIT_KEEP_BYTES", "5000"),
    ];
    let mut gw = Gateway::start(&env, &dir, &p.base_url(), &[], &keep);
    traffic(gw.port, &mem, 10);
    assert!(
        crate::support::wait_for(30.0, || !rotated[0].exists()),
        "the oldest file was pruned: {}",
        gw.stderr()
    );
    gw.stop();
    let (code, v) = verify(&env, &dir);
    assert_eq!(code, Some(0), "a recorded pruning verifies: {v}");
    let pruned = v["pruned"].as_array().unwrap();
    assert!(!pruned.is_empty(), "{v}");
    assert_eq!(pruned[0]["pruned"]["from_seq"], 1, "{v}");
    let to = pruned[0]["pruned"]["to_seq"].as_u64().unwrap();
    assert!(v["start"]["seq"].as_u64().unwrap() > to, "{v}");
    // And the restarted gateway goes on with the chain.
    let mut gw = Gateway::start(&env, &dir, &p.base_url(), &[], &keep);
    traffic(gw.port, &mem, 2);
    gw.stop();
    assert_eq!(verify(&env, &dir).0, Some(0));
}

#[test]
fn below_the_free_space_floor_unproven_requests_then_writes_are_refused_and_reads_go_on() {
    let env = TestEnv::new();
    let (p, dir) = crate::support::gateway::primary_and_dir(
        &env,
        &crate::support::gateway::policy(json!({"mem": {"role": "member"}})),
    );
    let mem = crate::support::gateway::issue(&env, &dir, "mem", &[]);
    // A floor above any disk's free space.
    let floor = [("MPT_GATEWAY_FREE_FLOOR", "1152921504606846976")];
    let gw = Gateway::start(&env, &dir, &p.base_url(), &[], &floor);
    let records = || {
        std::fs::read_to_string(dir.join("audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    let before = records();
    let r = crate::support::gateway::post(gw.port, "mptg_nope", "{}");
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.json(), json!({"error": "audit_unavailable"}));
    assert_eq!(
        records(),
        before,
        "a request without a token costs no record"
    );
    let r = add(gw.port, &mem, "must not land");
    assert_eq!(r.status, 503, "{}", r.text());
    let stats = call(gw.port, &mem, "mempalace_kg_stats", json!({}));
    assert!(
        payload(&stats).get("triples").is_some(),
        "reads go on: {}",
        stats.text()
    );
    if let Ok(wings) = p.call("mempalace_list_wings", json!({})) {
        assert!(wings["wings"].get("wing_a").is_none(), "{wings}");
    }
}

#[test]
fn a_policy_others_may_write_is_refused_with_its_fix_and_a_running_gateway_keeps_the_last_good() {
    use std::os::unix::fs::PermissionsExt;
    let s = Setup::new(json!({"mem": {"role": "member"}}));
    let mem = s.token("mem");
    let policy = s.dir.join("policy.json");
    // A running gateway: the loose policy (granting more) is not read; the last good one holds.
    crate::support::gateway::write_policy(
        &s.dir,
        &crate::support::gateway::policy(json!({"mem": {"role": "admin"}})),
    );
    std::fs::set_permissions(&policy, std::fs::Permissions::from_mode(0o666)).unwrap();
    let r = call(
        s.gw.port,
        &mem,
        "mempalace_delete_drawer",
        json!({"drawer_id": "d"}),
    );
    assert_eq!(
        r.json()["result"]["_meta"]["mpt/denial"]["rule"],
        "needs:admin",
        "{}",
        r.text()
    );
    assert!(s.gw.stderr().contains("0666"), "{}", s.gw.stderr());
    // The doctor says it, with the fix.
    let o = s.env.mpt(
        &["--json", "doctor", "--offline"],
        &[("MPT_GATEWAY_DIR", s.dir.to_str().unwrap())],
    );
    let text = crate::support::stdout(&o);
    assert!(text.contains("chmod go-w"), "{text}");
    // A new gateway on it does not start.
    let o = crate::support::gateway::mpt(&s.env, &s.dir, &["gateway", "policy", "check"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("chmod go-w"), "{}", stderr(&o));
}
