//! Configuration through the binary: unknown fields refused, malformed values exit 2, token
//! files must be 0600, and the token appears nowhere in any output, not even at -vv.

mod values;

use std::os::unix::fs::PermissionsExt;

use crate::support::primary::PrimaryOpts;
use serde_json::json;

use crate::support::{Primary, TestEnv, json, stderr, stdout};

#[test]
fn unknown_field_in_the_config_file_is_refused_with_exit_4() {
    let env = TestEnv::new();
    let cfg = env.path("config.json");
    std::fs::write(&cfg, r#"{"palace": "/p", "replicaton": {"*": "local"}}"#).unwrap();
    let o = env.mpt(
        &["--json", "config"],
        &[("MPT_CONFIG", cfg.to_str().unwrap())],
    );
    assert_eq!(o.status.code(), Some(4));
    let v = json(&o);
    assert_eq!(v["kind"], "refused");
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.contains("replicaton") && msg.contains(cfg.to_str().unwrap()),
        "{msg}"
    );
}

#[test]
fn verbose_shows_why_reading_the_config_failed_and_the_message_stays() {
    let env = TestEnv::new();
    // A symlink to itself: opening it fails in the kernel (ELOOP), for root as for anyone.
    let cfg = env.path("config.json");
    std::os::unix::fs::symlink(&cfg, &cfg).unwrap();
    let loop_error = std::fs::File::open(&cfg).unwrap_err().to_string();
    let cfg_env = [("MPT_CONFIG", cfg.to_str().unwrap())];
    let plain = env.mpt(&["config"], &cfg_env);
    let verbose = env.mpt(&["-v", "config"], &cfg_env);
    assert_eq!(plain.status.code(), Some(1), "{}", stderr(&plain));
    assert_eq!(verbose.status.code(), Some(1), "{}", stderr(&verbose));
    let message = format!(
        "error: cannot read MPT_CONFIG={}: {loop_error}",
        cfg.display()
    );
    assert!(
        stderr(&plain).starts_with(&format!("{message}\n  hint: ")),
        "{}",
        stderr(&plain)
    );
    assert!(!stderr(&plain).contains("caused by"), "{}", stderr(&plain));
    assert!(
        stderr(&verbose).contains(&format!("{message}\n  caused by: {loop_error}\n  hint: ")),
        "{}",
        stderr(&verbose)
    );
}

