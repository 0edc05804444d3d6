//! The fleet converges: one real primary, devices with their own palaces and sessions through
//! `mpt edge`, each behind a link the test refuses, drops, black-holes or makes swallow replies.
//! Offline references survive replication, a failed op holds back only what depends on it,
//! every acknowledged write lands once while links flap, a black hole that keeps its connections
//! hung stalls nothing after the heal, and a queue drains with no session.

mod log;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::support::fleet::{Device, Fleet};
use crate::support::link::Mode;
use crate::support::{json as parse_json, pid_alive, stderr, wait_for};

/// An artifact stored with the link down and an ask that references it: both land on the
/// primary once, the ask referencing the primary's artifact, with nothing failed or held back.
fn offline_artifact_then_ask(mode: Mode) {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let agent = d.agent("pi");
    let mut s = d.session("pi", &[]);
    d.link.set(mode);
    let art = s
        .call(
            "mempalace_artifact_put",
            json!({"kind": "note", "content": "the plan, written offline", "created_by": agent}),
        )
        .unwrap();
    let local_art = art["artifact"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("the agent gets an artifact id it can use: {art}"))
        .to_string();
    let ask = s
        .call(
            "mempalace_event_append",
            json!({"type": "task.request", "stream": "fleet", "room": "ops", "from_agent": agent,
                   "to_agent": "codex@dev9", "status": "open", "body": "review the plan",
                   "artifact_ids": [local_art]}),
        )
        .unwrap();
    assert!(ask["event"]["id"].is_string(), "{ask}");
    s.call(
        "mempalace_diary_write",
        json!({"agent_name": "pi", "entry": "after the ask", "wing": "wing_pi"}),
    )
    .unwrap();
    if mode != Mode::Refuse {
        assert!(
            d.link.accepted(mode) > 0,
            "the link was exercised in {mode:?}"
        );
    }
    assert_eq!(
        d.outbox()["open"],
        3,
        "queued while the link is down: {}",
        d.outbox()
    );
    d.link.set(Mode::Pass);
    assert!(d.wait_drained(90.0), "{}", d.outbox());
    assert_eq!(d.outbox()["counts"]["failed"], 0);
    let asks: Vec<Value> = fleet
        .events_by(&agent)
        .into_iter()
        .filter(|e| e["body"] == "review the plan")
        .collect();
    assert_eq!(asks.len(), 1, "the ask once: {asks:?}");
    let primary_art = asks[0]["artifact_ids"][0].as_str().unwrap().to_string();
    let got = fleet
        .call(
            "mempalace_artifact_get",
            json!({"artifact_id": primary_art}),
        )
        .unwrap();
    assert_eq!(got["artifact"]["content"], "the plan, written offline");
    assert_eq!(
        fleet.diary("pi", "wing_pi"),
        ["HOST:dev0|after the ask"],
        "the write behind them landed too"
    );
    // Online again, a new reference to the offline id reaches the primary as the primary's id.
    let again = s
        .call(
            "mempalace_event_append",
            json!({"type": "note", "stream": "fleet", "room": "ops", "from_agent": agent,
                   "body": "the plan again", "artifact_ids": [local_art]}),
        )
        .unwrap();
    assert_eq!(
        again["event"]["artifact_ids"],
        json!([primary_art]),
        "{again}"
    );
}

#[test]
fn an_offline_artifact_and_the_ask_referencing_it_land_once_with_the_link_refusing() {
    offline_artifact_then_ask(Mode::Refuse);
}

#[test]
fn an_offline_artifact_and_the_ask_referencing_it_land_once_with_the_link_dropping_replies() {
    offline_artifact_then_ask(Mode::DropReply);
}

