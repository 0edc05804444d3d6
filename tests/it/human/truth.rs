//! Messages that name the right fix, as a new user meets them: each one's human output
//! snapshot-tested, and its `--json` error document (or check) asserted to carry the same fix.

use super::{settings, shown};
use crate::support::harness::Harness;
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, json};

#[test]
fn a_typo_keeps_its_suggestion_under_json() {
    let env = TestEnv::new();
    let cases: [(&str, &[&str], &str); 4] = [
        ("typo_subcommand", &["doctr"], "doctor"),
        ("typo_flag", &["doctor", "--chek", "x"], "--check"),
        (
            "typo_value",
            &["doctor", "--check", "transprt"],
            "transport",
        ),
        (
            "typo_step",
            &["runbook", "apply", "kg-locaton"],
            "kg-location",
        ),
    ];
    for (name, args, meant) in cases {
        let o = env.mpt(args, &[]);
        assert_eq!(o.status.code(), Some(2), "{}", shown(&o));
        settings(&env).bind(|| insta::assert_snapshot!(name, shown(&o)));
        let mut with_json = vec!["--json"];
        with_json.extend_from_slice(args);
        let doc = json(&env.mpt(&with_json, &[]));
        assert_eq!(doc["schema"], "mpt.error/v1");
        let hint = doc["hint"].as_str().unwrap_or_default();
        assert!(
            hint.starts_with(&format!("did you mean '{meant}'?")),
            "{name}: the --json hint keeps the suggestion: {doc}"
        );
    }
}

#[test]
fn a_tool_the_server_lacks_points_at_the_list() {
    let env = TestEnv::new();
    let o = env.mpt(&["call", "kg_qery"], &[]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a bad name is exit 2: {}",
        shown(&o)
    );
    settings(&env).bind(|| insta::assert_snapshot!("call_unknown_tool", shown(&o)));
    let doc = json(&env.mpt(&["--json", "call", "nosuchtool"], &[]));
    assert_eq!(doc["kind"], "usage", "{doc}");
    assert_eq!(
        doc["message"],
        "the server has no tool 'mempalace_nosuchtool'"
    );
    let hint = doc["hint"].as_str().unwrap();
    assert!(hint.contains("`mpt call --list`"), "{hint}");
    assert!(
        !hint.contains("did you mean"),
        "nothing is close to nosuchtool: {hint}"
    );
}

#[test]
fn a_connection_error_says_one_plain_cause() {
    let env = TestEnv::new();
    let port = crate::support::free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let vars = [("MEMPALACE_REMOTE_URL", url.as_str())];
    let o = env.mpt(&["call", "status"], &vars);
    assert_eq!(o.status.code(), Some(7), "{}", shown(&o));
    let mut s = settings(&env);
    s.add_filter(&format!(r"\b{port}\b"), "[PORT]");
    s.bind(|| insta::assert_snapshot!("refused_call", shown(&o)));
    let doc = json(&env.mpt(&["--json", "call", "status"], &vars));
    assert_eq!(
        doc["message"],
        format!("cannot reach the primary at 127.0.0.1:{port}: connection refused"),
        "one plain cause, not the library's four layers: {doc}"
    );
    assert!(doc["hint"].as_str().unwrap().contains("nothing listens"));
    // -v still shows the library's own chain, once, for whoever digs.
    let v = env.mpt(&["-v", "call", "status"], &vars);
    assert!(
        crate::support::stderr(&v).contains("tcp connect error"),
        "{}",
        shown(&v)
    );
}

#[test]
fn https_to_a_plain_http_primary_says_it_speaks_no_tls() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url().replacen("http://", "https://", 1);
    let vars = [("MEMPALACE_REMOTE_URL", url.as_str())];
    let o = env.mpt(&["doctor", "--check", "transport"], &vars);
    assert_eq!(o.status.code(), Some(3), "{}", shown(&o));
    settings(&env).bind(|| insta::assert_snapshot!("https_to_plain_http", shown(&o)));
    let doc = json(&env.mpt(&["--json", "doctor", "--check", "transport"], &vars));
    let check = &doc["checks"][0];
    assert!(
        check["summary"]
            .as_str()
            .unwrap()
            .contains("does not speak TLS at that address"),
        "{check}"
    );
    let fix = check["fix"].as_str().unwrap();
    assert!(fix.contains("speaks plain HTTP, not TLS"), "{fix}");
    let call = json(&env.mpt(&["--json", "call", "status"], &vars));
    assert_eq!(call["hint"], check["fix"], "one fix for one cause");
}

/// `mpt [--json] runbook apply kg-location --yes --palace P`.
fn apply_kg(env: &TestEnv, p: &str, json: bool) -> std::process::Output {
    let args = ["runbook", "apply", "kg-location", "--yes", "--palace", p];
    let mut all: Vec<&str> = if json { vec!["--json"] } else { vec![] };
    all.extend_from_slice(&args);
    env.mpt(&all, &[])
}

