//! The audit log of a real gateway: a request and a response record per forwarded call, one per
//! refusal, queried by device, denial and time; `audit verify` catches an edit anywhere (exit 3).

use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::gateway::{Gateway, Setup, call, issue, mpt, policy, post, primary_and_dir};
use crate::support::{TestEnv, json, stderr, stdout};

fn verify(env: &TestEnv, dir: &Path) -> (Option<i32>, Value) {
    let o = mpt(env, dir, &["--json", "gateway", "audit", "verify"]);
    (o.status.code(), json(&o))
}

fn audit(env: &TestEnv, dir: &Path, args: &[&str]) -> Vec<Value> {
    let mut a = vec!["--json", "gateway", "audit"];
    a.extend_from_slice(args);
    let o = mpt(env, dir, &a);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["schema"], mpt_base::schema::GATEWAY_AUDIT);
    v["records"].as_array().unwrap().clone()
}

/// Rewrites line `n` (1-based) of the audit file with `edit`.
fn edit_line(path: &Path, n: usize, edit: impl Fn(&str) -> String) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[n - 1] = edit(&lines[n - 1]);
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn audit_verify_names_the_first_record_that_was_changed() {
    let mut s = Setup::new(json!({"obs": {"role": "observer"}, "mem": {"role": "member"}}));
    let (obs, mem, port) = (s.token("obs"), s.token("mem"), s.gw.port);
    let secret_content = "content-never-in-the-audit-91f3";
    call(
        port,
        &obs,
        "mempalace_add_drawer",
        json!({"wing": "wing_a", "room": "r", "content": secret_content}),
    );
    call(
        port,
        &mem,
        "mempalace_add_drawer",
        json!({"wing": "wing_a", "room": "r", "content": secret_content}),
    );
    call(port, &obs, "mempalace_kg_stats", json!({}));
    post(
        port,
        "mptg_not_a_token",
        r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#,
    );
    s.gw.stop();
    let (env, p, dir) = (&s.env, &s.p, &s.dir);

    let all = audit(env, dir, &[]);
    let stages: Vec<(&str, &str, &str)> = all
        .iter()
        .map(|r| {
            (
                r["device"].as_str().unwrap_or("-"),
                r["stage"].as_str().unwrap(),
                r["decision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        stages,
        [
            ("obs", "request", "deny"),
            ("mem", "request", "allow"),
            ("mem", "response", "allow"),
            ("obs", "request", "allow"),
            ("obs", "response", "allow"),
            ("-", "request", "deny"),
        ],
        "{all:#?}"
    );
    let write = &all[1];
    assert_eq!(write["tool"], "mempalace_add_drawer");
    assert_eq!(write["class"], "write");
    assert_eq!(write["wings"], json!(["wing_a"]));
    assert_eq!(write["rule"], "role:member");
    assert_eq!(all[2]["upstream_status"], 200);
    assert!(all[2]["latency_ms"].as_u64().is_some() && all[2]["bytes_out"].as_u64().unwrap() > 0);
    assert_eq!(all[5]["rule"], "auth:malformed");
    for f in std::fs::read_dir(dir).unwrap().flatten() {
        let text = std::fs::read_to_string(f.path()).unwrap_or_default();
        assert!(
            !text.contains(secret_content),
            "{} holds content",
            f.path().display()
        );
    }
    let denied = audit(env, dir, &["--device", "obs", "--denied"]);
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0]["tool"], "mempalace_add_drawer");
    assert_eq!(audit(env, dir, &["--since", "1h"]).len(), 6);
    assert!(audit(env, dir, &["--since", "2999-01-01T00:00:00Z"]).is_empty());
    assert_eq!(
        mpt(env, dir, &["gateway", "audit", "--since", "lately"])
            .status
            .code(),
        Some(2)
    );

    let (code, v) = verify(env, dir);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(
        (v["ok"].clone(), v["records"].clone()),
        (json!(true), json!(6))
    );
    let log = dir.join("audit.jsonl");
    let pristine = std::fs::read(&log).unwrap();
    let restore = || std::fs::write(&log, &pristine).unwrap();

    // A middle record edited: it is the one named.
    edit_line(&log, 3, |l| l.replace("\"mem\"", "\"obs\""));
    let (code, v) = verify(env, dir);
    assert_eq!(code, Some(3), "{v}");
    assert_eq!(v["bad"]["seq"], 3, "{v}");
    assert_eq!(v["bad"]["line"], 3);
    let human = mpt(env, dir, &["gateway", "audit", "verify"]);
    assert_eq!(human.status.code(), Some(3));
    assert!(stdout(&human).contains("record 3"), "{}", stdout(&human));
    restore();

    // The last record edited, its hash left: caught by its own hash.
    edit_line(&log, 6, |l| l.replace("auth:malformed", "auth:fine"));
    assert_eq!(verify(env, dir).1["bad"]["seq"], 6);
    restore();
    // The last record edited and its hash recomputed: caught by the head checkpoint.
    edit_line(&log, 6, |l| {
        let edited = l.replace("auth:malformed", "auth:fine");
        let (body, _) = edited.rsplit_once(",\"hash\":\"").unwrap();
        let body = format!("{body}}}");
        let prev: Value = serde_json::from_str(&edited).unwrap();
        let mut h = Sha256::new();
        h.update(prev["prev"].as_str().unwrap().as_bytes());
        h.update(body.as_bytes());
        let hash: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        format!("{},\"hash\":\"{hash}\"}}", &body[..body.len() - 1])
    });
    let (code, v) = verify(env, dir);
    assert_eq!(code, Some(3), "{v}");
    assert_eq!(v["bad"]["seq"], 6);
    assert!(
        v["bad"]["why"]
            .as_str()
            .unwrap()
            .contains("head checkpoint"),
        "{v}"
    );
    restore();
    // The last record cut off.
    let text = String::from_utf8(pristine.clone()).unwrap();
    let kept: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&log, kept.join("\n") + "\n").unwrap();
    let (code, v) = verify(env, dir);
    assert_eq!(code, Some(3), "{v}");
    assert_eq!(v["bad"]["seq"], 6, "{v}");
    // A gateway does not start on a log that was cut: nothing would pass unaudited.
    let o = env
        .mpt_command(&[
            "gateway",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            &p.base_url(),
        ])
        .env("MPT_GATEWAY_DIR", dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    restore();
    assert_eq!(verify(env, dir).0, Some(0));
}

#[test]
fn the_audit_rotates_by_size_and_the_chain_carries_across() {
    let env = TestEnv::new();
    let (p, dir) = primary_and_dir(&env, &policy(json!({"obs": {"role": "observer"}})));
    let obs = issue(&env, &dir, "obs", &[]);
    let upstream = p.base_url();
    let mut gw = Gateway::start(
        &env,
        &dir,
        &upstream,
        &[],
        &[("MPT_GATEWAY_AUDIT_MAX_BYTES", "2000")],
    );
    for _ in 0..6 {
        post(
            gw.port,
            &obs,
            r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#,
        );
    }
    gw.stop();
    let rotated: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("audit-"))
        .collect();
    assert!(!rotated.is_empty(), "rotated by size");
    let (code, v) = verify(&env, &dir);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["records"], 12);
    assert_eq!(audit(&env, &dir, &[]).len(), 12, "every file is read");
    // And a restarted gateway goes on with the chain.
    let mut gw = Gateway::start(&env, &dir, &upstream, &[], &[]);
    post(
        gw.port,
        &obs,
        r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#,
    );
    gw.stop();
    let (code, v) = verify(&env, &dir);
    assert_eq!((code, v["last_seq"].clone()), (Some(0), json!(14)), "{v}");
}

