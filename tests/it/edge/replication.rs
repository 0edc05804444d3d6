//! The edge's writes reaching a real primary through the outbox: while it is up, across an outage
//! (the queue drains by itself when it returns), exactly once after kill -9 of the edge's owner in
//! the middle of a stream of writes, and from three edges at once.

use serde_json::{Value, json};

use crate::support::fleet::Fleet;
use crate::support::harness::Harness;
use crate::support::primary::{PrimaryOpts, call_remote};
use crate::support::{Primary, TestEnv, json as parse_json, pid_alive, stdout, wait_for};

fn on_primary(url: &str, tool: &str, args: Value) -> Result<Value, mpt_mcp::CallError> {
    call_remote(url, None, tool, args)
}

/// The diary entries on the primary for `agent` in `wing`.
fn primary_diary(url: &str, agent: &str, wing: &str) -> Vec<String> {
    match on_primary(
        url,
        "mempalace_diary_read",
        json!({"agent_name": agent, "wing": wing, "last_n": 100}),
    ) {
        Ok(p) => p["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|e| e["content"].as_str().unwrap_or("").to_string())
            .collect(),
        Err(_) => Vec::new(),
    }
}

fn owner_pid(env: &TestEnv) -> Option<u32> {
    let dir = env.home().join(".mempalace/edge");
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".owner.lock"))
        .and_then(|e| mpt_base::lock::holder(&e.path()).ok()??.pid)
}

#[test]
fn writes_reach_the_primary_and_an_outage_drains_by_itself() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let mut p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let port = p.port;
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    let mut h = Harness::start(
        &env,
        &["--palace", palace.to_str().unwrap(), "--harness", "pi"],
        &vars,
    );
    h.initialize();
    let a = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "fleet", "room": "ops", "content": "written online through the edge"}),
        )
        .unwrap();
    h.call(
        "mempalace_diary_write",
        json!({"agent_name": "pi", "entry": "shipped the edge", "wing": "wing_pi"}),
    )
    .unwrap();
    assert!(
        wait_for(20.0, || on_primary(
            &url,
            "mempalace_get_drawer",
            json!({"drawer_id": a["drawer_id"]})
        )
        .is_ok_and(|d| d["drawer_id"] == a["drawer_id"])),
        "the write reached the primary"
    );
    let got = on_primary(
        &url,
        "mempalace_get_drawer",
        json!({"drawer_id": a["drawer_id"]}),
    )
    .unwrap();
    assert_eq!(got["metadata"]["added_by"], "pi@lap", "stamped: {got}");
    assert!(
        wait_for(20.0, || primary_diary(&url, "pi", "wing_pi")
            == ["HOST:lap|shipped the edge"]),
        "{:?}",
        primary_diary(&url, "pi", "wing_pi")
    );

    // A coordination write goes straight to the primary while it answers.
    let ev = h.call("mempalace_event_append", json!({"type": "task.request", "stream": "s", "room": "r", "from_agent": "pi@lap", "to_agent": "codex@desk", "status": "open", "body": "review please"})).unwrap();
    let listed = on_primary(&url, "mempalace_event_list", json!({"writer": "pi@lap"})).unwrap();
    assert_eq!(
        listed["events"][0]["id"], ev["event"]["id"],
        "the id the harness saw is the primary's"
    );

    // The primary goes away: writes still succeed, reads degrade, tools stay.
    p.stop();
    let b = h.call("mempalace_add_drawer", json!({"wing": "fleet", "room": "ops", "content": "written offline, queued for the primary"})).unwrap();
    assert_eq!(b["success"], true);
    h.call(
        "mempalace_kg_add",
        json!({"subject": "laptop", "predicate": "was", "object": "offline"}),
    )
    .unwrap();
    assert_eq!(
        h.call("mempalace_search", json!({"query": "offline queued"}))
            .unwrap()["degraded"],
        true
    );
    let o = env.mpt(&["--json", "outbox"], &vars);
    assert!(
        crate::support::json(&o)["counts"]["queued"]
            .as_u64()
            .unwrap_or(0)
            + crate::support::json(&o)["counts"]["leased"]
                .as_u64()
                .unwrap_or(0)
            >= 2,
        "{}",
        crate::support::stdout(&o)
    );

    // It comes back on the same address: the queue drains by itself.
    let _p2 = Primary::start(
        &env,
        &env.palace("primary"),
        PrimaryOpts {
            port: Some(port),
            ..Default::default()
        },
    );
    assert!(
        wait_for(45.0, || on_primary(
            &url,
            "mempalace_get_drawer",
            json!({"drawer_id": b["drawer_id"]})
        )
        .is_ok_and(|d| d["drawer_id"] == b["drawer_id"])),
        "the offline write drained once the primary was back"
    );
    assert!(wait_for(20.0, || on_primary(
        &url,
        "mempalace_kg_stats",
        json!({})
    )
    .is_ok_and(|s| s["triples"] == 1)));
    let merged = wait_for(20.0, || {
        let s = h
            .call(
                "mempalace_search",
                json!({"query": "written offline, queued for the primary", "limit": 5}),
            )
            .unwrap();
        s.get("degraded").is_none()
            && s["results"].as_array().is_some_and(|r| {
                r.iter()
                    .filter(|x| x["drawer_id"] == b["drawer_id"])
                    .count()
                    == 1
            })
    });
    assert!(merged, "the merged read sees the offline write once");
}

