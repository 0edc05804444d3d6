//! `mpt feed mine` in local mode: its own child when nobody holds the palace, the live hub when one
//! is registered, exit 6 naming the holder otherwise; the mine's deadline and no retry (fake hub).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use mpt_base::config::Env;
use mpt_palace::PalacePaths;
use serde_json::{Value, json};

use super::cli::{feed, sessions_copy};
use crate::mcp::stdio_real::live_writer;
use crate::support::feed::*;
use crate::support::primary::PrimaryOpts;
use crate::support::{Primary, TestEnv, json, stderr};

fn mine(env: &TestEnv, s: &Path, palace: &Path, extra: &[(&str, &str)]) -> std::process::Output {
    let mut vars = vec![("MEMPALACE_PALACE_PATH", palace.to_str().unwrap())];
    vars.extend_from_slice(extra);
    feed(
        env,
        &[
            "--json",
            "feed",
            "mine",
            "--reason",
            "shutdown",
            "--sessions",
            s.to_str().unwrap(),
        ],
        &vars,
    )
}

#[test]
fn a_local_child_mines_when_nobody_holds_the_palace_and_a_rerun_files_nothing() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let palace = env.palace("local");
    let o = mine(&env, &s, &palace, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = json(&o);
    let m = &j["mine"];
    assert_eq!(m["route"], json!({"via": "child", "palace": palace}));
    assert_eq!(m["payload"]["success"], true, "{m}");
    assert_eq!(m["summary"]["drawers_filed"], 20, "{m}");
    assert_eq!(
        m["agent"],
        Value::Null,
        "no stamping without a shared palace"
    );
    assert_eq!(j["prepare"]["exported"], 6);
    let again = json(&mine(&env, &s, &palace, &[]));
    assert_eq!(again["mine"]["summary"]["drawers_filed"], 0, "{again}");
    assert_eq!(again["mine"]["summary"]["files_skipped"], 6, "{again}");
    let lease = PalacePaths::resolve(
        &Env::from_pairs([("HOME", env.home().to_str().unwrap())]),
        Some(&palace),
    )
    .unwrap()
    .writer_lease;
    let holder = mpt_palace::files::lease_holder(&lease).unwrap();
    assert!(
        !holder.is_some_and(|h| h.held),
        "our child is gone and the lease free"
    );
}

#[test]
fn a_live_hub_is_mined_through_never_beside() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let palace = env.palace("hubbed");
    let hub = Primary::start(&env, &palace, PrimaryOpts::default());
    let o = mine(&env, &s, &palace, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let m = &json(&o)["mine"];
    assert_eq!(m["route"]["via"], "hub");
    assert_eq!(m["route"]["pid"], hub.pid());
    assert_eq!(m["route"]["url"], hub.url());
    assert_eq!(m["summary"]["drawers_filed"], 20, "{m}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_palace_held_without_a_hub_is_exit_6_naming_the_holder() {
    let env = Arc::new(TestEnv::new());
    let s = sessions_copy(&env);
    let palace = env.palace("held");
    let (holder, pid) = live_writer(&env, &palace).await;
    let (e2, s2, p2) = (Arc::clone(&env), s.clone(), palace.clone());
    let o = tokio::task::spawn_blocking(move || mine(&e2, &s2, &p2, &[]))
        .await
        .unwrap();
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    let e = json(&o);
    assert_eq!(e["kind"], "busy");
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains(&format!("held by pid {pid}")) && msg.contains("no hub"),
        "{msg}"
    );
    assert_eq!(
        contents(&env.path("state/mpt/feed/staged")).len(),
        6,
        "the transcripts stay staged"
    );
    holder.shutdown().await;
}

#[derive(Clone)]
struct Fake {
    delay: Duration,
    reply: Value,
    mines: Arc<Mutex<u32>>,
}

async fn fake_hub(State(f): State<Fake>, body: axum::body::Bytes) -> axum::response::Response {
    let msg: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let Some(id) = msg.get("id").cloned() else {
        return axum::response::Response::builder()
            .status(202)
            .body(axum::body::Body::empty())
            .unwrap();
    };
    let result = match msg["method"].as_str().unwrap_or("") {
        "initialize" => {
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "fake-hub", "version": "3.11.0"}})
        }
        "tools/list" => {
            json!({"tools": [{"name": "mempalace_mine", "inputSchema": {"type": "object"}}]})
        }
        _ => {
            *f.mines.lock().unwrap() += 1;
            tokio::time::sleep(f.delay).await;
            json!({"content": [{"type": "text", "text": f.reply.to_string()}]})
        }
    };
    let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
    axum::response::Response::builder()
        .header("content-type", "application/json")
        .body(axum::body::Body::from(reply.to_string()))
        .unwrap()
}

