//! One machine, no primary: `mpt doctor`, `mpt runbook`, `mpt outbox`, `mpt mailbox` and
//! `mpt edge status` on a fresh HOME and after some use.

use serde_json::json;

use super::{settings, shown};
use crate::support::TestEnv;

const DEAD: &str = "http://127.0.0.1:9/mcp";

#[test]
fn a_fresh_home() {
    let env = TestEnv::new();
    settings(&env).bind(|| {
        insta::assert_snapshot!(
            "fresh_doctor",
            shown(&env.mpt(&["doctor", "--offline"], &[]))
        );
        insta::assert_snapshot!("fresh_runbook", shown(&env.mpt(&["runbook"], &[])));
        insta::assert_snapshot!("fresh_outbox", shown(&env.mpt(&["outbox"], &[])));
        insta::assert_snapshot!(
            "fresh_mailbox",
            shown(&env.mpt(&["mailbox", "--as", "pi@lap"], &[]))
        );
        insta::assert_snapshot!(
            "fresh_edge_status",
            shown(&env.mpt(&["edge", "status"], &[]))
        );
    });
}

#[test]
fn an_outbox_waiting_for_an_unreachable_primary() {
    let env = TestEnv::new();
    let vars = [
        ("MEMPALACE_REMOTE_URL", DEAD),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    for i in 0..3 {
        let args = json!({"wing": "w", "room": "r", "content": format!("note {i}")});
        let o = env.mpt(
            &[
                "outbox",
                "enqueue",
                "mempalace_add_drawer",
                &args.to_string(),
            ],
            &vars,
        );
        assert!(o.status.success(), "{}", shown(&o));
    }
    let flush = env.mpt(&["outbox", "flush", "--deadline", "1s"], &vars);
    settings(&env).bind(|| {
        insta::assert_snapshot!("waiting_flush", shown(&flush));
        insta::assert_snapshot!("waiting_outbox", shown(&env.mpt(&["outbox"], &vars)));
        insta::assert_snapshot!(
            "waiting_outbox_list",
            shown(&env.mpt(&["outbox", "list"], &vars))
        );
        insta::assert_snapshot!(
            "waiting_doctor",
            shown(&env.mpt(&["doctor", "--offline"], &vars))
        );
        insta::assert_snapshot!(
            "waiting_edge_status",
            shown(&env.mpt(&["edge", "status"], &vars))
        );
    });
}
