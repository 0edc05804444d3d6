//! `mpt edge` driven by a harness-like client, against a real local child and a real primary:
//! the handshake, routing, merged and degraded reads, stamping, the embedder gate, stall
//! self-heal through the owner, and several edges sharing one owner (one writer).
//! Submodules: `fuzz`, `owner_faults` (the owner killed or stopped under its shims), `paths`,
//! `read_only_home`, `relay` (pipelined, large and split lines), `replication`, `shared` (one
//! owner per palace), `stop` (`mpt edge stop`), `wire`.

mod fuzz;
mod owner_faults;
mod paths;
mod pull_bounds;
mod read_only_home;
mod relay;
mod replication;
mod shared;
mod stop;
mod trust;
mod wire;

use std::time::Duration;

use mpt_mcp::{Deadline, McpClient};
use serde_json::{Value, json};

use crate::support::harness::Harness;
use crate::support::primary::{PrimaryOpts, remote_client};
use crate::support::{Primary, TestEnv, fixture};

fn primary_client(url: &str) -> McpClient {
    remote_client(url, None)
}

fn on_primary(
    rt: &tokio::runtime::Runtime,
    url: &str,
    tool: &str,
    args: Value,
) -> Result<Value, mpt_mcp::CallError> {
    rt.block_on(async {
        primary_client(url)
            .call_tool(tool, args, Deadline::Default)
            .await
            .map(|r| r.payload)
    })
}

fn requests_total(rt: &tokio::runtime::Runtime, url: &str) -> u64 {
    let McpClient::Remote(h) = primary_client(url) else {
        unreachable!()
    };
    let (_, body) = rt.block_on(h.get("/statusz", Deadline::Default)).unwrap();
    serde_json::from_str::<Value>(&body).unwrap()["requests"]["total"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_session_without_a_primary_is_a_pass_through() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let mut h = Harness::start(&env, &["--palace", palace.to_str().unwrap()], &[]);
    let init = h.initialize();
    assert_eq!(
        init["result"]["protocolVersion"], "2025-06-18",
        "negotiated as the child does"
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "mempalace");
    let tools = h.request("tools/list", json!({}));
    assert_eq!(
        tools["result"]["tools"].as_array().unwrap().len(),
        47,
        "the child's own tool set"
    );
    assert_eq!(h.request("ping", json!({}))["result"], json!({}));
    let w = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "passed through the edge"}),
        )
        .unwrap();
    assert_eq!(w["success"], true);
    assert!(w.get("added_by").is_none());
    let s = h
        .call("mempalace_search", json!({"query": "passed through"}))
        .unwrap();
    assert_eq!(s["results"][0]["drawer_id"], w["drawer_id"]);
    assert!(
        s.get("degraded").is_none(),
        "no primary configured: nothing to degrade from"
    );
    let unknown = h.call("mempalace_no_such_tool", json!({})).unwrap_err();
    assert_eq!(unknown["code"], -32601);
    assert!(h.close().success(), "stdin EOF: a clean exit");
    // The flag: the child was started with --palace, so the KG is palace-local.
    let mut h = Harness::start(&env, &["--palace", palace.to_str().unwrap()], &[]);
    h.initialize();
    h.call(
        "mempalace_kg_add",
        json!({"subject": "edge", "predicate": "passes", "object": "--palace"}),
    )
    .unwrap();
    h.close();
    assert!(palace.join("knowledge_graph.sqlite3").exists());
    assert!(
        !env.home()
            .join(".mempalace/knowledge_graph.sqlite3")
            .exists(),
        "no KG landmine"
    );
}