#[test]
fn the_xdg_config_file_is_read_and_a_bad_value_is_exit_2() {
    let env = TestEnv::new();
    let dir = env.home().join(".config/mpt");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.json"),
        r#"{"harness": "pi", "replication": {"wing_code*": "local"}}"#,
    )
    .unwrap();
    let o = env.mpt(&["--json", "config"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["harness"], "pi");
    assert_eq!(v["replication"]["wing_code*"], "local");

    std::fs::write(
        dir.join("config.json"),
        r#"{"replication": {"*": "sometimes"}}"#,
    )
    .unwrap();
    let o = env.mpt(&["--json", "config"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        json(&o)["message"]
            .as_str()
            .unwrap()
            .contains("config.json")
    );
}

#[test]
fn malformed_env_knob_names_the_variable() {
    let env = TestEnv::new();
    let o = env.mpt(
        &["--json", "config"],
        &[("MEMPALACE_MCP_TIMEOUT_MS", "soon")],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        json(&o)["message"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_MCP_TIMEOUT_MS")
    );
}

#[test]
fn a_token_file_others_can_read_is_refused() {
    let env = TestEnv::new();
    let tf = env.path("token");
    std::fs::write(&tf, "s3cr3t-token-value\n").unwrap();
    std::fs::set_permissions(&tf, std::fs::Permissions::from_mode(0o644)).unwrap();
    let vars = [
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
        ("MPT_TOKEN_FILE", tf.to_str().unwrap()),
    ];
    let o = env.mpt(&["--json", "config"], &vars);
    assert_eq!(o.status.code(), Some(4));
    let v = json(&o);
    assert!(v["hint"].as_str().unwrap().contains("chmod 600"));
    assert!(!stdout(&o).contains("s3cr3t-token-value"));

    std::fs::set_permissions(&tf, std::fs::Permissions::from_mode(0o600)).unwrap();
    let o = env.mpt(&["--json", "config"], &vars);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["remote"]["token"]["source"], "file");
    assert!(!stdout(&o).contains("s3cr3t-token-value"));
}

#[test]
fn the_token_never_appears_in_any_output_even_at_vv() {
    let env = TestEnv::new();
    let token = "tok-7f3a9c-never-print-me-0b1d";
    let primary = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some(token),
            ..Default::default()
        },
    );
    let url = primary.url();
    let tf = env.path("token");
    std::fs::write(&tf, token).unwrap();
    std::fs::set_permissions(&tf, std::fs::Permissions::from_mode(0o600)).unwrap();

    let via_env = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_REMOTE_TOKEN", token),
    ];
    let via_file = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MPT_TOKEN_FILE", tf.to_str().unwrap()),
    ];
    let wrong = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_REMOTE_TOKEN", "tok-wrong-also-secret-42"),
    ];
    type Run<'a> = (Vec<&'a str>, &'a [(&'a str, &'a str)], Option<i32>);
    let runs: Vec<Run> = vec![
        (vec!["-vv", "call", "kg_stats"], &via_env, Some(0)),
        (
            vec!["-vv", "--json", "call", "kg_stats"],
            &via_file,
            Some(0),
        ),
        (vec!["-vv", "call", "--list"], &via_env, Some(0)),
        (vec!["-vv", "config"], &via_env, Some(0)),
        (vec!["--json", "config"], &via_file, Some(0)),
        (vec!["-vv", "--json", "call", "status"], &wrong, Some(4)),
        (vec!["-vv", "call", "status"], &wrong, Some(4)),
    ];
    for (args, vars, code) in runs {
        let o = env.mpt(&args, vars);
        assert_eq!(o.status.code(), code, "{args:?}: {}", stderr(&o));
        for secret in [token, "tok-wrong-also-secret-42"] {
            assert!(
                !stdout(&o).contains(secret),
                "{args:?} printed the token on stdout"
            );
            assert!(
                !stderr(&o).contains(secret),
                "{args:?} printed the token on stderr"
            );
        }
    }
    // The wrong token is named as the cause, without its value.
    let o = env.mpt(&["--json", "call", "status"], &wrong);
    let v = json(&o);
    assert_eq!(v["kind"], "auth");
    assert!(
        v["hint"]
            .as_str()
            .unwrap()
            .contains("MEMPALACE_REMOTE_TOKEN")
    );
}

#[test]
fn the_token_never_appears_from_edge_mailbox_or_outbox() {
    let env = TestEnv::new();
    let token = "tok-edge-9d2e-never-print-me";
    let primary = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            token: Some(token),
            ..Default::default()
        },
    );
    let url = primary.url();
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_REMOTE_TOKEN", token),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    let mut outputs = Vec::new();

    // The edge at -vv: a replicated write, a merged read, then its owner's log and the outbox.
    let palace = env.palace("local");
    let mut h = crate::support::harness::Harness::start(
        &env,
        &["-vv", "--palace", palace.to_str().unwrap()],
        &vars,
    );
    h.initialize();
    h.call(
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "through the edge with a token"}),
    )
    .unwrap();
    h.call("mempalace_search", json!({"query": "token"}))
        .unwrap();
    let drained = crate::support::wait_for(30.0, || {
        let o = env.mpt(&["--json", "outbox"], &vars);
        json(&o)["counts"]["done"] == 1
    });
    assert!(drained, "the write was flushed with the token");
    h.close();
    drop(h);
    outputs.push((
        "edge stderr",
        std::fs::read(env.path("edge.stderr")).unwrap_or_default(),
    ));
    for e in std::fs::read_dir(env.home().join(".mempalace/edge"))
        .unwrap()
        .flatten()
    {
        outputs.push(("edge file", std::fs::read(e.path()).unwrap_or_default()));
    }

    // The mailbox and the outbox at -vv, human and JSON.
    for args in [
        vec!["-vv", "mailbox", "--as", "pi@lap"],
        vec!["-vv", "--json", "mailbox", "--as", "pi@lap"],
        vec!["-vv", "outbox"],
        vec!["-vv", "--json", "outbox", "list", "--state", "all"],
        vec![
            "-vv",
            "outbox",
            "enqueue",
            "kg_add",
            r#"{"subject":"a","predicate":"b","object":"c"}"#,
        ],
        vec!["-vv", "--json", "outbox", "flush"],
        vec![
            "-vv",
            "edge",
            "status",
            "--palace",
            palace.to_str().unwrap(),
        ],
    ] {
        let o = env.mpt(&args, &vars);
        assert!(o.status.success(), "{args:?}: {}{}", stdout(&o), stderr(&o));
        outputs.push(("stdout", o.stdout));
        outputs.push(("stderr", o.stderr));
    }
    for (what, bytes) in outputs {
        assert!(
            !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
            "the token appeared in {what}"
        );
    }
}

