//! One Codex rollout (0.169's `rollout-<time>-<thread>.jsonl`) as the entries every harness renders,
//! each turn from one record type: the `event_msg` `item_completed` items, in file order.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::jsonl::{parse_json, split_lines};
use crate::session::{Body, Entry, Header, ParseStats, Part, Session, ToolNote, entry_key};

/// Whether this mpt reads the rollout's records: the shape Codex 0.169 writes, or why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    Known,
    /// What was found instead, said in a line.
    Unknown(String),
}

/// The rollout of thread `id` from the file's bytes, the time of its last record (for the quiet
/// period), and whether its shape is one this mpt reads.
///
/// A turn appears in two record types: `response_item` (what was sent to and came back from the
/// model, with Codex's injected context among the user messages) and `event_msg` `item_completed`
/// (the items as the user saw them). Only the latter is read, so each turn is rendered once and
/// no injected context passes for the user's. Only terminated lines are trusted; a last line
/// without its newline is a live append.
pub fn session(id: &str, bytes: &[u8]) -> (Session, Option<String>, Shape) {
    let mut entries: Vec<Entry> = Vec::new();
    let mut stats = ParseStats::default();
    let mut header = Header {
        id: id.to_string(),
        version: 1,
        cwd: None,
        timestamp: None,
        parent_session: None,
    };
    let mut last_time = None;
    let mut meta = false;
    let mut legacy = 0usize;
    for (number, (line, terminated)) in (1..).zip(split_lines(bytes)) {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Some(v) = parse_json::<Value>(line).filter(Value::is_object) else {
            if terminated {
                stats.lines += 1;
                stats.bad_lines += 1;
                if stats.bad_line_numbers.len() < 5 {
                    stats.bad_line_numbers.push(number);
                }
            } else {
                stats.truncated_tail = true;
            }
            continue;
        };
        stats.lines += 1;
        if let Some(t) = v["timestamp"].as_str() {
            last_time = Some(t.to_string());
        }
        let payload = &v["payload"];
        match (v["type"].as_str(), payload["type"].as_str()) {
            (Some("session_meta"), _) => {
                meta = true;
                header.cwd = payload["cwd"].as_str().map(str::to_string);
                header.timestamp = payload["timestamp"]
                    .as_str()
                    .or_else(|| v["timestamp"].as_str())
                    .map(str::to_string);
            }
            (Some("event_msg"), Some("item_completed")) => {
                let item = &payload["item"];
                let body = body(item);
                let n = entries.len();
                let own = item["id"]
                    .as_str()
                    .map_or_else(|| format!("line-{number}"), str::to_string);
                entries.push(Entry {
                    key: entry_key(id, &own),
                    id: Some(format!("{n}")),
                    parent_id: n.checked_sub(1).map(|p| p.to_string()),
                    body,
                });
            }
            // The rollouts before 0.169 said each turn in these; MemPalace 3.11's miner reads them.
            (Some("event_msg"), Some("user_message" | "agent_message")) => legacy += 1,
            _ => {}
        }
    }
    let shape = if !meta {
        Shape::Unknown("no session_meta record: not a Codex rollout this mpt knows".into())
    } else if entries.is_empty() && legacy > 0 {
        Shape::Unknown(format!(
            "{legacy} event_msg user_message/agent_message record(s) and no item_completed: an older Codex's rollout, which this mpt (written for 0.169) does not read"
        ))
    } else {
        Shape::Known
    };
    (
        Session {
            header,
            entries,
            stats,
        },
        last_time,
        shape,
    )
}