#[test]
fn reads_merge_both_palaces_and_degrade_when_the_primary_is_down() {
    let env = TestEnv::new();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let palace = env.palace("local");
    let mut p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let only_primary = on_primary(&rt, &url, "mempalace_add_drawer", json!({"wing": "fleet", "room": "ops", "content": "the outbox drains when the primary returns"})).unwrap();
    on_primary(&rt, &url, "mempalace_add_drawer", json!({"wing": "fleet", "room": "ops", "content": "both palaces hold this sentence about the outbox"})).unwrap();
    let vars = [("MEMPALACE_REMOTE_URL", url.as_str())];
    let mut h = Harness::start(&env, &["--palace", palace.to_str().unwrap()], &vars);
    h.initialize();
    let local_only = h.call("mempalace_add_drawer", json!({"wing": "fleet", "room": "ops", "content": "the outbox survives the laptop going offline"})).unwrap();
    h.call("mempalace_add_drawer", json!({"wing": "fleet", "room": "ops", "content": "both palaces hold this sentence about the outbox"})).unwrap();

    let s = h
        .call(
            "mempalace_search",
            json!({"query": "what happens to the outbox", "limit": 10}),
        )
        .unwrap();
    assert_eq!(
        s["merge"],
        Value::Null,
        "both palaces embed with minilm: merged: {s}"
    );
    let ids: Vec<&str> = s["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["drawer_id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&only_primary["drawer_id"].as_str().unwrap())
            && ids.contains(&local_only["drawer_id"].as_str().unwrap()),
        "{s}"
    );
    assert_eq!(ids.len(), 3, "the shared drawer once: {ids:?}");
    let d: Vec<f64> = s["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["distance"].as_f64().unwrap())
        .collect();
    assert!(
        d.windows(2).all(|w| w[0] <= w[1]),
        "sorted by distance: {d:?}"
    );

    p.stop();
    let down = h
        .call("mempalace_search", json!({"query": "outbox"}))
        .unwrap();
    assert_eq!(down["degraded"], true, "{down}");
    assert_eq!(
        h.request("tools/list", json!({}))["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        47,
        "tools never vanish"
    );
    let w = h.call("mempalace_add_drawer", json!({"wing": "fleet", "room": "ops", "content": "written while the primary was down"})).unwrap();
    assert_eq!(
        w["success"], true,
        "writes never fail because the primary is away"
    );
    let again = h.call("mempalace_kg_stats", json!({})).unwrap();
    assert_eq!(again["degraded"], true, "a known-down primary: {again}");
}

#[test]
fn maintenance_and_destructive_tools_never_reach_the_primary() {
    let env = TestEnv::new();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let palace = env.palace("local");
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let shared = json!({"wing": "w", "room": "r", "content": "exists on both sides"});
    let on_p = on_primary(&rt, &url, "mempalace_add_drawer", shared.clone()).unwrap();
    // No pull of the primary's log in the background: the primary must stay quiet.
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap()],
        &[
            ("MEMPALACE_REMOTE_URL", url.as_str()),
            ("MPT_EDGE_PULL_MS", "0"),
        ],
    );
    h.initialize();
    h.call("mempalace_add_drawer", shared).unwrap();
    // Let the flusher replicate that write first: only then is the primary quiet.
    let drained = crate::support::wait_for(30.0, || {
        let o = env.mpt(
            &["--json", "outbox"],
            &[("MEMPALACE_REMOTE_URL", url.as_str())],
        );
        let c = &crate::support::json(&o)["counts"];
        c["queued"] == 0 && c["leased"] == 0 && c["done"] == 1
    });
    assert!(drained, "the write was flushed");
    let before = requests_total(&rt, &url);
    let del = h
        .call(
            "mempalace_delete_drawer",
            json!({"drawer_id": on_p["drawer_id"]}),
        )
        .unwrap();
    assert_eq!(del["success"], true, "{del}");
    let _ = h.call("mempalace_sync", json!({}));
    let _ = h.call(
        "mempalace_mine",
        json!({"source": env.path("nothing").to_str().unwrap(), "dry_run": true}),
    );
    let _ = h.call("mempalace_reconnect", json!({}));
    let _ = h.call("mempalace_brand_new_tool", json!({}));
    assert_eq!(
        requests_total(&rt, &url) - before,
        1,
        "only the statusz read itself: nothing was proxied"
    );
    let still = on_primary(
        &rt,
        &url,
        "mempalace_get_drawer",
        json!({"drawer_id": on_p["drawer_id"]}),
    )
    .unwrap();
    assert_eq!(
        still["drawer_id"], on_p["drawer_id"],
        "the primary keeps its drawer: {still}"
    );
}