#[test]
fn mempalace_edge_other_than_1_or_0_is_exit_2_naming_the_value_and_a_doctor_failure() {
    // pi's edge branch tests `=== "1"`: a `true` that opted opencode in would leave pi out.
    let env = TestEnv::new();
    let opencode = env.home().join(".config/opencode/opencode.json");
    std::fs::create_dir_all(opencode.parent().unwrap()).unwrap();
    let before = r#"{"mcp": {"other": {"type": "local", "command": ["x"]}}}"#;
    std::fs::write(&opencode, before).unwrap();
    for value in ["true", "yes", "on"] {
        let vars = [
            ("MEMPALACE_EDGE", value),
            ("MEMPALACE_REMOTE_URL", "https://palace.example:8765/mcp"),
        ];
        for args in [
            vec!["--json", "config"],
            vec!["--json", "edge", "wire", "opencode"],
        ] {
            let o = env.mpt(&args, &vars);
            assert_eq!(o.status.code(), Some(2), "{args:?} {value}: {}", stdout(&o));
            let msg = json(&o)["message"].as_str().unwrap().to_string();
            assert!(msg.contains(&format!("MEMPALACE_EDGE='{value}'")), "{msg}");
        }
        assert_eq!(std::fs::read_to_string(&opencode).unwrap(), before);
        let o = env.mpt(&["--json", "doctor", "--check", "config"], &vars);
        assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
        let c = &json(&o)["checks"][0];
        assert_eq!(c["status"], "fail", "{c}");
        assert!(
            c["summary"]
                .as_str()
                .unwrap()
                .contains(&format!("MEMPALACE_EDGE='{value}'")),
            "{c}"
        );
    }
    for value in ["1", "0", ""] {
        let o = env.mpt(&["--json", "config"], &[("MEMPALACE_EDGE", value)]);
        assert_eq!(o.status.code(), Some(0), "{value:?}: {}", stderr(&o));
        assert_eq!(json(&o)["edge_opt_in"], value == "1", "{value:?}");
    }
}

#[test]
fn a_device_name_with_a_cr_a_space_or_a_line_break_is_refused_by_every_command() {
    let env = TestEnv::new();
    let palace = env.palace("p");
    let remote = [
        ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
        ("MEMPALACE_PALACE_PATH", palace.to_str().unwrap()),
    ];
    let commands: [&[&str]; 7] = [
        &["config"],
        &["mailbox"],
        &["outbox"],
        &["outbox", "backfill"],
        &["call", "status"],
        &["paths"],
        &["edge"],
    ];
    for value in ["lap\r", "lap ", "my lap", "lap\n"] {
        let mut vars = remote.to_vec();
        vars.push(("MEMPALACE_PI_DEVICE", value));
        for args in commands {
            let o = env.mpt(&[&["--json"], args].concat(), &vars);
            assert_eq!(
                o.status.code(),
                Some(2),
                "{args:?} {value:?}: {}",
                stdout(&o)
            );
            let e = json(&o);
            assert_eq!(e["kind"], "usage", "{e}");
            assert!(
                e["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("MEMPALACE_PI_DEVICE='"),
                "{args:?} {value:?}: {e}"
            );
        }
    }
    // The edge a harness starts (no --json: its stdout is MCP only) says why on stderr.
    let mut vars = remote.to_vec();
    vars.push(("MEMPALACE_PI_DEVICE", "lap\r"));
    let o = env.mpt(&["edge"], &vars);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("MEMPALACE_PI_DEVICE='lap\\r'"),
        "{}",
        stderr(&o)
    );
    // Doctor fails its config check and explains the CRLF case with the fix.
    let o = env.mpt(
        &["--json", "doctor", "--offline", "--check", "config"],
        &vars,
    );
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let check = &json(&o)["checks"][0];
    assert_eq!(check["status"], "fail", "{check}");
    let summary = check["summary"].as_str().unwrap();
    assert!(
        summary.contains("carriage return") && summary.contains("CRLF"),
        "{check}"
    );
    assert!(
        check["fix"].as_str().unwrap().contains("dos2unix"),
        "{check}"
    );
}

