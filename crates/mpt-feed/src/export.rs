//! Turning a session's current branch into MemPalace's native `>` transcript (a `> ` line opening
//! each user message, then that turn's assistant text and tool notes), plus the gate's counts.

use super::session::{Body, Part, Session, ToolNote};
use super::text::{escape_line, is_bare_command, text_lines, tool_note, user_line, user_lines};
use serde::Serialize;
use std::collections::HashSet;

/// How the transcript is written. Every field is part of the state fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportOptions {
    /// Emit tool calls and user `!commands` as one-line notes (`[bash] cargo test`). Default true.
    pub tool_notes: bool,
    /// Longest note, in chars, including the `[tool] ` prefix. Default 200.
    pub note_max_chars: usize,
    /// A user message with no assistant reply is kept only if longer than this (chars). Default 30,
    /// the miner's own minimum chunk size.
    pub min_unanswered_chars: usize,
    /// User messages starting with one of these are automation, not the user: the whole exchange
    /// is dropped and counted as injected. Default `["[pi-mempalace]", "MemPalace auto-save"]`.
    pub injected_prefixes: Vec<String>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            tool_notes: true,
            note_max_chars: 200,
            min_unanswered_chars: 30,
            injected_prefixes: vec!["[pi-mempalace]".into(), "MemPalace auto-save".into()],
        }
    }
}

/// What kind of user line opens an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserKind {
    /// Real typed text (counts as a user turn).
    Real,
    /// A bare `/command` (old sessions persist these); kept only if answered, never counted.
    Command,
    /// Images only; written as `[image]`, not counted.
    Image,
}

/// One rendered line of an assistant block, with the entry it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub key: u64,
}

/// One user message and everything the assistant did until the next one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// The user message's lines: the first without the `> ` prefix, later ones indented and
    /// escaped ([`user_lines`]).
    pub user: Vec<String>,
    /// Chars of the user message on one line (what `min_unanswered_chars` measures).
    pub user_chars: usize,
    pub user_key: u64,
    pub kind: UserKind,
    pub lines: Vec<Line>,
}

/// Counts over the whole branch (before fork de-duplication), read by the gate.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Real user messages (not commands, images-only, or injected prompts).
    pub user_turns: usize,
    /// Assistant messages with non-blank text, answering a real or command user line.
    pub assistant_replies: usize,
    /// Chars of user text plus assistant text (notes excluded), outside injected exchanges.
    pub dialogue_chars: usize,
    /// Injected items: custom messages and automated prompts.
    pub injected: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    pub exchanges: Vec<Exchange>,
    pub stats: Stats,
}

enum Cur {
    /// Before the first user message: assistant output here has no user line and is dropped.
    Preamble,
    /// Inside an exchange opened by an automated prompt: dropped.
    Injected,
    Open,
}

/// Build the transcript model of the session's current branch.
pub fn build(session: &Session, opts: &ExportOptions) -> Transcript {
    let mut t = Transcript::default();
    let mut cur = Cur::Preamble;
    for e in session.branch() {
        match &e.body {
            Body::User { text, images } => {
                let user = user_line(text);
                if user.is_empty() && *images == 0 {
                    continue; // an empty message is no turn boundary
                }
                if opts
                    .injected_prefixes
                    .iter()
                    .any(|p| !p.is_empty() && user.starts_with(p))
                {
                    t.stats.injected += 1;
                    cur = Cur::Injected;
                    continue;
                }
                let user_chars = user.chars().count();
                let kind = if user.is_empty() {
                    UserKind::Image
                } else if is_bare_command(&user) {
                    UserKind::Command
                } else {
                    t.stats.user_turns += 1;
                    t.stats.dialogue_chars += user_chars;
                    UserKind::Real
                };
                let user = if user.is_empty() {
                    vec!["[image]".to_string()]
                } else {
                    user_lines(text)
                };
                t.exchanges.push(Exchange {
                    user,
                    user_chars,
                    user_key: e.key,
                    kind,
                    lines: Vec::new(),
                });
                cur = Cur::Open;
            }
            Body::Assistant { parts, .. } if matches!(cur, Cur::Open) => {
                let ex = t.exchanges.last_mut().expect("open exchange");
                let mut replied = false;
                for part in parts {
                    match part {
                        Part::Text(text) => {
                            for line in text_lines(text) {
                                replied = true;
                                t.stats.dialogue_chars += line.chars().count();
                                ex.lines.push(Line {
                                    text: escape_line(line).into_owned(),
                                    key: e.key,
                                });
                            }
                        }
                        Part::Tool(note) if opts.tool_notes => {
                            let text = tool_note(note, opts.note_max_chars);
                            ex.lines.push(Line { text, key: e.key });
                        }
                        Part::Tool(_) => {}
                    }
                }
                t.stats.assistant_replies += usize::from(replied);
            }
            Body::Bash {
                command,
                excluded: false,
            } if opts.tool_notes && matches!(cur, Cur::Open) => {
                let note = ToolNote {
                    tool: "!".into(),
                    args: vec![(String::new(), command.clone())],
                };
                let text = tool_note(&note, opts.note_max_chars);
                t.exchanges
                    .last_mut()
                    .expect("open exchange")
                    .lines
                    .push(Line { text, key: e.key });
            }
            Body::Injected => t.stats.injected += 1,
            _ => {}
        }
    }
    t
}

