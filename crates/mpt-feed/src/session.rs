//! Parsing one pi session file (v1 linear, v2/v3 tree, v4-style variants) into typed entries,
//! and selecting the current branch by walking `parentId` back from the last entry.

use super::jsonl::{parse_json, split_lines};
use super::raw::{BlockKind, RawEntry, RawMessage};
use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// The first line of a session file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub id: String,
    /// `version`, or 1 when absent (v1 files).
    pub version: u64,
    pub cwd: Option<String>,
    pub timestamp: Option<String>,
    /// `parentSession` (v2+) or `branchedFrom` (v1): the path of the session this one was forked from.
    pub parent_session: Option<String>,
}

/// A tool call or user shell command, kept as a one-line note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolNote {
    pub tool: String,
    /// Top-level string arguments, in document order (already shortened).
    pub args: Vec<(String, String)>,
}

/// An assistant message's parts, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(String),
    Tool(ToolNote),
}

/// What an entry carries, reduced to what the exporter needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// A user message: its text blocks joined by newlines, plus how many images it had.
    User {
        text: String,
        images: usize,
    },
    /// An assistant message: text and tool calls in order (thinking dropped).
    Assistant {
        parts: Vec<Part>,
        stop_reason: Option<String>,
    },
    ToolResult,
    /// A user `!command` (`bashExecution`); `excluded` for `!!`.
    Bash {
        command: String,
        excluded: bool,
    },
    /// Extension-injected context: `custom_message` entries and `custom`/`hookMessage` messages.
    Injected,
    /// `compaction` and `branch_summary` (the summarized messages are still in the file).
    Summary,
    SessionInfo {
        name: Option<String>,
    },
    /// `model_change`, `thinking_level_change`, `label`, `custom`, and any unknown type.
    Other,
}

/// One entry (line 2..n).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: Option<String>,
    pub parent_id: Option<String>,
    /// Identity used for fork de-duplication: a hash of the id, or of the raw line when there is none.
    pub key: u64,
    pub body: Body,
}

/// Counters about the file itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseStats {
    /// Complete lines after the header.
    pub lines: usize,
    /// Complete lines that were not a JSON object (skipped).
    pub bad_lines: usize,
    /// The file line numbers (1-based) of the first few of them, for the warning.
    pub bad_line_numbers: Vec<usize>,
    /// Lines of a type this parser does not know (kept in the tree as `Other`, never exported).
    pub unknown_types: usize,
    /// The file ended in a partial line (a live append); it was ignored.
    pub truncated_tail: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub header: Header,
    /// Every entry in file order, including abandoned branches.
    pub entries: Vec<Entry>,
    pub stats: ParseStats,
}

/// Why a file is not a pi session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    /// No complete first line.
    Empty,
    /// The first line is not `{"type":"session","id":"<string>",…}`.
    InvalidHeader,
}

/// How many skipped lines a warning names by number.
const MAX_BAD_LINES_NAMED: usize = 5;

/// Parse a session from its bytes. Only `\n`-terminated lines are trusted; a final line without a
/// newline is used only if it is a complete JSON object, otherwise it is a live partial write.
pub fn parse(bytes: &[u8]) -> Result<Session, ParseError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut lines = split_lines(bytes);
    let (first, _) = lines.next().ok_or(ParseError::Empty)?;
    let header = parse_header(first).ok_or(ParseError::InvalidHeader)?;
    let mut entries = Vec::new();
    let mut stats = ParseStats::default();
    for (number, (line, terminated)) in (2..).zip(lines) {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let raw = match parse_json::<RawEntry>(line) {
            Some(raw) => raw,
            None if !terminated => {
                stats.truncated_tail = true;
                continue;
            }
            None => {
                stats.lines += 1;
                stats.bad_lines += 1;
                if stats.bad_line_numbers.len() < MAX_BAD_LINES_NAMED {
                    stats.bad_line_numbers.push(number);
                }
                continue;
            }
        };
        stats.lines += 1;
        // An unknown type is kept as `Other` so the parent chain through it stays intact.
        let body = entry_body(&raw).unwrap_or_else(|| {
            stats.unknown_types += 1;
            Body::Other
        });
        let key = match &raw.id.0 {
            Some(id) => hash_key(0, id.as_bytes()),
            None => hash_key(1, line),
        };
        entries.push(Entry {
            id: raw.id.0,
            parent_id: raw.parent_id.0,
            key,
            body,
        });
    }
    Ok(Session {
        header,
        entries,
        stats,
    })
}

/// Read just the header line of a file (at most 64 KiB). `Ok(None)` when it is not a pi header.
pub fn read_header(path: &Path) -> io::Result<(Option<Header>, u64)> {
    let f = std::fs::File::open(path)?;
    let mut buf = Vec::with_capacity(512);
    BufReader::with_capacity(4096, f.take(64 * 1024)).read_until(b'\n', &mut buf)?;
    let n = buf.len() as u64;
    let line = buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&buf);
    Ok((parse_header(line), n))
}

