//! The palace's owner failing under its shims: killed with -9 while 20 shims have calls of every
//! tool class in flight (nothing applied locally and unqueued, nothing twice on the primary), and
//! stopped with SIGSTOP (alive, not answering: each shim answers with an error naming it).

use std::path::Path;
use std::time::Duration;

use mpt_edge::owner::OwnerPaths;
use mpt_mcp::{Deadline, McpClient};
use serde_json::{Value, json};

use crate::support::harness::Harness;
use crate::support::primary::{PrimaryOpts, call_remote};
use crate::support::{Primary, TestEnv, pid_alive, wait_for};

const SHIMS: usize = 20;

fn owner_of(env: &TestEnv, palace: &Path) -> Option<u32> {
    mpt_edge::owner::owner_pid(&OwnerPaths::new(&env.snapshot(), &env.home(), palace))
}

/// A HOME with a local palace, and a real primary (kept alive by the caller): its URL.
fn with_primary() -> (TestEnv, std::path::PathBuf, Primary, String) {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    (env, palace, p, url)
}

/// This device's edge configuration: the primary at `url`, the device `lap`.
fn device_vars(url: &str) -> [(&'static str, &str); 2] {
    [
        ("MEMPALACE_REMOTE_URL", url),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ]
}

/// A client for the palace alone, through its running owner (never merged with the primary's),
/// and a runtime to call it on.
fn local_palace(env: &TestEnv, palace: &Path) -> (tokio::runtime::Runtime, McpClient) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let local = mpt_mcp::owner_socket::greet(
        &OwnerPaths::new(&env.snapshot(), &env.home(), palace).socket,
        "backfill",
        true,
        Some(Duration::from_secs(60)),
    );
    (rt, local)
}

/// Sends SIGCONT when dropped: a stopped owner must not outlive a failed test.
struct Continue(u32);

impl Drop for Continue {
    fn drop(&mut self) {
        unsafe {
            libc::kill(self.0 as libc::pid_t, libc::SIGCONT);
        }
    }
}

#[test]
fn a_stopped_owner_is_answered_with_an_error_naming_it_and_the_session_goes_on() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    // The child's per-call deadline, 5 s: the shim gives the owner that, the read deadline and
    // some slack (not a timing: what is asserted is that an answer comes at all).
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap()],
        &[("MEMPALACE_MCP_TIMEOUT_MS", "5000")],
    );
    h.initialize();
    h.call("mempalace_kg_stats", json!({})).unwrap();
    let owner = owner_of(&env, &palace).expect("an owner serves");
    let resume = Continue(owner);
    unsafe {
        libc::kill(owner as libc::pid_t, libc::SIGSTOP);
    }
    let err = h
        .call("mempalace_kg_stats", json!({}))
        .expect_err("a stopped owner cannot answer");
    let msg = err["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains(&format!("pid {owner}")) && msg.contains("did not answer"),
        "the error names the stuck owner: {err}"
    );
    assert!(
        msg.contains(&format!("kill {owner}")),
        "and how to stop it: {err}"
    );
    assert!(pid_alive(owner), "the shim does not kill it");
    drop(resume);
    // Resumed, it serves again; its late answer to the first call never reaches the harness.
    let stats = h.call("mempalace_kg_stats", json!({})).unwrap();
    assert!(stats.get("triples").is_some(), "{stats}");
    h.request("ping", json!({}));
    assert_eq!(owner_of(&env, &palace), Some(owner), "the same owner");
}

/// One write a harness made, and what it was told.
struct Write {
    tool: &'static str,
    key: String,
    acked: bool,
}

/// A harness's round of every tool class. It follows the edge's advice after an error: it calls
/// again only when told calling again is safe.
fn session(h: &mut Harness, shim: usize) -> Vec<Write> {
    let mut out = Vec::new();
    let calls: Vec<(&'static str, String, Value)> = vec![
        (
            "mempalace_diary_write",
            format!("diary {shim}"),
            json!({"agent_name": "pi", "entry": format!("diary {shim}"), "wing": "wing_pi"}),
        ),
        (
            "mempalace_kg_add",
            format!("svc_{shim}"),
            json!({"subject": format!("svc_{shim}"), "predicate": "runs_on", "object": "lap"}),
        ),
        (
            "mempalace_event_append",
            format!("event {shim}"),
            json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi@lap",
                   "body": format!("event {shim}")}),
        ),
        (
            "mempalace_kg_query",
            String::new(),
            json!({"entity": format!("svc_{shim}")}),
        ),
        (
            "mempalace_diary_write",
            format!("diary {shim} again"),
            json!({"agent_name": "pi", "entry": format!("diary {shim} again"), "wing": "wing_pi"}),
        ),
        (
            "mempalace_add_drawer",
            format!("drawer from shim {shim}"),
            json!({"wing": "fleet", "room": "faults", "content": format!("drawer from shim {shim}")}),
        ),
    ];
    for (tool, key, args) in calls {
        let mut acked = false;
        for _ in 0..3 {
            match h.call(tool, args.clone()) {
                Ok(p) => {
                    acked = p.get("success") != Some(&json!(false));
                    break;
                }
                Err(e) => {
                    let msg = e["message"].as_str().unwrap_or_default();
                    let safe = (msg.contains("retrying the call is safe")
                        || msg.contains("retry the call"))
                        && !msg.contains("NOT retry");
                    if !safe {
                        break;
                    }
                }
            }
        }
        if !key.is_empty() {
            out.push(Write { tool, key, acked });
        }
    }
    out
}

