//! The policy followed live: a change applies to the next request; one that does not load is
//! refused loudly and the last good one kept.

use serde_json::json;

use super::denied;
use crate::support::gateway::{Setup, call, payload, policy, write_policy, write_text};
use crate::support::wait_for;

#[test]
fn the_policy_is_followed_live_and_a_broken_one_keeps_the_last_good_loudly() {
    let s = Setup::new(json!({"lap": {"role": "observer"}}));
    let (dir, gw) = (&s.dir, &s.gw);
    let lap = s.token("lap");

    let add = || {
        call(
            gw.port,
            &lap,
            "mempalace_add_drawer",
            json!({"wing": "wing_live", "room": "r", "content": "policy follows the file"}),
        )
    };
    denied(&add(), "lap", "mempalace_add_drawer", "needs:member");

    write_policy(dir, &policy(json!({"lap": {"role": "member"}})));
    assert_eq!(
        payload(&add())["success"],
        true,
        "the next request sees the new role"
    );

    write_text(&dir.join("policy.json"), "{\"schema\": ");
    assert_eq!(
        payload(&add())["success"],
        true,
        "a policy that does not parse leaves the last good"
    );
    let mut unknown = policy(json!({"lap": {"role": "observer"}}));
    unknown["rules"] = json!([]);
    write_policy(dir, &unknown);
    assert_eq!(
        payload(&add())["success"],
        true,
        "nor does one with an unknown field"
    );
    assert!(
        wait_for(10.0, || gw
            .stderr()
            .matches("keeps the last good one")
            .count()
            >= 2),
        "each refused version is said: {}",
        gw.stderr()
    );
    assert!(gw.stderr().contains("unknown field"), "{}", gw.stderr());

    write_policy(
        dir,
        &policy(json!({"lap": {"role": "observer", "wings": {"read": ["wing_desk*"]}}})),
    );
    denied(&add(), "lap", "mempalace_add_drawer", "needs:member");
    denied(
        &call(
            gw.port,
            &lap,
            "mempalace_search",
            json!({"query": "policy", "wing": "wing_live"}),
        ),
        "lap",
        "mempalace_search",
        "wings.read:wing_live",
    );
}