fn parse_header(line: &[u8]) -> Option<Header> {
    let v: serde_json::Value = parse_json(line)?;
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    if v.get("type")?.as_str()? != "session" {
        return None;
    }
    Some(Header {
        id: s("id")?,
        version: v.get("version").and_then(|x| x.as_u64()).unwrap_or(1),
        cwd: s("cwd"),
        timestamp: s("timestamp"),
        parent_session: s("parentSession").or_else(|| s("branchedFrom")),
    })
}

/// The key of an entry another harness's session names by `id` (opencode's message, Claude Code's
/// line `uuid`), unique across sessions.
pub(crate) fn entry_key(session: &str, id: &str) -> u64 {
    let mut h = DefaultHasher::new();
    (session, id).hash(&mut h);
    h.finish()
}

fn hash_key(tag: u8, bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    tag.hash(&mut h);
    bytes.hash(&mut h);
    h.finish()
}

/// `None` for an unknown entry type (or a line without a string `type`).
fn entry_body(raw: &RawEntry) -> Option<Body> {
    Some(match raw.kind.0.as_deref()? {
        "message" => match &raw.message {
            Some(m) => message_body(m),
            None => Body::Other,
        },
        "custom_message" => Body::Injected,
        "compaction" | "branch_summary" => Body::Summary,
        "session_info" => Body::SessionInfo {
            name: raw.name.0.clone(),
        },
        "model_change" | "thinking_level_change" | "label" | "custom" => Body::Other,
        _ => return None,
    })
}

fn message_body(m: &RawMessage) -> Body {
    match m.role.as_deref() {
        Some("user") => {
            let mut text = String::new();
            let mut images = 0;
            for b in &m.content {
                match b.kind {
                    BlockKind::Text if !b.text.is_empty() => {
                        if !text.is_empty() {
                            text.push('\n');
                        }
                        text.push_str(&b.text);
                    }
                    BlockKind::Image => images += 1,
                    _ => {}
                }
            }
            Body::User { text, images }
        }
        Some("assistant") => {
            let parts = m
                .content
                .iter()
                .filter_map(|b| match b.kind {
                    BlockKind::Text => Some(Part::Text(b.text.clone())),
                    BlockKind::ToolCall => Some(Part::Tool(ToolNote {
                        tool: b.tool.clone(),
                        args: b.args.clone(),
                    })),
                    _ => None,
                })
                .collect();
            Body::Assistant {
                parts,
                stop_reason: m.stop_reason.clone(),
            }
        }
        Some("toolResult") => Body::ToolResult,
        Some("bashExecution") => Body::Bash {
            command: m.command.clone().unwrap_or_default(),
            excluded: m.exclude_from_context,
        },
        Some("custom") | Some("hookMessage") => Body::Injected,
        _ => Body::Other,
    }
}

impl Session {
    /// The current branch, root first. Tree files (any entry with an id): walk `parentId` back from
    /// the last entry that has an id, as pi's `buildSessionContext` does. Linear (v1) files: file order.
    pub fn branch(&self) -> Vec<&Entry> {
        self.walk_branch().0
    }

    /// The parent id at which the walk back from the leaf stopped because no entry has it (a
    /// skipped line, most likely): what came before it on the branch is not in [`Session::branch`].
    pub fn branch_cut(&self) -> Option<&str> {
        self.walk_branch().1
    }