/// A rollout's shape: each record's kind (`type`, its payload's `type`, and an `item_completed`
/// item's `type`, joined by `:`) with every key it carries (the payload's as `payload.<key>`, the
/// item's as `item.<key>`). The feed bench's synthetic rollouts are held to a real one's with it.
pub fn line_shapes(bytes: &[u8]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (line, _) in split_lines(bytes) {
        let Some(Value::Object(v)) = parse_json::<Value>(line) else {
            continue;
        };
        let Some(kind) = v.get("type").and_then(Value::as_str) else {
            continue;
        };
        let payload = v.get("payload").and_then(Value::as_object);
        let item = payload
            .and_then(|p| p.get("item"))
            .and_then(Value::as_object);
        let mut name = kind.to_string();
        for part in [payload, item] {
            if let Some(t) = part.and_then(|o| o.get("type")).and_then(Value::as_str) {
                name = format!("{name}:{t}");
            }
        }
        let keys = out.entry(name).or_default();
        keys.extend(v.keys().cloned());
        for (prefix, part) in [("payload", payload), ("item", item)] {
            keys.extend(
                part.into_iter()
                    .flatten()
                    .map(|(k, _)| format!("{prefix}.{k}")),
            );
        }
    }
    out
}

/// An item as the exporter needs it: the user's message, the agent's, or a tool call as a note.
fn body(item: &Value) -> Body {
    let texts = |kind: &[&str]| {
        item["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["type"].as_str().is_some_and(|t| kind.contains(&t)))
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    match item["type"].as_str() {
        Some("UserMessage") => Body::User {
            text: texts(&["text"]),
            images: item["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["type"].as_str().is_some_and(|t| t.contains("image")))
                .count(),
        },
        Some("AgentMessage") => Body::Assistant {
            parts: vec![Part::Text(texts(&["Text", "text"]))],
            stop_reason: None,
        },
        Some("CommandExecution") => {
            // `["/bin/bash", "-lc", "echo quince"]`: the shell's script is the command typed.
            let argv: Vec<&str> = item["command"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let cmd = match argv.as_slice() {
                [_, flag, script] if flag.starts_with('-') && flag.ends_with('c') => {
                    script.to_string()
                }
                _ => argv.join(" "),
            };
            tool("exec_command", vec![("cmd".into(), cmd)])
        }
        Some("McpToolCall") => {
            let args = item["arguments"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect();
            let name = format!(
                "mcp__{}__{}",
                item["server"].as_str().unwrap_or_default(),
                item["tool"].as_str().unwrap_or_default()
            );
            tool(&name, args)
        }
        _ => Body::Other,
    }
}

/// A tool call as a one-line note, its string arguments shortened.
fn tool(name: &str, args: Vec<(String, String)>) -> Body {
    let args = args
        .into_iter()
        .map(|(k, mut v)| {
            crate::raw::keep_arg(&mut v);
            (k, v)
        })
        .collect();
    Body::Assistant {
        parts: vec![Part::Tool(ToolNote {
            tool: name.to_string(),
            args,
        })],
        stop_reason: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{self, ExportOptions};

    /// The shape Codex 0.169 writes (trimmed from a real rollout): the session's meta, injected
    /// context and each message twice (`response_item` and `item_completed`), a shell call, an
    /// MCP call, a resumed turn with a multi-line message, and a live append at the end.
    const ROLLOUT: &str = r#"{"timestamp":"2026-12-06T18:46:27.852Z","ordinal":0,"type":"session_meta","payload":{"id":"t1","timestamp":"2026-12-06T18:46:27.828Z","cwd":"/home/u/work","originator":"codex_exec","cli_version":"0.169.0","source":"exec"}}
{"timestamp":"2026-12-06T18:46:27.852Z","ordinal":1,"type":"event_msg","payload":{"type":"task_started"}}
{"timestamp":"2026-12-06T18:46:27.874Z","ordinal":3,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/u/work</cwd>\n</environment_context>"}]}}
{"timestamp":"2026-12-06T18:46:27.886Z","ordinal":7,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Plan the quince orchard layout for spring."}]}}
{"timestamp":"2026-12-06T18:46:27.888Z","ordinal":8,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u1","content":[{"type":"text","text":"Plan the quince orchard layout for spring.","text_elements":[]}]}}}
{"timestamp":"2026-12-06T18:46:27.917Z","ordinal":9,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m1","content":[{"type":"Text","text":"Checking the rows."}]}}}
{"timestamp":"2026-12-06T18:46:27.920Z","ordinal":10,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking the rows."}]}}
{"timestamp":"2026-12-06T18:46:27.921Z","ordinal":11,"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"echo quince\"}","call_id":"c1"}}
{"timestamp":"2026-12-06T18:46:27.974Z","ordinal":13,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c1","command":["/bin/bash","-lc","echo quince"],"status":"completed","exit_code":0,"aggregated_output":"quince SECRET-OUTPUT\n"}}}
{"timestamp":"2026-12-06T18:46:27.980Z","ordinal":14,"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"quince SECRET-OUTPUT"}}
{"timestamp":"2026-12-06T18:46:27.990Z","ordinal":15,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"McpToolCall","id":"c2","server":"mempalace","tool":"mempalace_add_drawer","arguments":{"wing":"wing_test","content":"The rows face south.","n":3},"status":"completed","result":{"content":[{"type":"text","text":"{\"success\": true}"}]}}}}
{"timestamp":"2026-12-06T18:46:28.003Z","ordinal":16,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m2","content":[{"type":"Text","text":"The rows face the south wall."}]}}}
{"timestamp":"2026-12-06T18:46:28.012Z","ordinal":20,"type":"event_msg","payload":{"type":"task_complete"}}
{"timestamp":"2026-12-06T18:46:32.741Z","ordinal":24,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Why does the lexer drop a tab?\nthe marmalade tokenizer"}]}}
{"timestamp":"2026-12-06T18:46:32.743Z","ordinal":25,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u2","content":[{"type":"text","text":"Why does the lexer drop a tab?\nthe marmalade tokenizer","text_elements":[]}]}}}
{"timestamp":"2026-12-06T18:46:32.774Z","ordinal":26,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m3","content":[{"type":"Text","text":"The lexer keeps the tab."}]}}}
{"timestamp":"2026-12-06T18:47:00.000Z","ordinal":40,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u3","content":[{"type":"text","text":"half wr"#;

    #[test]
    fn a_rollout_is_its_completed_items_once_with_lines_kept_tools_shortened() {
        let (s, last, shape) = session("t1", ROLLOUT.as_bytes());
        assert_eq!(shape, Shape::Known);
        assert_eq!(last.as_deref(), Some("2026-12-06T18:46:32.774Z"));
        assert!(s.stats.truncated_tail, "the live append is left out");
        assert_eq!(s.header.cwd.as_deref(), Some("/home/u/work"));
        let t = export::build(&s, &ExportOptions::default());
        assert_eq!(t.stats.user_turns, 2, "the injected context is no turn");
        let (text, _) = export::render(&t, &Default::default(), &ExportOptions::default());
        assert_eq!(text.matches("> ").count(), 2, "{text}");
        assert_eq!(
            text.matches("Checking the rows.").count(),
            1,
            "once: {text}"
        );
        assert!(
            text.contains("> Why does the lexer drop a tab?\n  the marmalade tokenizer\n"),
            "{text}"
        );
        assert!(text.contains("[exec_command] echo quince"), "{text}");
        assert!(
            text.contains("[mcp__mempalace__mempalace_add_drawer]"),
            "{text}"
        );
        assert!(!text.contains("SECRET-OUTPUT"), "no tool output: {text}");
        assert!(!text.contains("environment_context"), "{text}");
    }

    #[test]
    fn an_unknown_or_older_shape_says_why() {
        let (_, _, shape) = session("x", b"{\"type\":\"message\",\"text\":\"hi\"}\n");
        assert!(
            matches!(shape, Shape::Unknown(ref w) if w.contains("session_meta")),
            "{shape:?}"
        );
        let older = concat!(
            "{\"type\":\"session_meta\",\"payload\":{\"id\":\"x\"}}\n",
            "{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"hi\"}}\n",
            "{\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"hello\"}}\n",
        );
        let (_, _, shape) = session("x", older.as_bytes());
        assert!(
            matches!(shape, Shape::Unknown(ref w) if w.contains("older Codex")),
            "{shape:?}"
        );
    }
}