/// Registers a fake hub for `palace` in the test's registry (its pid: ours, alive).
async fn register_fake(env: &TestEnv, palace: &Path, fake: Fake) {
    let app = Router::new().route("/mcp", post(fake_hub)).with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let paths = PalacePaths::resolve(
        &Env::from_pairs([("HOME", env.home().to_str().unwrap())]),
        Some(palace),
    )
    .unwrap();
    std::fs::create_dir_all(&paths.server_dir).unwrap();
    let info = json!({"pid": std::process::id(), "host": "127.0.0.1", "port": port, "scheme": "http", "read_only": false, "palace_path": palace});
    std::fs::write(&paths.serverinfo, info.to_string()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mine_deadline_is_the_transports_own_and_never_retried() {
    let env = Arc::new(TestEnv::new());
    let s = sessions_copy(&env);
    let ok = json!({"success": true, "mode": "convos", "dry_run": false, "output": "  Files processed: 6\n  Files skipped (already filed): 0\n  Drawers filed: 20\n"});
    let run = |palace: std::path::PathBuf, vars: Vec<(&'static str, &'static str)>| {
        let (e, s) = (Arc::clone(&env), s.clone());
        tokio::task::spawn_blocking(move || mine(&e, &s, &palace, &vars))
    };

    // A 1.5 s mine under a 0.5 s default: the feed's own deadline is what the transport uses.
    let slow_ok = Fake {
        delay: Duration::from_millis(1500),
        reply: ok.clone(),
        mines: Arc::default(),
    };
    let palace = env.palace("slow");
    register_fake(&env, &palace, slow_ok.clone()).await;
    let vars = vec![
        ("MEMPALACE_MCP_TIMEOUT_MS", "500"),
        ("MEMPALACE_FEED_MINE_TIMEOUT_MS", "10000"),
    ];
    let o = run(palace, vars).await.unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json(&o)["mine"]["summary"]["drawers_filed"], 20);

    // Past the feed's deadline: exit 7, the bridge's reassurance, and exactly one call.
    let stalled = Fake {
        delay: Duration::from_secs(20),
        reply: ok.clone(),
        mines: Arc::default(),
    };
    let palace = env.palace("stalled");
    register_fake(&env, &palace, stalled.clone()).await;
    let o = run(palace, vec![("MEMPALACE_FEED_MINE_TIMEOUT_MS", "700")])
        .await
        .unwrap();
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    let e = json(&o);
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.contains("Nothing has been lost") && msg.contains("continues server-side"),
        "{msg}"
    );
    assert!(
        e["hint"].as_str().unwrap().contains("do not retry harder"),
        "{e}"
    );

    // A concurrent mine reported inside a good reply is busy (exit 6), not success.
    let busy = json!({"success": false, "error": "another mine is in progress: held by 4242", "error_class": "LockHeldByOtherProcess"});
    let other = Fake {
        delay: Duration::ZERO,
        reply: busy,
        mines: Arc::default(),
    };
    let palace = env.palace("busy");
    register_fake(&env, &palace, other).await;
    let o = run(palace, vec![]).await.unwrap();
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    assert_eq!(json(&o)["kind"], "busy");
    // Read after that whole later run (not after a sleep): a retry the stalled run sent before
    // it exited has been counted by now.
    assert_eq!(*stalled.mines.lock().unwrap(), 1, "never retried");
}

#[test]
fn a_running_edge_owner_is_mined_through_and_probed_by_the_doctor() {
    let env = TestEnv::new();
    let s = sessions_copy(&env);
    let palace = env.palace("edged");
    let mut h =
        crate::support::harness::Harness::start(&env, &["--palace", palace.to_str().unwrap()], &[]);
    h.initialize();
    // The owner's child writes first, so it holds the palace's writer lease.
    h.call(
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": "the edge holds this palace"}),
    )
    .unwrap();
    let o = mine(&env, &s, &palace, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "through the owner, not exit 6: {}",
        stderr(&o)
    );
    let m = &json(&o)["mine"];
    assert_eq!(m["route"]["via"], "edge", "{m}");
    assert_eq!(m["summary"]["drawers_filed"], 20, "{m}");
    let found = h
        .call(
            "mempalace_search",
            json!({"query": "Cache-Control no-store", "limit": 3}),
        )
        .unwrap();
    assert!(
        found["results"].as_array().is_some_and(|r| !r.is_empty()),
        "the mined transcripts are in the palace the edge serves: {found}"
    );

    let d = env.mpt(
        &["--json", "doctor", "--check", "transport"],
        &[("MEMPALACE_PALACE_PATH", palace.to_str().unwrap())],
    );
    let c = &json(&d)["checks"][0];
    assert_eq!(c["status"], "ok", "{c}");
    assert!(
        c["summary"].as_str().unwrap().starts_with("the edge owner"),
        "{c}"
    );
    let children = mpt_palace::procs::list()
        .into_iter()
        .filter(|p| {
            p.role == Some(mpt_palace::procs::Role::Child)
                && p.palace_arg().is_some_and(|a| a == palace)
        })
        .count();
    assert_eq!(children, 1, "still one child on the palace");
}
