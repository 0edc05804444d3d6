//! No one exhausts the gateway (issue 54), in counts: idle unauthenticated peers never starve a
//! device, declared bodies are not allocated before a token, records stay small, refusals without
//! a token are gathered per peer, and a crowd of calls ends in answers or fast 503s.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::gateway::{Setup, call, http, payload, post};
use crate::support::wait_for;

/// The soft limit on open files raised (to the hard one at most): the test holds thousands of
/// sockets, and the gateway it starts inherits the limit.
fn open_files(want: u64) {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let now = getrlimit(Resource::Nofile);
    let cap = now.maximum.unwrap_or(u64::MAX);
    let current = want.min(cap).max(now.current.unwrap_or(0));
    setrlimit(
        Resource::Nofile,
        rustix::process::Rlimit {
            current: Some(current),
            maximum: now.maximum,
        },
    )
    .unwrap();
}

/// The gateway's resident memory, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap()
}

/// Whether the gateway has closed this connection (a read sees its end).
fn closed(c: &mut TcpStream) -> bool {
    c.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 512];
    loop {
        match c.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

fn audit_lines(s: &Setup) -> Vec<String> {
    std::fs::read_to_string(s.dir.join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn two_thousand_idle_peers_never_starve_a_device_with_a_good_token() {
    open_files(4_600);
    let s = Setup::new(json!({"lap": {"role": "member"}}));
    let port = s.gw.port;
    // Each starts a request and never finishes its head.
    let mut idle: Vec<TcpStream> = (0..2_000)
        .map(|_| {
            let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
            c.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .unwrap();
            c
        })
        .collect();
    let lap = s.token("lap");
    for i in 0..20 {
        let r = call(port, &lap, "mempalace_kg_stats", json!({}));
        assert_eq!(r.status, 200, "call {i}: {}", r.text());
        assert!(
            payload(&r).get("triples").is_some(),
            "call {i}: {}",
            r.text()
        );
    }
    // The budget closed the oldest idle ones as the new ones came (not their head timeout).
    let evicted = s.gw.stderr().matches("unproven past the budget").count();
    println!(
        "2,000 idle peers: 20 of 20 calls answered, {evicted} idle connections closed by the budget"
    );
    assert!(evicted >= 2_000 - 1_024, "{evicted} closed by the budget");
    let mut shut = 0;
    assert!(
        wait_for(10.0, || {
            idle.retain_mut(|c| {
                let gone = closed(c);
                shut += usize::from(gone);
                !gone
            });
            shut >= 2_000 - 1_024
        }),
        "{shut} idle connections closed"
    );
}

#[test]
fn declared_bodies_are_not_allocated_before_a_token() {
    let s = Setup::new(json!({"lap": {"role": "member"}}));
    let (port, pid) = (s.gw.port, s.gw.pid());
    // Warm: the first request's allocations are not the bodies'.
    let warm = call(port, &s.token("lap"), "mempalace_kg_stats", json!({}));
    assert!(payload(&warm).get("triples").is_some(), "{}", warm.text());
    let before = rss_kib(pid);
    let mut held: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
            c.write_all(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 16777216\r\n\r\n",
            )
            .unwrap();
            c.write_all(&[b' '; 4096]).unwrap();
            c
        })
        .collect();
    // Each is answered 401 at once, its body never read.
    for c in &mut held {
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut head = [0u8; 12];
        c.read_exact(&mut head).unwrap();
        assert_eq!(&head, b"HTTP/1.1 401");
    }
    let after = rss_kib(pid);
    println!("resident memory: {before} KiB before, {after} KiB with 100 declared 16 MiB bodies");
    assert!(
        after < before + 8 * 1024,
        "{before} KiB before, {after} KiB after: the bodies were allocated"
    );
}

#[test]
fn records_stay_small_and_refusals_without_a_token_are_gathered() {
    let mut s = Setup::new(json!({"lap": {"role": "member"}}));
    let port = s.gw.port;
    let lap = s.token("lap");
    let bearer = format!("Bearer {lap}");
    let long_path = format!("/{}", "p".repeat(60_000));
    let r = http(
        port,
        "GET",
        &long_path,
        &[("host", b"127.0.0.1"), ("authorization", bearer.as_bytes())],
        b"",
    );
    assert!(r.status >= 400, "{}", r.status);
    let name = "n".repeat(8 << 20);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": {}}})
    .to_string();
    let r = post(port, &lap, &body);
    assert_eq!(
        r.status,
        200,
        "{}",
        r.text().chars().take(200).collect::<String>()
    );

    for i in 0..1_000 {
        let token = if i % 2 == 0 {
            "Bearer nope"
        } else {
            "Bearer mpt_AAAAAAAAAA_x"
        };
        let r = http(
            port,
            "POST",
            "/mcp",
            &[("host", b"127.0.0.1"), ("authorization", token.as_bytes())],
            b"{}",
        );
        assert_eq!(r.status, 401);
    }
    s.gw.stop();

    let lines = audit_lines(&s);
    let longest = lines.iter().map(String::len).max().unwrap();
    assert!(longest < 4_096, "a record of {longest} bytes");
    let records: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        records
            .iter()
            .any(|r| r["route"].as_str().unwrap().ends_with("…(60001 bytes)")),
        "the long path is noted"
    );
    assert!(
        records.iter().any(|r| r["tool"]
            .as_str()
            .is_some_and(|t| t.ends_with(&format!("…({} bytes)", 8 << 20)))),
        "the long tool name is noted"
    );
    let refused: Vec<&Value> = records
        .iter()
        .filter(|r| r["rule"].as_str().unwrap_or("").starts_with("auth:"))
        .collect();
    println!(
        "records: the longest {longest} bytes; 1,000 refusals without a token in {} records",
        refused.len()
    );
    assert!(
        refused.len() <= 5,
        "1,000 refusals in {} records",
        refused.len()
    );
    let gathered = refused
        .iter()
        .find(|r| r.get("refused").is_some())
        .expect("one record gathers them");
    assert_eq!(gathered["refused"]["count"], 999, "{gathered}");
    assert_eq!(gathered["peer"], "127.0.0.1");
    // The chain still verifies.
    let o = crate::support::gateway::mpt(&s.env, &s.dir, &["gateway", "audit", "verify"]);
    assert!(o.status.success(), "{}", crate::support::stderr(&o));
}

#[test]
fn five_hundred_calls_at_once_end_in_answers_or_fast_refusals() {
    open_files(4_600);
    let s = Setup::new(json!({"lap": {"role": "member"}}));
    let (port, lap) = (s.gw.port, s.token("lap"));
    let outcomes: Vec<(u16, Option<String>, bool)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..500)
            .map(|_| {
                scope.spawn(|| {
                    let r = call(port, &lap, "mempalace_kg_stats", json!({}));
                    // An answer is the tool's own, not a failure inside a good reply.
                    let good = r.status == 200 && payload(&r).get("triples").is_some();
                    (r.status, r.header("retry-after").map(str::to_string), good)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let answered = outcomes.iter().filter(|(_, _, good)| *good).count();
    let busy = outcomes
        .iter()
        .filter(|(s, after, _)| *s == 503 && after.as_deref() == Some("1"))
        .count();
    println!("500 calls at once: {answered} answered, {busy} told to come back");
    assert_eq!(answered + busy, 500, "{outcomes:?}");
    assert!(answered >= 32, "{answered} answered");
}
