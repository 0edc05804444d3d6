//! The outbox's ordinary life against a real primary: the token stays out of the file,
//! refusals and usage errors, a failed op blocks until dropped or retried, purge.

use serde_json::json;

use super::*;
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, json, stdout};

#[test]
fn the_token_never_enters_the_outbox_and_the_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let token = "tok-3f9a1c7e5b2d4f60-secret";
    let env = TestEnv::new();
    let p = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some(token),
            ..Default::default()
        },
    );
    let url = p.url();
    let with_token = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_REMOTE_TOKEN", token),
    ];
    for i in 0..5 {
        let args = json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi", "body": format!("n{i}")}).to_string();
        let o = env.mpt(&["outbox", "enqueue", "event_append", &args], &with_token);
        assert!(o.status.success());
    }
    // A payload carrying the token is refused before it is written.
    let leak =
        json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi", "body": token})
            .to_string();
    let o = env.mpt(
        &["--json", "outbox", "enqueue", "event_append", &leak],
        &with_token,
    );
    assert_eq!(o.status.code(), Some(4));
    // A wrong token: refused (exit 4), nothing counted against the ops.
    let wrong = env.mpt(
        &["--json", "outbox", "flush"],
        &[
            ("MEMPALACE_REMOTE_URL", url.as_str()),
            ("MEMPALACE_REMOTE_TOKEN", "wrong"),
        ],
    );
    assert_eq!(wrong.status.code(), Some(4), "{}", stdout(&wrong));
    assert_eq!(json(&wrong)["result"], "refused");
    let o = env.mpt(&["--json", "outbox", "flush"], &with_token);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(json(&o)["settled"], 5);
    assert!(!stdout(&o).contains(token));
    let path = outbox_path(&env);
    for suffix in ["", "-wal", "-shm", ".flush.lock"] {
        let f = mpt_outbox::store::sidecar(&path, suffix);
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        assert!(
            !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
            "the token is in {}",
            f.display()
        );
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", f.display());
    }
}

