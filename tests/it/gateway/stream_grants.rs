//! `streams.read`/`streams.write` through the real gateway: event writes, reads, acks, tasks,
//! artifacts, the SSE stream's frames and `/sync/*` held to a device's streams; and nine devices
//! streaming at once through one upstream stream (`serve` allows eight).

use bytes::Bytes;
use hyper::body::Incoming;
use serde_json::{Value, json};

use super::{denied, sse_until as until};
use crate::support::gateway::{Setup, call, get, payload, policy};

fn append(port: u16, token: &str, stream: &str, body: &str) -> String {
    let ev = payload(&call(
        port,
        token,
        "mempalace_event_append",
        json!({"type": "note", "stream": stream, "room": "r", "from_agent": "pi", "body": body}),
    ));
    assert_eq!(ev["success"], true, "{ev}");
    ev["event"]["id"].as_str().unwrap().to_string()
}

/// `GET /logstream/stream?query` as `token`: the response head, its body still streaming.
async fn open(port: u16, token: &str, query: &str) -> hyper::Response<Incoming> {
    let mut send = crate::support::gateway::connect(port).await;
    let req = hyper::Request::get(format!("/logstream/stream?{query}"))
        .header("host", "127.0.0.1")
        .header("authorization", format!("Bearer {token}"))
        .body(http_body_util::Full::new(Bytes::new()))
        .unwrap();
    send.send_request(req).await.unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_devices_streams_hold_its_event_calls_its_sse_frames_and_its_pull() {
    let s = Setup::new(json!({
        "lap": {"role": "member", "streams": {"read": ["project/lap*", "fleet"], "write": ["project/lap*"]}},
        "hub": {"role": "admin"}}));
    let (port, lap, hub) = (s.gw.port, s.token("lap"), s.token("hub"));
    let desk = append(port, &hub, "project/desk", "desk's plan");
    let fleet = append(port, &hub, "fleet", "fleet news");
    let mine = append(port, &lap, "project/lap", "lap's own");
    let refused = |tool: &str, args: Value, rule: &str| {
        denied(&call(port, &lap, tool, args), "lap", tool, rule)
    };

    refused(
        "mempalace_event_append",
        json!({"type": "note", "stream": "fleet", "room": "r", "from_agent": "pi"}),
        "streams.write:fleet",
    );
    let listed = payload(&call(
        port,
        &lap,
        "mempalace_event_list",
        json!({"limit": 50}),
    ));
    let ids: Vec<&str> = listed["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&fleet.as_str()) && ids.contains(&mine.as_str()),
        "{listed}"
    );
    assert!(!listed.to_string().contains("desk's plan"), "{listed}");
    assert_eq!(listed["mpt_filtered"], 1);
    assert_eq!(listed["count"], ids.len());
    refused(
        "mempalace_event_list",
        json!({"stream": "project/desk"}),
        "streams.read:project/desk",
    );
    refused(
        "mempalace_event_wait",
        json!({"stream": "project/desk", "timeout_ms": 1000}),
        "streams.read:project/desk",
    );
    refused(
        "mempalace_event_ack",
        json!({"event_id": desk, "from_agent": "pi"}),
        "streams.write:project/desk",
    );
    // Padded as Python strips it, the id still finds desk's event: judged on desk's stream (M3).
    refused(
        "mempalace_event_ack",
        json!({"event_id": format!("\x1c{desk}\x1f"), "from_agent": "pi"}),
        "streams.write:project/desk",
    );
    // An id the primary does not have: its stream is unknown, refused rather than guessed.
    refused(
        "mempalace_event_ack",
        json!({"event_id": "evt_no_such_event", "from_agent": "pi"}),
        "streams.write:unknown_event",
    );
    let acked = payload(&call(
        port,
        &lap,
        "mempalace_event_ack",
        json!({"event_id": mine, "from_agent": "pi"}),
    ));
    assert_eq!(acked["event"]["stream"], "project/lap", "{acked}");
    refused(
        "mempalace_task_create",
        json!({"project": "Desk", "from_agent": "pi", "to_agent": "x", "goal": "g", "branch": "b", "base_commit": "0123456", "done": "d"}),
        "streams.write:project/desk",
    );
    refused(
        "mempalace_artifact_get",
        json!({"artifact_id": "a"}),
        "streams.read:artifacts",
    );

    let ops = get(port, &lap, "/sync/ops?origin=x");
    assert_eq!(ops.status, 403, "{}", ops.text());
    assert_eq!(ops.json()["rule"], "streams.read:sync");
    let vv = get(port, &lap, "/sync/version_vector");
    assert_eq!(vv.status, 200, "{}", vv.text());
    let keys: Vec<String> = vv.json().as_object().unwrap().keys().cloned().collect();
    assert!(
        keys.iter()
            .all(|k| ["replica_id", "version_vector", "profile"].contains(&k.as_str())),
        "{keys:?}"
    );
    assert!(vv.json()["replica_id"].is_string());
    let full = get(port, &hub, "/sync/version_vector").json();
    assert!(
        full.get("profiles").is_some(),
        "an admin's is whole: {full}"
    );

    let sse = get(port, &lap, "/logstream/stream?stream=project%2Fdesk");
    assert_eq!(sse.status, 403, "{}", sse.text());
    runtime().block_on(async {
        let resp = open(port, &lap, "").await;
        assert_eq!(resp.status(), 200);
        let mut body = resp.into_body();
        let hidden = tokio::task::spawn_blocking({
            let hub = hub.clone();
            move || {
                let hidden = append(port, &hub, "project/desk", "not for lap");
                let shown = append(port, &hub, "project/lap2", "for lap");
                (hidden, shown)
            }
        })
        .await
        .unwrap();
        let seen = until(&mut body, &hidden.1).await;
        assert!(
            !seen.contains(&hidden.0) && !seen.contains("not for lap"),
            "{seen}"
        );
    });
}

#[test]
fn nine_devices_stream_at_once_through_one_upstream_stream() {
    let names: Vec<String> = (1..=9).map(|i| format!("d{i}")).collect();
    let mut devices = serde_json::Map::new();
    for n in &names {
        devices.insert(n.clone(), json!({"role": "observer"}));
    }
    devices.insert("mem".into(), json!({"role": "member"}));
    let s = Setup::with_policy(policy(Value::Object(devices)));
    let port = s.gw.port;
    let mem = s.token("mem");
    runtime().block_on(async {
        // Nine filters: nine upstream streams would pass `serve`'s eight; the gateway takes one.
        let mut bodies = Vec::new();
        for (i, n) in names.iter().enumerate() {
            let resp = open(port, &s.token(n), &format!("stream=s%2Ffan{i}")).await;
            assert_eq!(resp.status(), 200, "{n}: serve's cap is eight streams");
            bodies.push(resp.into_body());
        }
        // A filter the log refuses is the log's own 400, as `serve` answers it.
        let bad = open(port, &s.token("d1"), "status=bogus").await;
        assert_eq!(bad.status(), 400);
        let ids = tokio::task::spawn_blocking(move || {
            (0..9)
                .map(|i| append(port, &mem, &format!("s/fan{i}"), &format!("to d{}", i + 1)))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap();
        // Each sees its own stream's event, and none of those appended before it (its filter
        // held by the gateway).
        for (i, (n, body)) in names.iter().zip(bodies.iter_mut()).enumerate() {
            let seen = until(body, &ids[i]).await;
            assert!(seen.contains("event: logstream"), "{n}: {seen}");
            for (j, other) in ids.iter().enumerate() {
                assert!(
                    j == i || !seen.contains(other.as_str()),
                    "{n} sees {other}: {seen}"
                );
            }
        }
    });
}

#[test]
fn a_revoked_device_hears_nothing_more_on_its_open_stream_or_its_long_poll() {
    let s = Setup::new(json!({"lap": {"role": "observer"}, "mem": {"role": "member"}}));
    let (port, lap, mem) = (s.gw.port, s.token("lap"), s.token("mem"));
    let id = get(port, &lap, "/whoami").json()["token_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (env, dir) = (&s.env, &s.dir);
    runtime().block_on(async {
        let resp = open(port, &lap, "stream=s%2Frev").await;
        assert_eq!(resp.status(), 200);
        let mut body = resp.into_body();
        let m = mem.clone();
        let before = tokio::task::spawn_blocking(move || append(port, &m, "s/rev", "before"))
            .await
            .unwrap();
        until(&mut body, &before).await;
        // A long poll for what comes next, waiting while the token is revoked.
        let (l, b) = (lap.clone(), before.clone());
        let waiting = tokio::task::spawn_blocking(move || {
            call(
                port,
                &l,
                "mempalace_event_wait",
                json!({"stream": "s/rev", "since_event_id": b, "timeout_ms": 30000}),
            )
        });
        let o = crate::support::gateway::mpt(env, dir, &["gateway", "token", "revoke", &id]);
        assert!(o.status.success(), "{}", crate::support::stderr(&o));
        let revoked = std::time::Instant::now();
        let m = mem.clone();
        let after =
            tokio::task::spawn_blocking(move || append(port, &m, "s/rev", "after revocation"))
                .await
                .unwrap();
        // The stream ends at the next frame, without it.
        let mut seen = String::new();
        loop {
            let frame = tokio::time::timeout(
                std::time::Duration::from_secs(120),
                http_body_util::BodyExt::frame(&mut body),
            )
            .await
            .expect("the stream ends within two minutes");
            match frame {
                Some(Ok(f)) => {
                    if let Some(d) = f.data_ref() {
                        seen.push_str(&String::from_utf8_lossy(d));
                    }
                }
                _ => break,
            }
        }
        println!(
            "a revoked device's stream ended {:?} after the revocation (an event appended after it)",
            revoked.elapsed()
        );
        assert!(!seen.contains(&after), "after the revocation: {seen}");
        let r = waiting.await.unwrap();
        assert_eq!(r.status, 401, "{}", r.text());
        assert!(!r.text().contains("after revocation"), "{}", r.text());
    });
}

#[test]
fn a_narrowed_stream_grant_ends_the_open_stream() {
    let grant = |globs: &[&str]| {
        policy(
            json!({"lap": {"role": "observer", "streams": {"read": globs}},
            "mem": {"role": "member"}}),
        )
    };
    let s = Setup::with_policy(grant(&["s/*"]));
    let (port, lap, mem) = (s.gw.port, s.token("lap"), s.token("mem"));
    runtime().block_on(async {
        let resp = open(port, &lap, "").await;
        assert_eq!(resp.status(), 200);
        let mut body = resp.into_body();
        let m = mem.clone();
        let first = tokio::task::spawn_blocking(move || append(port, &m, "s/x", "first"))
            .await
            .unwrap();
        until(&mut body, &first).await;
        crate::support::gateway::write_policy(&s.dir, &grant(&["t/*"]));
        let m = mem.clone();
        let later = tokio::task::spawn_blocking(move || append(port, &m, "s/x", "later"))
            .await
            .unwrap();
        let mut seen = String::new();
        loop {
            let frame = tokio::time::timeout(
                std::time::Duration::from_secs(120),
                http_body_util::BodyExt::frame(&mut body),
            )
            .await
            .expect("the stream ends within two minutes");
            match frame {
                Some(Ok(f)) => seen.push_str(&String::from_utf8_lossy(
                    f.data_ref().map(|d| &d[..]).unwrap_or_default(),
                )),
                _ => break,
            }
        }
        assert!(!seen.contains(&later), "after its grant narrowed: {seen}");
    });
}