#[test]
fn stamping_follows_both_gates() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    // Device set, no remote: a solitary palace stamps nothing.
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap(), "--harness", "pi"],
        &[("MEMPALACE_PI_DEVICE", "lap")],
    );
    h.initialize();
    h.call(
        "mempalace_diary_write",
        json!({"agent_name": "pi", "entry": "solitary entry"}),
    )
    .unwrap();
    let d = h
        .call("mempalace_diary_read", json!({"agent_name": "pi"}))
        .unwrap();
    assert_eq!(d["entries"][0]["content"], "solitary entry");
    h.close();
    drop(h);

    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let vars = [
        ("MEMPALACE_PI_DEVICE", "lap"),
        ("MEMPALACE_REMOTE_URL", url.as_str()),
    ];
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap(), "--harness", "pi"],
        &vars,
    );
    h.initialize();
    let w = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "stamped by the edge"}),
        )
        .unwrap();
    let got = h
        .call("mempalace_get_drawer", json!({"drawer_id": w["drawer_id"]}))
        .unwrap();
    assert_eq!(got["metadata"]["added_by"], "pi@lap", "{got}");
    h.call(
        "mempalace_diary_write",
        json!({"agent_name": "pi", "entry": "fleet entry", "wing": "wing_local_only"}),
    )
    .unwrap();
    let d = h
        .call(
            "mempalace_diary_read",
            json!({"agent_name": "pi", "wing": "wing_local_only"}),
        )
        .unwrap();
    assert_eq!(d["entries"][0]["content"], "HOST:lap|fleet entry", "{d}");
}

#[test]
fn different_embedders_disable_the_merge_and_say_why() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let fake = crate::support::FakeEmbedder::start();
    let p = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            extra_env: fake.env(),
            ..Default::default()
        },
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    on_primary(
        &rt,
        &p.url(),
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "embedded by the fake model"}),
    )
    .unwrap();
    env.call_local(
        &palace,
        "add_drawer",
        r#"{"wing":"w","room":"r","content":"embedded by minilm"}"#,
    );
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap()],
        &[("MEMPALACE_REMOTE_URL", p.url().as_str())],
    );
    h.initialize();
    let s = crate::support::wait_for(10.0, || {
        let s = h
            .call("mempalace_search", json!({"query": "embedded"}))
            .unwrap();
        s["merge"]
            .as_str()
            .is_some_and(|m| m.contains("embedders differ"))
    });
    drop(fake);
    assert!(s, "the payload says why it did not merge");
}

#[test]
fn a_stalled_child_fails_within_the_deadline_and_is_respawned() {
    let env = TestEnv::new();
    let dir = env.path("stall");
    std::fs::create_dir_all(&dir).unwrap();
    let wrapper = dir.join("stall-child");
    let calls = dir.join("calls.log");
    crate::support::write_script(
        &wrapper,
        &format!(
            "#!/bin/sh
exec python3 {} \"$@\"
",
            fixture("stall_child.py").display()
        ),
    );
    let vars = [
        ("MEMPALACE_MCP_TIMEOUT_MS", "700"),
        ("MEMPALACE_MCP_RESPAWN_BACKOFF_MS", "50"),
        ("FAKE_CALL_LOG", calls.to_str().unwrap()),
    ];
    let mut h = Harness::start(
        &env,
        &[
            "--palace",
            env.palace("local").to_str().unwrap(),
            "--child",
            wrapper.to_str().unwrap(),
        ],
        &vars,
    );
    h.initialize();
    assert_eq!(h.call("echo", json!({})).unwrap()["success"], true);
    let e = h.call("stall", json!({})).unwrap_err();
    assert!(e["message"].as_str().unwrap().contains("timed out"), "{e}");
    assert_eq!(
        h.call("echo", json!({})).unwrap()["success"],
        true,
        "respawned, later calls work"
    );

    // SIGTERM with a request in flight: no new work, the in-flight reply still written, exit 0.
    let id = h.send("tools/call", json!({"name": "stall", "arguments": {}}));
    let stalls = || {
        std::fs::read_to_string(&calls)
            .unwrap_or_default()
            .lines()
            .filter(|l| *l == "stall")
            .count()
    };
    assert!(
        crate::support::wait_for(30.0, || stalls() == 2),
        "the second stall reached the respawned child"
    );
    assert!(h.terminate().success(), "a clean exit on SIGTERM");
    let reply = h.reply(&id, 5);
    assert!(
        reply.get("error").is_some(),
        "the in-flight request was answered: {reply}"
    );
}

