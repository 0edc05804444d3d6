//! `mpt mailbox watch` on the primary's live stream, against a real `mempalace serve`: an ask
//! announced as it is appended (the latency printed), a cut stream resumed from its last id with
//! nothing missed and nothing twice, and a route absent told from a route blocked.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Instant;

use mpt_mcp::McpClient;
use serde_json::{Value, json};

use crate::support::primary::{PrimaryOpts, remote_client};
use crate::support::sse_proxy::{PATIENCE, SseProxy, StreamRule};
use crate::support::{Primary, TestEnv, wait_for};

const ME: &str = "pi@lap";

async fn ask(c: &McpClient, body: &str) -> String {
    crate::mailbox::append(c, "codex@desk", ME, body, None).await
}

/// A `watch --json` whose stdout lines arrive on a channel; stopped by its pid on drop.
pub struct Watcher {
    child: Child,
    lines: Receiver<Value>,
}

impl Watcher {
    pub fn start(env: &TestEnv, url: &str, extra: &[(&str, &str)]) -> Watcher {
        let mut cmd = env.mpt_command(&["--json", "mailbox", "--as", ME, "watch"]);
        cmd.stdout(Stdio::piped()).stderr(Stdio::null());
        cmd.env("MEMPALACE_REMOTE_URL", url)
            .env("MEMPALACE_PI_DEVICE", "lap")
            // Polling cannot be what announces: the floor is ten minutes.
            .env("MEMPALACE_MAILBOX_POLL_MS", "600000");
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in out.lines().map_while(Result::ok) {
                let v: Value = serde_json::from_str(&l).unwrap_or(json!({"unparsed": l}));
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Watcher { child, lines }
    }

    /// The next line `pred` accepts (others skipped), within [`PATIENCE`].
    pub fn until(&self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + PATIENCE;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(v) if pred(&v) => return v,
                Ok(_) => {}
                Err(_) => panic!("watch printed no {what} within {PATIENCE:?}"),
            }
        }
    }

    pub fn live(&self) -> Value {
        self.until("live line", |v| {
            v["schema"] == "mpt.mailbox.watch/v1" && v["mode"] == "live"
        })
    }

    /// The ids of the next announcement.
    pub fn announced(&self) -> Vec<String> {
        let v = self.until("announcement", |v| v["schema"] == "mpt.mailbox.announce/v1");
        v["announcements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["ask"]["id"].as_str().unwrap().to_string())
            .collect()
    }

    /// Every line printed so far, without waiting.
    pub fn drain(&self) -> Vec<Value> {
        self.lines.try_iter().collect()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn an_ask_appended_while_watching_is_announced_from_the_stream() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = remote_client(&p.url(), None);
    rt.block_on(c.connect()).unwrap();
    let w = Watcher::start(&env, &p.url(), &[]);
    w.live();
    let started = Instant::now();
    let id = rt.block_on(ask(&c, "review the patch"));
    assert_eq!(w.announced(), vec![id]);
    // Printed, never asserted: the bench measures it.
    eprintln!(
        "ask-to-announcement over the live stream: {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
}

/// A primary, the SSE proxy before it, a watch through it, live, and a first ask announced by
/// the stream.
struct Live {
    watcher: Watcher,
    proxy: SseProxy,
    client: McpClient,
    rt: tokio::runtime::Runtime,
    first: String,
    _primary: Primary,
}

impl Live {
    fn start(env: &TestEnv, extra: &[(&str, &str)]) -> Live {
        let p = Primary::start(env, &env.palace("primary"), PrimaryOpts::default());
        let proxy = SseProxy::start(&p.base_url(), StreamRule::Pass);
        let rt = tokio::runtime::Runtime::new().unwrap();
        let client = remote_client(&p.url(), None);
        rt.block_on(client.connect()).unwrap();
        // One ask before the watch: its first derivation announces it, so the ask below is
        // appended after that derivation and can come by the stream alone.
        let zero = rt.block_on(ask(&client, "zero"));
        let watcher = Watcher::start(env, &proxy.url(), extra);
        watcher.live();
        assert_eq!(watcher.announced(), vec![zero]);
        let first = rt.block_on(ask(&client, "first"));
        assert_eq!(watcher.announced(), vec![first.clone()]);
        Live {
            watcher,
            proxy,
            client,
            rt,
            first,
            _primary: p,
        }
    }
}

#[test]
fn a_cut_stream_resumes_from_its_last_id_with_nothing_missed_nor_twice() {
    let env = TestEnv::new();
    let s = Live::start(&env, &[]);
    let (proxy, rt, c, w, first) = (&s.proxy, &s.rt, &s.client, &s.watcher, s.first.clone());
    // The stream is cut; the watch reconnects and is held while two asks are appended.
    proxy.cut_and_hold();
    assert!(
        wait_for(60.0, || proxy.waiting() == 1),
        "the watch reconnects"
    );
    let second = rt.block_on(ask(c, "second"));
    let third = rt.block_on(ask(c, "third"));
    proxy.release();
    let mut got = w.announced();
    if got.len() < 2 {
        got.extend(w.announced());
    }
    assert_eq!(got, vec![second.clone(), third.clone()], "nothing missed");
    let conns = proxy.connections();
    assert_eq!(conns.len(), 2, "{conns:?}");
    assert_eq!(conns[0].0, None, "the first subscription has no cursor");
    assert_eq!(conns[0].1, vec![first.clone()]);
    assert_eq!(
        conns[1].0.as_deref(),
        Some(first.as_str()),
        "resumed with Last-Event-ID"
    );
    assert_eq!(
        conns[1].1,
        vec![second, third],
        "replayed once, from after the cut"
    );
    let rest: Vec<Value> = w
        .drain()
        .into_iter()
        .filter(|v| v["schema"] == "mpt.mailbox.announce/v1")
        .collect();
    assert!(rest.is_empty(), "nothing announced twice: {rest:?}");
}

#[test]
fn a_route_absent_is_told_from_a_route_blocked() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    for (rule, kind, says) in [
        (StreamRule::Absent, "route_absent", "its own 404"),
        (StreamRule::Blocked, "route_blocked", "nginx"),
        (StreamRule::Gateway, "route_blocked", "mpt gateway"),
    ] {
        let proxy = SseProxy::start(&p.base_url(), rule);
        let w = Watcher::start(&env, &proxy.url(), &[]);
        let v = w.until("polling line", |v| v["schema"] == "mpt.mailbox.watch/v1");
        assert_eq!(v["mode"], "polling", "{rule:?}: {v}");
        assert_eq!(v["reason"], kind, "{rule:?}: {v}");
        assert!(v["why"].as_str().unwrap().contains(says), "{rule:?}: {v}");
        assert_eq!(v["interval_ms"], 600000);
        // Retried with backoff: a second attempt is said too.
        let again = w.until("retry", |v| v["schema"] == "mpt.mailbox.watch/v1");
        assert!(
            again["retry_in_ms"].as_u64() > v["retry_in_ms"].as_u64(),
            "{again}"
        );
    }
}

#[test]
fn doctor_says_live_or_polling_and_why() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let doctor = |url: &str| {
        let o = env.mpt(
            &["--json", "doctor", "--check", "mailbox"],
            &[
                ("MEMPALACE_REMOTE_URL", url),
                ("MEMPALACE_PI_DEVICE", "lap"),
            ],
        );
        let v = crate::support::json(&o);
        v["checks"][0].clone()
    };
    let live = doctor(&p.url());
    assert_eq!(
        (live["id"].as_str(), live["status"].as_str()),
        (Some("mailbox"), Some("ok")),
        "{live}"
    );
    assert!(
        live["summary"].as_str().unwrap().starts_with("live"),
        "{live}"
    );
    let absent = SseProxy::start(&p.base_url(), StreamRule::Absent);
    let c = doctor(&absent.url());
    assert_eq!(c["status"], "warn", "{c}");
    assert!(
        c["summary"].as_str().unwrap().contains("route_absent"),
        "{c}"
    );
    assert!(
        c["fix"].as_str().unwrap().contains("upgrade MemPalace"),
        "{c}"
    );
    let gw = SseProxy::start(&p.base_url(), StreamRule::Gateway);
    let c = doctor(&gw.url());
    assert!(
        c["summary"].as_str().unwrap().contains("route_blocked"),
        "{c}"
    );
    assert!(c["fix"].as_str().unwrap().contains("gateway"), "{c}");
}