#[test]
fn a_write_whose_record_cannot_be_written_is_refused_and_reads_go_on() {
    let env = TestEnv::new();
    let (p, dir) = primary_and_dir(&env, &policy(json!({"mem": {"role": "member"}})));
    let mem = issue(&env, &dir, "mem", &[]);
    // Every file the gateway writes stops growing at 3000 bytes, as on a full disk.
    let gw = crate::support::gateway::Gateway::start_limited(
        &env,
        &dir,
        &p.base_url(),
        &[],
        &[],
        Some(3000),
    );
    let ping = r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#;
    let mut pings = 0;
    while !gw.stderr().contains("could not be written") {
        assert_eq!(
            post(gw.port, &mem, ping).status,
            200,
            "a read passes, recorded or not"
        );
        pings += 1;
        assert!(pings < 50, "the audit never filled: {}", gw.stderr());
    }
    let r = call(
        gw.port,
        &mem,
        "mempalace_add_drawer",
        json!({"wing": "wing_unaudited", "room": "r", "content": "must not land"}),
    );
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.json(), json!({"error": "audit_unavailable"}));
    assert!(r.header("retry-after").is_some());
    match p.call("mempalace_list_wings", json!({})) {
        Err(_) => {}
        Ok(v) => assert!(v["wings"].get("wing_unaudited").is_none(), "{v}"),
    }
    let stats =
        crate::support::gateway::payload(&call(gw.port, &mem, "mempalace_kg_stats", json!({})));
    assert!(stats.get("triples").is_some(), "reads go on: {stats}");
    drop(gw);
    let (code, v) = verify(&env, &dir);
    assert_eq!(
        code,
        Some(0),
        "a record cut short is rolled back, the chain stays whole: {v}"
    );
}