#[test]
fn a_malformed_edge_knob_is_exit_2_naming_it() {
    // MPT_EDGE_READ_DEADLINE_MS was read by the edge alone, a malformed value silently its default.
    let env = TestEnv::new();
    let remote = [("MEMPALACE_REMOTE_URL", "https://palace.example:8765/mcp")];
    for (key, value) in [
        ("MPT_EDGE_READ_DEADLINE_MS", "abc"),
        ("MPT_EDGE_GRACE_MS", "30s"),
        ("MPT_OUTBOX_SYNC", "sometimes"),
    ] {
        let mut vars = remote.to_vec();
        vars.push((key, value));
        let o = env.mpt(&["--json", "config"], &vars);
        assert_eq!(o.status.code(), Some(2), "{key}: {}", stdout(&o));
        let msg = json(&o)["message"].as_str().unwrap().to_string();
        assert!(msg.contains(&format!("{key}='{value}'")), "{msg}");
        // The edge a harness starts (stdout is MCP only) says why on stderr.
        let o = env.mpt(&["edge"], &vars);
        assert_eq!(o.status.code(), Some(2), "{key}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        assert!(
            stderr(&o).contains(&format!("{key}='{value}'")),
            "{}",
            stderr(&o)
        );
    }
}

/// How a device is set up: its variables, or the config file alone (issue 57).
#[derive(Clone, Copy, Debug)]
enum Way {
    Env,
    File,
}

/// The variables a device runs with set up `way`: the fleet's own, or those emptied (empty is
/// unset) and the same settings written to its config file, the token in a 0600 file.
fn set_up(d: &crate::support::fleet::Device, way: Way) -> Vec<(String, String)> {
    match way {
        Way::Env => Vec::new(),
        Way::File => {
            let dir = d.env.home().join(".config/mpt");
            std::fs::create_dir_all(&dir).unwrap();
            let token = dir.join("token");
            std::fs::write(&token, format!("{}\n", d.token)).unwrap();
            std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
            let cfg = json!({
                "remote_url": d.link.url(),
                "token_file": token,
                "device": d.name,
                "edge": true,
            });
            std::fs::write(dir.join("config.json"), cfg.to_string()).unwrap();
            [
                "MEMPALACE_REMOTE_URL",
                "MEMPALACE_REMOTE_TOKEN",
                "MEMPALACE_PI_DEVICE",
                "MEMPALACE_EDGE",
            ]
            .map(|k| (k.to_string(), String::new()))
            .to_vec()
        }
    }
}