#[test]
fn a_silent_stream_is_taken_as_dead_and_resumed() {
    let env = TestEnv::new();
    // The default deadline (25 s): past the server's 15 s ping, so only the stall below is silence.
    let s = Live::start(&env, &[]);
    let (proxy, rt, c, w, first) = (&s.proxy, &s.rt, &s.client, &s.watcher, s.first.clone());
    // Open but silent (no frame, no ping): past the deadline the watch reconnects, resuming.
    proxy.stall();
    let second = rt.block_on(ask(c, "second"));
    assert_eq!(w.announced(), vec![second.clone()]);
    let conns = proxy.connections();
    let resumed = conns.iter().skip(1).find(|(_, ids)| ids.contains(&second));
    assert_eq!(
        resumed.and_then(|(cursor, _)| cursor.as_deref()),
        Some(first.as_str()),
        "{conns:?}"
    );
}

#[test]
fn an_unknown_cursor_restarts_without_one_and_derives_again() {
    let env = TestEnv::new();
    let s = Live::start(&env, &[]);
    let (proxy, rt, c, w) = (&s.proxy, &s.rt, &s.client, &s.watcher);
    // The reconnect carries an id the primary never issued (its 400), and is held meanwhile,
    // so the ask below is appended before any stream could carry it.
    proxy.cut_and_hold_with_unknown_cursor();
    assert!(
        wait_for(60.0, || proxy.waiting() == 1),
        "the watch reconnects"
    );
    let second = rt.block_on(ask(c, "second"));
    proxy.release();
    // Announced by the derivation the restart runs, not by a replay.
    assert_eq!(w.announced(), vec![second]);
    let forged = |c: &(Option<String>, Vec<String>)| {
        c.0.as_deref()
            .is_some_and(|id| id.starts_with("evt_20000101"))
    };
    assert!(
        wait_for(60.0, || {
            let conns = proxy.connections();
            let at = conns.iter().position(forged);
            at.is_some_and(|i| conns[i + 1..].iter().any(|c| c.0.is_none()))
        }),
        "the unknown cursor was sent, then the stream restarted without one: {:?}",
        proxy.connections()
    );
}

