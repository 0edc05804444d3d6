//! The fleet converges (2): the primary's coordination log pulled into each device's palace (by
//! MemPalace's own sync engine), so an ask seen online is answered offline, the mailbox answers
//! offline (flagged stale), and coordination reads merge both logs with each event once.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::support::fleet::{Device, Fleet, TOKEN};
use crate::support::link::Mode;
use crate::support::{json as parse_json, stderr, stdout, wait_for};

/// `mpt --json mailbox --as <me>` on a device: (exit code, document).
fn mailbox(d: &Device, me: &str) -> (Option<i32>, Value) {
    let o = d.mpt(&["--json", "mailbox", "--as", me]);
    (o.status.code(), parse_json(&o))
}

fn owed_ids(doc: &Value) -> Vec<String> {
    doc["owed"]
        .as_array()
        .unwrap_or_else(|| panic!("no owed list: {doc}"))
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect()
}

fn outbox_path(d: &Device) -> PathBuf {
    d.env.home().join(".mempalace/edge/outbox.sqlite3")
}

#[test]
fn an_ask_seen_online_is_answered_offline_on_another_device() {
    let fleet = Fleet::start(2);
    let (asker, answerer) = (&fleet.devices[0], &fleet.devices[1]);
    let (a, b) = (asker.agent("pi"), answerer.agent("pi"));
    let mut sa = asker.session("pi", &[]);
    let mut sb = answerer.session("pi", &[]);
    let ask = sa
        .call(
            "mempalace_event_append",
            json!({"type": "task.request", "stream": "fleet", "room": "ops", "from_agent": a,
                   "to_agent": b, "status": "open", "body": "rotate the keys"}),
        )
        .unwrap();
    let ask_id = ask["event"]["id"].as_str().unwrap().to_string();
    // Seen online: in the mailbox (the primary's) and through the agent's own edge.
    let (code, seen) = mailbox(answerer, &b);
    assert_eq!(code, Some(0));
    assert_eq!(
        (seen["stale"].clone(), owed_ids(&seen)),
        (json!(false), vec![ask_id.clone()])
    );
    let listed = sb
        .call(
            "mempalace_event_list",
            json!({"to_agent": b, "status": "open"}),
        )
        .unwrap();
    assert_eq!(listed["events"][0]["id"], ask_id.as_str(), "{listed}");
    // The answerer's edge pulls the primary's log (its read saw an event the local log lacked).
    assert!(
        wait_for(60.0, || answerer.local_has(&ask_id)),
        "the ask reaches the answerer's palace under the primary's id"
    );
    answerer.link.set(Mode::Refuse);
    let ack = sb
        .call(
            "mempalace_event_ack",
            json!({"event_id": ask_id, "from_agent": b, "status": "applied", "body": "rotated, offline"}),
        )
        .unwrap_or_else(|e| panic!("the ack applies locally: {e}"));
    assert!(ack["event"]["id"].is_string(), "{ack}");
    assert_eq!(
        answerer.outbox()["open"],
        1,
        "the ack is queued for the primary"
    );
    let (code, offline) = mailbox(answerer, &b);
    assert_eq!(code, Some(0), "{offline}");
    assert_eq!(offline["stale"], true, "{offline}");
    assert!(owed_ids(&offline).is_empty(), "answered offline: {offline}");

    answerer.link.set(Mode::Pass);
    assert!(answerer.wait_drained(90.0), "{}", answerer.outbox());
    let acks: Vec<Value> = fleet
        .events_by(&b)
        .into_iter()
        .filter(|e| e["type"] == "event.ack")
        .collect();
    assert_eq!(acks.len(), 1, "one ack on the primary: {acks:?}");
    assert_eq!(acks[0]["metadata"]["ack_of"], ask_id.as_str());
    assert_eq!(acks[0]["to_agent"], a.as_str());
    // The asker's view of the answerer's mailbox and the answerer's own agree: nothing owed.
    let (_, from_asker) = mailbox(asker, &b);
    let (_, own) = mailbox(answerer, &b);
    assert_eq!(from_asker["stale"], false);
    assert_eq!(own["stale"], false);
    assert_eq!(owed_ids(&from_asker), owed_ids(&own));
    assert!(owed_ids(&own).is_empty(), "{own}");
    assert_eq!(from_asker["stats"]["answered"], 1, "{from_asker}");
    assert_eq!(own["stats"]["answered"], 1, "{own}");
    // The token went nowhere but the wire: not into the palace's peers.json, the pull record or
    // the owner's log.
    assert!(!answerer.palace.join("peers.json").exists());
    let edge_dir = answerer.env.home().join(".mempalace/edge");
    for e in std::fs::read_dir(&edge_dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".pull.json") || name.ends_with(".log") {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            assert!(!text.contains(TOKEN), "{name} holds the token");
        }
    }
}