#[test]
fn kill_9_of_the_edge_mid_stream_loses_no_acknowledged_write() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    let mut acknowledged = Vec::new();
    let mut sent = Vec::new();
    for round in 0..3 {
        let mut h = Harness::start(
            &env,
            &["--palace", palace.to_str().unwrap(), "--harness", "pi"],
            &vars,
        );
        h.initialize();
        let kill_at = 2 + round * 2;
        for i in 0..8 {
            if i == kill_at {
                let pid = owner_pid(&env).expect("an owner runs");
                unsafe {
                    libc::kill(pid as i32, libc::SIGKILL);
                }
                assert!(wait_for(5.0, || !pid_alive(pid)));
            }
            let entry = format!("round {round} write {i}");
            sent.push(entry.clone());
            // diary_write is not idempotent on the server: exactly-once rests on the outbox.
            if let Ok(r) = h.call(
                "mempalace_diary_write",
                json!({"agent_name": "pi", "entry": entry, "wing": "wing_pi"}),
            ) && r["success"] == true
            {
                acknowledged.push(format!("HOST:lap|{entry}"));
            }
        }
        h.close();
    }
    assert!(
        acknowledged.len() >= 20,
        "the shim restarted the owner and kept going: {}",
        acknowledged.len()
    );
    // Whatever the dead owners left queued is flushed (by a last owner or by hand).
    let o = env.mpt(
        &["--json", "outbox", "flush", "--wait", "--deadline", "60s"],
        &vars,
    );
    assert!(
        o.status.code() == Some(0),
        "{}{}",
        crate::support::stdout(&o),
        crate::support::stderr(&o)
    );
    let on_p = primary_diary(&url, "pi", "wing_pi");
    for a in &acknowledged {
        assert_eq!(
            on_p.iter().filter(|e| *e == a).count(),
            1,
            "{a} exactly once on the primary: {on_p:?}"
        );
    }
    for s in &sent {
        let n = on_p.iter().filter(|e| e.ends_with(s.as_str())).count();
        assert!(n <= 1, "never twice: {s} x{n}");
    }
}

#[test]
fn three_edges_each_write_reaches_the_primary_once() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
    ];
    let lp = palace.to_str().unwrap().to_string();
    let mut hs: Vec<Harness> = (0..3)
        .map(|_| Harness::start(&env, &["--palace", &lp], &vars))
        .collect();
    for h in &mut hs {
        h.initialize();
    }
    let threads: Vec<_> = hs
        .into_iter()
        .enumerate()
        .map(|(i, mut h)| {
            std::thread::spawn(move || {
                for j in 0..5 {
                    let r = h.call("mempalace_diary_write", json!({"agent_name": "pi", "entry": format!("edge {i} entry {j}"), "wing": "wing_pi"})).unwrap();
                    assert_eq!(r["success"], true, "{r}");
                }
                h
            })
        })
        .collect();
    let mut hs: Vec<Harness> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(
        wait_for(45.0, || primary_diary(&url, "pi", "wing_pi").len() >= 15),
        "{:?}",
        primary_diary(&url, "pi", "wing_pi")
    );
    let on_p = primary_diary(&url, "pi", "wing_pi");
    for i in 0..3 {
        for j in 0..5 {
            let e = format!("HOST:lap|edge {i} entry {j}");
            assert_eq!(on_p.iter().filter(|x| **x == e).count(), 1, "{e}: {on_p:?}");
        }
    }
    for h in &mut hs {
        h.close();
    }
}