#[test]
fn watchers_on_one_device_share_the_edge_owners_one_stream_and_never_block_its_stop() {
    let env = TestEnv::new();
    let p = Primary::start(&env, &env.palace("primary"), PrimaryOpts::default());
    let proxy = SseProxy::start(&p.base_url(), StreamRule::Pass);
    let palace = env.palace("local");
    let local = palace.to_str().unwrap();
    let url = proxy.url();
    let vars = [
        ("MEMPALACE_REMOTE_URL", url.as_str()),
        ("MEMPALACE_PI_DEVICE", "lap"),
        ("MEMPALACE_PALACE_PATH", local),
        ("MPT_EDGE_GRACE_MS", "600000"),
    ];
    let mut h = crate::support::harness::Harness::start(
        &env,
        &["--palace", local, "--harness", "opencode"],
        &vars,
    );
    h.initialize();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = remote_client(&p.url(), None);
    rt.block_on(c.connect()).unwrap();
    let extra = [("MEMPALACE_PALACE_PATH", local)];
    let (w1, w2) = (
        Watcher::start(&env, &url, &extra),
        Watcher::start(&env, &url, &extra),
    );
    w1.live();
    w2.live();
    let first = rt.block_on(ask(&c, "for both"));
    assert_eq!(w1.announced(), vec![first.clone()]);
    assert_eq!(w2.announced(), vec![first.clone()]);
    assert_eq!(
        proxy.connections().len(),
        1,
        "one stream serves the device: {:?}",
        proxy.connections()
    );
    // The watchers are listeners: with the harness session gone, the owner stops at once.
    h.close();
    let stop = env.mpt(&["edge", "stop", "--palace", local], &vars);
    assert_eq!(
        stop.status.code(),
        Some(0),
        "{}",
        crate::support::stderr(&stop)
    );
    // Each watch then follows the stream itself, missing nothing.
    let second = rt.block_on(ask(&c, "after the stop"));
    assert_eq!(w1.announced(), vec![second.clone()]);
    assert_eq!(w2.announced(), vec![second]);
}