type Hit<'a> = dyn Fn(&Value) -> bool + 'a;

/// How many times `w` is in the palace behind `client`: the read that lists its kind, and the
/// rows that are it.
fn count(rt: &tokio::runtime::Runtime, client: &McpClient, w: &Write) -> usize {
    let key = w.key.as_str();
    let (read, args, rows, hit): (&str, Value, &str, Box<Hit>) = match w.tool {
        "mempalace_diary_write" => (
            "mempalace_diary_read",
            json!({"agent_name": "pi", "wing": "wing_pi", "last_n": 100}),
            "entries",
            Box::new(|e| {
                e["content"]
                    .as_str()
                    .is_some_and(|c| c.ends_with(&format!("|{key}")))
            }),
        ),
        "mempalace_kg_add" => (
            "mempalace_kg_query",
            json!({"entity": key, "direction": "outgoing"}),
            "facts",
            Box::new(|_| true),
        ),
        "mempalace_event_append" => (
            "mempalace_event_list",
            json!({"writer": "pi@lap", "limit": 500}),
            "events",
            Box::new(|e| e["body"] == key),
        ),
        "mempalace_add_drawer" => (
            "mempalace_list_drawers",
            json!({"wing": "fleet", "room": "faults", "limit": 100}),
            "drawers",
            Box::new(|d| d["content_preview"] == key),
        ),
        other => unreachable!("{other}"),
    };
    let payload = rt
        .block_on(client.call_tool(read, args, Deadline::Default))
        .map(|r| r.payload)
        .unwrap_or(Value::Null);
    payload[rows]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| hit(r))
        .count()
}

#[test]
fn kill_9_of_the_owner_under_20_shims_leaves_nothing_applied_locally_and_unqueued_or_doubled() {
    let (env, palace, _p, url) = with_primary();
    let vars = device_vars(&url);
    let lp = palace.to_str().unwrap().to_string();
    let mut shims: Vec<Harness> = (0..SHIMS)
        .map(|_| Harness::start(&env, &["--palace", &lp, "--harness", "pi"], &vars))
        .collect();
    for h in &mut shims {
        h.initialize();
    }
    let first = owner_of(&env, &palace).expect("one owner serves them all");
    let outbox = env.home().join(".mempalace/edge/outbox.sqlite3");
    let intents = || {
        mpt_outbox::Outbox::open_read_only(&outbox, Default::default())
            .ok()
            .flatten()
            .and_then(|o| o.intent_count().ok())
            .unwrap_or(0)
    };
    let writes: Vec<Write> = std::thread::scope(|scope| {
        let threads: Vec<_> = shims
            .iter_mut()
            .enumerate()
            .map(|(i, h)| scope.spawn(move || session(h, i)))
            .collect();
        // Killed while writes are between their intent and the child's answer.
        assert!(
            wait_for(120.0, || intents() >= 3),
            "writes in flight before the kill"
        );
        unsafe {
            libc::kill(first as libc::pid_t, libc::SIGKILL);
        }
        threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect()
    });
    assert!(!pid_alive(first));
    let now = owner_of(&env, &palace).expect("a shim started a new owner");
    assert_ne!(now, first);
    // The new owner settled what the dead one left; everything queued reaches the primary.
    assert!(wait_for(120.0, || intents() == 0), "every intent settled");
    let o = env.mpt(
        &["--json", "outbox", "flush", "--wait", "--deadline", "120s"],
        &vars,
    );
    assert_eq!(o.status.code(), Some(0), "{}", crate::support::stdout(&o));
    let (rt, local) = local_palace(&env, &palace);
    let primary = crate::support::primary::remote_client(&url, None);
    let mut applied_locally = 0;
    for w in &writes {
        let (l, on_p) = (count(&rt, &local, w), count(&rt, &primary, w));
        let what = format!("{} '{}' (acked: {})", w.tool, w.key, w.acked);
        assert!(on_p <= 1, "{what} twice on the primary ({on_p})");
        assert!(l <= 1, "{what} twice in the local palace ({l})");
        if w.acked {
            assert_eq!(on_p, 1, "{what}: acknowledged, on the primary");
        }
        if l >= 1 {
            applied_locally += 1;
            assert_eq!(
                on_p, 1,
                "{what}: applied locally, so queued and on the primary"
            );
        }
        // A write applied locally first is on both palaces or on neither (an event sent to the
        // primary first reaches the local log only with a pull).
        if w.tool != "mempalace_event_append" {
            assert_eq!(l, on_p, "{what}: the local palace and the primary agree");
        }
    }
    let unacked = writes.iter().filter(|w| !w.acked).count();
    eprintln!(
        "{} writes, {unacked} cut short by the kill, {applied_locally} in the local palace",
        writes.len()
    );
    assert!(applied_locally > 0, "the local palace took the writes");
    let _ = call_remote(&url, None, "mempalace_kg_stats", json!({}));
}

