//! A read-only HOME (a container's usual layout, the palace on a volume): `mpt edge` answers
//! `initialize` with a real `mempalace-mcp`, warning once on stderr; with no place for its state it
//! is a pass-through in-process; with a primary, its state and outbox are the palace's own, and
//! `mpt outbox`, doctor and the edge's flusher all use that one file.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::fleet::Fleet;
use crate::support::harness::Harness;
use crate::support::read_only::ReadOnly;
use crate::support::{TestEnv, json as parse_json, stderr, stdout, wait_for};

/// The warnings the edges of this test wrote on stderr so far.
fn warnings(env: &TestEnv) -> Vec<String> {
    std::fs::read_to_string(env.path("edge.stderr"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("mpt: warning:"))
        .map(str::to_string)
        .collect()
}

/// A session answers the handshake, lists the real child's tools and reads the palace.
fn serves(h: &mut Harness) {
    let init = h.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "mempalace", "{init}");
    let tools = h.request("tools/list", json!({}));
    assert_eq!(
        tools["result"]["tools"].as_array().unwrap().len(),
        47,
        "{tools}"
    );
    let status = h.call("mempalace_status", json!({})).unwrap();
    assert_eq!(status["total_drawers"], 1, "{status}");
}

fn seeded(env: &TestEnv, palace: &Path, text: &str) {
    env.call_local(
        palace,
        "mempalace_add_drawer",
        &json!({"wing": "proj", "room": "r", "content": text}).to_string(),
    );
}

#[test]
fn with_no_url_the_edge_serves_a_read_only_home_and_warns_once() {
    let env = TestEnv::new();
    let palace = env.palace("vol");
    let text = "The palace is on a volume; HOME is read-only in this container.";
    seeded(&env, &palace, text);
    let ro = ReadOnly::new(&[&env.home()]);
    let vars = [("MEMPALACE_PALACE_PATH", palace.to_str().unwrap())];
    let state = palace.join(".mpt-edge");
    for (n, args) in [&[][..], &["--standalone"]].into_iter().enumerate() {
        let mut h = Harness::start_with(&env, args, &vars, |c| ro.apply(c));
        h.owner_lock_dir = state.clone();
        serves(&mut h);
        assert!(h.close().success(), "{args:?}");
        let w = warnings(&env);
        assert_eq!(w.len(), n + 1, "{args:?}: one warning a session: {w:?}");
        assert!(
            w[n].contains(".mempalace/edge") && w[n].contains(state.to_str().unwrap()),
            "{}",
            w[n]
        );
    }
    assert!(!env.home().join(".mempalace/edge").exists());
    // Doctor says what a read-only HOME costs: MemPalace's own writer lock lives there.
    let mut cmd = env.mpt_command(&["--json", "doctor", "--offline", "--check", "config"]);
    cmd.envs(vars);
    ro.apply(&mut cmd);
    let doc = parse_json(&cmd.output().unwrap());
    let check = &doc["checks"][0];
    assert_eq!(check["status"], "fail", "{check}");
    assert!(
        check["summary"]
            .as_str()
            .unwrap()
            .contains(".mempalace/locks cannot be written"),
        "{check}"
    );
    assert!(
        !state.join("outbox.sqlite3").exists(),
        "no primary, no outbox"
    );

    // Nowhere for the state at all (the palace's folder read-only too): a pass-through in this
    // process, still answering, still one warning.
    let both = ReadOnly::new(&[&env.home(), &palace]);
    let before = warnings(&env).len();
    let mut h = Harness::start_with(&env, &[], &vars, |c| both.apply(c));
    let init = h.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "mempalace", "{init}");
    let tools = h.request("tools/list", json!({}));
    assert_eq!(tools["result"]["tools"].as_array().unwrap().len(), 47);
    assert!(h.close().success());
    let w = warnings(&env);
    assert_eq!(w.len(), before + 1, "{w:?}");
    assert!(w[before].contains("pass-through"), "{}", w[before]);
}

#[test]
fn with_a_primary_the_state_lives_in_the_palace_and_every_command_finds_it() {
    let fleet = Fleet::start(1);
    let dev = &fleet.devices[0];
    seeded(
        &dev.env,
        &dev.palace,
        "A drawer from before the container went read-only.",
    );
    let ro = ReadOnly::new(&[&dev.env.home()]);
    let outbox = dev.palace.join(".mpt-edge/outbox.sqlite3");
    let vars = dev.vars();
    let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mpt = |args: &[&str]| {
        let mut cmd = dev.env.mpt_command(args);
        cmd.envs(refs.iter().copied());
        ro.apply(&mut cmd);
        cmd.output().unwrap()
    };
    // Queued by hand while the edge is not running, into the outbox `mpt outbox` resolves.
    let o = mpt(&[
        "--json",
        "outbox",
        "enqueue",
        "kg_add",
        r#"{"subject": "container", "predicate": "keeps", "object": "its outbox on the volume"}"#,
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(outbox.is_file(), "the outbox is the palace's own");
    let summary = parse_json(&mpt(&["--json", "outbox"]));
    assert_eq!(summary["outbox"], outbox.to_str().unwrap(), "{summary}");
    assert_eq!(summary["counts"]["queued"], 1, "{summary}");
    let doctor = parse_json(&mpt(&[
        "--json",
        "doctor",
        "--offline",
        "--check",
        "outbox",
    ]));
    let evidence = doctor["checks"][0]["evidence"].to_string();
    assert!(
        evidence.contains(outbox.to_str().unwrap()),
        "doctor reads the same file: {doctor}"
    );
    // The edge a harness starts: answers, warns once, and its flusher sends what was queued.
    let mut h = Harness::start_with(&dev.env, &["--harness", "pi"], &refs, |c| ro.apply(c));
    h.owner_lock_dir = dev.palace.join(".mpt-edge");
    let init = h.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "mempalace", "{init}");
    assert!(
        wait_for(120.0, || parse_json(&mpt(&["--json", "outbox"]))["open"]
            == 0),
        "the edge's flusher drains the palace's outbox"
    );
    let facts: Value = fleet
        .call(
            "mempalace_kg_query",
            json!({"entity": "container", "direction": "outgoing"}),
        )
        .unwrap();
    assert_eq!(
        facts["facts"][0]["object"], "its outbox on the volume",
        "{facts}"
    );
    let status = {
        let mut cmd = dev.env.mpt_command(&["--json", "edge", "status"]);
        cmd.envs(refs.iter().copied());
        ro.apply(&mut cmd);
        parse_json(&cmd.output().unwrap())
    };
    assert_eq!(
        status["outbox"]["path"],
        outbox.to_str().unwrap(),
        "{status}"
    );
    h.close();
    let w = warnings(&dev.env);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        !dev.env.home().join(".mempalace/edge").exists(),
        "nothing under HOME"
    );
}
