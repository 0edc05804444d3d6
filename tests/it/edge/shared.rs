//! Who shares a palace's edge owner: a shim only with the configuration the owner serves (refused,
//! exit 4, while others use it; the owner steps down when nobody does), and `mpt call` through it.

use std::io::Write;
use std::process::Stdio;

use serde_json::json;

use crate::support::harness::Harness;
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, json, pid_alive, stderr, wait_for};

/// `mpt edge --palace P` as a harness starts it, sent `initialize`, stdin then closed.
fn one_shot_edge(env: &TestEnv, palace: &str, vars: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = env.mpt_command(&["edge", "--palace", palace]);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let mut stdin = child.stdin.take().unwrap();
    let _ = writeln!(stdin, "{init}");
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// The palace's owner as `mpt edge status` reports it: its pid while it runs.
fn owner_pid(env: &TestEnv, palace: &str) -> Option<u64> {
    let o = env.mpt(&["--json", "edge", "status", "--palace", palace], &[]);
    let s = json(&o);
    (s["owner"]["running"] == true).then(|| s["owner"]["pid"].as_u64())?
}

#[test]
fn a_shim_with_another_configuration_is_refused_while_others_use_the_owner() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let mut a = Harness::start(&env, &["--palace", p], &[("MEMPALACE_PI_DEVICE", "box-a")]);
    a.initialize();
    let owner = owner_pid(&env, p).expect("the owner runs");

    let o = one_shot_edge(&env, p, &[("MEMPALACE_PI_DEVICE", "box-b")]);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(4),
        "refused, never served silently: {err}"
    );
    assert!(
        err.contains("MEMPALACE_PI_DEVICE (owner: \"box-a\", this edge: \"box-b\")")
            && err.contains(&format!("pid {owner}"))
            && err.contains(&format!("kill {owner}")),
        "names the difference, the owner and how to restart it: {err}"
    );
    assert!(
        o.stdout.is_empty(),
        "nothing answered with the other routing"
    );

    // Another primary and a token: named, the token never shown.
    let o = one_shot_edge(
        &env,
        p,
        &[
            ("MEMPALACE_PI_DEVICE", "box-a"),
            ("MEMPALACE_REMOTE_URL", "http://127.0.0.1:9/mcp"),
            ("MEMPALACE_REMOTE_TOKEN", "tok-never-printed-7f3a"),
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(
        err.contains("MEMPALACE_REMOTE_URL (owner: unset, this edge: \"http://127.0.0.1:9/mcp\")")
            && err.contains("token (owner: unset, this edge: set)")
            && !err.contains("tok-never-printed-7f3a"),
        "{err}"
    );

    // The first session is untouched, and the same configuration still shares the owner.
    let w = a
        .call(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "still served"}),
        )
        .unwrap();
    assert_eq!(w["success"], true, "{w}");
    let mut same = Harness::start(&env, &["--palace", p], &[("MEMPALACE_PI_DEVICE", "box-a")]);
    assert_eq!(
        same.initialize()["result"]["serverInfo"]["name"],
        "mempalace"
    );
    assert_eq!(owner_pid(&env, p), Some(owner), "one owner");
}

#[test]
fn an_owner_nobody_uses_steps_down_for_a_shim_with_another_configuration() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let primary = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = primary.url();
    // An owner started without the primary, lingering with no shim connected.
    let first = env.spawn(
        std::path::Path::new(env!("CARGO_BIN_EXE_mpt")),
        &["edge", "--owner", "--palace", p],
        &[("MPT_EDGE_GRACE_MS", "600000")],
    );
    assert!(
        wait_for(120.0, || owner_pid(&env, p).is_some()),
        "the first owner serves"
    );
    assert_eq!(owner_pid(&env, p), Some(u64::from(first.pid())));

    let mut h = Harness::start(
        &env,
        &["--palace", p],
        &[
            ("MEMPALACE_REMOTE_URL", url.as_str()),
            ("MEMPALACE_PI_DEVICE", "lap"),
        ],
    );
    assert_eq!(h.initialize()["result"]["serverInfo"]["name"], "mempalace");
    assert!(
        wait_for(10.0, || !pid_alive(first.pid())),
        "the old owner stepped down"
    );
    let now = owner_pid(&env, p).expect("a new owner runs");
    assert_ne!(now, u64::from(first.pid()));

    // The new owner routes by this shim's configuration: the write reaches the primary.
    let w = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "routed by my own configuration"}),
        )
        .unwrap();
    assert_eq!(w["success"], true, "{w}");
    let replicated = wait_for(60.0, || {
        let o = env.mpt(
            &[
                "--json",
                "call",
                "search",
                r#"{"query": "routed by my own configuration"}"#,
            ],
            &[("MEMPALACE_REMOTE_URL", url.as_str())],
        );
        o.status.success()
            && json(&o)["payload"]["results"].as_array().is_some_and(|r| {
                r.iter().any(|x| {
                    x["text"]
                        .as_str()
                        .is_some_and(|t| t.contains("routed by my own"))
                })
            })
    });
    assert!(
        replicated,
        "the write was queued for and flushed to the primary"
    );
}

#[test]
fn mpt_call_beside_a_running_edge_goes_through_its_owner() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let mut h = Harness::start(&env, &["--palace", p], &[]);
    h.initialize();
    // The owner's child writes first: it holds the palace's writer lease.
    h.call(
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "written by the edge"}),
    )
    .unwrap();

    let o = env.mpt(
        &[
            "--json",
            "call",
            "--palace",
            p,
            "add_drawer",
            r#"{"wing": "w", "room": "r", "content": "written by mpt call"}"#,
        ],
        &[],
    );
    assert!(o.status.success(), "not a second writer: {}", stderr(&o));
    let j = json(&o);
    assert_eq!(j["transport"], "edge", "{j}");
    assert_eq!(j["payload"]["success"], true, "{j}");

    let found = h
        .call(
            "mempalace_search",
            json!({"query": "written by mpt call", "limit": 5}),
        )
        .unwrap();
    let texts: Vec<&str> = found["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["text"].as_str())
        .collect();
    assert!(texts.contains(&"written by mpt call"), "{found}");
    let children = mpt_palace::procs::list()
        .into_iter()
        .filter(|c| {
            c.role == Some(mpt_palace::procs::Role::Child)
                && c.palace_arg().is_some_and(|a| a == palace)
        })
        .count();
    assert_eq!(children, 1, "one child on the palace");
}