#[test]
fn a_poisoned_op_holds_back_only_what_depends_on_it() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let mut s = d.session("pi", &[]);
    d.link.set(Mode::Refuse);
    // Ops the primary refuses (a status 3.11 does not know; an empty subject), queued ahead of
    // everything else, and an invalidation of the refused fact behind its add.
    let enqueue = |tool: &str, args: Value| {
        let o = d.mpt(&["--json", "outbox", "enqueue", tool, &args.to_string()]);
        assert!(o.status.success(), "{}", stderr(&o));
        parse_json(&o)["op_id"].as_str().unwrap().to_string()
    };
    let poisoned = enqueue(
        "mempalace_event_append",
        json!({"type": "note", "stream": "s", "room": "r", "from_agent": "pi@dev0", "status": "done"}),
    );
    let bad_add = enqueue(
        "mempalace_kg_add",
        json!({"subject": "", "predicate": "runs_on", "object": "host-a"}),
    );
    let held = enqueue(
        "mempalace_kg_invalidate",
        json!({"subject": "", "predicate": "runs_on", "object": "host-a"}),
    );
    let drawers: Vec<String> = (0..3)
        .map(|i| {
            s.call(
                "mempalace_add_drawer",
                json!({"wing": "fleet", "room": "ops", "content": format!("unrelated write {i} behind a poisoned op")}),
            )
            .unwrap()["drawer_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    s.call(
        "mempalace_diary_write",
        json!({"agent_name": "pi", "entry": "behind the poison", "wing": "wing_pi"}),
    )
    .unwrap();
    d.link.set(Mode::Pass);
    let o = d.mpt(&["--json", "outbox", "flush", "--wait"]);
    let report = parse_json(&o);
    assert_eq!(o.status.code(), Some(3), "failed ops remain: {report}");
    assert_eq!(report["held_back"], 1, "{report}");
    for id in &drawers {
        let got = fleet
            .call("mempalace_get_drawer", json!({"drawer_id": id}))
            .unwrap();
        assert_eq!(got["drawer_id"], id.as_str());
    }
    assert_eq!(
        fleet.diary("pi", "wing_pi"),
        ["HOST:dev0|behind the poison"]
    );
    let show = |op: &str| parse_json(&d.mpt(&["--json", "outbox", "show", op]))["op"].clone();
    assert_eq!(show(&poisoned)["state"], "failed");
    assert_eq!(show(&bad_add)["state"], "failed");
    let inv = show(&held);
    assert_eq!(
        (inv["state"].as_str(), inv["sends"].as_i64()),
        (Some("queued"), Some(0)),
        "{inv}"
    );
    // Loud: the summary, edge status and doctor name it.
    let sum = d.outbox();
    assert_eq!(
        (sum["blocked"].as_bool(), sum["held_back"].as_i64()),
        (Some(true), Some(1))
    );
    let status = parse_json(&d.mpt(&["--json", "edge", "status"]));
    assert_eq!(status["outbox"]["failed"], 2, "{status}");
    let doc = d.mpt(&["--json", "doctor", "--check", "outbox"]);
    assert_eq!(doc.status.code(), Some(3));
    assert_eq!(parse_json(&doc)["checks"][0]["status"], "fail");
    // Dropping the refused add lets its invalidation go (and the primary answers it).
    assert!(
        d.mpt(&["outbox", "drop", &bad_add, "--yes"])
            .status
            .success()
    );
    let o = d.mpt(&["--json", "outbox", "flush", "--wait"]);
    assert_eq!(
        parse_json(&o)["held_back"],
        0,
        "{}",
        super::support::stdout(&o)
    );
    assert_ne!(show(&held)["sends"], 0);
}

/// What one session acknowledged, to be found on the primary exactly once.
#[derive(Default)]
struct Acked {
    drawers: Vec<String>,
    diary: Vec<String>,
    events: Vec<String>,
    /// subject → the objects added in order (all but the last invalidated).
    facts: Vec<(String, Vec<String>)>,
}

fn session_writes(d: &Device, harness: &str, rounds: usize) -> Acked {
    let mut s = d.session(harness, &[]);
    let agent = d.agent(harness);
    let mut acked = Acked::default();
    let subject = format!("svc_{harness}_{}", d.name);
    let mut objects = Vec::new();
    for r in 0..rounds {
        let tag = format!("{agent} round {r}");
        if let Ok(p) = s.call(
            "mempalace_add_drawer",
            json!({"wing": "fleet", "room": "flap", "content": format!("drawer from {tag}")}),
        ) {
            acked
                .drawers
                .push(p["drawer_id"].as_str().unwrap().to_string());
        }
        let entry = format!("diary from {tag}");
        if s.call(
            "mempalace_diary_write",
            json!({"agent_name": harness, "entry": entry, "wing": format!("wing_{}", d.name)}),
        )
        .is_ok()
        {
            acked.diary.push(format!("HOST:{}|{entry}", d.name));
        }
        let object = format!("host_{r}");
        s.call(
            "mempalace_kg_add",
            json!({"subject": subject, "predicate": "runs_on", "object": object}),
        )
        .unwrap();
        if let Some(prev) = objects.last() {
            s.call(
                "mempalace_kg_invalidate",
                json!({"subject": subject, "predicate": "runs_on", "object": prev}),
            )
            .unwrap();
        }
        objects.push(object);
        let body = format!("event from {tag}");
        if s.call(
            "mempalace_event_append",
            json!({"type": "note", "stream": "fleet", "room": "flap", "from_agent": agent, "body": body}),
        )
        .is_ok()
        {
            acked.events.push(body);
        }
    }
    acked.facts.push((subject, objects));
    acked
}

/// Ends the link-flapping threads when dropped, on success or while a panic unwinds.
struct StopFlapping<'a>(&'a AtomicBool);

