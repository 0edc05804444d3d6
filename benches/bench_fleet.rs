//! The fleet converging, side by side in one run: N devices' outboxes of 100 queued ops each
//! (facts, events, and artifacts with the asks that reference them by their local id) drained
//! at once into a real `mempalace serve` after a heal, vs the same ops sent directly, serially.

// Usage: cargo bench --bench bench_fleet
// MPT_TESTBED names the testbed (default target/testbed); BENCH_VERBOSE=1 prints each block.

mod common;

use std::sync::Barrier;
use std::time::{Duration, Instant};

use common::{Primary, client, median};
use mpt_mcp::Deadline;
use mpt_outbox::{
    self as outbox, FlushLock, FlushOptions, NewOp, OpenOptions, Origin, Outbox, Stop,
};
use serde_json::{Value, json};

const OPS_PER_DEVICE: usize = 100;
const BLOCKS: usize = 3;

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let primary = Primary::start(tmp.path());
    let url = primary.url();
    println!(
        "{:<44} {:>10} {:>12} {:>10} {:>7} {:>8}",
        "devices x 100 queued ops", "converged", "direct", "req/s", "ratio", "bar"
    );
    for devices in [1, 5, 20] {
        let (mut heal, mut direct, mut ratios) = (vec![], vec![], vec![]);
        for block in 0..BLOCKS {
            let tag = format!("d{devices}b{block}");
            // Alternate which side goes first: the primary's palace grows as the run goes on.
            let (h, d) = if block % 2 == 0 {
                let h = converge(&url, tmp.path(), devices, &tag);
                (h, send_direct(&url, devices, &tag))
            } else {
                let d = send_direct(&url, devices, &tag);
                (converge(&url, tmp.path(), devices, &tag), d)
            };
            if std::env::var_os("BENCH_VERBOSE").is_some() {
                eprintln!("{tag}: converged {h:?}, direct {d:?}");
            }
            ratios.push(h.as_secs_f64() / d.as_secs_f64());
            heal.push(h.as_secs_f64());
            direct.push(d.as_secs_f64());
        }
        let (h, d, r) = (median(heal), median(direct), median(ratios));
        let total = devices * OPS_PER_DEVICE;
        println!(
            "{:<44} {:>8.2} s {:>10.2} s {:>10.0} {:>6.2}x {:>8}",
            format!("{devices} device(s), {total} ops: heal to converged"),
            h,
            d,
            total as f64 / h,
            r,
            "<= 1.1x"
        );
    }
    println!(
        "(medians of {BLOCKS} blocks; req/s: ops settled per second on the primary during the drain; \
         direct: the same ops sent serially by one client)"
    );
}

/// The i-th op of a device: every 10 ops an artifact and an ask referencing it by the id the
/// local palace minted (the outbox maps it to the primary's), the rest facts and events.
fn op_of(tag: &str, dev: usize, i: usize) -> (&'static str, Value, Option<Value>) {
    let art = format!("art_{tag}_{dev}_{}", i / 10);
    match i % 10 {
        0 => (
            "mempalace_artifact_put",
            json!({"kind": "note", "content": format!("plan {tag} {dev} {i}"), "created_by": format!("pi@dev{dev}")}),
            Some(json!({"artifact": {"id": art}})),
        ),
        1 => (
            "mempalace_event_append",
            json!({"type": "task.request", "stream": "bench", "room": "fleet", "from_agent": format!("pi@dev{dev}"),
                   "body": format!("review {tag} {dev} {i}"), "artifact_ids": [art]}),
            None,
        ),
        n if n % 2 == 0 => (
            "mempalace_kg_add",
            json!({"subject": format!("svc_{tag}_{dev}_{i}"), "predicate": "runs_on", "object": "bench"}),
            None,
        ),
        _ => (
            "mempalace_event_append",
            json!({"type": "status.note", "stream": "bench", "room": "fleet", "from_agent": format!("pi@dev{dev}"),
                   "body": format!("status {tag} {dev} {i}")}),
            None,
        ),
    }
}

/// Queues every device's ops, then starts every device's flusher at once (the heal) and
/// returns the time until the last queue is empty.
fn converge(url: &str, dir: &std::path::Path, devices: usize, tag: &str) -> Duration {
    let paths: Vec<_> = (0..devices)
        .map(|dev| {
            let path = dir.join(format!("{tag}/dev{dev}/outbox.sqlite3"));
            let mut ob = Outbox::open(&path, OpenOptions::default()).unwrap();
            let origin = Origin {
                device: format!("dev{dev}"),
                host: "bench".into(),
                inbox: None,
            };
            for i in 0..OPS_PER_DEVICE {
                let (tool, payload, reply) = op_of(tag, dev, i);
                ob.enqueue(
                    &origin,
                    NewOp {
                        tool,
                        payload: &payload,
                        dedupe_key: None,
                        local_reply: reply.as_ref(),
                        maybe_applied: false,
                    },
                )
                .unwrap();
            }
            path
        })
        .collect();
    let start = Barrier::new(devices + 1);
    let t = std::thread::scope(|s| {
        for path in &paths {
            let start = &start;
            s.spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                let mut ob = Outbox::open(path, OpenOptions::default()).unwrap();
                let lock = FlushLock::try_acquire(path).unwrap().unwrap();
                let c = client(url);
                start.wait();
                let r = rt
                    .block_on(outbox::flush::flush(
                        &mut ob,
                        &lock,
                        &c,
                        &FlushOptions::default(),
                        &mut |_| {},
                    ))
                    .unwrap();
                assert_eq!(
                    (r.stop, r.settled()),
                    (Stop::Drained, OPS_PER_DEVICE as u64),
                    "{:?}",
                    r.error
                );
            });
        }
        start.wait();
        Instant::now()
    });
    t.elapsed()
}

/// The same ops, sent by one client one after another (the ask with the artifact id the
/// primary returned).
fn send_direct(url: &str, devices: usize, tag: &str) -> Duration {
    let tag = format!("{tag}x");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = client(url);
        let t = Instant::now();
        c.connect().await.unwrap();
        for dev in 0..devices {
            let mut art = Value::Null;
            for i in 0..OPS_PER_DEVICE {
                let (tool, mut args, _) = op_of(&tag, dev, i);
                if i % 10 == 1 {
                    args["artifact_ids"] = json!([art]);
                }
                let r = c.call_tool(tool, args, Deadline::Default).await.unwrap();
                if i % 10 == 0 {
                    art = r.payload["artifact"]["id"].clone();
                }
            }
        }
        t.elapsed()
    })
}
