//! The cost of the edge's pull of the primary's coordination log, side by side in one run:
//! 10,000 events into an empty local palace, and a pull with nothing new, against their floors.

// Usage: cargo bench --bench bench_pull
// MPT_TESTBED names the testbed (default target/testbed); BENCH_VERBOSE=1 prints each block.
// Floors: the same `/sync/ops` pages and artifacts fetched over HTTP alone (the primary serving
// and the transfer, nothing applied); the child's Python starting and importing the sync engine.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Primary, median};
use mpt_coord::pull::{PullSpec, interpreter, pull_once};
use mpt_mcp::routes::sibling_base_text;
use serde_json::Value;

const EVENTS: usize = 10_000;
/// One event in this many is a patch carrying an artifact (fetched one request each).
const PATCH_EVERY: usize = 100;
const BLOCKS: usize = 3;
const NO_CHANGE_RUNS: usize = 5;

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let venv = common::testbed().join("venv-mempalace-3.11.0/bin");
    let python = interpreter(
        &venv.join("mempalace-mcp"),
        &mpt_base::config::Env::from_process(),
    )
    .expect("the testbed's mempalace-mcp names its Python");
    seed(&python, &tmp.path().join("p/palace"));
    let primary = Primary::start(tmp.path());
    let base = sibling_base_text(&primary.url()).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (mut full, mut fetch, mut none, mut start) = (vec![], vec![], vec![], vec![]);
    for block in 0..BLOCKS {
        let palace = tmp.path().join(format!("local{block}/palace"));
        std::fs::create_dir_all(&palace).unwrap();
        let spec = PullSpec {
            python: python.clone(),
            palace,
            base_url: base.clone(),
            token: None,
            ca_file: None,
            deadline: Duration::from_secs(600),
            memory: None,
        };
        // Alternate which side goes first.
        let (f, t) = if block % 2 == 0 {
            let f = rt.block_on(timed_pull(&spec, EVENTS as u64));
            (f, rt.block_on(fetch_only(&base)))
        } else {
            let t = rt.block_on(fetch_only(&base));
            (rt.block_on(timed_pull(&spec, EVENTS as u64)), t)
        };
        let (mut n, mut s) = (vec![], vec![]);
        for _ in 0..NO_CHANGE_RUNS {
            n.push(rt.block_on(timed_pull(&spec, 0)));
            s.push(python_start(&python));
        }
        let (n, s) = (median(n), median(s));
        if std::env::var_os("BENCH_VERBOSE").is_some() {
            eprintln!(
                "block {block}: pull {f:.3} s, fetch {t:.3} s, no-change {n:.3} s, start {s:.3} s"
            );
        }
        full.push(f);
        fetch.push(t);
        none.push(n);
        start.push(s);
    }
    let (f, t, n, s) = (median(full), median(fetch), median(none), median(start));
    println!(
        "{:<58} {:>10} {:>34} {:>7}",
        "what", "figure", "baseline", "ratio"
    );
    println!(
        "{:<58} {:>8.2} s {:>25.2} s (fetch) {:>6.2}x",
        format!(
            "pull {EVENTS} events ({} with an artifact) into an empty palace",
            EVENTS / PATCH_EVERY
        ),
        f,
        t,
        f / t
    );
    println!(
        "{:<58} {:>7.0} ms {:>24.0} ms (start) {:>6.2}x",
        "pull with nothing new (10,000 events held)",
        n * 1000.0,
        s * 1000.0,
        n / s
    );
    println!(
        "({EVENTS} events: {:.0} events/s applied; medians of {BLOCKS} blocks, no-change runs {NO_CHANGE_RUNS} per block; \
         fetch: the same /sync pages and artifacts over HTTP, nothing applied; start: the child's Python importing the sync engine)",
        EVENTS as f64 / f
    );
}

/// The primary's log, written by MemPalace's own `Logstream` before it serves: asks and notes
/// from several agents, one in `PATCH_EVERY` a patch with its artifact.
fn seed(python: &Path, palace: &Path) {
    std::fs::create_dir_all(palace).unwrap();
    let program = format!(
        r#"
import sys
from mempalace.logstream import Logstream
ls = Logstream(sys.argv[1] + "/logstream.sqlite3")
for i in range({EVENTS}):
    who = "oc@dev%d" % (i % 7)
    if i % {PATCH_EVERY} == 0:
        ls.submit_patch(content="--- a\n+++ b\n@@ %d @@\n" % i, from_agent=who, stream="bench", to_agent="pi@dev1")
    else:
        ls.append_event(type="task.request" if i % 3 == 0 else "status.note", stream="bench", room="fleet",
                        from_agent=who, to_agent="pi@dev%d" % (i % 5), status="open",
                        body="event %d: %s" % (i, "x" * 200))
ls.close()
"#
    );
    let st = Command::new(python)
        .arg("-c")
        .arg(program)
        .arg(palace)
        .status()
        .unwrap();
    assert!(st.success(), "seeding the primary's log");
}

async fn timed_pull(spec: &PullSpec, expect: u64) -> f64 {
    let t = Instant::now();
    let got = pull_once(spec, None).await.unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(got.pulled_events, expect, "{got:?}");
    secs
}

/// Every `/sync/ops` page and every artifact a full pull fetches, over HTTP, nothing applied.
async fn fetch_only(base: &str) -> f64 {
    let http = reqwest::Client::new();
    let get = |path: String| {
        let http = http.clone();
        let url = format!("{base}{path}");
        async move {
            http.get(url)
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .map(|b| serde_json::from_slice::<Value>(&b).unwrap())
                .unwrap()
        }
    };
    let t = Instant::now();
    let vv = get("/sync/version_vector".into()).await;
    let mut n = 0;
    for (origin, top) in vv["version_vector"].as_object().unwrap() {
        let mut after = 0;
        while after < top.as_i64().unwrap() {
            let page = get(format!("/sync/ops?origin={origin}&after={after}&limit=500")).await;
            for e in page["events"].as_array().unwrap() {
                for a in e["artifact_ids"].as_array().unwrap() {
                    get(format!("/sync/artifact?id={}", a.as_str().unwrap())).await;
                }
                after = after.max(e["origin_seq"].as_i64().unwrap());
                n += 1;
            }
        }
    }
    assert_eq!(n, EVENTS);
    t.elapsed().as_secs_f64()
}

/// The child's Python starting and importing what a pull imports, nothing more.
fn python_start(python: &Path) -> f64 {
    let t = Instant::now();
    let st = Command::new(python)
        .args(["-c", "import mempalace.logsync, mempalace.logstream"])
        .status()
        .unwrap();
    assert!(st.success());
    t.elapsed().as_secs_f64()
}
