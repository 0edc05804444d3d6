//! `mpt edge stop`: refused (exit 6, naming each harness session by pid) while a session uses the
//! owner; else the owner answers what is in flight, stops its child and exits; a lingering
//! flusher is stopped too. Each against a real owner and a real child (or the stalling fixture).

use std::time::Duration;

use mpt_mcp::Deadline;
use serde_json::{Value, json};

use crate::human::{settings, shown};
use crate::support::harness::Harness;
use crate::support::{TestEnv, fixture, free_port, json, pid_alive, wait_for};

/// The palace's edge as `mpt edge status` reports it.
fn status(env: &TestEnv, palace: &str, vars: &[(&str, &str)]) -> Value {
    json(&env.mpt(&["--json", "edge", "status", "--palace", palace], vars))
}

fn lease_held(env: &TestEnv, palace: &str) -> bool {
    let p = json(&env.mpt(&["--json", "paths", "--palace", palace], &[]));
    p["writer_lease"]["held"] == true
}

#[test]
fn a_session_keeps_the_owner_and_without_one_it_stops_leaving_its_writes_queued() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let dead = format!("http://127.0.0.1:{}/mcp", free_port());
    let vars = [
        ("MEMPALACE_REMOTE_URL", dead.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
        // Long enough that only `mpt edge stop` ends the owner within the test.
        ("MPT_EDGE_GRACE_MS", "600000"),
    ];
    let mut h = Harness::start(&env, &["--palace", p, "--harness", "opencode"], &vars);
    h.initialize();
    let w = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "written before the stop"}),
        )
        .unwrap();
    assert_eq!(w["success"], true, "{w}");
    let owner = status(&env, p, &vars)["owner"]["pid"].as_u64().unwrap() as u32;

    let refused = env.mpt(&["edge", "stop", "--palace", p], &vars);
    assert_eq!(refused.status.code(), Some(6), "{}", shown(&refused));
    let text = crate::support::stderr(&refused);
    assert!(
        text.contains(&format!(
            "pid {} (`mpt edge` for opencode, started by pid {})",
            h.pid(),
            std::process::id()
        )),
        "names the session's shim and the harness above it: {text}"
    );
    settings(&env).bind(|| insta::assert_snapshot!("edge_stop_refused", shown(&refused)));
    let doc = json(&env.mpt(&["--json", "edge", "stop", "--palace", p], &vars));
    assert_eq!(doc["kind"], "busy", "{doc}");
    assert_eq!(doc["detail"]["sessions"][0]["pid"], h.pid(), "{doc}");
    assert!(
        doc["hint"]
            .as_str()
            .unwrap()
            .starts_with("quit those harness sessions"),
        "{doc}"
    );
    let st = status(&env, p, &vars);
    assert_eq!(st["owner"]["sessions"][0]["harness"], "opencode", "{st}");
    assert!(pid_alive(owner), "a refused stop leaves the owner serving");

    assert!(h.close().success());
    assert!(
        lease_held(&env, p),
        "the owner's child still holds the palace in its grace"
    );
    let stop = env.mpt(&["edge", "stop", "--palace", p], &vars);
    assert_eq!(stop.status.code(), Some(0), "{}", shown(&stop));
    assert!(
        !pid_alive(owner),
        "the owner exited before the command returned"
    );
    assert!(!lease_held(&env, p), "its child let go of the palace");
    settings(&env).bind(|| insta::assert_snapshot!("edge_stop_stopped", shown(&stop)));
    let after = status(&env, p, &vars);
    assert_eq!(after["owner"]["running"], false, "{after}");
    assert_eq!(
        after["lingering_flusher_pid"],
        Value::Null,
        "a stopped owner does not linger"
    );
    assert_eq!(
        after["outbox"]["open"], 1,
        "the write stays queued: {after}"
    );

    let nothing = json(&env.mpt(&["--json", "edge", "stop", "--palace", p], &vars));
    assert_eq!(nothing["schema"], "mpt.edge.stop/v1");
    assert_eq!(
        nothing["stopped"],
        json!([]),
        "nothing left to stop: {nothing}"
    );
}

