//! Upstream connections made ahead of need (`MPT_GATEWAY_PRECONNECT`): a real `serve` restarted
//! under the gateway, and a fake upstream that closes a spare or drops a request on demand.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use serde_json::json;

use super::healthz;
use crate::support::TestEnv;
use crate::support::gateway::{
    Gateway, Setup, UPSTREAM_TOKEN, call, issue, payload, policy, write_policy,
};
use crate::support::primary::{Primary, PrimaryOpts};

/// What the fake upstream does with its n-th connection.
#[derive(Clone, Copy, PartialEq)]
enum Conn {
    /// Closes it at once, before any request (a spare `serve` gave up on).
    CloseAtOnce,
    /// Reads the request, counts it, closes without a reply (a spare that died mid-exchange).
    DropAfterRead,
    /// Reads the request, counts it, answers a JSON-RPC result.
    Answer,
}

/// A fake `serve`: its connections and requests counted, each connection's fate from `script`
/// (then `Answer`), and a word on `events` when the n-th connection is accepted or closed.
struct Fake {
    port: u16,
    accepted: Arc<AtomicUsize>,
    requests: Arc<AtomicUsize>,
    events: mpsc::Receiver<(usize, &'static str)>,
}

impl Fake {
    fn start(script: &[Conn]) -> Fake {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let (accepted, requests) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (tx, events) = mpsc::channel();
        let script = script.to_vec();
        let (a, r) = (Arc::clone(&accepted), Arc::clone(&requests));
        std::thread::spawn(move || {
            for (n, s) in l.incoming().enumerate() {
                let Ok(s) = s else { return };
                a.fetch_add(1, Ordering::SeqCst);
                let what = script.get(n).copied().unwrap_or(Conn::Answer);
                let (r, tx) = (Arc::clone(&r), tx.clone());
                std::thread::spawn(move || serve_one(s, what, &r, n, &tx));
            }
        });
        Fake {
            port,
            accepted,
            requests,
            events,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Waits for the fake's word about connection `n`.
    fn heard(&self, n: usize, what: &str) {
        loop {
            let (k, w) = self
                .events
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("the fake upstream heard from the gateway");
            if k == n && w == what {
                return;
            }
        }
    }
}

fn serve_one(
    mut s: TcpStream,
    what: Conn,
    requests: &AtomicUsize,
    n: usize,
    tx: &mpsc::Sender<(usize, &'static str)>,
) {
    let _ = tx.send((n, "accepted"));
    if what == Conn::CloseAtOnce {
        drop(s);
        let _ = tx.send((n, "closed"));
        return;
    }
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let whole = loop {
        let Ok(k) = s.read(&mut chunk) else { return };
        if k == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..k]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..at]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= at + 4 + len {
                break true;
            }
        }
    };
    if !whole {
        return;
    }
    requests.fetch_add(1, Ordering::SeqCst);
    if what == Conn::DropAfterRead {
        drop(s);
        let _ = tx.send((n, "closed"));
        return;
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "{\"fake\": true}"}]}}).to_string();
    let _ = write!(
        s,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// The knob that turns it on (it is off by default).
const ONE_SPARE: (&str, &str) = ("MPT_GATEWAY_PRECONNECT", "1");

/// A gateway with one spare before `fake`, and a member device's token.
fn gateway_before(env: &TestEnv, fake: &Fake) -> (Gateway, String) {
    let dir = env.path("gateway");
    write_policy(&dir, &policy(json!({"laptop": {"role": "member"}})));
    let token = issue(env, &dir, "laptop", &[]);
    let gw = Gateway::start(env, &dir, &fake.url(), &[], &[ONE_SPARE]);
    (gw, token)
}

/// A client connection the gateway answers itself has a spare made (for the next request).
fn spare_made(gw: &Gateway, fake: &Fake, n: usize) {
    assert_eq!(healthz(gw.port).status, 200);
    fake.heard(n, "accepted");
}

#[test]
fn a_spare_the_upstream_closed_is_not_used_and_the_write_goes_once() {
    let env = TestEnv::new();
    let fake = Fake::start(&[Conn::CloseAtOnce]);
    let (gw, token) = gateway_before(&env, &fake);
    spare_made(&gw, &fake, 0);
    fake.heard(0, "closed");
    // A write: sent on the closed spare it would fail (a write is never sent twice).
    let r = call(
        gw.port,
        &token,
        "mempalace_kg_add",
        json!({"subject": "a", "predicate": "b", "object": "c"}),
    );
    assert_eq!(r.status, 200, "{}\n{}", r.text(), gw.stderr());
    assert_eq!(payload(&r), json!({"fake": true}));
    assert_eq!(fake.requests.load(Ordering::SeqCst), 1);
}

#[test]
fn a_write_that_dies_on_a_spare_is_not_sent_again_and_a_read_is() {
    let env = TestEnv::new();
    let fake = Fake::start(&[Conn::DropAfterRead]);
    let (gw, token) = gateway_before(&env, &fake);
    spare_made(&gw, &fake, 0);
    let r = call(
        gw.port,
        &token,
        "mempalace_kg_add",
        json!({"subject": "a", "predicate": "b", "object": "c"}),
    );
    assert_eq!(r.status, 502, "{}", r.text());
    assert_eq!(
        fake.requests.load(Ordering::SeqCst),
        1,
        "the write reached the upstream once"
    );

    let fake = Fake::start(&[Conn::DropAfterRead]);
    let env = TestEnv::new();
    let (gw, token) = gateway_before(&env, &fake);
    spare_made(&gw, &fake, 0);
    let r = call(gw.port, &token, "mempalace_kg_stats", json!({}));
    assert_eq!(r.status, 200, "{}\n{}", r.text(), gw.stderr());
    assert_eq!(payload(&r), json!({"fake": true}));
    assert_eq!(
        fake.requests.load(Ordering::SeqCst),
        2,
        "the read was sent again"
    );
}

#[test]
fn spares_do_not_pile_up_and_refused_clients_take_none() {
    let env = TestEnv::new();
    let fake = Fake::start(&[]);
    let (gw, token) = gateway_before(&env, &fake);
    for i in 0..10 {
        let r = call(gw.port, "mptg_not-a-token", "mempalace_kg_stats", json!({}));
        assert_eq!(r.status, 401, "{i}: {}", r.text());
        let r = call(gw.port, &token, "mempalace_kg_stats", json!({}));
        assert_eq!(r.status, 200, "{i}: {}", r.text());
    }
    assert_eq!(fake.requests.load(Ordering::SeqCst), 10);
    // Ten requests sent, one spare at most besides.
    let accepted = fake.accepted.load(Ordering::SeqCst);
    assert!(
        (10..=11).contains(&accepted),
        "{accepted} connections for 10 requests"
    );
}

#[test]
fn serve_restarted_under_the_gateway_answers_the_next_request() {
    let mut s = Setup::new(json!({"laptop": {"role": "member"}}));
    s.gw.stop();
    s.gw = Gateway::start(&s.env, &s.dir, &s.p.base_url(), &[], &[ONE_SPARE]);
    let token = s.token("laptop");
    let r = call(s.gw.port, &token, "mempalace_kg_stats", json!({}));
    assert_eq!(r.status, 200, "{}", r.text());
    let port = s.p.port;
    // A spare made now is from the serve about to go.
    assert_eq!(healthz(s.gw.port).status, 200);
    s.p.kill9();
    s.p = Primary::start(
        &s.env,
        &s.env.palace("primary"),
        PrimaryOpts {
            token: Some(UPSTREAM_TOKEN),
            port: Some(port),
            ..Default::default()
        },
    );
    for tool in ["mempalace_kg_stats", "mempalace_kg_stats"] {
        let r = call(s.gw.port, &token, tool, json!({}));
        assert_eq!(r.status, 200, "{}\n{}", r.text(), s.gw.stderr());
        assert!(payload(&r).is_object());
    }
}

#[test]
fn preconnect_off_by_default_connects_per_request_only() {
    let env = TestEnv::new();
    let fake = Fake::start(&[]);
    let dir = env.path("gateway");
    write_policy(&dir, &policy(json!({"laptop": {"role": "member"}})));
    let token = issue(&env, &dir, "laptop", &[]);
    let gw = Gateway::start(&env, &dir, &fake.url(), &[], &[]);
    for _ in 0..3 {
        assert_eq!(healthz(gw.port).status, 200);
        let r = call(gw.port, &token, "mempalace_kg_stats", json!({}));
        assert_eq!(r.status, 200, "{}", r.text());
    }
    assert_eq!(fake.accepted.load(Ordering::SeqCst), 3);
}