#[test]
fn refusals_and_usage_errors() {
    let env = TestEnv::new();
    let url = "http://127.0.0.1:9/mcp"; // nothing listens on the discard port
    for tool in [
        "sync",
        "mine",
        "delete_drawer",
        "mempalace_delete_by_source",
        "reconnect",
    ] {
        let o = mpt(&env, url, &["--json", "outbox", "enqueue", tool, "{}"]);
        assert_eq!(o.status.code(), Some(4), "{tool}");
        assert_eq!(json(&o)["kind"], "refused");
    }
    let o = mpt(
        &env,
        url,
        &["--json", "outbox", "enqueue", "search", r#"{"query":"q"}"#],
    );
    assert_eq!(o.status.code(), Some(2));
    let o = mpt(
        &env,
        url,
        &["--json", "outbox", "enqueue", "kg_add", "{not json"],
    );
    assert_eq!(o.status.code(), Some(2));
    // Reading commands do not create an outbox.
    let o = mpt(&env, url, &["--json", "outbox"]);
    assert_eq!(json(&o)["exists"], false);
    assert!(!outbox_path(&env).exists());
    // An unreachable primary: exit 7, the op stays queued with no attempt counted.
    let id = enqueue(
        &env,
        url,
        "kg_add",
        &json!({"subject": "a", "predicate": "b", "object": "c"}),
    );
    let (code, r) = flush(&env, url, &[]);
    assert_eq!(
        (code, r["result"].as_str()),
        (7, Some("unavailable")),
        "{r}"
    );
    let op = store(&env).find(&id).unwrap();
    assert_eq!((op.state.as_str(), op.attempts), ("queued", 0));
    // No primary configured at all: a usage error.
    let o = env.mpt(&["--json", "outbox", "flush"], &[]);
    assert_eq!(o.status.code(), Some(2));
    let summary = json(&mpt(&env, url, &["--json", "outbox"]));
    assert_eq!(summary["schema"], "mpt.outbox.summary/v1");
    assert_eq!(summary["counts"]["queued"], 1);
    assert_eq!(summary["primary"], url);
    assert_eq!(summary["device"], DEVICE);
}

/// Golden: `mpt.outbox.flush/v1`'s field names, in order (scripts read them): the report, then
/// where it flushed and the feed's mine lane.
#[test]
fn the_flush_document_keeps_its_field_names() {
    let env = TestEnv::new();
    let url = "http://127.0.0.1:9/mcp"; // nothing listens on the discard port
    enqueue(
        &env,
        url,
        "kg_add",
        &json!({"subject": "a", "predicate": "b", "object": "c"}),
    );
    let (code, r) = flush(&env, url, &[]);
    assert_eq!(code, 7, "{r}");
    assert_eq!(
        mpt_base::schema::field_names(&r),
        [
            "schema",
            "result",
            "exit_code",
            "sent",
            "settled",
            "applied",
            "already_there",
            "verified_present",
            "hard_failures",
            "transient_failures",
            "denied",
            "rate_limited",
            "failed",
            "blocked_by",
            "held_back",
            "recovered_leases",
            "remaining",
            "elapsed_ms",
            "ops_per_s",
            "error",
            "error.kind",
            "error.message",
            "error.hint",
            "outbox",
            "primary",
            "mines",
            "mines.sent",
            "mines.applied",
            "mines.failed",
            "mines.remaining",
            "mines.busy",
            "mines.error",
        ],
        "{r}"
    );
}

#[test]
fn a_failed_op_holds_back_nothing_unrelated_and_stays_until_dropped() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let good1 = enqueue(
        &env,
        &url,
        "kg_add",
        &json!({"subject": "q", "predicate": "is", "object": "first"}),
    );
    // Valid for the schema, refused by the server: status 'done' is not a status.
    let bad = enqueue(
        &env,
        &url,
        "event_append",
        &json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi", "status": "done"}),
    );
    let good2 = enqueue(
        &env,
        &url,
        "kg_add",
        &json!({"subject": "q", "predicate": "is", "object": "second"}),
    );
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!(code, 3, "{r}");
    assert_eq!(r["result"], "blocked");
    assert_eq!(r["held_back"], 0, "nothing references it: {r}");
    assert_eq!(r["failed"], json!([bad]));
    assert_eq!(r["blocked_by"]["op_id"], bad.as_str());
    assert_eq!(r["blocked_by"]["attempts"], 3);
    assert!(
        r["blocked_by"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not one of"),
        "{r}"
    );
    let st = store(&env);
    assert_eq!(st.find(&good1).unwrap().state.as_str(), "done");
    assert_eq!(
        st.find(&good2).unwrap().state.as_str(),
        "done",
        "an unrelated op behind a failed one is sent"
    );
    // Still failed: exit 3 at once, nothing sent.
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!((code, r["sent"].as_u64()), (3, Some(0)));
    assert_eq!(
        json(&mpt(&env, &url, &["--json", "outbox"]))["blocked"],
        true
    );
    // drop needs --yes, then is recorded.
    let o = mpt(&env, &url, &["--json", "outbox", "drop", &bad[..10]]);
    assert_eq!(o.status.code(), Some(2));
    let o = mpt(
        &env,
        &url,
        &[
            "--json",
            "outbox",
            "drop",
            &bad[..10],
            "--yes",
            "--reason",
            "bad status",
        ],
    );
    assert!(o.status.success());
    assert_eq!(json(&o)["op"]["state"], "dropped");
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!((code, r["settled"].as_u64()), (0, Some(0)), "{r}");
    assert_eq!(
        effect_count(
            &url,
            "kg_add",
            &json!({"subject": "q", "predicate": "is", "object": "second"}),
            &good2
        ),
        1
    );
    let shown = json(&mpt(&env, &url, &["--json", "outbox", "show", &bad]));
    assert_eq!(shown["audit"][0]["action"], "drop");
    assert_eq!(shown["audit"][0]["detail"]["reason"], "bad status");
    let dropped = json(&mpt(
        &env,
        &url,
        &["--json", "outbox", "list", "--state", "dropped"],
    ));
    assert_eq!(dropped["ops"][0]["op_id"], bad.as_str());
    // Purge removes the settled ops, keeps the audit.
    let o = mpt(
        &env,
        &url,
        &["--json", "outbox", "purge", "--older-than", "0s"],
    );
    assert_eq!(json(&o)["deleted"], 3);
    assert_eq!(store(&env).audit_trail(None).unwrap().len(), 2);
}

#[test]
fn a_failed_op_is_retried_once_the_cause_is_fixed() {
    let env = TestEnv::new();
    let palace = env.palace("primary");
    let mut p = Primary::start(
        &env,
        &palace,
        PrimaryOpts {
            read_only: true,
            ..Default::default()
        },
    );
    let url = p.url();
    let args = json!({"subject": "retry", "predicate": "works", "object": "yes"});
    let id = enqueue(&env, &url, "kg_add", &args);
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!(
        code, 3,
        "a read-only primary refuses the write (-32003): {r}"
    );
    assert_eq!(store(&env).find(&id).unwrap().attempts, 3);
    p.stop();
    let _p = Primary::start(
        &env,
        &palace,
        PrimaryOpts {
            port: Some(p.port),
            ..Default::default()
        },
    );
    let o = mpt(&env, &url, &["--json", "outbox", "retry", "--failed"]);
    assert_eq!(json(&o)["retried"], json!([id]));
    let (code, r) = flush(&env, &url, &[]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(effect_count(&url, "kg_add", &args, &id), 1);
}
