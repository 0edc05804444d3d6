//! Each refusal of the gateway with its status and body: 401 (missing, malformed, non-ASCII,
//! duplicated, unknown, expired, revoked), -32020, 403, 429, a batch, 413, bad headers, a slow head.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::json;

use super::{denied, healthz, made_by_gateway};
use crate::support::gateway::{
    Reply, Setup, call, get, http, issue, mpt, policy, post, write_policy,
};
use crate::support::wait_for;

fn unauthorized(r: &Reply, why: &str, sent: &[&str]) {
    assert_eq!(r.status, 401, "{why}: {}", r.text());
    assert_eq!(
        r.header("www-authenticate"),
        Some("Bearer error=\"invalid_token\"")
    );
    assert_eq!(r.json(), json!({"error": why}));
    made_by_gateway(r, sent);
}

#[test]
fn each_refusal_has_its_status_and_body_and_echoes_nothing() {
    let devices = json!({
        "obs": {"role": "observer"},
        "gone": {"role": "member"},
        "slow": {"role": "member", "rate": {"per_s": 0.001, "burst": 1}},
    });
    let s = Setup::new(devices.clone());
    let (env, dir, gw) = (&s.env, &s.dir, &s.gw);
    let (obs, gone, slow) = (s.token("obs"), s.token("gone"), s.token("slow"));
    let short = issue(env, dir, "obs", &["--expires", "1s"]);
    // A well-formed token another gateway issued: unknown here.
    let elsewhere = env.path("elsewhere");
    write_policy(&elsewhere, &policy(devices));
    let foreign = issue(env, &elsewhere, "obs", &[]);

    let r = healthz(gw.port);
    assert_eq!((r.status, r.text().as_str()), (200, "ok\n"));
    made_by_gateway(&r, &[]);

    let marker = "echo-me-4471";
    let body = json!({"jsonrpc": "2.0", "id": marker, "method": "ping"}).to_string();
    let send = |auth: &[&[u8]]| {
        let mut h: Vec<(&str, &[u8])> = vec![("host", b"127.0.0.1")];
        h.extend(auth.iter().map(|a| ("authorization", *a)));
        http(gw.port, "POST", "/mcp", &h, body.as_bytes())
    };
    unauthorized(&send(&[]), "malformed", &[marker]);
    let bearer_marker = format!("Bearer {marker}");
    unauthorized(&send(&[bearer_marker.as_bytes()]), "malformed", &[marker]);
    // A non-ASCII header drops `serve`'s connection; the gateway answers it.
    unauthorized(
        &send(&[b"Bearer \xe2\x82\xac-caf\xc3\xa9"]),
        "malformed",
        &[],
    );
    let good = format!("Bearer {obs}");
    unauthorized(
        &send(&[good.as_bytes(), good.as_bytes()]),
        "malformed",
        &[&obs],
    );
    unauthorized(
        &post(gw.port, &foreign, &body),
        "unknown_token",
        &[&foreign, marker],
    );
    // A right id with a wrong secret is no better than an unknown id.
    let id = mpt_gateway::keys::token::parse(&obs).unwrap();
    let forged = mpt_gateway::keys::token::assemble(id, &"A".repeat(43));
    unauthorized(&post(gw.port, &forged, &body), "unknown_token", &[&forged]);
    // One character changed fails the checksum: malformed, never looked up.
    let mut typo = obs.clone().into_bytes();
    typo[20] = if typo[20] == b'a' { b'b' } else { b'a' };
    unauthorized(
        &post(gw.port, &String::from_utf8(typo).unwrap(), &body),
        "malformed",
        &[],
    );
    assert!(
        wait_for(30.0, || post(gw.port, &short, &body).status == 401),
        "a token past its expiry is refused"
    );
    unauthorized(&post(gw.port, &short, &body), "expired", &[&short]);
    assert_eq!(post(gw.port, &gone, &body).status, 200);
    let o = mpt(env, dir, &["gateway", "token", "revoke", "gone"]);
    assert!(o.status.success());
    unauthorized(&post(gw.port, &gone, &body), "revoked", &[&gone]);

    let r = call(
        gw.port,
        &obs,
        "mempalace_add_drawer",
        json!({"wing": "w", "room": "r", "content": marker}),
    );
    denied(&r, "obs", "mempalace_add_drawer", "needs:member");
    assert!(!r.text().contains(marker));
    let r = get(gw.port, &obs, "/statusz");
    assert_eq!(r.status, 403);
    assert_eq!(
        r.json(),
        json!({"error": "denied", "device": "obs", "route": "/statusz", "rule": "needs:admin"})
    );
    made_by_gateway(&r, &[]);

    assert_eq!(
        post(gw.port, &slow, &body).status,
        200,
        "the burst lets one in"
    );
    let r = post(gw.port, &slow, &body);
    assert_eq!(r.status, 429);
    assert_eq!(r.json(), json!({"error": "rate_limited"}));
    assert!(r.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    made_by_gateway(&r, &[]);

    let r = post(gw.port, &obs, &format!("[{body}]"));
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32600, "a batch is refused");
    made_by_gateway(&r, &[]);

    for (name, values) in [
        ("host", [&b"127.0.0.1"[..], b"evil.example"]),
        ("origin", [b"http://localhost", b"https://evil.example"]),
    ] {
        let mut h: Vec<(&str, &[u8])> = vec![("authorization", good.as_bytes())];
        h.extend(values.iter().map(|v| (name, *v)));
        if name == "origin" {
            h.push(("host", b"127.0.0.1"));
        }
        let r = http(gw.port, "POST", "/mcp", &h, body.as_bytes());
        assert_eq!(r.status, 400, "{name}: {}", r.text());
        assert_eq!(r.json(), json!({"error": "bad_header", "header": name}));
    }
    // The gateway's Host goes upstream, the client's Origin stays: a name serve's pin refuses
    // and a browser's origin pass.
    let r = http(
        gw.port,
        "POST",
        "/mcp",
        &[
            ("host", b"gw.example:8443"),
            ("origin", b"https://evil.example"),
            ("authorization", good.as_bytes()),
        ],
        body.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["result"], json!({}));
}