impl Drop for StopFlapping<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

#[test]
fn every_acknowledged_write_lands_once_while_links_flap() {
    const ROUNDS: usize = 4;
    let fleet = Fleet::start(3);
    let flapping = Arc::new(AtomicBool::new(true));
    let acked: Vec<(String, Acked)> = std::thread::scope(|scope| {
        // Each link cycles through every failure while the sessions write (paced: this thread
        // generates faults, it synchronises nothing).
        for (i, d) in fleet.devices.iter().enumerate() {
            let flapping = Arc::clone(&flapping);
            scope.spawn(move || {
                let modes = [
                    Mode::Refuse,
                    Mode::Pass,
                    Mode::DropReply,
                    Mode::Drop,
                    Mode::BlackHole,
                    Mode::Pass,
                    // A real black hole: what it holds stays hung after the heal.
                    Mode::Freeze,
                    Mode::Pass,
                ];
                let mut n = i;
                while flapping.load(Ordering::SeqCst) {
                    d.link.set(modes[n % modes.len()]);
                    n += 1;
                    std::thread::sleep(std::time::Duration::from_millis(700));
                }
                d.link.set(Mode::Pass);
            });
        }
        // A writer that panics must stop the flapping too, or the scope waits on it forever.
        let _stop = StopFlapping(&flapping);
        let writers: Vec<_> = fleet
            .devices
            .iter()
            .flat_map(|d| ["pi", "opencode"].map(|h| (d, h)))
            .map(|(d, h)| scope.spawn(move || (d.agent(h), session_writes(d, h, ROUNDS))))
            .collect();
        let acked = writers.into_iter().map(|w| w.join().unwrap()).collect();
        flapping.store(false, Ordering::SeqCst);
        acked
    });
    let faults: usize = fleet
        .devices
        .iter()
        .map(|d| {
            [Mode::DropReply, Mode::Drop, Mode::BlackHole, Mode::Freeze]
                .map(|m| d.link.accepted(m))
                .iter()
                .sum::<usize>()
        })
        .sum();
    assert!(faults > 0, "the links failed under the writes");
    // The flapping ends in a black hole that keeps what it holds: each device writes once more
    // and its flusher, going for the primary, is held there when the links heal.
    let mut last = Vec::new();
    for d in &fleet.devices {
        d.link.set(Mode::Freeze);
        let before = d.link.accepted(Mode::Freeze);
        let mut s = d.session("pi", &[]);
        let entry = format!("the last write from {}, behind a black hole", d.name);
        s.call(
            "mempalace_diary_write",
            json!({"agent_name": "pi", "entry": entry, "wing": format!("wing_{}", d.name)}),
        )
        .unwrap();
        assert!(
            wait_for(60.0, || d.link.accepted(Mode::Freeze) > before),
            "{}: the flusher went for the primary",
            d.name
        );
        last.push((d.agent("pi"), format!("HOST:{}|{entry}", d.name), s));
    }
    for d in &fleet.devices {
        d.link.set(Mode::Pass);
    }
    for d in &fleet.devices {
        // Explicit flushes so a long backoff does not make the test wait (the edge drains too).
        assert!(
            wait_for(180.0, || {
                let _ = d.mpt(&["outbox", "flush", "--deadline", "20s"]);
                d.outbox()["open"] == 0
            }),
            "{} drains: {}",
            d.name,
            d.outbox()
        );
        assert_eq!(d.outbox()["counts"]["failed"], 0);
    }
    for (agent, entry, _session) in &last {
        let (harness, device) = agent.split_once('@').unwrap();
        let diary = fleet.diary(harness, &format!("wing_{device}"));
        assert_eq!(
            diary.iter().filter(|d| *d == entry).count(),
            1,
            "{entry} once"
        );
    }
    for (agent, a) in &acked {
        for id in &a.drawers {
            let got = fleet
                .call("mempalace_get_drawer", json!({"drawer_id": id}))
                .unwrap();
            assert_eq!(got["drawer_id"], id.as_str(), "{agent}");
        }
        let (harness, device) = agent.split_once('@').unwrap();
        let diary = fleet.diary(harness, &format!("wing_{device}"));
        for e in &a.diary {
            assert_eq!(
                diary.iter().filter(|d| *d == e).count(),
                1,
                "{e} once in {diary:?}"
            );
        }
        let bodies: Vec<String> = fleet
            .events_by(agent)
            .iter()
            .map(|e| e["body"].as_str().unwrap_or("").to_string())
            .collect();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for b in &bodies {
            *counts.entry(b.as_str()).or_default() += 1;
        }
        for b in &a.events {
            assert_eq!(counts.get(b.as_str()), Some(&1), "{b} once: {bodies:?}");
        }
        for (subject, objects) in &a.facts {
            let facts = fleet
                .call(
                    "mempalace_kg_query",
                    json!({"entity": subject, "direction": "outgoing"}),
                )
                .unwrap()["facts"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for (i, o) in objects.iter().enumerate() {
                let f: Vec<&Value> = facts.iter().filter(|f| f["object"] == o.as_str()).collect();
                assert_eq!(f.len(), 1, "{subject} runs_on {o} once: {facts:?}");
                let ended = !f[0]["valid_to"].is_null();
                assert_eq!(
                    ended,
                    i + 1 < objects.len(),
                    "{subject} {o}: invalidated after its add, the last open: {facts:?}"
                );
            }
        }
    }
}

/// Three devices queue writes behind a black hole that keeps every connection it took hung
/// (none is closed at the heal, as with a sleeping laptop or a dropped NAT entry), while each
/// edge's flusher is stuck sending into it. After the heal every queue drains by itself (no
/// `mpt outbox flush`), each write once on the primary: the flusher's wait on a silent primary
/// is abandoned, and the heal is seen without a long backoff.
#[test]
fn a_black_hole_that_keeps_its_connections_stalls_no_device_after_the_heal() {
    const WRITES: usize = 6;
    let fleet = Fleet::start(3);
    let mut sessions: Vec<_> = fleet.devices.iter().map(|d| d.session("pi", &[])).collect();
    for d in &fleet.devices {
        d.link.set(Mode::Freeze);
    }
    for (d, s) in fleet.devices.iter().zip(&mut sessions) {
        for i in 0..WRITES {
            s.call(
                "mempalace_kg_add",
                json!({"subject": format!("svc_{}", d.name), "predicate": "runs_on", "object": format!("host_{i}")}),
            )
            .unwrap();
        }
    }
    for d in &fleet.devices {
        // The edge's flusher went for the primary and is held by the black hole.
        assert!(
            wait_for(60.0, || d.link.accepted(Mode::Freeze) > 0),
            "{} tried the primary",
            d.name
        );
        assert_eq!(d.outbox()["open"], WRITES, "{}", d.outbox());
    }
    for d in &fleet.devices {
        d.link.set(Mode::Pass);
    }
    for d in &fleet.devices {
        // Generous, not a timing: a flusher stuck in its handshake waited 300 s here.
        assert!(d.wait_drained(90.0), "{} drains: {}", d.name, d.outbox());
        assert_eq!(d.outbox()["counts"]["failed"], 0);
        let facts = fleet
            .call(
                "mempalace_kg_query",
                json!({"entity": format!("svc_{}", d.name), "direction": "outgoing"}),
            )
            .unwrap()["facts"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for i in 0..WRITES {
            let n = facts
                .iter()
                .filter(|f| f["object"] == format!("host_{i}").as_str())
                .count();
            assert_eq!(n, 1, "{} host_{i} once: {facts:?}", d.name);
        }
    }
}

#[test]
fn the_queue_drains_after_the_last_session_closes() {
    let fleet = Fleet::start(1);
    let d = &fleet.devices[0];
    let mut s = d.session("pi", &[]);
    d.link.set(Mode::Refuse);
    s.call(
        "mempalace_diary_write",
        json!({"agent_name": "pi", "entry": "written just before the lid closed", "wing": "wing_pi"}),
    )
    .unwrap();
    assert!(s.close().success());
    // The owner's grace passes (the harness sets 400 ms): its child stops and it lingers.
    let mut lingering = None;
    assert!(wait_for(30.0, || {
        // Read off the linger lock, not `mpt edge status`: its probe of the owner's socket is a
        // connection, which restarts the owner's grace.
        lingering = mpt_edge::owner::lingering_pid(&mpt_edge::owner::OwnerPaths::new(
            &d.env.snapshot(),
            &d.env.home(),
            &d.palace,
        ))
        .map(u64::from);
        lingering.is_some()
    }));
    let pid = lingering.unwrap() as u32;
    d.link.set(Mode::Pass);
    assert!(
        wait_for(90.0, || fleet.diary("pi", "wing_pi")
            == ["HOST:dev0|written just before the lid closed"]),
        "drained with no session open: {}",
        d.outbox()
    );
    assert!(
        wait_for(30.0, || !pid_alive(pid)),
        "it exits once nothing is left"
    );
    assert_eq!(d.outbox()["open"], 0);
}