#[test]
fn the_mailbox_offline_lists_what_is_owed_flagged_stale() {
    let fleet = Fleet::start(2);
    let (asker, answerer) = (&fleet.devices[0], &fleet.devices[1]);
    let b = answerer.agent("pi");
    let asks: Vec<String> = ["check the backups", "renew the certificate"]
        .iter()
        .map(|body| fleet.ask("oc@dev0", &b, body))
        .collect();
    let mut sb = answerer.session("pi", &[]);
    sb.call("mempalace_event_list", json!({"to_agent": b}))
        .unwrap();
    assert!(wait_for(60.0, || asks
        .iter()
        .all(|id| answerer.local_has(id))));
    assert!(wait_for(60.0, || answerer.pull_recorded()));

    answerer.link.set(Mode::Refuse);
    let (code, offline) = mailbox(answerer, &b);
    assert_eq!(code, Some(0), "{offline}");
    assert_eq!(offline["stale"], true);
    assert_eq!(offline["source"], "local");
    assert_eq!(owed_ids(&offline), asks, "{offline}");
    assert!(offline["last_pull_age_secs"].is_u64(), "{offline}");
    assert!(offline["last_pull"].is_string(), "{offline}");
    let human = answerer.mpt(&["mailbox", "--as", &b]);
    assert!(human.status.success(), "{}", stderr(&human));
    assert!(
        stdout(&human).starts_with("STALE: the primary is unreachable"),
        "{}",
        stdout(&human)
    );
    let count = answerer.mpt(&["mailbox", "--as", &b, "--count"]);
    assert_eq!(stdout(&count).trim(), "2");
    // Answered offline from the command line: through the edge owner, applied locally.
    let o = answerer.mpt(&[
        "--json", "mailbox", "--as", &b, "ack", &asks[0], "--status", "applied",
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let (_, after) = mailbox(answerer, &b);
    assert_eq!(after["stale"], true);
    assert_eq!(owed_ids(&after), asks[1..], "{after}");

    answerer.link.set(Mode::Pass);
    assert!(answerer.wait_drained(90.0), "{}", answerer.outbox());
    let (code, online) = mailbox(answerer, &b);
    assert_eq!(code, Some(0));
    assert_eq!(online["stale"], false, "{online}");
    assert_eq!(online["source"], "primary");
    assert_eq!(owed_ids(&online), asks[1..]);
    let acks: Vec<Value> = fleet
        .events_by(&b)
        .into_iter()
        .filter(|e| e["metadata"]["ack_of"] == asks[0].as_str())
        .collect();
    assert_eq!(
        acks.len(),
        1,
        "the offline ack once on the primary: {acks:?}"
    );

    // A device that never kept a copy of the log has no last-known view: unavailable (7).
    asker.link.set(Mode::Refuse);
    let o = asker.mpt(&["--json", "mailbox", "--as", &asker.agent("pi")]);
    assert_eq!(o.status.code(), Some(7), "{}", stdout(&o));
    assert_eq!(parse_json(&o)["schema"], "mpt.error/v1");
}

/// Every event a device's agent reads through its edge (notes and tasks).
fn read_stream(s: &mut crate::support::harness::Harness) -> Value {
    s.call("mempalace_event_list", json!({"limit": 200}))
        .unwrap()
}

/// Each body read, with how many times it was read.
fn bodies(listed: &Value) -> HashMap<String, usize> {
    let mut seen = HashMap::new();
    for e in listed["events"].as_array().unwrap() {
        *seen
            .entry(e["body"].as_str().unwrap_or("").to_string())
            .or_default() += 1;
    }
    seen
}

#[test]
fn coordination_reads_show_own_unreplicated_events_and_the_primarys_once() {
    let fleet = Fleet::start(3);
    let mut sessions: Vec<_> = fleet.devices.iter().map(|d| d.session("pi", &[])).collect();
    for (d, s) in fleet.devices.iter().zip(sessions.iter_mut()) {
        s.call(
            "mempalace_event_append",
            json!({"type": "note", "stream": "fleet", "room": "ops", "from_agent": d.agent("pi"),
                   "body": format!("online from {}", d.name)}),
        )
        .unwrap();
    }
    // Each device writes while its link refuses; its flusher is held (the test owns the flush
    // lock), so once the link passes the primary answers while these are still only local.
    let mut held = Vec::new();
    for (d, s) in fleet.devices.iter().zip(sessions.iter_mut()) {
        held.push(
            mpt_outbox::FlushLock::try_acquire(&outbox_path(d))
                .unwrap()
                .expect("no flusher holds the lock between flushes"),
        );
        d.link.set(Mode::Refuse);
        s.call(
            "mempalace_event_append",
            json!({"type": "note", "stream": "fleet", "room": "ops", "from_agent": d.agent("pi"),
                   "body": format!("offline from {}", d.name)}),
        )
        .unwrap();
        s.call(
            "mempalace_task_create",
            json!({"project": "fleet", "from_agent": d.agent("pi"), "to_agent": "oc@dev9",
                   "goal": format!("task from {}", d.name), "done": "done", "branch": "main",
                   "base_commit": "4b825dc642cb6eb9a060e54bf8d69288fbee4904"}),
        )
        .unwrap();
        d.link.set(Mode::Pass);
    }
    let onlines: Vec<String> = fleet
        .devices
        .iter()
        .map(|d| format!("online from {}", d.name))
        .collect();
    for (d, s) in fleet.devices.iter().zip(sessions.iter_mut()) {
        // The edge skips a primary that just failed for a backoff: read until it answers.
        let mut listed = Value::Null;
        assert!(
            wait_for(30.0, || {
                listed = read_stream(s);
                listed.get("degraded").is_none()
            }),
            "the primary answers again: {listed}"
        );
        let seen = bodies(&listed);
        for b in &onlines {
            assert_eq!(seen.get(b), Some(&1), "{}: {b} once in {listed}", d.name);
        }
        assert_eq!(
            seen.get(&format!("offline from {}", d.name)),
            Some(&1),
            "{}: its own unreplicated event: {listed}",
            d.name
        );
        for other in fleet.devices.iter().filter(|o| o.name != d.name) {
            assert!(
                !seen.contains_key(&format!("offline from {}", other.name)),
                "not replicated yet: {listed}"
            );
        }
        assert_eq!(listed["merged"]["local"], 2, "{listed}");
        assert!(seen.values().all(|n| *n == 1), "no event twice: {seen:?}");
    }
    // The flushers run: every offline write lands, and each device pulls the primary's copies.
    drop(held);
    for d in &fleet.devices {
        assert!(d.wait_drained(90.0), "{}", d.outbox());
    }
    for d in &fleet.devices {
        let mine = format!("offline from {}", d.name);
        assert!(
            wait_for(60.0, || d.local_count("body = ?1", &mine) == 2),
            "{}: the primary's copy of its own event pulled beside the original",
            d.name
        );
    }
    // What each device's local log must hold before it is read offline: every event on the
    // primary (its own originals beside their copies).
    let pulled_all = |d: &Device| {
        fleet.devices.iter().all(|x| {
            let want = if x.name == d.name { 2 } else { 1 };
            d.local_count("body = ?1", &format!("online from {}", x.name)) >= 1
                && d.local_count("body = ?1", &format!("offline from {}", x.name)) == want
                && d.local_count("body LIKE ?1", &format!("%task from {}%", x.name)) == want
        })
    };
    let everything = |seen: &HashMap<String, usize>| {
        fleet.devices.iter().all(|d| {
            [
                format!("online from {}", d.name),
                format!("offline from {}", d.name),
            ]
            .iter()
            .all(|b| seen.get(b) == Some(&1))
        }) && seen.values().all(|n| *n == 1)
    };
    for (d, s) in fleet.devices.iter().zip(sessions.iter_mut()) {
        let listed = read_stream(s);
        assert!(
            everything(&bodies(&listed)),
            "{}: each event once: {listed}",
            d.name
        );
        assert_eq!(listed["merged"]["local"], 0, "{listed}");
        // That read showed events the local log lacked (the other devices' late flushes): the
        // edge pulls them.
        assert!(
            wait_for(60.0, || pulled_all(d)),
            "{}: the primary's log pulled",
            d.name
        );
        // Offline, the local log alone: its originals and the pulled copies still one event each.
        d.link.set(Mode::Refuse);
        let listed = read_stream(s);
        assert_eq!(listed["degraded"], true, "{listed}");
        assert!(
            everything(&bodies(&listed)),
            "{} offline: each event once: {listed}",
            d.name
        );
        d.link.set(Mode::Pass);
    }
}
