//! Messages that name the right fix, as a new user meets them: each one's human output
//! snapshot-tested, and its `--json` error document (or check) asserted to carry the same fix.

use super::{settings, shown};
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
