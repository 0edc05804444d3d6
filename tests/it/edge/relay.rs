//! The relay itself (shim → owner → child and back) under what a busy harness does: requests
//! pipelined before any reply is read, a line larger than every buffer on the way, a line split
//! across several writes. Nothing dropped, nothing answered twice, the child sees the order sent.

use serde_json::{Value, json};

use crate::support::TestEnv;
use crate::support::harness::Harness;

fn request(id: &Value, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn call(id: &Value, tool: &str, args: Value) -> String {
    request(id, "tools/call", json!({"name": tool, "arguments": args}))
}

fn payload(reply: &Value) -> Value {
    mpt_mcp::ToolReply::from_result(&reply["result"]).payload
}

/// A harness session to a real child, initialized: through the shim and the owner, or with
/// `--standalone` in the edge's own process (its stdio pipes read and written in place).
fn session(env: &TestEnv, mode: &[&str], vars: &[(&str, &str)]) -> Harness {
    let palace = env.palace("local");
    let mut args = vec!["--palace", palace.to_str().unwrap()];
    args.extend_from_slice(mode);
    let mut h = Harness::start(env, &args, vars);
    h.initialize();
    h
}

const STANDALONE: &[&str] = &["--standalone"];

#[test]
fn pipelined_requests_reach_the_child_in_order_and_each_is_answered_once() {
    pipelined(&[]);
}

#[test]
fn standalone_pipelined_requests_reach_the_child_in_order_and_each_is_answered_once() {
    pipelined(STANDALONE);
}

#[test]
fn a_large_line_and_a_line_split_across_writes_are_relayed_whole() {
    large_and_split(&[]);
}

#[test]
fn standalone_a_large_line_and_a_line_split_across_writes_are_relayed_whole() {
    large_and_split(STANDALONE);
}

fn pipelined(mode: &[&str]) {
    let env = TestEnv::new();
    let mut h = session(&env, mode, &[]);
    // 40 appends to one stream with a read and a ping between each, all in one write: the
    // harness reads nothing until every line is sent.
    let mut lines = Vec::new();
    let mut ids = Vec::new();
    for i in 0..40 {
        let id = json!(format!("append-{i}"));
        lines.push(call(
            &id,
            "mempalace_event_append",
            json!({"type": "note", "stream": "relay", "room": "r", "from_agent": "test",
                   "body": format!("step {i}")}),
        ));
        ids.push(id);
        let id = json!(format!("stats-{i}"));
        lines.push(call(&id, "mempalace_kg_stats", json!({})));
        ids.push(id);
        let id = json!(i);
        lines.push(request(&id, "ping", json!({})));
        ids.push(id);
    }
    h.send_raw(&lines.join("\n"));
    for id in &ids {
        let r = h.reply(id, 120);
        assert!(r.get("error").is_none(), "{id}: {r}");
        if id.as_str().is_some_and(|s| s.starts_with("append")) {
            assert!(payload(&r)["event"]["id"].is_string(), "{r}");
        }
    }
    // Nothing else came back: the next reply is this one's.
    let last = h.request("ping", json!({}));
    assert_eq!(last["result"], json!({}));
    assert!(
        !ids.iter().any(|id| h.replied(id)),
        "a request answered twice"
    );
    let listed = h
        .call(
            "mempalace_event_list",
            json!({"stream": "relay", "order": "asc", "limit": 100}),
        )
        .unwrap();
    let bodies: Vec<String> = listed["events"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .map(|e| e["body"].as_str().unwrap_or_default().to_string())
        .collect();
    let sent: Vec<String> = (0..40).map(|i| format!("step {i}")).collect();
    assert_eq!(bodies, sent, "the child applied them in the order sent");
}

fn large_and_split(mode: &[&str]) {
    let env = TestEnv::new();
    // Embedding 99,000 characters is honestly slow: on a loaded 2-core machine, with the other
    // mode's copy of this test beside it, past the child's default 60 s.
    let mut h = session(&env, mode, &[("MEMPALACE_MCP_TIMEOUT_MS", "300000")]);
    // Larger than every buffer between the harness and the child (a pipe's 64 KiB, the readers'
    // 8-64 KiB), both ways: the request, and the reply that carries it back. (MemPalace takes
    // at most 100,000 characters.)
    let mut content: String = (0..20_000).map(|i| format!("w{} ", i % 977)).collect();
    content.truncate(99_000);
    content.push_str("the end");
    assert!(content.len() > 64 * 1024 && content.len() < 100_000);
    let added = h
        .call(
            "mempalace_add_drawer",
            json!({"wing": "w", "room": "r", "content": content}),
        )
        .unwrap();
    let drawer = added["drawer_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{added}"))
        .to_string();
    // A request in pieces, each flushed on its own (the last piece with a second request):
    // every reader on the way sees a line begun in one read and ended in a later one.
    let whole = call(
        &json!("split"),
        "mempalace_get_drawer",
        json!({"drawer_id": drawer}),
    );
    let (a, rest) = whole.split_at(7);
    let (b, c) = rest.split_at(rest.len() / 2);
    h.send_partial(a);
    h.send_partial(b);
    h.send_raw(&format!(
        "{c}\n{}",
        request(&json!("after"), "ping", json!({}))
    ));
    let got = h.reply(&json!("split"), 120);
    let text = payload(&got)["content"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        text.len(),
        content.len(),
        "the whole drawer came back: {}",
        &text[..text.len().min(200)]
    );
    assert_eq!(text, content);
    assert_eq!(h.reply(&json!("after"), 120)["result"], json!({}));
}
