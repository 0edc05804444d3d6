//! `mpt runbook phase4` on a primary host before and after: serve on the LAN with no gateway,
//! then a starter policy applied (backup, read-back, undo), a token per device, serve on
//! loopback behind a real `mpt gateway`, the audit verifying, loose modes tightened; and a device.

use serde_json::{Value, json};

use crate::runbook::{runbook, state, step};
use crate::support::gateway::{Gateway, UPSTREAM_TOKEN, call, get, issue};
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, json as parse_json, stderr, stdout};

fn summary(s: &Value) -> &str {
    s["summary"].as_str().unwrap()
}

#[test]
fn phase4_on_a_primary_host_before_and_after_the_gateway() {
    let env = TestEnv::new();
    let dir = env.path("gateway");
    let dir_s = dir.to_str().unwrap().to_string();
    let vars = [("MPT_GATEWAY_DIR", dir_s.as_str())];
    let apply = |args: &[&str]| {
        let mut all = vec!["--json", "runbook", "apply"];
        all.extend_from_slice(args);
        env.mpt(&all, &vars)
    };

    // Before: serve on every interface, no gateway, no policy.
    let lan = "mempalace serve --host 0.0.0.0 --port 8765 --tls-cert c.pem --tls-key k.pem";
    let (code, doc) = runbook(&env, &["phase4", "--serve-cmd", lan], &vars);
    assert_eq!(code, 3, "{doc}");
    let front = step(&doc, "gateway-front");
    assert_eq!(state(front), "to_do", "{front}");
    assert!(summary(front).contains("0.0.0.0:8765"), "{front}");
    assert!(
        summary(front).contains("no `mpt gateway serve` runs"),
        "{front}"
    );
    let pol = step(&doc, "gateway-policy");
    assert_eq!(state(pol), "to_do", "{pol}");
    assert!(pol["apply"].as_str().unwrap().contains("--device"), "{pol}");
    for id in ["gateway-tokens", "gateway-audit", "gateway-modes"] {
        assert_eq!(state(step(&doc, id)), "not_applicable", "{id}: {doc}");
    }
    let (_, all) = runbook(&env, &[], &vars);
    assert!(
        all["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["phase"] != "phase4"),
        "a host without the gateway is not asked about Phase 4: {all}"
    );

    // The starter policy: no device known, none named: exit 2; a dry run changes nothing.
    let o = apply(&["gateway-policy", "--serve-cmd", lan]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        parse_json(&o)["hint"]
            .as_str()
            .unwrap()
            .contains("--device")
    );
    let o = apply(&[
        "gateway-policy",
        "--serve-cmd",
        lan,
        "--device",
        "lap",
        "--device",
        "desk",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(parse_json(&o)["dry_run"], true);
    assert!(
        !dir.join("policy.json").exists(),
        "a dry run writes nothing"
    );
    let o = apply(&[
        "gateway-policy",
        "--serve-cmd",
        lan,
        "--device",
        "lap",
        "--device",
        "desk",
        "--yes",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let applied = parse_json(&o);
    assert_eq!(applied["verification"]["ok"], true, "{applied}");
    assert_eq!(applied["verification"]["devices"], json!(["desk", "lap"]));
    assert_eq!(applied["state_after"], "done", "{applied}");
    let undo = applied["undo"].as_str().unwrap();
    assert!(
        undo.starts_with("rm -f ") && undo.contains("policy.json"),
        "{undo}"
    );
    let backup = std::path::PathBuf::from(applied["backup"].as_str().unwrap());
    assert!(backup.join("manifest.json").is_file());
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("policy.json")).unwrap()).unwrap();
    assert_eq!(written["devices"]["lap"]["role"], "member", "{written}");
    let o = apply(&["gateway-policy", "--yes"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "done: nothing to do: {}",
        stdout(&o)
    );

    let (_, doc) = runbook(&env, &["phase4", "--serve-cmd", lan], &vars);
    assert_eq!(state(step(&doc, "gateway-policy")), "done", "{doc}");
    let tokens = step(&doc, "gateway-tokens");
    assert_eq!(state(tokens), "to_do", "{tokens}");
    assert!(
        summary(tokens).contains("desk has no working token")
            && summary(tokens).contains("lap has no working token"),
        "{tokens}"
    );

    // After: a token each, serve on loopback, the gateway in front of it.
    let lap = issue(&env, &dir, "lap", &["--expires", "90d"]);
    issue(&env, &dir, "desk", &["--expires", "90d"]);
    let p = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some(UPSTREAM_TOKEN),
            ..Default::default()
        },
    );
    let gw = Gateway::start(&env, &dir, &p.base_url(), &[], &[]);
    assert_eq!(get(gw.port, &lap, "/whoami").status, 200);
    let r = call(gw.port, &lap, "mempalace_kg_stats", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    let local = format!("mempalace serve --host 127.0.0.1 --port {}", p.port);
    let (code, doc) = runbook(&env, &["phase4", "--serve-cmd", &local], &vars);
    for id in [
        "gateway-front",
        "gateway-policy",
        "gateway-tokens",
        "gateway-audit",
        "gateway-modes",
    ] {
        assert_eq!(state(step(&doc, id)), "done", "{id}: {doc}");
    }
    assert_eq!(code, 0, "{doc}");
    assert!(
        step(&doc, "gateway-front")["evidence"]
            .to_string()
            .contains(&format!("pid {}", gw.pid())),
        "{doc}"
    );
    // Phase 1's bind step, reworded for the gateway: loopback is right behind it.
    let (_, doc) = runbook(&env, &["phase1", "--serve-cmd", &local], &vars);
    let bind = step(&doc, "serve-bind");
    assert_eq!(state(bind), "done", "{bind}");
    assert!(summary(bind).contains("behind mpt gateway"), "{bind}");
    // A host running the gateway gets Phase 4 in a plain `mpt runbook`.
    let (_, all) = runbook(&env, &["--serve-cmd", &local], &vars);
    assert!(
        all["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["id"] == "gateway-audit"),
        "{all}"
    );

    // Loose modes, tightened with an undo line.
    let tokens_file = dir.join("tokens.json");
    std::fs::set_permissions(
        &tokens_file,
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    let (_, doc) = runbook(&env, &["phase4", "--serve-cmd", &local], &vars);
    let modes = step(&doc, "gateway-modes");
    assert_eq!(state(modes), "to_do", "{doc}");
    // By hand is the chmod itself, not the apply command said twice (issue 56, item 15).
    let by_hand = modes["manual"].as_str().unwrap();
    assert_eq!(
        by_hand,
        format!("`chmod 600 {}`", tokens_file.display()),
        "{modes}"
    );
    let o = apply(&["gateway-modes", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let applied = parse_json(&o);
    assert_eq!(applied["verification"]["ok"], true, "{applied}");
    assert!(
        applied["undo"].as_str().unwrap().contains("chmod 0644"),
        "{applied}"
    );
    assert_eq!(mpt_gateway::state::mode(&tokens_file), Some(0o600));

    // An audit record edited: the step names it.
    let audit = dir.join("audit.jsonl");
    let text = std::fs::read_to_string(&audit).unwrap();
    std::fs::write(&audit, text.replacen("\"lap\"", "\"desk\"", 1)).unwrap();
    let (code, doc) = runbook(&env, &["phase4", "--serve-cmd", &local], &vars);
    assert_eq!(code, 3);
    let a = step(&doc, "gateway-audit");
    assert_eq!(state(a), "to_do", "{a}");
    assert!(summary(a).contains("audit.jsonl:1"), "{a}");
}

#[test]
fn phase4_on_a_device_wants_its_own_gateway_token() {
    let env = TestEnv::new();
    let dir = env.path("gateway");
    crate::support::gateway::write_policy(
        &dir,
        &crate::support::gateway::policy(json!({"lap": {"role": "member"}})),
    );
    let token = issue(&env, &dir, "lap", &[]);
    // A device: its own HOME, no gateway folder, the primary's URL.
    let device = TestEnv::new();
    let shared = [
        ("MEMPALACE_REMOTE_URL", "https://palace.example:8443/mcp"),
        ("MEMPALACE_REMOTE_TOKEN", "the-primarys-one-shared-token"),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    let (code, doc) = runbook(&device, &["phase4"], &shared);
    assert_eq!(code, 3, "{doc}");
    let t = step(&doc, "gateway-tokens");
    assert_eq!(state(t), "to_do", "{t}");
    assert!(summary(t).contains("shared token"), "{t}");
    assert!(
        t["manual"]
            .as_str()
            .unwrap()
            .contains("mpt gateway token issue lap"),
        "{t}"
    );
    assert!(!doc.to_string().contains("the-primarys-one-shared-token"));
    let own = [
        ("MEMPALACE_REMOTE_URL", "https://palace.example:8443/mcp"),
        ("MEMPALACE_REMOTE_TOKEN", token.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    let (code, doc) = runbook(&device, &["phase4"], &own);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(state(step(&doc, "gateway-tokens")), "done", "{doc}");
    assert!(
        !doc.to_string().contains(&token),
        "the token is never printed"
    );
    for id in [
        "gateway-front",
        "gateway-policy",
        "gateway-audit",
        "gateway-modes",
    ] {
        assert_eq!(state(step(&doc, id)), "not_applicable", "{id}: {doc}");
    }
}

#[test]
fn the_starter_policy_is_written_before_serve_or_the_gateway_ever_ran_here() {
    // A fresh primary host: no serve running, no gateway folder yet (issue 56, item 2).
    let env = TestEnv::new();
    let dir = env.path("fresh/gateway");
    let vars = [("MPT_GATEWAY_DIR", dir.to_str().unwrap())];
    let o = env.mpt(
        &[
            "--json",
            "runbook",
            "apply",
            "gateway-policy",
            "--device",
            "lap",
            "--device",
            "box",
            "--yes",
        ],
        &vars,
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let applied = parse_json(&o);
    assert_eq!(
        applied["verification"]["devices"],
        json!(["box", "lap"]),
        "{applied}"
    );
    let policy: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("policy.json")).unwrap()).unwrap();
    assert_eq!(policy["devices"]["lap"]["role"], "member");
    // Without a device named, a host with nothing of a primary has nothing to apply.
    let other = TestEnv::new();
    let o = other.mpt(
        &["--json", "runbook", "apply", "gateway-policy", "--yes"],
        &[],
    );
    assert_eq!(parse_json(&o)["changes"], json!([]), "{}", stdout(&o));
}
