//! What streams through the gateway unbuffered: the SSE `/logstream/stream` frame by frame while
//! the stream stays open, and an `event_wait` long poll answered when the event arrives.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use serde_json::json;

use crate::support::gateway::{Gateway, call, issue, mpt, payload, policy, primary_and_dir};
use crate::support::{TestEnv, json, wait_for};

fn append(port: u16, token: &str, stream: &str, body: &str) -> String {
    let ev = payload(&call(
        port,
        token,
        "mempalace_event_append",
        json!({"type": "note", "stream": stream, "room": "r", "from_agent": "pi@mem", "status": "open", "body": body}),
    ));
    assert_eq!(ev["success"], true, "{ev}");
    ev["event"]["id"].as_str().unwrap().to_string()
}

#[test]
fn an_sse_stream_and_a_long_poll_arrive_as_they_happen() {
    let env = TestEnv::new();
    let (p, dir) = primary_and_dir(
        &env,
        &policy(json!({"obs": {"role": "observer"}, "mem": {"role": "member"}})),
    );
    let obs = issue(&env, &dir, "obs", &[]);
    let mem = issue(&env, &dir, "mem", &[]);
    let gw = Gateway::start(
        &env,
        &dir,
        &format!("http://127.0.0.1:{}", p.port),
        &[],
        &[],
    );
    let port = gw.port;

    // A long poll waits upstream; the event that ends it is written after it started.
    let waiter = {
        let obs = obs.clone();
        std::thread::spawn(move || {
            payload(&call(
                port,
                &obs,
                "mempalace_event_wait",
                json!({"stream": "s/wait", "timeout_ms": 120_000}),
            ))
        })
    };
    let waiting = || {
        let o = mpt(
            &env,
            &dir,
            &["--json", "gateway", "audit", "--device", "obs"],
        );
        json(&o)["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["tool"] == "mempalace_event_wait")
    };
    assert!(wait_for(60.0, waiting), "the long poll went upstream");
    // The stream opens, and its frames come while it stays open.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        let (mut send, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp))
                .await
                .unwrap();
        tokio::spawn(conn);
        let req = hyper::Request::get("/logstream/stream?stream=s%2Fsse")
            .header("host", "127.0.0.1")
            .header("authorization", format!("Bearer {obs}"))
            .body(Empty::<Bytes>::new())
            .unwrap();
        let resp = send.send_request(req).await.unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(
            resp.headers()["content-type"],
            "text/event-stream; charset=utf-8"
        );
        let mut body = resp.into_body();
        let id = tokio::task::spawn_blocking({
            let mem = mem.clone();
            move || append(port, &mem, "s/sse", "first")
        })
        .await
        .unwrap();
        let mut seen = String::new();
        while !seen.contains(&id) {
            let frame = tokio::time::timeout(Duration::from_secs(120), body.frame())
                .await
                .expect("a frame within two minutes")
                .expect("the stream stays open")
                .unwrap();
            if let Some(d) = frame.data_ref() {
                seen.push_str(&String::from_utf8_lossy(d));
            }
        }
        assert!(seen.contains("event: logstream"), "{seen}");
    });
    let id = append(port, &mem, "s/wait", "ends the wait");
    let woke = waiter.join().unwrap();
    assert_eq!(woke["events"][0]["id"], id.as_str(), "{woke}");
}