#[test]
fn a_body_past_16_mib_and_a_head_that_never_ends_are_cut_off() {
    let s = Setup::new(json!({"obs": {"role": "observer"}}));
    let gw = &s.gw;
    let obs = s.token("obs");

    // Announced past the cap: answered before a byte of it is read.
    let mut s = TcpStream::connect(("127.0.0.1", gw.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {obs}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        (16 << 20) + 1
    )
    .unwrap();
    let mut head = [0u8; 4096];
    let n = s.read(&mut head).unwrap();
    let text = String::from_utf8_lossy(&head[..n]);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(text.contains("Request too large"), "{text}");
    assert!(
        text.to_lowercase().contains("server: mpt-gateway"),
        "{text}"
    );
    // A head begun and never finished: the gateway closes the connection (header read timeout).
    let mut s = TcpStream::connect(("127.0.0.1", gw.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let mut rest = Vec::new();
    let closed = s.read_to_end(&mut rest);
    assert!(
        closed.is_ok(),
        "the gateway never closed a connection whose head did not end: {closed:?}"
    );
    let r = healthz(gw.port);
    assert_eq!(r.status, 200, "and it still serves");
}

#[test]
fn a_clients_probe_for_a_server_stream_is_the_transports_405_not_a_denial() {
    let s = Setup::new(json!({"mem": {"role": "member"}}));
    let r = get(s.gw.port, &s.token("mem"), "/mcp");
    assert_eq!(r.status, 405, "{}", r.text());
    assert_eq!(r.header("allow"), Some("POST"));
    made_by_gateway(&r, &[]);
    let o = s.host_mpt(&["--json", "gateway", "audit", "--denied"]);
    assert_eq!(crate::support::json(&o)["records"], json!([]));
    // Without a token it is still the token's 401.
    let r = http(s.gw.port, "GET", "/mcp", &[("host", b"127.0.0.1")], b"");
    assert_eq!(r.status, 401);
}

/// Peak resident memory of process `pid`, in KiB (`VmHWM`).
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn an_unauthenticated_16_mib_body_costs_nothing_before_the_401() {
    let s = Setup::new(json!({"obs": {"role": "observer"}}));
    let port = s.gw.port;
    // Warm: the first requests' one-time allocations (the runtime's, the policy's) are not counted.
    for _ in 0..3 {
        assert_eq!(healthz(port).status, 200);
        let r = post(port, "mptg_not_a_token", "{}");
        assert_eq!(r.status, 401, "{}", r.text());
    }
    let before = peak_kib(s.gw.pid());
    // A hundred at once, each declaring the 16 MiB `serve` takes and sending a little of it.
    let mut open = Vec::new();
    for i in 0..100 {
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let auth = if i % 2 == 0 {
            "Authorization: Bearer mptg_not_a_token\r\n"
        } else {
            ""
        };
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            16 << 20
        );
        c.write_all(head.as_bytes()).unwrap();
        c.write_all(&[b' '; 1024]).unwrap();
        open.push(c);
    }
    for mut c in open {
        let mut reply = Vec::new();
        // The gateway closes with the body unread: a reset may follow the reply.
        let _ = c.read_to_end(&mut reply);
        let reply = String::from_utf8_lossy(&reply);
        assert!(reply.starts_with("HTTP/1.1 401"), "{reply}");
    }
    let grew = peak_kib(s.gw.pid()).saturating_sub(before);
    // One body taken in would be 16 MiB; the hundred heads and tasks are far under 8.
    assert!(
        grew < 8 << 10,
        "the gateway's peak memory grew {grew} KiB over 100 unauthenticated 16 MiB requests"
    );
}