#[test]
fn a_local_wing_never_enters_the_outbox_and_status_reports_the_queue() {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let url = p.url();
    let cfg = env.path("mpt.json");
    std::fs::write(
        &cfg,
        r#"{"replication": {"wing_private*": "local", "*": "replicated"}}"#,
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap().to_string();
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MPT_CONFIG", cfg.as_str()),
    ];
    let mut h = Harness::start(&env, &["--palace", palace.to_str().unwrap()], &vars);
    h.initialize();
    let private = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_private_notes", "room": "r", "content": "stays on this machine"}),
        )
        .unwrap();
    let shared = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "wing_shared", "room": "r", "content": "goes to the fleet"}),
        )
        .unwrap();
    assert!(wait_for(20.0, || on_primary(
        &url,
        "mempalace_get_drawer",
        json!({"drawer_id": shared["drawer_id"]})
    )
    .is_ok_and(|d| d["drawer_id"] == shared["drawer_id"])));
    assert!(
        on_primary(
            &url,
            "mempalace_get_drawer",
            json!({"drawer_id": private["drawer_id"]})
        )
        .is_err(),
        "the local wing never reached the primary"
    );
    let o = crate::support::json(&env.mpt(&["--json", "outbox", "list", "--state", "all"], &vars));
    let ops = o["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 1, "only the replicated write was queued: {o}");
    let st = env.mpt(
        &[
            "--json",
            "edge",
            "status",
            "--palace",
            palace.to_str().unwrap(),
        ],
        &vars,
    );
    let st = crate::support::json(&st);
    assert_eq!(st["owner"]["running"], true, "{st}");
    assert_eq!(st["primary"]["reachable"], true);
    assert_eq!(st["outbox"]["open"], 0);
    assert!(
        st["outbox"]["last_flush"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')),
        "{st}"
    );
}

#[test]
fn a_token_the_primary_refuses_is_recorded_and_shown_by_every_view() {
    // The edge kept queueing with a wrong token while `edge status` said reachable (it probed
    // /healthz, which takes no token), `outbox list` showed the op plain queued and doctor said
    // "on their way".
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let _owners = crate::support::harness::OwnersStopped::of(&d.env);
    let wrong = [("MEMPALACE_REMOTE_TOKEN", "tok-wrong-4b1e")];
    let run = |args: &[&str], vars: &[(&str, &str)]| {
        let mut all: Vec<(String, String)> = d.vars();
        all.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let refs: Vec<(&str, &str)> = all.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        d.env.mpt(args, &refs)
    };
    let mut session = d.session("pi", &wrong);
    session
        .call(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": "queued behind a refused token"}),
        )
        .unwrap();
    // The owner's own flusher reaches for the primary and is refused: the op says so.
    let op_error = || {
        let list = parse_json(&run(&["--json", "outbox", "list"], &wrong));
        list["ops"][0]["error"]["kind"].as_str().map(str::to_string)
    };
    assert!(
        wait_for(60.0, || op_error().as_deref() == Some("auth")),
        "{}",
        stdout(&run(&["--json", "outbox", "list"], &wrong))
    );
    let list = parse_json(&run(&["--json", "outbox", "list"], &wrong));
    assert_eq!(
        (
            list["ops"][0]["state"].as_str(),
            list["ops"][0]["attempts"].as_i64()
        ),
        (Some("queued"), Some(0)),
        "no attempt counted: {list}"
    );
    let human = stdout(&run(&["outbox", "list"], &wrong));
    assert!(human.contains("401"), "{human}");
    let summary = parse_json(&run(&["--json", "outbox"], &wrong));
    assert_eq!(
        summary["last_flush_error"]["error"]["kind"], "auth",
        "{summary}"
    );
    assert!(stdout(&run(&["outbox"], &wrong)).contains("last flush"));

    let status = parse_json(&run(&["--json", "edge", "status"], &wrong));
    assert_eq!(status["primary"]["reachable"], false, "{status}");
    assert_eq!(status["primary"]["auth"], "refused", "{status}");
    assert!(stdout(&run(&["edge", "status"], &wrong)).contains("REFUSED"));

    let o = run(&["--json", "doctor", "--check", "outbox"], &wrong);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let c = &parse_json(&o)["checks"][0];
    assert_eq!(c["status"], "fail", "{c}");
    assert!(c["fix"].as_str().unwrap().contains("token"), "{c}");
    let said = format!(
        "{}{}",
        stdout(&o),
        stdout(&run(&["--json", "edge", "status"], &wrong))
    );
    assert!(
        !said.contains(crate::support::fleet::TOKEN) && !said.contains("tok-wrong-4b1e"),
        "{said}"
    );
    session.close();

    // The right token: the flush gets through and the error no longer stands.
    let o = d.mpt(&["--json", "outbox", "flush", "--wait"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let summary = d.outbox();
    assert!(summary["last_flush_error"].is_null(), "{summary}");
    let o = d.mpt(&["--json", "doctor", "--check", "outbox"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let status = parse_json(&d.mpt(&["--json", "edge", "status"]));
    assert_eq!(
        (
            status["primary"]["reachable"].as_bool(),
            status["primary"]["auth"].as_str()
        ),
        (Some(true), Some("ok")),
        "{status}"
    );
}
