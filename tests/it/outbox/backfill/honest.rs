//! A backfill that never says "done" when it is not: a record holding the token is named and
//! passed over, a dropped op is `dropped` until `--include-dropped`, a narrowed run is never done,
//! a missing palace is never created, and one backfill runs at a time, never beside a live writer.

use serde_json::{Value, json};

use super::palace::local;
use super::{backfill, backfill_text, flush, run_backfill, seed_step};
use crate::support::fleet::{Device, Fleet, TOKEN};
use crate::support::{TestEnv, json as parse_json, stderr, stdout};

/// A device of no fleet: its primary's URL answers nothing (nothing here needs one).
fn offline_device() -> Device {
    let env = TestEnv::new();
    let palace = env.palace("local");
    let link = crate::support::link::Link::bind();
    link.set(crate::support::link::Mode::Refuse);
    Device {
        name: "solo".into(),
        env,
        link,
        palace,
        token: TOKEN.into(),
    }
}

fn add(dev: &Device, wing: &str, content: &str) -> String {
    local(
        dev,
        "mempalace_add_drawer",
        json!({"wing": wing, "room": "notes", "content": content}),
    )["drawer_id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn skipped<'a>(plan: &'a Value, reason: &str) -> Vec<&'a str> {
    plan["skipped_records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["reason"] == reason)
        .map(|r| r["id"].as_str().unwrap())
        .collect()
}

#[test]
fn a_record_holding_the_token_is_named_and_passed_over_and_the_rest_lands() {
    let fleet = Fleet::start(1);
    let dev = &fleet.devices[0];
    let kept: Vec<String> = (0..3)
        .map(|i| {
            add(
                dev,
                "proj",
                &format!("Decision {i}: the outbox commits before the ack."),
            )
        })
        .collect();
    let leaky = add(
        dev,
        "proj",
        &format!("Paste from a terminal: export MEMPALACE_REMOTE_TOKEN={TOKEN}"),
    );
    let (code, dry) = backfill(dev, &[]);
    assert_eq!(code, 0, "{dry}");
    assert_eq!(skipped(&dry, "contains_secret"), [leaky.as_str()], "{dry}");
    assert_eq!(
        dry["to_send"],
        json!({"drawer": 3}),
        "the dry run says it: {dry}"
    );
    assert!(
        !dry.to_string().contains(TOKEN),
        "the report never holds the token"
    );
    let (code, done) = backfill(dev, &["--yes"]);
    assert_eq!((code, done["enqueued"].as_u64()), (0, Some(3)), "{done}");
    assert_eq!(
        skipped(&done, "contains_secret"),
        [leaky.as_str()],
        "{done}"
    );
    flush(dev);
    for id in &kept {
        let p = fleet
            .call("mempalace_get_drawers", json!({"drawer_ids": [id]}))
            .unwrap();
        assert!(p["results"][0]["content"].is_string(), "{id} landed: {p}");
    }
    // Reported, it is settled: nothing left that a run could send.
    let (state, summary) = seed_step(dev);
    assert_eq!(state, "done", "{summary}");
    let (_, again) = backfill(dev, &[]);
    assert_eq!(again["done"], true, "{again}");
    assert_eq!(
        skipped(&again, "contains_secret"),
        [leaky.as_str()],
        "still named: {again}"
    );
}

#[test]
fn a_dropped_backfill_op_is_reported_and_queued_again_only_on_request() {
    let fleet = Fleet::start(1);
    let dev = &fleet.devices[0];
    let a = add(
        dev,
        "proj",
        "We keep the flush lock for one flusher at a time.",
    );
    let b = add(dev, "proj", "Dropped ops are kept seven days, then purged.");
    let (code, first) = backfill(dev, &["--yes"]);
    assert_eq!((code, first["enqueued"].as_u64()), (0, Some(2)), "{first}");
    let ops = parse_json(&dev.mpt(&["--json", "outbox", "list"]));
    let op_b = ops["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["dedupe_key"] == format!("bf:drawer:{b}"))
        .unwrap_or_else(|| panic!("no op for {b}: {ops}"))["op_id"]
        .as_str()
        .unwrap()
        .to_string();
    let o = dev.mpt(&["outbox", "drop", &op_b, "--yes", "--reason", "test"]);
    assert!(o.status.success(), "{}", stderr(&o));
    flush(dev);
    // Purged too: the audit trail still says it was dropped.
    let o = dev.mpt(&["outbox", "purge", "--older-than", "0s"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (code, plan) = backfill(dev, &[]);
    assert_eq!(code, 0, "{plan}");
    assert_eq!(skipped(&plan, "dropped"), [b.as_str()], "{plan}");
    assert_eq!(skipped(&plan, "on_primary"), [a.as_str()], "{plan}");
    assert_eq!(plan["done"], false, "{plan}");
    let (state, summary) = seed_step(dev);
    assert_eq!(state, "to_do", "{summary}");
    let (_, again) = backfill(dev, &["--yes"]);
    assert_eq!(
        again["enqueued"], 0,
        "a drop is never undone silently: {again}"
    );
    let (code, redo) = backfill(dev, &["--yes", "--include-dropped"]);
    assert_eq!((code, redo["enqueued"].as_u64()), (0, Some(1)), "{redo}");
    flush(dev);
    let p = fleet
        .call("mempalace_get_drawers", json!({"drawer_ids": [b]}))
        .unwrap();
    assert!(p["results"][0]["content"].is_string(), "{p}");
    assert_eq!(backfill(dev, &[]).1["done"], true);
    assert_eq!(seed_step(dev).0, "done");
}

#[test]
fn a_narrowed_run_is_never_done_and_bad_filters_are_exit_2() {
    let dev = offline_device();
    add(&dev, "proj", "The gate checks health twice.");
    add(&dev, "notes", "Blue-green switches wait for the gate.");
    local(
        &dev,
        "mempalace_diary_write",
        json!({"agent_name": "pi", "entry": "Read the gate code.", "topic": "work"}),
    );
    local(
        &dev,
        "mempalace_kg_add",
        json!({"subject": "Gate", "predicate": "checks", "object": "health"}),
    );
    local(
        &dev,
        "mempalace_event_append",
        json!({"type": "note", "stream": "proj", "room": "r", "from_agent": "pi@solo", "body": "gate noted"}),
    );
    let (code, all) = backfill(&dev, &[]);
    assert_eq!(code, 7, "diary and events wait for the primary: {all}");
    assert_eq!(all["filtered_out"], 0, "{all}");
    for (args, why) in [
        (&["--wing", "nosuchwing"][..], "no wing is selected"),
        (&["--since", "2999-01-01"], "everything is older"),
    ] {
        let (code, plan) = backfill(&dev, args);
        assert_eq!(code, 0, "{args:?}: {plan}");
        assert_eq!(plan["to_send_total"], 0, "{args:?} ({why}): {plan}");
        assert_eq!(
            plan["filtered_out"], 5,
            "{args:?}: drawers 2, diary, fact, event: {plan}"
        );
        assert_eq!(plan["narrowed"], true, "{plan}");
        assert_eq!(plan["done"], false, "{args:?}: {plan}");
    }
    let human = backfill_text(&dev, &["--wing", "proj"]);
    assert!(human.contains("not done: --wing/--since left"), "{human}");
    for (flag, value) in [
        ("--since", "2026-02-31"),
        ("--since", "2026-01-31T25:99:99"),
        ("--since", "2026-01-31T"),
        ("--wing", ""),
    ] {
        let o = run_backfill(&dev, &[flag, value]);
        assert_eq!(o.status.code(), Some(2), "{flag} {value:?}: {}", stdout(&o));
        let msg = parse_json(&o)["message"].as_str().unwrap().to_string();
        assert!(msg.contains(&format!("{flag} '{value}'")), "{msg}");
    }
}

#[test]
fn a_missing_palace_is_exit_2_and_never_created() {
    let dev = offline_device();
    assert!(!dev.palace.exists());
    for args in [&[][..], &["--yes"]] {
        let o = run_backfill(&dev, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        let msg = parse_json(&o)["message"].as_str().unwrap().to_string();
        assert!(msg.contains(dev.palace.to_str().unwrap()), "{msg}");
        assert!(!dev.palace.exists(), "{args:?}: no palace was made");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_backfill_at_a_time_and_never_beside_a_live_writer() {
    let dev = std::sync::Arc::new(offline_device());
    add(&dev, "proj", "One writer per palace.");
    // Another backfill holds the lock (this process, standing in for it): exit 6, named.
    let outbox = dev.env.home().join(".mempalace/edge/outbox.sqlite3");
    std::fs::create_dir_all(outbox.parent().unwrap()).unwrap();
    let lock = outbox.with_file_name("outbox.sqlite3.backfill.lock");
    let held = mpt_base::lock::try_acquire(&lock, "outbox backfill")
        .unwrap()
        .unwrap();
    for args in [&[][..], &["--yes"]] {
        let (code, e) = busy(&dev, args).await;
        assert_eq!(code, 6, "{e}");
        let msg = e["message"].as_str().unwrap();
        assert!(
            msg.contains("another backfill is running")
                && msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
    }
    drop(held);
    // A live writer that is not an edge owner (a harness's own mempalace-mcp that wrote).
    let (holder, pid) = crate::mcp::stdio_real::live_writer(&dev.env, &dev.palace).await;
    let (code, e) = busy(&dev, &["--yes"]).await;
    assert_eq!(code, 6, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains(&format!("held by pid {pid}")),
        "{e}"
    );
    holder.shutdown().await;
}

/// `mpt --json outbox backfill ARGS` off the async runtime: (exit code, the error document).
async fn busy(dev: &std::sync::Arc<Device>, args: &[&str]) -> (i32, Value) {
    let (dev, args) = (
        std::sync::Arc::clone(dev),
        args.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
    );
    tokio::task::spawn_blocking(move || {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run_backfill(&dev, &refs);
        (o.status.code().unwrap_or(-1), parse_json(&o))
    })
    .await
    .unwrap()
}
