//! What streams through the gateway unbuffered: the SSE `/logstream/stream` frame by frame while
//! the stream stays open (recorded when its client leaves), and an `event_wait` long poll answered.

use bytes::Bytes;
use serde_json::json;

use crate::support::gateway::{Setup, call, mpt, payload};
use crate::support::{json, wait_for};

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
    let s = Setup::new(json!({"obs": {"role": "observer"}, "mem": {"role": "member"}}));
    let (env, dir, gw) = (&s.env, &s.dir, &s.gw);
    let obs = s.token("obs");
    let mem = s.token("mem");

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
        let o = mpt(env, dir, &["--json", "gateway", "audit", "--device", "obs"]);
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
        let mut send = crate::support::gateway::connect(port).await;
        let req = hyper::Request::get("/logstream/stream?stream=s%2Fsse")
            .header("host", "127.0.0.1")
            .header("authorization", format!("Bearer {obs}"))
            .body(http_body_util::Full::new(Bytes::new()))
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
        let seen = super::sse_until(&mut body, &id).await;
        assert!(seen.contains("event: logstream"), "{seen}");
    });
    let id = append(port, &mem, "s/wait", "ends the wait");
    let woke = waiter.join().unwrap();
    assert_eq!(woke["events"][0]["id"], id.as_str(), "{woke}");
    // The stream's client hangs up (its runtime, with the connection's task, is dropped): the
    // response record is still written, once the relay meets the closed connection.
    drop(rt);
    let hung_up = || {
        let o = mpt(env, dir, &["--json", "gateway", "audit", "--device", "obs"]);
        json(&o)["records"].as_array().unwrap().iter().any(|r| {
            r["route"] == "/logstream/stream" && r["stage"] == "response" && r["end"] == "dropped"
        })
    };
    assert!(
        wait_for(90.0, hung_up),
        "a stream the client left is recorded: {}",
        gw.stderr()
    );
}
