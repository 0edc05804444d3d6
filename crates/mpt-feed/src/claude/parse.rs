//! One Claude Code transcript (2.1.328's `projects/<slug>/<id>.jsonl`) as the entries every
//! harness renders: the `user`/`assistant` lines chained by `uuid`/`parentUuid`, side-chains out.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::jsonl::{parse_json, split_lines};
use crate::session::{Body, Entry, Header, ParseStats, Part, Session, ToolNote, entry_key};

/// The transcript of session `id` from the file's bytes, and the time of its last record (an
/// RFC 3339 `timestamp`, as Claude Code writes it), for the quiet period. Lines are kept in the
/// chain whatever their type (an attachment links a user line to the next), so the branch walked
/// back from the last line is the conversation as it stands after rewinds and edits. Only
/// terminated lines are trusted; a last line without its newline is a live append.
pub fn session(id: &str, bytes: &[u8]) -> (Session, Option<String>) {
    let mut entries = Vec::new();
    let mut stats = ParseStats::default();
    let mut header = Header {
        id: id.to_string(),
        version: 1,
        cwd: None,
        timestamp: None,
        parent_session: None,
    };
    let mut last_time = None;
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
        // A subagent's side-chain is its own conversation, as opencode's subagent sessions are.
        if v["isSidechain"].as_bool() == Some(true) {
            continue;
        }
        let Some(uuid) = v["uuid"].as_str() else {
            continue; // queue operations, API shapes, cost state: no part of the conversation
        };
        if header.cwd.is_none()
            && let Some(cwd) = v["cwd"].as_str()
        {
            header.cwd = Some(cwd.to_string());
            header.timestamp = v["timestamp"].as_str().map(str::to_string);
        }
        // A compaction's boundary starts a new chain; its logical parent is the chain before it.
        let parent = v["parentUuid"]
            .as_str()
            .or_else(|| v["logicalParentUuid"].as_str())
            .map(str::to_string);
        let body = body(&v).unwrap_or_else(|| {
            stats.unknown_types += 1;
            Body::Other
        });
        entries.push(Entry {
            key: entry_key(id, uuid),
            id: Some(uuid.to_string()),
            parent_id: parent,
            body,
        });
    }
    (
        Session {
            header,
            entries,
            stats,
        },
        last_time,
    )
}

/// A transcript's shape: each line's kind (its `type`, and for `user` and `assistant` lines the
/// first content block's type, or `str` for a typed prompt) with every top-level key it carries.
/// The feed bench's synthetic transcripts are held to a real one's shape with it.
pub fn line_shapes(bytes: &[u8]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (line, _) in split_lines(bytes) {
        let Some(Value::Object(v)) = parse_json::<Value>(line) else {
            continue;
        };
        let Some(kind) = v.get("type").and_then(Value::as_str) else {
            continue;
        };
        let content = &v.get("message").unwrap_or(&Value::Null)["content"];
        let block = match content {
            Value::String(_) => Some("str"),
            Value::Array(b) => b.first().and_then(|b| b["type"].as_str()),
            _ => None,
        };
        let kind = match (kind, block) {
            ("user" | "assistant", Some(b)) => format!("{kind}:{b}"),
            _ => kind.to_string(),
        };
        out.entry(kind).or_default().extend(v.keys().cloned());
    }
    out
}

/// What a line says, for the export; `None` for a type this reader does not know.
fn body(v: &Value) -> Option<Body> {
    let message = &v["message"];
    Some(match v["type"].as_str()? {
        "user" if v["isCompactSummary"].as_bool() == Some(true) => Body::Summary,
        // Claude Code's own additions under the user's name: command caveats, hook output.
        "user" if v["isMeta"].as_bool() == Some(true) => Body::Injected,
        "user" => user(&message["content"]),
        "assistant" => assistant(&message["content"], message["stop_reason"].as_str()),
        "attachment" | "system" | "summary" | "progress" => Body::Other,
        _ => return None,
    })
}

/// A user line: the prompt as typed (a string), or blocks: text joined by newlines and images
/// counted; a line of tool results is the tools' answer, not the user's.
fn user(content: &Value) -> Body {
    let blocks = match content {
        Value::String(s) => {
            return Body::User {
                text: s.clone(),
                images: 0,
            };
        }
        Value::Array(b) => b,
        _ => return Body::Other,
    };
    if blocks.iter().any(|b| b["type"] == "tool_result") {
        return Body::ToolResult;
    }
    let mut text: Option<String> = None;
    let mut images = 0;
    for b in blocks {
        match b["type"].as_str() {
            Some("text") => {
                let t = b["text"].as_str().unwrap_or_default();
                match &mut text {
                    None => text = Some(t.to_string()),
                    Some(all) => {
                        all.push('\n');
                        all.push_str(t);
                    }
                }
            }
            Some("image") => images += 1,
            _ => {}
        }
    }
    Body::User {
        text: text.unwrap_or_default(),
        images,
    }
}

