//! `mpt outbox backfill` with real palaces and a real primary: a device's existing memory lands
//! once, record by record, whatever the primary already holds, through kills, across devices.

mod honest;
mod palace;

use serde_json::{Value, json};

use crate::support::fleet::{Device, Fleet};
use crate::support::rng::Rng;
use crate::support::{json as parse_json, stderr, stdout};
use palace::{assert_landed_once, local, seed};

/// `mpt --json outbox backfill --palace <the device's> ARGS` on the device.
fn run_backfill(dev: &Device, args: &[&str]) -> std::process::Output {
    let mut all = vec![
        "--json",
        "outbox",
        "backfill",
        "--palace",
        dev.palace.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    dev.mpt(&all)
}

/// `mpt --json outbox backfill ARGS` on the device: (exit code, report).
fn backfill(dev: &Device, args: &[&str]) -> (i32, Value) {
    let o = run_backfill(dev, args);
    let doc = parse_json(&o);
    assert_eq!(
        doc["schema"],
        "mpt.outbox.backfill/v1",
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    (o.status.code().unwrap_or(-1), doc)
}

/// `mpt outbox backfill ARGS` for people: its stdout.
fn backfill_text(dev: &Device, args: &[&str]) -> String {
    let mut all = vec![
        "outbox",
        "backfill",
        "--palace",
        dev.palace.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    stdout(&dev.mpt(&all))
}

/// The runbook's `seed-primary` step on the device: (state, summary).
fn seed_step(dev: &Device) -> (String, String) {
    let o = dev.mpt(&[
        "--json",
        "runbook",
        "phase2",
        "--palace",
        dev.palace.to_str().unwrap(),
    ]);
    let doc = parse_json(&o);
    let step = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "seed-primary")
        .unwrap_or_else(|| panic!("no seed-primary step: {doc}"))
        .clone();
    (
        step["state"].as_str().unwrap().to_string(),
        step["summary"].as_str().unwrap().to_string(),
    )
}

/// Flushes the device's outbox until it is drained (retrying while a loaded machine's fresh
/// primary is slow to answer its first embeddings).
fn flush(dev: &Device) {
    let o = dev.mpt(&["--json", "outbox", "flush", "--wait", "--deadline", "10m"]);
    assert!(o.status.success(), "flush: {}{}", stdout(&o), stderr(&o));
}

#[test]
fn a_devices_memory_lands_on_an_empty_primary_once_and_a_rerun_finds_nothing() {
    let fleet = Fleet::start(2);
    let dev = &fleet.devices[0];
    let s = seed(dev);
    // The same hand-authored drawer on a second device: it lands once.
    local(
        &fleet.devices[1],
        "mempalace_add_drawer",
        json!({"wing": "proj", "room": "decisions", "content": s.small.1}),
    );

    let (code, plan) = backfill(dev, &[]);
    assert_eq!(code, 0, "{plan}");
    assert_eq!(plan["dry_run"], true);
    assert_eq!(
        plan["to_send"],
        json!({"drawer": 2, "diary": 2, "kg_closed": 1, "kg_open": 2, "artifact": 1, "event": 2}),
        "{plan}"
    );
    assert_eq!(plan["skipped"]["mined"], s.mined.len(), "{plan}");
    assert!(
        plan["skipped_records"].as_array().unwrap().iter().all(
            |r| r["reason"] == "mined" && r["detail"].as_str().unwrap().starts_with("metadata")
        )
    );
    assert_eq!(
        dev.outbox()["counts"]["queued"],
        0,
        "a dry run queues nothing"
    );

    let human = backfill_text(dev, &[]);
    assert!(
        human.contains(&s.big.0)
            && human.contains(&format!("mined        drawer    {}", s.mined[0])),
        "the dry run lists what it would send and what it skips: {human}"
    );
    let (state, summary) = seed_step(dev);
    assert_eq!(state, "to_do", "{summary}");
    assert!(summary.starts_with("10 record(s)"), "{summary}");
    let (code, done) = backfill(dev, &["--yes"]);
    assert_eq!((code, done["enqueued"].as_u64()), (0, Some(10)), "{done}");
    let ops = parse_json(&dev.mpt(&["--json", "outbox", "list"]));
    let tools: Vec<&str> = ops["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["tool"].as_str().unwrap())
        .collect();
    let first_open = tools.iter().position(|t| *t == "mempalace_kg_add").unwrap();
    assert!(
        tools[first_open..first_open + 3]
            .iter()
            .all(|t| *t == "mempalace_kg_add")
    );
    assert_eq!(tools.last(), Some(&"mempalace_event_append"));
    flush(dev);
    assert_landed_once(&fleet, &s);

    let (_, second) = backfill(&fleet.devices[1], &["--yes"]);
    assert_eq!(
        second["enqueued"], 0,
        "the second device's copy is on the primary: {second}"
    );
    assert_eq!(second["skipped"]["on_primary"], 1);

    assert_eq!(
        seed_step(dev).0,
        "done",
        "the runbook's step is done once all of it landed"
    );
    let (code, again) = backfill(dev, &[]);
    assert_eq!(code, 0);
    assert_eq!(again["to_send_total"], 0, "{again}");
    assert_eq!(again["done"], true, "{again}");
    let human = backfill_text(dev, &[]);
    assert!(human.contains("done: nothing left to send"), "{human}");
}

#[test]
fn what_the_primary_holds_is_not_sent_again_and_reads_come_from_the_device_through_its_edge() {
    let fleet = Fleet::start(1);
    let dev = &fleet.devices[0];
    let s = seed(dev);
    // The primary holds some of it already, and something the device never had.
    fleet
        .call(
            "mempalace_add_drawer",
            json!({"wing": "proj", "room": "decisions", "content": s.small.1}),
        )
        .unwrap();
    fleet
        .call(
            "mempalace_add_drawer",
            json!({"wing": "proj", "room": "decisions", "content": "Only the primary knows this."}),
        )
        .unwrap();
    fleet
        .call(
            "mempalace_diary_write",
            json!({"agent_name": "pi", "entry": s.diary[0], "topic": "work", "wing": "wing_pi"}),
        )
        .unwrap();
    fleet.call("mempalace_kg_add", json!({"subject": "Alice", "predicate": "owns", "object": "deploy-repo", "valid_from": "2026-01-01", "valid_to": "2026-03-01"})).unwrap();
    fleet
        .call(
            "mempalace_kg_add",
            json!({"subject": "Bob", "predicate": "prefers", "object": "tea"}),
        )
        .unwrap();
    // --since and --wing narrow what is read and sent.
    let (_, later) = backfill(dev, &["--since", "2999-01-01"]);
    assert_eq!(later["to_send_total"], 0, "{later}");
    assert_eq!(
        later["skipped"]["before_since"], 6,
        "drawers, diary, events: {later}"
    );
    assert_eq!(later["skipped"]["no_filing_time"], 3, "facts: {later}");
    assert_eq!(
        (later["filtered_out"].as_u64(), &later["done"]),
        (Some(9), &json!(false))
    );
    let (_, notes) = backfill(dev, &["--wing", "note?"]);
    assert_eq!(
        notes["read"],
        json!({"drawer": s.mined.len(), "kg_closed": 1, "kg_open": 2, "event": 2}),
        "{notes}"
    );
    assert_eq!(notes["to_send_total"], 0, "{notes}");
    assert_eq!(
        notes["filtered_out"], 9,
        "2 drawers and 2 diary entries in other wings, 3 facts, 2 events: {notes}"
    );
    assert_eq!(notes["done"], false, "{notes}");
    // An edge session holds the palace: the backfill reads through its owner, this palace only.
    let mut session = dev.session("pi", &[]);
    let (code, plan) = backfill(dev, &["--yes"]);
    assert_eq!(code, 0, "{plan}");
    assert_eq!(plan["read_through"], "edge owner");
    assert_eq!(
        plan["read"]["drawer"],
        2 + s.mined.len(),
        "the primary's own drawer is not read as the device's: {plan}"
    );
    assert_eq!(plan["skipped"]["on_primary"], 4, "{plan}");
    assert_eq!(
        plan["to_send"],
        json!({"drawer": 1, "diary": 1, "kg_open": 1, "artifact": 1, "event": 2}),
        "{plan}"
    );
    flush(dev);
    session.close();
    assert_landed_once(&fleet, &s);
}

#[test]
fn kill_9_at_any_moment_then_rerun_sends_each_record_once() {
    let fleet = Fleet::start(1);
    let dev = &fleet.devices[0];
    let s = seed(dev);
    let mut rng = Rng::seeded(0xbac0_f111 ^ u64::from(std::process::id()));
    let started = std::time::Instant::now();
    let (_, plan) = backfill(dev, &[]);
    let whole = started.elapsed().as_millis() as u64;
    for round in 0..4 {
        let at = rng.below(whole.max(1) * 3 / 2);
        let mut cmd = dev.env.mpt_command(&[
            "outbox",
            "backfill",
            "--yes",
            "--palace",
            dev.palace.to_str().unwrap(),
        ]);
        for (k, v) in dev.vars() {
            cmd.env(k, v);
        }
        cmd.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().unwrap();
        // Fault timing, not synchronisation: the kill lands wherever the run is.
        std::thread::sleep(std::time::Duration::from_millis(at));
        unsafe {
            libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
        }
        let _ = child.wait();
        eprintln!("seed {:#x}: round {round} killed after {at} ms", rng.seed());
    }
    let (code, last) = backfill(dev, &["--yes"]);
    assert_eq!(code, 0, "{last}");
    let ops = parse_json(&dev.mpt(&[
        "--json", "outbox", "list", "--state", "all", "--limit", "1000",
    ]));
    let ops = ops["ops"].as_array().unwrap();
    assert_eq!(
        ops.len() as u64,
        plan["to_send_total"].as_u64().unwrap(),
        "seed {:#x}: one op per record: {ops:?}",
        rng.seed()
    );
    flush(dev);
    assert_landed_once(&fleet, &s);
}

#[test]
fn with_the_primary_unreachable_the_server_deduped_kinds_queue_and_the_rest_waits_visibly() {
    let fleet = Fleet::start(1);
    let dev = &fleet.devices[0];
    let s = seed(dev);
    dev.link.set(crate::support::link::Mode::Refuse);
    // Offline, an agent writes a diary entry through the edge: applied locally and queued. The
    // backfill leaves it to that op (or finds it on the primary once it landed): never twice.
    let mut session = dev.session("pi", &[]);
    session
        .call(
            "mempalace_diary_write",
            json!({"agent_name": "pi", "entry": "Wrote this while the primary was away.", "topic": "work"}),
        )
        .unwrap();
    session.close();
    drop(session);
    let (code, offline) = backfill(dev, &["--yes"]);
    assert_eq!(code, 7, "unavailable: come back later: {offline}");
    assert_eq!(offline["primary_checked"], false);
    assert!(offline["primary_error"].as_str().is_some());
    assert_eq!(
        offline["to_send"],
        json!({"drawer": 2, "kg_open": 1}),
        "{offline}"
    );
    assert_eq!(
        offline["skipped"]["unverified"], 6,
        "diary 2, the closed fact and its reopened one, events 2: {offline}"
    );
    assert_eq!(offline["skipped"]["queued_by_edge"], 1, "{offline}");
    assert_eq!(offline["done"], false);
    let human = backfill_text(dev, &[]);
    assert!(human.contains("did not answer"), "{human}");

    dev.link.set(crate::support::link::Mode::Pass);
    let (code, online) = backfill(dev, &["--yes"]);
    assert_eq!(code, 0, "{online}");
    assert_eq!(
        online["to_send"],
        json!({"diary": 2, "kg_closed": 1, "kg_open": 1, "artifact": 1, "event": 2}),
        "{online}"
    );
    assert_eq!(online["skipped"]["enqueued"], 3, "{online}");
    flush(dev);
    assert_landed_once(&fleet, &s);
    let away: Vec<String> = fleet
        .diary("pi", "wing_pi")
        .into_iter()
        .filter(|e| e.contains("while the primary was away"))
        .collect();
    assert_eq!(away.len(), 1, "the edge's entry once: {away:?}");
    let (_, after) = backfill(dev, &[]);
    assert_eq!(after["done"], true, "{after}");
}

#[test]
fn bad_values_are_exit_2_naming_them_and_no_primary_is_refused() {
    let fleet = Fleet::start(1);
    let dev = &fleet.devices[0];
    let cases: [(&str, &str, &str); 2] = [
        ("--since", "last-week", "'last-week'"),
        ("--wing", "proj[", "'proj['"),
    ];
    for (flag, value, named) in cases {
        let o = dev.mpt(&["outbox", "backfill", flag, value]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(named), "{}", stderr(&o));
    }
    let o = dev.env.mpt(&["outbox", "backfill"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("MEMPALACE_REMOTE_URL"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn backfilled_records_carry_this_device_as_the_live_edge_stamps_it() {
    let fleet = Fleet::start(1);
    let dev = &fleet.devices[0];
    let drawer = |content: &str, writer: Option<&str>| {
        let mut args = json!({"wing": "proj", "room": "writers", "content": content});
        if let Some(w) = writer {
            args["added_by"] = json!(w);
        }
        local(dev, "mempalace_add_drawer", args)["drawer_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let cases = [
        (
            drawer("Filed with MemPalace's default writer.", None),
            "backfill@dev0",
        ),
        (
            drawer("Filed by a bare harness name.", Some("opencode")),
            "opencode@dev0",
        ),
        (
            drawer("Filed by an identity already.", Some("pi@laptop")),
            "pi@laptop",
        ),
    ];
    let plain = "Written before this device had a name.";
    let stamped = "HOST:laptop|Stamped by the edge that wrote it.";
    for entry in [plain, stamped] {
        local(
            dev,
            "mempalace_diary_write",
            json!({"agent_name": "pi", "entry": entry, "topic": "work"}),
        );
    }
    let (code, done) = backfill(dev, &["--yes"]);
    assert_eq!((code, done["enqueued"].as_u64()), (0, Some(5)), "{done}");
    flush(dev);
    for (id, writer) in &cases {
        let got = fleet
            .call("mempalace_get_drawers", json!({"drawer_ids": [id]}))
            .unwrap();
        assert_eq!(got["results"][0]["metadata"]["added_by"], *writer, "{got}");
    }
    let mut diary = fleet.diary("pi", "wing_pi");
    diary.sort();
    assert_eq!(
        diary,
        [format!("HOST:dev0|{plain}"), stamped.to_string()],
        "the diary marker the live edge adds, once"
    );

    // Without the ledger (a fresh outbox), the primary is asked for the stamped text: nothing
    // is sent twice.
    let outbox = crate::outbox::outbox_path(&dev.env);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", outbox.display()));
    }
    assert!(!outbox.exists());
    let (code, again) = backfill(dev, &[]);
    assert_eq!(code, 0, "{again}");
    assert_eq!(again["to_send_total"], 0, "{again}");
    assert_eq!(again["skipped"]["on_primary"], 5, "{again}");
}