/// The kg-location step's state and doctor's kg-path status, read the same moment.
fn kg_verdicts(env: &TestEnv, p: &str) -> (String, String) {
    let rb = json(&env.mpt(&["--json", "runbook", "phase0", "--palace", p], &[]));
    let step = rb["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "kg-location")
        .unwrap()["state"]
        .as_str()
        .unwrap()
        .to_string();
    let doc = json(&env.mpt(
        &["--json", "doctor", "--offline", "--check", "kg-path"],
        &[("MEMPALACE_PALACE_PATH", p)],
    ));
    (
        step,
        doc["checks"][0]["status"].as_str().unwrap().to_string(),
    )
}

#[test]
fn the_kg_step_has_one_verdict_and_names_the_edge_owner_that_holds_the_palace() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let vars = [("MEMPALACE_PALACE_PATH", p)];
    assert_eq!(
        kg_verdicts(&env, p),
        ("not_applicable".into(), "ok".into()),
        "before the first write: nothing to link, nothing wrong"
    );
    // The first write, through the edge (always --palace): a palace-local graph, no link yet.
    let mut h = Harness::start(
        &env,
        &["--palace", p, "--harness", "pi"],
        &[("MPT_EDGE_GRACE_MS", "600000")],
    );
    h.initialize();
    h.call(
        "mempalace_kg_add",
        serde_json::json!({"subject": "edge", "predicate": "writes", "object": "palace-local"}),
    )
    .unwrap();
    assert_eq!(
        kg_verdicts(&env, p),
        ("to_do".into(), "warn".into()),
        "after it: both say the link is still to make"
    );
    let attached = apply_kg(&env, p, false);
    assert_eq!(attached.status.code(), Some(4), "{}", shown(&attached));
    let hint = json(&apply_kg(&env, p, true))["hint"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        hint.starts_with("quit those harness sessions, then `mpt edge stop"),
        "{hint}"
    );

    // The session ends; the owner keeps its child through its grace: mpt's own, lingering.
    assert!(h.close().success());
    let held = apply_kg(&env, p, false);
    assert_eq!(held.status.code(), Some(4), "{}", shown(&held));
    settings(&env).bind(|| {
        insta::assert_snapshot!("kg_apply_held_by_the_edge_owner", shown(&held));
        insta::assert_snapshot!(
            "kg_doctor_held_by_the_edge_owner",
            shown(&env.mpt(&["doctor", "--offline", "--check", "kg-path"], &vars))
        );
    });
    let refusal = json(&apply_kg(&env, p, true));
    let hint = refusal["hint"].as_str().unwrap();
    assert!(
        hint.starts_with(&format!("`mpt edge stop --palace {p}` stops it")),
        "the holder is mpt's own edge owner, not a harness session: {refusal}"
    );
    assert!(!hint.contains("harness sessions"), "{hint}");
    let doctor = json(&env.mpt(
        &["--json", "doctor", "--offline", "--check", "kg-path"],
        &vars,
    ));
    assert!(
        doctor["checks"][0]["fix"]
            .as_str()
            .unwrap()
            .contains("`mpt edge stop --palace"),
        "{doctor}"
    );
    let writers = json(&env.mpt(
        &["--json", "doctor", "--offline", "--check", "writers"],
        &vars,
    ));
    assert!(
        writers["checks"][0]["summary"]
            .as_str()
            .unwrap()
            .contains("`mpt edge stop` frees the palace"),
        "{writers}"
    );

    assert!(
        env.mpt(&["edge", "stop", "--palace", p], &[])
            .status
            .success()
    );
    let applied = apply_kg(&env, p, false);
    assert!(applied.status.success(), "{}", shown(&applied));
    assert_eq!(
        kg_verdicts(&env, p),
        ("done".into(), "ok".into()),
        "linked: both say done"
    );
}

#[test]
fn an_empty_new_primary_is_day_one_not_the_wrong_host() {
    let env = TestEnv::new();
    let empty = Primary::start(&env, &env.palace("empty"), PrimaryOpts::default());
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    env.call_local(
        &palace,
        "add_drawer",
        r#"{"wing":"w","room":"r","content":"months of memory only this device holds"}"#,
    );
    let url = empty.url();
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PALACE_PATH", p),
    ];
    let day_one = env.mpt(&["doctor", "--check", "transport"], &vars);
    settings(&env).bind(|| insta::assert_snapshot!("empty_primary_day_one", shown(&day_one)));
    let doc = json(&env.mpt(&["--json", "doctor", "--check", "transport"], &vars));
    let c = &doc["checks"][0];
    assert_eq!(c["status"], "warn", "{c}");
    let fix = c["fix"].as_str().unwrap();
    assert!(
        fix.starts_with("day one: seed it with this device's memory, `mpt outbox backfill`"),
        "{fix}"
    );

    // After this device's writes landed on a primary, an empty one is the wrong host.
    let other = Primary::start(&env, &env.palace("other"), PrimaryOpts::default());
    let other_url = other.url();
    let landed = [
        ("MEMPALACE_REMOTE_URL", other_url.as_str()),
        ("MEMPALACE_PALACE_PATH", p),
    ];
    let args = serde_json::json!({"wing": "w", "room": "r", "content": "sent to the real primary"});
    let q = env.mpt(
        &[
            "outbox",
            "enqueue",
            "mempalace_add_drawer",
            &args.to_string(),
        ],
        &landed,
    );
    assert!(q.status.success(), "{}", shown(&q));
    let f = env.mpt(&["outbox", "flush"], &landed);
    assert!(f.status.success(), "{}", shown(&f));
    let wrong = env.mpt(&["doctor", "--check", "transport"], &vars);
    settings(&env).bind(|| insta::assert_snapshot!("empty_primary_wrong_host", shown(&wrong)));
    let doc = json(&env.mpt(&["--json", "doctor", "--check", "transport"], &vars));
    let c = &doc["checks"][0];
    assert_eq!(c["status"], "warn", "{c}");
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .starts_with("point MEMPALACE_REMOTE_URL at the host that holds the fleet's palace"),
        "{c}"
    );
}