/// An assistant line (Claude Code stores one content block a line): text and tool calls in order,
/// thinking dropped; a tool call's top-level string arguments kept, shortened.
fn assistant(content: &Value, stop: Option<&str>) -> Body {
    let mut parts = Vec::new();
    for b in content.as_array().into_iter().flatten() {
        match b["type"].as_str() {
            Some("text") => parts.push(Part::Text(
                b["text"].as_str().unwrap_or_default().to_string(),
            )),
            Some("tool_use") => {
                let args = b["input"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter_map(|(k, v)| {
                        let mut v = v.as_str()?.to_string();
                        crate::raw::keep_arg(&mut v);
                        Some((k.clone(), v))
                    })
                    .collect();
                parts.push(Part::Tool(ToolNote {
                    tool: b["name"].as_str().unwrap_or_default().to_string(),
                    args,
                }));
            }
            _ => {}
        }
    }
    Body::Assistant {
        parts,
        stop_reason: stop.map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{self, ExportOptions};

    /// The shape Claude Code 2.1.328 writes (trimmed from a real transcript): queue operations,
    /// attachments in the chain, one assistant line a block, a ToolSearch round trip, a tool
    /// result, a resumed turn, a side-chain, and a live append at the end.
    const TRANSCRIPT: &str = r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-12-06T07:12:13.602Z","sessionId":"s1"}
{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"sessionId":"s1","cwd":"/home/u/work","timestamp":"2026-12-06T07:12:13.641Z","message":{"role":"user","content":"Please remember: the zebra migration\nuses heliotrope schedules."}}
{"type":"attachment","uuid":"a1","parentUuid":"u1","isSidechain":false,"timestamp":"2026-12-06T07:12:13.640Z","attachment":{"type":"environment"}}
{"type":"api-request","timestamp":"2026-12-06T07:12:13.732Z"}
{"type":"assistant","uuid":"m1","parentUuid":"a1","isSidechain":false,"timestamp":"2026-12-06T07:12:13.738Z","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t0","name":"ToolSearch","input":{"query":"select:mcp__mempalace__mempalace_add_drawer","max_results":1}}],"stop_reason":"tool_use"}}
{"type":"user","uuid":"r1","parentUuid":"m1","isSidechain":false,"timestamp":"2026-12-06T07:12:13.755Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t0","content":[{"type":"tool_reference","tool_name":"mcp__mempalace__mempalace_add_drawer"}]}]}}
{"type":"assistant","uuid":"m2","parentUuid":"r1","isSidechain":false,"timestamp":"2026-12-06T07:12:13.782Z","message":{"id":"msg_2","role":"assistant","content":[{"type":"thinking","thinking":"secret"},{"type":"text","text":"Filing that now."}]}}
{"type":"assistant","uuid":"m3","parentUuid":"m2","isSidechain":false,"timestamp":"2026-12-06T07:12:13.784Z","message":{"id":"msg_2","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"mcp__mempalace__mempalace_add_drawer","input":{"wing":"wing_test","room":"decisions","content":"The zebra migration uses heliotrope schedules.","n":3}}],"stop_reason":"tool_use"}}
{"type":"user","uuid":"r2","parentUuid":"m3","isSidechain":false,"timestamp":"2026-12-06T07:12:14.243Z","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":[{"type":"text","text":"{\"success\": true}"}]}]}}
{"type":"assistant","uuid":"m4","parentUuid":"r2","isSidechain":false,"timestamp":"2026-12-06T07:12:14.261Z","message":{"id":"msg_3","role":"assistant","content":[{"type":"text","text":"Filed the note."}],"stop_reason":"end_turn"}}
{"type":"user","uuid":"x1","parentUuid":null,"isSidechain":true,"timestamp":"2026-12-06T07:12:14.300Z","message":{"role":"user","content":"a subagent's task"}}
{"type":"last-prompt","lastPrompt":"Please remember"}
{"type":"user","uuid":"u2","parentUuid":"m4","isSidechain":false,"timestamp":"2026-12-06T07:12:15.637Z","message":{"role":"user","content":"And how often is the cadence recomputed?"}}
{"type":"assistant","uuid":"m5","parentUuid":"u2","isSidechain":false,"timestamp":"2026-12-06T07:12:15.706Z","message":{"id":"msg_4","role":"assistant","content":[{"type":"text","text":"Nightly."}],"stop_reason":"end_turn"}}
{"type":"cost-state","total":0}
{"type":"user","uuid":"u3","parentUuid":"m5","timestamp":"2026-12-06T07:13:00.000Z","message":{"role":"user","content":"half writ"#;

    #[test]
    fn a_transcript_is_its_exchanges_with_lines_kept_tools_shortened_and_side_chains_out() {
        let (s, last) = session("s1", TRANSCRIPT.as_bytes());
        assert_eq!(
            last.as_deref(),
            Some("2026-12-06T07:12:15.706Z"),
            "the last complete record's time"
        );
        assert!(s.stats.truncated_tail && s.stats.bad_lines == 0);
        assert_eq!(s.header.cwd.as_deref(), Some("/home/u/work"));
        let ids: Vec<_> = s.branch().iter().filter_map(|e| e.id.clone()).collect();
        assert_eq!(
            ids,
            ["u1", "a1", "m1", "r1", "m2", "m3", "r2", "m4", "u2", "m5"],
            "the chain, the side-chain left out"
        );
        let opts = ExportOptions::default();
        let t = export::build(&s, &opts);
        assert_eq!(t.stats.user_turns, 2);
        let (text, n) = export::render(&t, &Default::default(), &opts);
        assert_eq!(n, 2, "{text}");
        assert!(
            text.contains("> Please remember: the zebra migration\n  uses heliotrope schedules.\n"),
            "the user's lines kept in its turn:\n{text}"
        );
        assert!(text.contains("Filing that now.") && text.contains("Filed the note."));
        assert!(
            text.contains("\n[mcp__mempalace__mempalace_add_drawer] wing_test\n"),
            "the tool call as a one-line note:\n{text}"
        );
        assert!(!text.contains("secret"), "thinking dropped");
        assert!(
            !text.contains("subagent"),
            "the side-chain is not this conversation"
        );
        assert!(!text.contains("half writ"), "a live append waits");
        assert!(text.contains("\n\n> And how often is the cadence recomputed?\nNightly.\n"));
    }
}
