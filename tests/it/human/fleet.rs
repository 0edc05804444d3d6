//! A device beside a real primary: `mpt mailbox` with asks owed, `mpt edge status` with its owner
//! running, `mpt doctor` with a reachable primary.

use serde_json::json;

use super::{settings, shown};
use crate::support::harness::Harness;
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv};

#[test]
fn a_device_beside_a_primary() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    for body in ["rotate the keys\nbefore Friday", "review the plan"] {
        let ask = json!({"type": "task.request", "stream": "project/mpt", "room": "delegation",
                         "from_agent": "codex@desk", "to_agent": "pi@lap", "status": "open", "body": body});
        p.call("mempalace_event_append", ask).unwrap();
    }
    let palace = env.palace("local");
    let p_arg = palace.to_str().unwrap();
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    let mut edge = Harness::start(&env, &["--palace", p_arg], &vars);
    edge.initialize();
    // The owner's first pull, recorded: edge status shows it (no race with the snapshot).
    let record = mpt_coord::puller::PullPaths::new(&env.home(), &palace).record;
    assert!(
        crate::support::wait_for(60.0, || mpt_coord::puller::read_record(&record)
            .is_some_and(|r| r.last_success_ms.is_some())),
        "the owner's first pull"
    );
    settings(&env).bind(|| {
        insta::assert_snapshot!(
            "device_mailbox",
            shown(&env.mpt(&["mailbox", "--as", "pi@lap"], &vars))
        );
        insta::assert_snapshot!(
            "device_edge_status",
            shown(&env.mpt(&["edge", "status", "--palace", p_arg], &vars))
        );
    });
    assert!(edge.close().success());
}