#[test]
fn the_primary_down_is_said_instead_of_an_embedder_verdict() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    env.call_local(
        &palace,
        "add_drawer",
        r#"{"wing":"w","room":"r","content":"the sidecar exists"}"#,
    );
    let port = crate::support::free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PALACE_PATH", p),
    ];
    let o = env.mpt(&["doctor", "--check", "embedder"], &vars);
    let mut s = settings(&env);
    s.add_filter(&format!(r"\b{port}\b"), "[PORT]");
    s.bind(|| insta::assert_snapshot!("embedder_primary_down", shown(&o)));
    let doc = json(&env.mpt(&["--json", "doctor", "--check", "embedder"], &vars));
    let c = &doc["checks"][0];
    assert_eq!(c["status"], "skip", "{c}");
    assert!(
        c["summary"]
            .as_str()
            .unwrap()
            .contains("the primary is unreachable"),
        "{c}"
    );
    assert!(
        !c.to_string().contains("version_vector"),
        "nothing blames the endpoint: {c}"
    );
    assert_eq!(c["fix"], serde_json::Value::Null, "{c}");
}

#[test]
fn the_config_check_shows_every_finding_worst_first_each_fix_once() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.home().join(".pi/agent")).unwrap();
    // A failure (a knob that is no number) and two warnings (no device name, pi with no SSH target).
    let vars = [
        ("MEMPALACE_REMOTE_URL", "https://palace.example:8765/mcp"),
        ("MEMPALACE_MAILBOX_POLL_MS", "soon"),
    ];
    let o = env.mpt(&["doctor", "--offline", "--check", "config"], &vars);
    assert_eq!(o.status.code(), Some(3), "{}", shown(&o));
    settings(&env).bind(|| insta::assert_snapshot!("config_every_finding", shown(&o)));
    let text = crate::support::stdout(&o);
    let doc = json(&env.mpt(
        &["--json", "doctor", "--offline", "--check", "config"],
        &vars,
    ));
    let c = &doc["checks"][0];
    let findings = c["findings"].as_array().unwrap();
    assert!(findings.len() >= 2, "{c}");
    assert_eq!(findings[0]["status"], "fail", "the worst first: {c}");
    assert_eq!(c["summary"], findings[0]["what"]);
    assert_eq!(c["fix"], findings[0]["fix"], "{c}");
    for f in findings {
        let fix = f["fix"].as_str().unwrap();
        assert_eq!(
            text.matches(fix).count(),
            1,
            "each fix printed once: {fix}\n{text}"
        );
        assert!(
            text.contains(f["what"].as_str().unwrap()),
            "none hidden: {text}"
        );
    }
    assert!(!text.contains("more)"), "{text}");
}

#[test]
fn a_scan_path_that_does_not_exist_is_a_warning_not_searched() {
    let env = TestEnv::new();
    let missing = env.path("no-such-ops");
    let o = env.mpt(
        &["runbook", "phase0", "--scan", missing.to_str().unwrap()],
        &[],
    );
    let mut s = settings(&env);
    s.add_filter(r"searched \d+ file", "searched [N] file");
    s.bind(|| insta::assert_snapshot!("scan_missing", shown(&o)));
    assert!(
        crate::support::stderr(&o)
            .contains("no-such-ops: no such file or folder, nothing searched there"),
        "{}",
        shown(&o)
    );
    let doc = json(&env.mpt(
        &[
            "--json",
            "runbook",
            "phase0",
            "--scan",
            missing.to_str().unwrap(),
        ],
        &[],
    ));
    let ev = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "no-sync")
        .unwrap()["evidence"]
        .to_string();
    assert!(ev.contains("not searched"), "{ev}");
    let searched = ev.split("not searched").next().unwrap();
    assert!(
        !searched.contains("no-such-ops"),
        "not listed as searched: {ev}"
    );
}
