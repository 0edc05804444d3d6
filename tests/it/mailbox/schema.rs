//! The field names of every `mpt mailbox --json` document, pinned (scripts read them): the list
//! (online, and its stale fields offline), the inert answer, `ack`, a `watch` delivery, `notify`.

use std::process::Stdio;

use mpt_base::schema::field_names;
use mpt_mcp::Deadline;
use serde_json::{Value, json};

use crate::support::primary::{PrimaryOpts, remote_client};
use crate::support::{Primary, TestEnv};

const ME: &str = "pi@lap";

fn names(v: &Value) -> Vec<String> {
    field_names(v)
}

#[test]
fn every_mailbox_document_keeps_its_field_names() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = remote_client(&p.url(), None);
    let ask = rt.block_on(async {
        c.connect().await.unwrap();
        let args = json!({"type": "task.request", "stream": "project/mpt", "room": "delegation", "from_agent": "codex@desk", "to_agent": ME, "status": "open", "body": "review", "correlation_id": "c1"});
        let r = c
            .call_tool("mempalace_event_append", args, Deadline::Default)
            .await
            .unwrap();
        r.payload["event"]["id"].as_str().unwrap().to_string()
    });
    let url = p.url();
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    let ask_fields = [
        "id",
        "from",
        "to",
        "type",
        "age_secs",
        "correlation_id",
        "summary",
        "hlc",
        "seq",
        "created_at",
    ];
    let prefixed =
        |p: &str| -> Vec<String> { ask_fields.iter().map(|f| format!("{p}{f}")).collect() };
    let stats = [
        "stats",
        "stats.events",
        "stats.skipped_no_id",
        "stats.duplicates",
        "stats.candidates",
        "stats.answered",
        "stats.broadcasts",
        "stats.own",
        "stats.not_open",
    ];

    let list = crate::support::json(&env.mpt(&["--json", "mailbox", "--as", ME], &vars));
    let mut want: Vec<String> = vec!["me".into(), "identities".into(), "owed".into()];
    want.extend(prefixed("owed[]."));
    want.push("dormant".into());
    want.extend(stats.iter().map(|s| s.to_string()));
    want.extend(
        [
            "schema",
            "active",
            "owed_count",
            "dormant_count",
            "stale",
            "rows_skipped",
            "source",
            "note",
        ]
        .map(String::from),
    );
    assert_eq!(names(&list), want, "{list}");

    let inert = crate::support::json(&env.mpt(&["--json", "mailbox"], &[]));
    assert_eq!(
        names(&inert),
        ["schema", "active", "reason", "owed", "dormant"],
        "{inert}"
    );

    let mut cmd = env.mpt_command(&["--json", "mailbox", "--as", ME, "watch", "--max-polls", "1"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::null());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let delivery = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["schema"] == "mpt.mailbox.announce/v1")
        .expect("a delivery line");
    let mut want: Vec<String> = vec![
        "schema".into(),
        "announcements".into(),
        "announcements[].why".into(),
        "announcements[].ask".into(),
    ];
    want.extend(prefixed("announcements[].ask."));
    want.extend(["dormant_count", "note"].map(String::from));
    assert_eq!(names(&delivery), want, "{delivery}");

    let ack = crate::support::json(&env.mpt(
        &[
            "--json", "mailbox", "--as", ME, "ack", &ask, "--status", "applied",
        ],
        &vars,
    ));
    // `event` is the server's own event, verbatim: only the document's own names are pinned.
    let top: Vec<&str> = ack
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        top,
        [
            "schema",
            "me",
            "acked",
            "status",
            "event",
            "queued",
            "unconfirmed"
        ],
        "{ack}"
    );

    let notify = crate::support::json(&env.mpt(&["--json", "mailbox", "notify"], &[]));
    assert_eq!(
        names(&notify),
        [
            "schema",
            "mode",
            "test",
            "path",
            "route",
            "written_bytes",
            "reason",
            "fix",
            "note"
        ],
        "{notify}"
    );
}