#[test]
fn a_lingering_flusher_with_no_session_is_stopped() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let dead = format!("http://127.0.0.1:{}/mcp", free_port());
    // The owner stops serving 400 ms after its last session and lingers to flush.
    let vars = [("MEMPALACE_REMOTE_URL", dead.as_str())];
    let mut h = Harness::start(&env, &["--palace", p], &vars);
    h.initialize();
    h.call(
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "waits for a primary"}),
    )
    .unwrap();
    assert!(h.close().success());
    // Read off the linger lock, not `mpt edge status`: its probe of the owner's socket is a
    // connection, which restarts the owner's grace.
    let paths = mpt_edge::owner::OwnerPaths::new(&env.snapshot(), &env.home(), &palace);
    let mut lingering = None;
    assert!(
        wait_for(60.0, || {
            lingering = mpt_edge::owner::lingering_pid(&paths);
            lingering.is_some()
        }),
        "the owner lingers to flush its queued write"
    );
    let pid = lingering.unwrap();
    let doc = json(&env.mpt(&["--json", "edge", "stop", "--palace", p], &vars));
    assert_eq!(doc["stopped"][0]["was"], "lingering flusher", "{doc}");
    assert_eq!(doc["stopped"][0]["pid"], pid, "{doc}");
    assert_eq!(doc["outbox_open"], 1, "{doc}");
    assert!(!pid_alive(pid), "gone before the command returned");
}

#[test]
fn the_stop_waits_for_a_call_in_flight_and_answers_it() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap();
    let dir = env.path("stall");
    std::fs::create_dir_all(&dir).unwrap();
    let wrapper = dir.join("stall-child");
    let calls = dir.join("calls.log");
    crate::support::write_script(
        &wrapper,
        &format!(
            "#!/bin/sh\nexec python3 {} \"$@\"\n",
            fixture("stall_child.py").display()
        ),
    );
    let vars = [
        // The stop must find the call in flight however loaded the machine is.
        ("MEMPALACE_MCP_TIMEOUT_MS", "10000"),
        ("MEMPALACE_MCP_RESPAWN_BACKOFF_MS", "50"),
        ("FAKE_CALL_LOG", calls.to_str().unwrap()),
        ("MPT_EDGE_GRACE_MS", "600000"),
    ];
    let mut h = Harness::start(
        &env,
        &["--palace", p, "--child", wrapper.to_str().unwrap()],
        &vars,
    );
    h.initialize();
    assert!(h.close().success());
    let owner = status(&env, p, &vars)["owner"]["pid"].as_u64().unwrap() as u32;
    // A tool client of the owner (as `mpt call` and doctor are) whose call the child never answers.
    let paths = mpt_edge::owner::OwnerPaths::new(&env.snapshot(), &env.home(), &palace);
    let call = std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let c = mpt_edge::owner::client(&paths, "test", Some(Duration::from_secs(60)));
            c.connect().await.unwrap();
            c.call_tool("stall", json!({}), Deadline::Default).await
        })
    });
    assert!(
        wait_for(30.0, || std::fs::read_to_string(&calls)
            .is_ok_and(|c| c.contains("stall"))),
        "the call reached the owner's child"
    );
    let doc = json(&env.mpt(&["--json", "edge", "stop", "--palace", p], &vars));
    assert_eq!(doc["stopped"][0]["pid"], owner, "{doc}");
    assert_eq!(
        doc["stopped"][0]["inflight"], 1,
        "it waited for the call in flight: {doc}"
    );
    let answered = call.join().unwrap().unwrap_err();
    assert!(
        answered.to_string().contains("timed out"),
        "the call got its answer (the child's deadline), not a dropped connection: {answered}"
    );
    assert!(!pid_alive(owner));
}
