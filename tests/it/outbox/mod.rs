//! `mpt outbox` against a real `mempalace serve`: each effect exactly once and in order, through
//! a stopped primary, lost replies, kill -9, concurrent flushers and enqueuers, hard failures.

mod backfill;
mod faults;
mod flow;
mod mixed;
mod timer;

use std::path::PathBuf;
use std::process::Output;

use mpt_outbox::{OpenOptions, Outbox};
use serde_json::{Value, json};

use crate::support::primary::call_remote;
use crate::support::{TestEnv, json, stderr, stdout};

pub const DEVICE: &str = "lap";

/// `mpt` with the primary at `url` and this device's name.
pub fn mpt(env: &TestEnv, url: &str, args: &[&str]) -> Output {
    env.mpt(
        args,
        &[
            ("MEMPALACE_REMOTE_URL", url),
            ("MEMPALACE_PI_DEVICE", DEVICE),
        ],
    )
}

/// Queues one op through the CLI; its op_id.
pub fn enqueue(env: &TestEnv, url: &str, tool: &str, args: &Value) -> String {
    let o = mpt(
        env,
        url,
        &["--json", "outbox", "enqueue", tool, &args.to_string()],
    );
    assert!(
        o.status.success(),
        "enqueue {tool}: {}{}",
        stdout(&o),
        stderr(&o)
    );
    json(&o)["op_id"].as_str().unwrap().to_string()
}

/// `mpt --json outbox flush ARGS`: (exit code, report).
pub fn flush(env: &TestEnv, url: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["--json", "outbox", "flush"];
    args.extend_from_slice(extra);
    let o = mpt(env, url, &args);
    let code = o.status.code().unwrap_or(-1);
    (code, json(&o))
}

pub fn outbox_path(env: &TestEnv) -> PathBuf {
    env.home().join(".mempalace/edge/outbox.sqlite3")
}

pub fn store(env: &TestEnv) -> Outbox {
    Outbox::open(&outbox_path(env), OpenOptions::default()).unwrap()
}

/// One tool call straight to the primary (not through the outbox); the parsed payload.
pub fn call(url: &str, tool: &str, args: Value) -> Value {
    let name = mpt_palace::catalog::full_name(tool);
    call_remote(url, None, &name, args.clone()).unwrap_or_else(|e| panic!("{name} {args}: {e}"))
}

/// Every event matching `filters`, oldest first.
pub fn events(url: &str, filters: Value) -> Vec<Value> {
    let mut args = filters;
    args["order"] = json!("asc");
    args["limit"] = json!(500);
    call(url, "event_list", args)["events"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// How many times the effect of one enqueued op is on the primary.
pub fn effect_count(url: &str, tool: &str, p: &Value, op_id: &str) -> usize {
    let s = |k: &str| p[k].as_str().unwrap_or("").to_string();
    match tool {
        "event_append" | "patch_submit" => {
            let ty = if tool == "patch_submit" {
                "patch.ready".into()
            } else {
                s("type")
            };
            events(url, json!({"type": ty, "writer": s("from_agent")}))
                .iter()
                .filter(|e| e["metadata"]["mpt_op_id"] == op_id)
                .count()
        }
        "diary_write" => diary_count(url, &s("agent_name"), &s("entry")),
        "checkpoint" => diary_count(
            url,
            p["diary"]["agent_name"].as_str().unwrap(),
            p["diary"]["entry"].as_str().unwrap(),
        ),
        "kg_add" | "kg_invalidate" => call(
            url,
            "kg_query",
            json!({"entity": s("subject"), "direction": "outgoing"}),
        )["facts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| {
                f["predicate"] == s("predicate").to_lowercase() && f["object"] == s("object")
            })
            .count(),
        "add_drawer" => call(
            url,
            "list_drawers",
            json!({"wing": s("wing"), "room": s("room"), "limit": 100}),
        )["drawers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["content_preview"].as_str() == Some(&s("content")))
            .count(),
        "task_create" => events(
            url,
            json!({"type": "task.request", "writer": s("from_agent")}),
        )
        .iter()
        .filter(|e| {
            e["body"]
                .as_str()
                .unwrap_or("")
                .contains(&format!("Goal:\n{}\n", s("goal")))
        })
        .count(),
        "event_ack" => events(url, json!({"type": "event.ack", "writer": s("from_agent")}))
            .iter()
            .filter(|e| e["metadata"]["ack_of"] == p["event_id"] && e["body"] == p["body"])
            .count(),
        other => panic!("no effect counter for {other}"),
    }
}

/// Diary entries (chunks joined per timestamp) of `agent` whose text is exactly `entry`.
pub fn diary_count(url: &str, agent: &str, entry: &str) -> usize {
    let r = call(
        url,
        "diary_read",
        json!({"agent_name": agent, "last_n": 100}),
    );
    let mut joined: Vec<(String, String)> = Vec::new();
    for e in r["entries"].as_array().into_iter().flatten() {
        let ts = e["timestamp"].as_str().unwrap().to_string();
        match joined.iter_mut().find(|(t, _)| *t == ts) {
            Some((_, text)) => text.push_str(e["content"].as_str().unwrap()),
            None => joined.push((ts, e["content"].as_str().unwrap().to_string())),
        }
    }
    joined.iter().filter(|(_, t)| t == entry).count()
}

/// A running `mpt`, killed and reaped by pid on drop (also on panic).
pub struct Running(pub std::process::Child);

impl Running {
    /// Waits up to `secs`; the exit code and stdout parsed as JSON (Null when empty).
    pub fn finish(mut self, secs: f64) -> (i32, Value) {
        let ok = crate::support::wait_for(secs, || self.0.try_wait().ok().flatten().is_some());
        assert!(ok, "mpt did not finish in {secs} s");
        let mut out = String::new();
        use std::io::Read;
        if let Some(mut s) = self.0.stdout.take() {
            s.read_to_string(&mut out).unwrap();
        }
        let code = self.0.wait().unwrap().code().unwrap_or(-1);
        (code, serde_json::from_str(&out).unwrap_or(Value::Null))
    }

    pub fn kill9(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            self.kill9();
        }
    }
}

pub fn spawn_mpt(env: &TestEnv, url: &str, args: &[&str]) -> Running {
    let mut cmd = env.mpt_command(args);
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    cmd.env("MEMPALACE_REMOTE_URL", url)
        .env("MEMPALACE_PI_DEVICE", DEVICE);
    Running(cmd.spawn().unwrap())
}
