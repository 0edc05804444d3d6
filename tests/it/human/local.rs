//! One machine, no primary: `mpt doctor`, `mpt runbook`, `mpt outbox`, `mpt mailbox` and
//! `mpt edge status` on a fresh HOME and after some use.

use std::os::unix::fs::PermissionsExt;

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

#[test]
fn a_runbook_with_work_to_do() {
    let env = TestEnv::new();
    let dir = env.dir.path();
    let write = crate::runbook::files::write;
    write(
        &dir.join(".env"),
        "MEMPALACE_REMOTE_TOKEN=s3cr3t-dotenv\nMEMPALACE_PI_DEVICE=lap\n",
    );
    std::fs::set_permissions(dir.join(".env"), std::fs::Permissions::from_mode(0o644)).unwrap();
    write(
        &dir.join(".env.example"),
        "# MEMPALACE_REMOTE_URL=http://mempalace.lan:8765/mcp\n",
    );
    let ops = env.path("ops");
    // A port nothing listens on (the serve-port step probes it), filtered out of the snapshot.
    let port = crate::support::free_port();
    write(
        &ops.join("palace.crontab"),
        "0 3 * * * /opt/venv/bin/mempalace sync --apply --wing code\n",
    );
    write(
        &ops.join("serve.sh"),
        &format!("#!/bin/sh\nexec mempalace serve --host 0.0.0.0 --port {port}\n"),
    );
    let o = env.mpt(&["runbook", "--scan", ops.to_str().unwrap()], &[]);
    assert!(!shown(&o).contains("s3cr3t"), "a token value was printed");
    let mut settings = settings(&env);
    settings.add_filter(&format!(r"\b{port}\b"), "[PORT]");
    // The system's crontabs and units are searched too: how many files they hold varies.
    settings.add_filter(r"searched \d+ file", "searched [N] file");
    settings.bind(|| insta::assert_snapshot!("work_runbook", shown(&o)));
}