#[test]
fn three_edges_share_one_owner_and_one_writer() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = palace.to_str().unwrap().to_string();
    let mut harnesses: Vec<Harness> = (0..3)
        .map(|_| Harness::start(&env, &["--palace", &p], &[]))
        .collect();
    for h in &mut harnesses {
        h.initialize();
    }
    let handles: Vec<_> = harnesses
        .into_iter()
        .enumerate()
        .map(|(i, mut h)| {
            std::thread::spawn(move || {
                for j in 0..10 {
                    let r = h.call(
                        "mempalace_add_drawer",
                        json!({"wing": "w", "room": "r", "content": format!("edge {i} write {j}")}),
                    );
                    let r = r.unwrap_or_else(|e| panic!("edge {i} write {j} failed: {e}"));
                    assert_eq!(r["success"], true, "{r}");
                }
                h
            })
        })
        .collect();
    let mut harnesses: Vec<Harness> = handles.into_iter().map(|t| t.join().unwrap()).collect();
    let children = mpt_palace::procs::list()
        .into_iter()
        .filter(|p| {
            p.role == Some(mpt_palace::procs::Role::Child)
                && p.palace_arg().is_some_and(|a| a == palace)
        })
        .count();
    assert_eq!(children, 1, "one child for three edges");
    for h in &mut harnesses {
        assert!(h.close().success());
    }
    drop(harnesses);
    // A fresh MemPalace process runs its own integrity check on the palace the three edges wrote.
    let status = env.call_local(&palace, "status", "{}");
    assert_eq!(status["total_drawers"], 30, "{status}");
    assert_eq!(status["sqlite_integrity"]["checked"], true, "{status}");
    assert_eq!(status["sqlite_integrity"]["ok"], true, "{status}");
}

#[test]
fn event_wait_waits_on_the_primary_without_blocking_the_child() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap()],
        &[("MEMPALACE_REMOTE_URL", url.as_str())],
    );
    h.initialize();
    h.call("mempalace_kg_stats", json!({})).unwrap();
    let t = std::time::Instant::now();
    let wait = h.send("tools/call", json!({"name": "mempalace_event_wait", "arguments": {"to_agent": "pi@lap", "timeout_ms": 6000}}));
    // Sent after the wait: answered before it (the wait still pending) only if it did not block.
    let stats = h.call("mempalace_kg_stats", json!({})).unwrap();
    assert!(!h.replied(&wait), "the child answered while the wait ran");
    assert!(
        stats.get("degraded").is_none(),
        "a long wait does not mark the primary down: {stats}"
    );
    let r = h.reply(&wait, 30);
    assert!(
        t.elapsed() >= Duration::from_millis(5900),
        "it waited its full timeout on the primary: {:?}",
        t.elapsed()
    );
    let payload = mpt_mcp::ToolReply::from_result(&r["result"]).payload;
    assert_eq!(payload["timed_out"], true, "{payload}");
    assert!(payload.get("degraded").is_none(), "{payload}");
}