    fn walk_branch(&self) -> (Vec<&Entry>, Option<&str>) {
        let Some(leaf) = self.entries.iter().rposition(|e| e.id.is_some()) else {
            return (self.entries.iter().collect(), None);
        };
        if let Some(linear) = self.linear_branch(leaf) {
            return linear;
        }
        let by_id: HashMap<&str, usize> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.id.as_deref().map(|id| (id, i)))
            .collect();
        let mut path = Vec::new();
        let mut seen = HashSet::new();
        let mut cur = Some(leaf);
        let mut cut = None;
        while let Some(i) = cur {
            if !seen.insert(i) {
                break; // a cycle: stop rather than loop
            }
            let e = &self.entries[i];
            path.push(e);
            cur = e.parent_id.as_deref().and_then(|p| {
                let found = by_id.get(p).copied();
                if found.is_none() {
                    cut = Some(p);
                }
                found
            });
        }
        path.reverse();
        (path, cut)
    }

    /// The walk's result without its maps when the file is one chain (each entry up to the leaf the
    /// child of the one before it, no id twice): what the walk would find, at the cost of a sort.
    fn linear_branch(&self, leaf: usize) -> Option<(Vec<&Entry>, Option<&str>)> {
        let chain = &self.entries[..=leaf];
        let linked = chain
            .windows(2)
            .all(|w| w[0].id.is_some() && w[1].parent_id == w[0].id);
        if !linked {
            return None;
        }
        let mut ids: Vec<&str> = chain.iter().filter_map(|e| e.id.as_deref()).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
        let cut = chain[0]
            .parent_id
            .as_deref()
            .filter(|p| ids.binary_search(p).is_err());
        Some((chain.iter().collect(), cut))
    }

    /// The latest `session_info` name, if any.
    pub fn name(&self) -> Option<&str> {
        self.entries.iter().rev().find_map(|e| match &e.body {
            Body::SessionInfo { name } => name.as_deref(),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H3: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/w"}"#;

    fn msg(id: &str, parent: &str, role: &str, text: &str) -> String {
        let parent = if parent.is_empty() {
            "null".to_string()
        } else {
            format!("\"{parent}\"")
        };
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"message":{{"role":"{role}","content":"{text}"}}}}"#
        )
    }

    fn texts(s: &Session) -> Vec<String> {
        s.branch()
            .iter()
            .filter_map(|e| match &e.body {
                Body::User { text, .. } => Some(text.clone()),
                Body::Assistant { parts, .. } => match parts.first() {
                    Some(Part::Text(t)) => Some(t.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    #[test]
    fn header_rules() {
        assert_eq!(parse(b""), Err(ParseError::Empty));
        assert_eq!(
            parse(b"{\"type\":\"user\"}\n"),
            Err(ParseError::InvalidHeader)
        );
        assert_eq!(
            parse(b"{\"type\":\"session\",\"id\":5}\n"),
            Err(ParseError::InvalidHeader)
        );
        let s =
            parse(b"\xEF\xBB\xBF{\"type\":\"session\",\"id\":\"x\",\"branchedFrom\":\"/p.jsonl\"}")
                .unwrap();
        assert_eq!(s.header.version, 1);
        assert_eq!(s.header.parent_session.as_deref(), Some("/p.jsonl"));
    }

    #[test]
    fn branch_walks_back_from_last_entry() {
        let lines = [
            H3.to_string(),
            msg("u1", "", "user", "q1"),
            msg("a1", "u1", "assistant", "r1"),
            msg("u2", "a1", "user", "q2a"),
            msg("a2", "u2", "assistant", "r2a"),
            r#"{"type":"branch_summary","id":"b1","parentId":"a1","fromId":"a2","summary":"s"}"#
                .to_string(),
            msg("u3", "b1", "user", "q2b"),
            msg("a3", "u3", "assistant", "r2b"),
        ];
        let s = parse((lines.join("\n") + "\n").as_bytes()).unwrap();
        assert_eq!(texts(&s), ["q1", "r1", "q2b", "r2b"]);
    }

    #[test]
    fn truncated_tail_crlf_unknown_and_bad_lines() {
        let text = format!(
            "{H3}\r\n{}\r\nnot json\r\n{{\"type\":\"future_thing\",\"id\":\"z\",\"parentId\":\"u1\"}}\r\n{}\n{{\"type\":\"message\",\"id\":\"a9\",\"par",
            msg("u1", "", "user", "héllo"),
            msg("a1", "z", "assistant", "wörld"),
        );
        let s = parse(text.as_bytes()).unwrap();
        assert!(s.stats.truncated_tail);
        assert_eq!(
            (s.stats.lines, s.stats.bad_lines, s.stats.unknown_types),
            (4, 1, 1)
        );
        assert_eq!(texts(&s), ["héllo", "wörld"]);
    }

    #[test]
    fn linear_v1_and_unterminated_complete_line() {
        let text = concat!(
            r#"{"type":"session","id":"v1"}"#,
            "\n",
            r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA"}]}}"#,
            "\n",
            r#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"b"}]}}"#
        );
        let s = parse(text.as_bytes()).unwrap();
        assert!(!s.stats.truncated_tail);
        assert_eq!(texts(&s), ["a", "b"]);
        assert_eq!(
            s.entries[0].body,
            Body::User {
                text: "a".into(),
                images: 1
            }
        );
        assert_ne!(s.entries[0].key, s.entries[1].key);
    }

    #[test]
    fn a_lone_surrogate_keeps_the_branch_and_a_bad_line_cuts_it_visibly() {
        let cut_mid_emoji = r#"{"type":"message","id":"a1","parentId":"u1","message":{"role":"assistant","content":[{"type":"text","text":"launch \ud83d"}]}}"#;
        let lines = [
            H3.to_string(),
            msg("u1", "", "user", "q1"),
            cut_mid_emoji.to_string(),
            msg("u2", "a1", "user", "q2"),
        ];
        let s = parse((lines.join("\n") + "\n").as_bytes()).unwrap();
        assert_eq!(texts(&s), ["q1", "launch \u{fffd}", "q2"]);
        assert_eq!((s.stats.bad_lines, s.branch_cut()), (0, None));

        let lines = [
            H3.to_string(),
            msg("u1", "", "user", "q1"),
            r#"{"type":"message","id":"a1","parentId":"u1","message":{"#.to_string(),
            msg("u2", "a1", "user", "q2"),
        ];
        let s = parse((lines.join("\n") + "\n").as_bytes()).unwrap();
        assert_eq!(texts(&s), ["q2"]);
        assert_eq!(s.stats.bad_line_numbers, [3]);
        assert_eq!(s.branch_cut(), Some("a1"));
    }

    #[test]
    fn parent_cycle_terminates() {
        let lines = [
            H3.to_string(),
            msg("a", "b", "user", "x"),
            msg("b", "a", "assistant", "y"),
        ];
        let s = parse((lines.join("\n") + "\n").as_bytes()).unwrap();
        assert_eq!(s.branch().len(), 2);
    }
}
