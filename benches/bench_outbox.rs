//! The outbox's bars side by side in one run: durable enqueues/s (FULL vs NORMAL), and the flush
//! rate against a real `mempalace serve` vs the same calls made directly, serially.

// Usage: cargo bench --bench bench_outbox [N]
// N ops per flush block (default 200); MPT_TESTBED names the testbed (default target/testbed);
// BENCH_VERBOSE=1 prints each block.

mod common;

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use common::{Primary, client, median};
use mpt_mcp::Deadline;
use mpt_outbox::{
    self as outbox, FlushLock, FlushOptions, NewOp, OpenOptions, Origin, Outbox, Synchronous,
};
use serde_json::{Value, json};

/// Blocks per measurement, interleaved (the machine is shared: interleaving spreads its load
/// over every row alike), and the median block is reported.
const BLOCKS: usize = 7;
const ENQUEUES_PER_BLOCK: usize = 1_000;

fn main() {
    let n: usize = std::env::args()
        .filter(|a| a != "--bench")
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let tmp = tempfile::tempdir().unwrap();
    let (mut full, mut normal, mut batched, mut floor) = (vec![], vec![], vec![], vec![]);
    let mut obs: Vec<Outbox> = [Synchronous::Full, Synchronous::Normal, Synchronous::Full]
        .iter()
        .enumerate()
        .map(|(i, s)| {
            Outbox::open(
                &tmp.path().join(format!("e{i}/outbox.sqlite3")),
                OpenOptions {
                    synchronous: *s,
                    ..Default::default()
                },
            )
            .unwrap()
        })
        .collect();
    for b in 0..BLOCKS {
        floor.push(fsync_rate(&tmp.path().join("fsync.bin"), 200));
        full.push(enqueue_rate(&mut obs[0], b, 1));
        normal.push(enqueue_rate(&mut obs[1], b, 1));
        batched.push(enqueue_rate(&mut obs[2], b, 16));
    }
    let (full, normal, batched, floor) =
        (median(full), median(normal), median(batched), median(floor));
    println!(
        "{:<48} {:>13} {:>24} {:>7} {:>10}",
        "what", "figure", "baseline", "ratio", "bar"
    );
    println!(
        "{:<48} {:>11.0}/s {:>13} {:>8.0}/s {:>6.2}x {:>10}",
        "durable enqueues, synchronous=FULL (chosen)",
        full,
        "NORMAL",
        normal,
        full / normal,
        ">= 2,000/s"
    );
    println!(
        "{:<48} {:>11.0}/s {:>13} {:>8.0}/s {:>6.2}x",
        "durable enqueues, synchronous=NORMAL",
        normal,
        "FULL",
        full,
        normal / full
    );
    println!(
        "{:<48} {:>11.0}/s {:>13} {:>8.0}/s {:>6.2}x",
        "durable enqueues, FULL, batches of 16",
        batched,
        "FULL",
        full,
        batched / full
    );
    println!(
        "{:<48} {:>11.0}/s {:>24} {:>7}",
        "this disk's fsync floor (4 KiB append + fsync)", floor, "", ""
    );

    let primary = Primary::start(tmp.path());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (mut direct, mut flushed, mut ratios) = (vec![], vec![], vec![]);
    // Warm the primary up (imports, first writes), then alternate which side goes first: the
    // palace grows as the run goes, and neither side should always meet the bigger one.
    rt.block_on(direct_rate(&primary.url(), usize::MAX, 50));
    for round in 0..BLOCKS {
        let ob = tmp.path().join(format!("ob{round}"));
        let (d, f) = if round % 2 == 0 {
            let d = rt.block_on(direct_rate(&primary.url(), round, n));
            (d, rt.block_on(flush_rate(&primary.url(), &ob, round, n)))
        } else {
            let f = rt.block_on(flush_rate(&primary.url(), &ob, round, n));
            (rt.block_on(direct_rate(&primary.url(), round, n)), f)
        };
        direct.push(d);
        flushed.push(f);
        ratios.push(f / d);
        if std::env::var_os("BENCH_VERBOSE").is_some() {
            eprintln!(
                "block {round}: direct {d:.1} op/s, flush {f:.1} op/s, {:.2}x",
                f / d
            );
        }
    }
    let (d, f, r) = (median(direct), median(flushed), median(ratios));
    println!(
        "{:<48} {:>8.1} op/s {:>13} {:>5.1} op/s {:>6.2}x {:>10}",
        format!("flush of {n} ops (kg_add + event_append)"),
        f,
        "direct serial",
        d,
        r,
        ">= 0.9x"
    );
    println!(
        "(medians of {BLOCKS} interleaved blocks; the flush ratio is the median of per-block ratios)"
    );
}

