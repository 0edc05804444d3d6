//! Policy you can test: `mpt gateway policy check` runs the policy's tests (exit 3 naming a
//! failing one), a running gateway refuses a policy whose tests fail, `explain` names the rule.

use serde_json::{Value, json};

use super::denied;
use crate::support::gateway::{Setup, call, mpt, payload, policy, write_policy};
use crate::support::{json as parse_json, stderr, stdout, wait_for};

fn three_devices(tests: Value) -> Value {
    let mut p = policy(json!({
        "lap": {"role": "member", "wings": {"write": ["wing_lap*"]}, "agents": ["pi"]},
        "desk": {"role": "member", "provenance": "strict"},
        "hub": {"role": "admin"}}));
    p["protected_wings"] = json!(["wing_rules*"]);
    p["tests"] = tests;
    p
}

fn passing() -> Value {
    json!([
        {"name": "lap writes its wing", "device": "lap", "tool": "add_drawer",
         "args": {"wing": "wing_lap", "room": "r", "content": "c"}, "expect": "allow"},
        {"name": "nobody but an admin writes the rules", "device": "desk", "tool": "add_drawer",
         "args": {"wing": "wing_rules", "room": "r", "content": "c"}, "expect": "deny"},
        {"name": "lap cannot move desk's drawer", "device": "lap", "tool": "update_drawer",
         "args": {"drawer_id": "d", "wing": "wing_lap"}, "current": {"wing": "wing_desk"}, "expect": "deny"}
    ])
}

#[test]
fn check_runs_the_tests_and_a_gateway_refuses_a_policy_whose_tests_fail() {
    let s = Setup::with_policy(three_devices(passing()));
    let (env, dir, gw) = (&s.env, &s.dir, &s.gw);
    let o = mpt(env, dir, &["--json", "gateway", "policy", "check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = parse_json(&o);
    assert_eq!(
        (j["ok"].clone(), j["tests"].clone()),
        (json!(true), json!(3))
    );

    // A file elsewhere, one test failing: exit 3 naming it.
    let mut tests = passing();
    tests[0]["args"]["wing"] = json!("wing_desk");
    let other = env.path("candidate.json");
    std::fs::write(&other, three_devices(tests.clone()).to_string()).unwrap();
    let o = mpt(
        env,
        dir,
        &["gateway", "policy", "check", other.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    assert!(stdout(&o).contains("lap writes its wing"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("wings.write:wing_desk"),
        "{}",
        stdout(&o)
    );
    let bad = env.path("bad.json");
    let mut unknown = three_devices(passing());
    unknown["tests"][0]["because"] = json!("x");
    std::fs::write(&bad, unknown.to_string()).unwrap();
    let o = mpt(
        env,
        dir,
        &["gateway", "policy", "check", bad.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(4), "an unknown field: {}", stderr(&o));

    // The running gateway: a policy whose tests fail is not used, loudly.
    let lap = s.token("lap");
    let add = |wing: &str| {
        call(
            gw.port,
            &lap,
            "mempalace_add_drawer",
            json!({"wing": wing, "room": "r", "content": format!("into {wing}")}),
        )
    };
    let mut loosened = three_devices(tests);
    loosened["devices"]["lap"]["wings"]["write"] = json!(["*"]);
    loosened["tests"][1]["expect"] = json!("allow");
    write_policy(dir, &loosened);
    denied(
        &add("wing_desk"),
        "lap",
        "mempalace_add_drawer",
        "wings.write:wing_desk",
    );
    assert!(
        wait_for(10.0, || gw
            .stderr()
            .contains("nobody but an admin writes the rules")),
        "the failing test is named: {}",
        gw.stderr()
    );
    assert!(
        gw.stderr().contains("keeps the last good one"),
        "{}",
        gw.stderr()
    );

    // Fixed (the test that failed now passes): the next request sees it.
    loosened["tests"][1]["expect"] = json!("deny");
    loosened["tests"][2]["expect"] = json!("allow");
    write_policy(dir, &loosened);
    assert_eq!(payload(&add("wing_desk"))["success"], true);
}

#[test]
fn explain_names_the_rule_that_decides_and_what_it_rewrites() {
    let env = crate::support::TestEnv::new();
    let dir = env.path("gateway");
    write_policy(&dir, &three_devices(passing()));
    let explain = |args: &[&str]| {
        let mut a = vec!["--json", "gateway", "policy", "explain"];
        a.extend_from_slice(args);
        let o = mpt(&env, &dir, &a);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        parse_json(&o)
    };
    let j = explain(&[
        "lap",
        "add_drawer",
        r#"{"wing": "Wing_Lap", "room": "r", "content": "c"}"#,
    ]);
    assert_eq!(
        (j["decision"].clone(), j["rule"].clone()),
        (json!("deny"), json!("wing:not_canonical:wing_lap"))
    );
    let j = explain(&[
        "lap",
        "add_drawer",
        r#"{"wing": "wing_lap", "room": "r", "content": "c", "added_by": "root@desk"}"#,
    ]);
    assert_eq!(j["decision"], "allow");
    assert_eq!(j["rule"], "role:member");
    assert_eq!(j["rewrites"], json!(["rewrote:/added_by"]));
    let j = explain(&[
        "hub",
        "update_drawer",
        r#"{"drawer_id": "d"}"#,
        "--current-wing",
        "wing_rules",
    ]);
    assert_eq!(j["decision"], "allow", "an admin writes protected wings");
    let j = explain(&[
        "desk",
        "update_drawer",
        r#"{"drawer_id": "d", "content": "x"}"#,
        "--current-wing",
        "wing_rules",
    ]);
    assert_eq!(j["rule"], "protected_wings:wing_rules");
    let j = explain(&[
        "desk",
        "mempalace_mine",
        r#"{"source": "/x", "mode": "convos"}"#,
    ]);
    assert_eq!(j["rule"], "needs:admin");

    for (args, named) in [
        (vec!["lap", "add_drawer", "[1]"], "[1]"),
        (vec!["lap", "add_drwer", "{}"], "add_drwer"),
        (vec!["nobody", "add_drawer", "{}"], "nobody"),
    ] {
        let mut a = vec!["gateway", "policy", "explain"];
        a.extend_from_slice(&args);
        let o = mpt(&env, &dir, &a);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(named), "{}", stderr(&o));
    }
}
