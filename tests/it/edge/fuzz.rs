//! Malformed input never panics the edge: thousands of generated lines (bad JSON, wrong types,
//! batches, responses, notifications, invalid UTF-8, an oversized line) through `serve`, each
//! well-formed request answered exactly once with its own id, everything else per the spec.

use std::collections::HashMap;
use std::sync::Arc;

use mpt_base::config::McpKnobs;
use mpt_edge::proxy::Proxy;
use mpt_mcp::stdio::{ChildSpec, StdioClient, StdioOptions};
use mpt_outbox::policy::Policy;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::fixture;
use crate::support::rng::Rng;

fn random_value(r: &mut Rng, depth: u32) -> Value {
    match r.next() % if depth > 2 { 5 } else { 7 } {
        0 => Value::Null,
        1 => json!(r.next().is_multiple_of(2)),
        2 => json!((r.next() % 2000) as i64 - 1000),
        3 => json!(r.next() as f64 / 7.0),
        4 => json!(
            r.pick(&[
                "",
                "x",
                "mempalace_status",
                "tools/call",
                "\u{0}\u{1b}]99;",
                "é漢字"
            ])
            .to_string()
        ),
        5 => Value::Array(
            (0..r.next() % 4)
                .map(|_| random_value(r, depth + 1))
                .collect(),
        ),
        _ => {
            let keys = [
                "id",
                "method",
                "params",
                "jsonrpc",
                "result",
                "error",
                "name",
                "arguments",
                "x",
            ];
            Value::Object(
                (0..r.next() % 5)
                    .map(|_| (r.pick(&keys).to_string(), random_value(r, depth + 1)))
                    .collect(),
            )
        }
    }
}

/// One line and, when it is a well-formed request, its id (it must be answered once).
fn case(r: &mut Rng, n: u64) -> (Vec<u8>, Option<Value>) {
    let id = json!(format!("req-{n}"));
    match r.next() % 10 {
        0 => ((0..r.next() % 200).map(|_| (r.next() % 256) as u8).filter(|b| *b != b'\n').collect(), None),
        1 => (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":".to_vec(), None),
        2 => (serde_json::to_vec(&json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])).unwrap(), None),
        3 => (serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": {}})).unwrap(), None),
        4 => (serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": random_value(r, 0)})).unwrap(), None),
        5 => (serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": {"nested": true}, "method": "ping"})).unwrap(), None),
        6 => (serde_json::to_vec(&random_value(r, 0)).unwrap(), None),
        7 => {
            let m = r.pick(&["ping", "tools/list", "initialize", "resources/list", "no/such"]).to_string();
            (serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": m, "params": random_value(r, 1)})).unwrap(), Some(id))
        }
        _ => {
            let name = r.pick(&["echo", "", "mempalace_sync", "mempalace_search"]).to_string();
            let params = if r.next().is_multiple_of(3) { random_value(r, 1) } else { json!({"name": name, "arguments": random_value(r, 1)}) };
            (serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})).unwrap(), Some(id))
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_input_never_panics_and_every_request_is_answered_once() {
    let spec = ChildSpec {
        program: "python3".into(),
        args: vec![fixture("stall_child.py").into_os_string()],
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        clear_env: true,
        named_by: None,
    };
    let child = Arc::new(StdioClient::new(
        spec,
        StdioOptions::new(McpKnobs::default(), false),
    ));
    let handshake = child.connect().await.unwrap();
    let proxy = Arc::new(Proxy {
        child: Arc::clone(&child),
        handshake,
        primary: None,
        policy: Policy::default(),
        log: None,
        trusted: Default::default(),
        cut_off: None,
    });

    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let serving = tokio::spawn(mpt_edge::serve::serve(
        Arc::clone(&proxy),
        None,
        server_read,
        server_write,
        None,
    ));
    let (client_read, mut client_write) = tokio::io::split(client);

    let mut rng = Rng::seeded(0x9E37_79B9_7F4A_7C15);
    let mut expected: HashMap<String, u32> = HashMap::new();
    let mut cases = Vec::new();
    for n in 0..3000 {
        let (line, id) = case(&mut rng, n);
        if let Some(id) = id {
            expected.insert(id.as_str().unwrap().to_string(), 0);
        }
        cases.push(line);
    }
    let writer = tokio::spawn(async move {
        for (i, line) in cases.into_iter().enumerate() {
            if i == 1500 {
                // One line past the 16 MiB cap.
                let huge = vec![b'x'; mpt_edge::serve::MAX_LINE + 10];
                client_write.write_all(&huge).await.unwrap();
                client_write.write_all(b"\n").await.unwrap();
            }
            client_write.write_all(&line).await.unwrap();
            client_write.write_all(b"\n").await.unwrap();
        }
        client_write.shutdown().await.unwrap();
    });
    let mut lines = BufReader::new(client_read).lines();
    let mut too_large = 0;
    while let Some(line) = lines.next_line().await.unwrap() {
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("a reply that is not JSON ({e}): {line}"));
        assert_eq!(v["jsonrpc"], "2.0");
        assert!(
            v.get("result").is_some() != v.get("error").is_some(),
            "exactly one of result/error: {v}"
        );
        if v["error"]["message"] == "Request too large" {
            too_large += 1;
        }
        if let Some(id) = v["id"].as_str() {
            *expected
                .get_mut(id)
                .unwrap_or_else(|| panic!("a reply to an id nobody sent as a request: {v}")) += 1;
        }
    }
    writer.await.unwrap();
    serving.await.expect("serve returned without panicking");
    assert_eq!(too_large, 1);
    let wrong: Vec<_> = expected.iter().filter(|(_, n)| **n != 1).collect();
    assert!(
        wrong.is_empty(),
        "requests not answered exactly once: {wrong:?}"
    );
    assert!(
        expected.len() > 500,
        "the generator made enough well-formed requests"
    );
    child.shutdown().await;
}