/// What one durable write costs this disk right now: append 4 KiB, fsync.
fn fsync_rate(path: &Path, n: usize) -> f64 {
    let mut f = std::fs::File::create(path).unwrap();
    let t = Instant::now();
    for _ in 0..n {
        f.write_all(&[0u8; 4096]).unwrap();
        f.sync_all().unwrap();
    }
    n as f64 / t.elapsed().as_secs_f64()
}

fn enqueue_rate(ob: &mut Outbox, block: usize, batch: usize) -> f64 {
    let origin = Origin {
        device: "bench".into(),
        host: "bench".into(),
        inbox: None,
    };
    let payloads: Vec<Value> = (0..ENQUEUES_PER_BLOCK)
        .map(|i| json!({"type": "status.note", "stream": "project/bench", "room": "status", "from_agent": "pi@bench", "body": format!("enqueue {block} {i}")}))
        .collect();
    let t = Instant::now();
    for chunk in payloads.chunks(batch) {
        let ops: Vec<NewOp> = chunk
            .iter()
            .map(|p| NewOp {
                tool: "mempalace_event_append",
                payload: p,
                dedupe_key: None,
                local_reply: None,
                maybe_applied: false,
            })
            .collect();
        ob.enqueue_batch(&origin, &ops).unwrap();
    }
    ENQUEUES_PER_BLOCK as f64 / t.elapsed().as_secs_f64()
}

/// The i-th call of a round: alternately a fact and an event, all distinct.
fn call_of(round: usize, tag: &str, i: usize) -> (&'static str, Value) {
    if i.is_multiple_of(2) {
        (
            "mempalace_kg_add",
            json!({"subject": format!("{tag}{round}_{i}"), "predicate": "runs_on", "object": "bench"}),
        )
    } else {
        (
            "mempalace_event_append",
            json!({"type": "status.note", "stream": "project/bench", "room": "status", "from_agent": "pi@bench", "body": format!("{tag} {round} {i}")}),
        )
    }
}

async fn direct_rate(url: &str, round: usize, n: usize) -> f64 {
    let c = client(url);
    let t = Instant::now();
    c.connect().await.unwrap();
    for i in 0..n {
        let (tool, args) = call_of(round, "direct", i);
        c.call_tool(tool, args, Deadline::Default).await.unwrap();
    }
    n as f64 / t.elapsed().as_secs_f64()
}

async fn flush_rate(url: &str, dir: &Path, round: usize, n: usize) -> f64 {
    let path = dir.join("outbox.sqlite3");
    let mut ob = Outbox::open(&path, OpenOptions::default()).unwrap();
    let origin = Origin {
        device: "bench".into(),
        host: "bench".into(),
        inbox: None,
    };
    for i in 0..n {
        let (tool, args) = call_of(round, "flushed", i);
        ob.enqueue(
            &origin,
            NewOp {
                tool,
                payload: &args,
                dedupe_key: None,
                local_reply: None,
                maybe_applied: false,
            },
        )
        .unwrap();
    }
    let lock = FlushLock::try_acquire(&path).unwrap().unwrap();
    let c = client(url);
    let t = Instant::now();
    let r = outbox::flush::flush(&mut ob, &lock, &c, &FlushOptions::default(), &mut |_| {})
        .await
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(
        (r.stop, r.settled()),
        (outbox::Stop::Drained, n as u64),
        "{:?}",
        r.error
    );
    n as f64 / secs
}