/// A device configured by its config file alone runs as one configured by its environment: the
/// edge's writes stamped and shared, a write made offline queued and flushed, doctor's transport,
/// `mpt config` saying where each setting came from.
#[test]
fn a_device_set_up_by_its_config_file_alone_runs_as_one_set_up_by_its_environment() {
    use crate::support::link::Mode;
    for way in [Way::Env, Way::File] {
        let fleet = crate::support::fleet::Fleet::start(1);
        let d = &fleet.devices[0];
        let vars = set_up(d, way);
        let extra: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();

        let c = json(&d.mpt_with(&["--json", "config"], &extra));
        let source = |name: &str| {
            c["knobs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|k| k["name"] == name)
                .map(|k| k["source"].clone())
                .unwrap_or_default()
        };
        let expected = match way {
            Way::Env => "env",
            Way::File => "file",
        };
        for name in [
            "MEMPALACE_REMOTE_URL",
            "MEMPALACE_PI_DEVICE",
            "MEMPALACE_EDGE",
        ] {
            assert_eq!(source(name), expected, "{way:?} {name}: {c}");
        }
        assert_eq!(c["transport"], "remote", "{way:?}: {c}");
        // The token's road is shown, by where it was named, never by value.
        let token = &c["remote"]["token"];
        match way {
            Way::Env => assert_eq!(token["source"], "env", "{c}"),
            Way::File => {
                assert_eq!(source("MPT_TOKEN_FILE"), "file", "{c}");
                assert_eq!(token["source"], "file", "{c}");
                assert!(
                    token["path"]
                        .as_str()
                        .unwrap()
                        .ends_with(".config/mpt/token")
                );
            }
        }
        assert!(!c.to_string().contains(&d.token), "{way:?}: no token shown");
        assert_eq!(
            c["stamp_identity"],
            format!("mcp@{}", d.name),
            "{way:?}: {c}"
        );

        let mut h = d.session("pi", &extra);
        let online = format!("written online, set up by {way:?}");
        let a = h
            .call(
                "mempalace_add_drawer",
                json!({"wing": "w", "room": "r", "content": online}),
            )
            .unwrap();
        // Queued and sent by the edge's flusher, which runs beside the session.
        let landed = || {
            fleet
                .call("mempalace_get_drawer", json!({"drawer_id": a["drawer_id"]}))
                .ok()
                .filter(|g| g["drawer_id"] == a["drawer_id"])
        };
        assert!(
            crate::support::wait_for(60.0, || landed().is_some()),
            "{way:?}: landed"
        );
        let got = landed().unwrap();
        assert_eq!(got["metadata"]["added_by"], d.agent("pi"), "{way:?}: {got}");

        d.link.set(Mode::Refuse);
        let offline = format!("written offline, set up by {way:?}");
        let b = h
            .call(
                "mempalace_add_drawer",
                json!({"wing": "w", "room": "r", "content": offline}),
            )
            .unwrap();
        assert_eq!(b["success"], true, "{way:?}: {b}");
        drop(h);
        d.link.set(Mode::Pass);
        let o = d.mpt_with(&["outbox", "flush", "--wait"], &extra);
        assert!(o.status.success(), "{way:?}: {}{}", stdout(&o), stderr(&o));
        assert!(
            fleet
                .call("mempalace_get_drawer", json!({"drawer_id": b["drawer_id"]}))
                .is_ok_and(|g| g["drawer_id"] == b["drawer_id"]),
            "{way:?}: the offline write drained"
        );

        // The outbox both roads resolve is the one in the edge's folder, now empty.
        let edge_folder = d.env.home().join(".mempalace/edge/outbox.sqlite3");
        let summary = json(&d.mpt_with(&["--json", "outbox"], &extra));
        assert_eq!(
            summary["outbox"],
            edge_folder.to_str().unwrap(),
            "{way:?}: {summary}"
        );
        assert_eq!(summary["open"], 0, "{way:?}: {summary}");
        assert_eq!(summary["device"], d.name, "{way:?}: {summary}");
        let status = json(&d.mpt_with(&["--json", "edge", "status"], &extra));
        assert_eq!(
            status["outbox"]["path"], summary["outbox"],
            "{way:?}: {status}"
        );

        let o = d.mpt_with(&["--json", "doctor", "--check", "transport"], &extra);
        assert_eq!(o.status.code(), Some(0), "{way:?}: {}", stdout(&o));
        let o = d.mpt_with(
            &[
                "--json",
                "feed",
                "prepare",
                "--harness",
                "pi",
                "--reason",
                "manual",
            ],
            &extra,
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{way:?}: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
}