/// Render the transcript, leaving out lines from entries in `copied` (fork de-duplication). A user
/// message is written when it has at least one remaining line, or (if not copied itself) when it is a
/// real message longer than `min_unanswered_chars`. Returns the text and the exchange count.
pub fn render(t: &Transcript, copied: &HashSet<u64>, opts: &ExportOptions) -> (String, usize) {
    // At most every exchange whole: one allocation for the text, none per exchange.
    let most: usize = t
        .exchanges
        .iter()
        .map(|ex| {
            let user: usize = ex.user.iter().map(|u| u.len() + 1).sum();
            let lines: usize = ex.lines.iter().map(|l| l.text.len() + 1).sum();
            3 + user + lines
        })
        .sum();
    let mut out = String::with_capacity(most);
    let mut n = 0;
    for ex in &t.exchanges {
        let kept = |l: &&Line| copied.is_empty() || !copied.contains(&l.key);
        let mut lines = ex.lines.iter().filter(kept).peekable();
        if lines.peek().is_none() {
            let user_copied = copied.contains(&ex.user_key);
            let long = ex.user_chars > opts.min_unanswered_chars;
            if user_copied || ex.kind != UserKind::Real || !long {
                continue;
            }
        }
        if n > 0 {
            out.push('\n');
        }
        n += 1;
        out.push_str("> ");
        for u in &ex.user {
            out.push_str(u);
            out.push('\n');
        }
        for l in lines {
            out.push_str(&l.text);
            out.push('\n');
        }
    }
    (out, n)
}

/// Keys of every entry on the session's current branch (what its export can contain).
pub fn branch_keys(session: &Session) -> HashSet<u64> {
    session.branch().iter().map(|e| e.key).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::parse;

    fn session(lines: &[&str]) -> Session {
        let mut text = String::from(r#"{"type":"session","version":3,"id":"s"}"#);
        for (i, l) in lines.iter().enumerate() {
            let parent = if i == 0 {
                "null".to_string()
            } else {
                format!("\"e{}\"", i - 1)
            };
            text.push_str(&format!(
                "\n{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{parent},\"message\":{l}}}"
            ));
        }
        parse((text + "\n").as_bytes()).unwrap()
    }

    const U: &str = r#"{"role":"user","content":"#;
    const A: &str = r#"{"role":"assistant","content":[{"type":"text","text":"#;

    #[test]
    fn builds_counts_and_renders() {
        let s = session(&[
            &format!(r#"{U}"/mode"}}"#),
            &format!(r#"{U}"[pi-mempalace] save now"}}"#),
            &format!(r#"{A}"saved"}}]}}"#),
            &format!(r#"{U}"first question here"}}"#),
            &format!(
                r#"{A}"line one\n\n> quoted"}},{{"type":"toolCall","name":"read","arguments":{{"path":"a.rs"}}}}]}}"#
            ),
            r#"{"role":"bashExecution","command":"ls","excludeFromContext":true}"#,
            &format!(r#"{U}"short, unanswered"}}"#),
            &format!(r#"{U}"a longer question that got no answer at all"}}"#),
        ]);
        let t = build(&s, &ExportOptions::default());
        let chars = "first question here".len()
            + "line one".len()
            + "> quoted".len()
            + "short, unanswered".len()
            + "a longer question that got no answer at all".len();
        assert_eq!(
            t.stats,
            Stats {
                user_turns: 3,
                assistant_replies: 1,
                dialogue_chars: chars,
                injected: 1
            }
        );
        let (text, n) = render(&t, &HashSet::new(), &ExportOptions::default());
        assert_eq!(
            text,
            "> first question here\nline one\n\\> quoted\n[read] a.rs\n\n> a longer question that got no answer at all\n"
        );
        assert_eq!(n, 2);
        // Leaving out the entries of the first exchange drops it entirely.
        let copied: HashSet<u64> = s.entries[3..5].iter().map(|e| e.key).collect();
        let (text, n) = render(&t, &copied, &ExportOptions::default());
        assert_eq!(
            (text.as_str(), n),
            ("> a longer question that got no answer at all\n", 1)
        );
    }
}