/// Intents a dead owner left (written here as it would have: recorded, then the child applied
/// one and not the other) are settled by the next owner before it serves: the diary entry the
/// palace holds is queued and reaches the primary once, the one it lacks is cancelled, and a
/// write the server dedupes is applied again and queued.
#[test]
fn a_dead_owners_intents_are_settled_against_the_local_palace_before_the_next_serves() {
    let (env, palace, _p, url) = with_primary();
    let vars = device_vars(&url);
    let applied = json!({"agent_name": "pi", "entry": "HOST:lap|applied, never confirmed", "wing": "wing_pi"});
    let lost = json!({"agent_name": "pi", "entry": "HOST:lap|never applied", "wing": "wing_pi"});
    let fact = json!({"subject": "settled", "predicate": "by", "object": "replay"});
    env.call_local(&palace, "mempalace_diary_write", &applied.to_string());
    let outbox = env.home().join(".mempalace/edge/outbox.sqlite3");
    let real = mpt_palace::paths::realpath(&palace)
        .to_string_lossy()
        .into_owned();
    {
        let mut o = mpt_outbox::Outbox::open(&outbox, Default::default()).unwrap();
        for (tool, args) in [
            ("mempalace_diary_write", &applied),
            ("mempalace_diary_write", &lost),
            ("mempalace_kg_add", &fact),
        ] {
            o.intend(&real, tool, args, false).unwrap();
        }
    }
    // Visible while no edge runs: `mpt outbox` counts them, doctor warns.
    let sum = crate::support::json(&env.mpt(&["--json", "outbox"], &vars));
    assert_eq!(sum["pending_local"], 3, "{sum}");
    let doc = crate::support::json(&env.mpt(&["--json", "doctor", "--check", "outbox"], &vars));
    assert_eq!(doc["checks"][0]["status"], "warn", "{doc}");
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap(), "--harness", "pi"],
        &vars,
    );
    h.initialize();
    let store = mpt_outbox::Outbox::open(&outbox, Default::default()).unwrap();
    assert_eq!(store.intent_count().unwrap(), 0, "settled before it served");
    assert!(
        wait_for(60.0, || store.open_count().unwrap() == 0),
        "what was queued drains"
    );
    let ops = store.list(&mpt_outbox::OpState::ALL, 100, false).unwrap();
    let tools: Vec<&str> = ops.iter().map(|o| o.tool_name.as_str()).collect();
    assert_eq!(tools.len(), 2, "the absent entry was cancelled: {tools:?}");
    let diary = call_remote(
        &url,
        None,
        "mempalace_diary_read",
        json!({"agent_name": "pi", "wing": "wing_pi", "last_n": 10}),
    )
    .unwrap();
    let entries: Vec<&str> = diary["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["content"].as_str())
        .collect();
    assert_eq!(entries, ["HOST:lap|applied, never confirmed"], "{diary}");
    let facts = call_remote(
        &url,
        None,
        "mempalace_kg_query",
        json!({"entity": "settled"}),
    )
    .unwrap();
    assert_eq!(facts["facts"].as_array().map(Vec::len), Some(1), "{facts}");
    // Applied again in the local palace (it dedupes): there once too.
    let (rt, local) = local_palace(&env, &palace);
    let facts = rt
        .block_on(local.call_tool(
            "mempalace_kg_query",
            json!({"entity": "settled"}),
            Deadline::Default,
        ))
        .unwrap()
        .payload;
    assert_eq!(facts["facts"].as_array().map(Vec::len), Some(1), "{facts}");
    h.close();
}
