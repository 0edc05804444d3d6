//! Line-level text rules the miner imposes on a transcript: escaping lines it would misread,
//! keeping a user message's lines inside its turn, shortening skill expansions and tool calls.

use super::session::ToolNote;
use std::borrow::Cow;

/// Characters Python's `str.strip()` removes (`str.isspace`): Unicode White_Space plus `\x1c`-`\x1f`.
pub fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Characters treated as line breaks in message text.
pub fn line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\x0b' | '\x0c' | '\x1c'..='\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// `text.split(line_break)`, a byte scan when the text is ASCII (most is): the same pieces.
pub fn split_breaks(text: &str) -> impl Iterator<Item = &str> {
    let ascii = text.is_ascii();
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        let at = if ascii {
            t.bytes()
                .position(|b| matches!(b, b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1e))
                .map(|i| (i, 1))
        } else {
            t.char_indices()
                .find(|&(_, c)| line_break(c))
                .map(|(i, c)| (i, c.len_utf8()))
        };
        match at {
            Some((i, n)) => {
                rest = Some(&t[i + n..]);
                Some(&t[..i])
            }
            None => {
                rest = None;
                Some(t)
            }
        }
    })
}

/// Non-blank lines of assistant text, trailing whitespace trimmed (blank lines would split an
/// exchange into paragraphs when the miner falls back to paragraph chunking).
pub fn text_lines(text: &str) -> impl Iterator<Item = &str> {
    split_breaks(text)
        .map(str::trim_end)
        .filter(|l| !l.trim_start_matches(py_space).is_empty())
}

/// Escape a line the miner would misread: after Python's `strip()`, a leading `>` opens a fake user
/// turn and a leading `---` reads as a rule. A `\` goes in front of the first visible character.
pub fn escape_line(line: &str) -> Cow<'_, str> {
    let rest = line.trim_start_matches(py_space);
    if rest.starts_with('>') || rest.starts_with("---") {
        let at = line.len() - rest.len();
        Cow::Owned(format!("{}\\{}", &line[..at], rest))
    } else {
        Cow::Borrowed(line)
    }
}

/// Indentation of a user message's second and later lines in the transcript.
pub const USER_CONTINUATION: &str = "  ";

/// The user message's lines as the transcript writes them after `> `: the first trimmed, each
/// later one indented by [`USER_CONTINUATION`] (its own indentation kept) and escaped, so the
/// miner's chunker keeps it inside this user's exchange instead of opening a turn of its own.
/// Blank lines go (they would read as paragraph breaks); a skill expansion is shortened first.
pub fn user_lines(text: &str) -> Vec<String> {
    let text = strip_skill(text);
    let mut out: Vec<String> = Vec::new();
    for part in split_breaks(&text) {
        let part = part.trim_end_matches(py_space);
        if part.trim_start_matches(py_space).is_empty() {
            continue;
        }
        if out.is_empty() {
            out.push(part.trim_start_matches(py_space).to_string());
        } else {
            out.push(escape_line(&format!("{USER_CONTINUATION}{part}")).into_owned());
        }
    }
    out
}

/// The user message as one line: a leading `<skill …>…</skill>` expansion becomes `[skill:name]`,
/// line breaks and surrounding whitespace collapse to single spaces.
pub fn user_line(text: &str) -> String {
    let text = strip_skill(text);
    let mut out = String::with_capacity(text.len());
    for part in split_breaks(&text) {
        let part = part.trim_matches(py_space);
        if part.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

fn strip_skill(text: &str) -> Cow<'_, str> {
    let t = text.trim_start_matches(py_space);
    if !t.starts_with("<skill ") {
        return Cow::Borrowed(text);
    }
    let (Some(open_end), Some(close)) = (t.find('>'), t.find("</skill>")) else {
        return Cow::Borrowed(text);
    };
    if open_end > close {
        return Cow::Borrowed(text);
    }
    let name = attr(&t[..open_end], "name").unwrap_or("?");
    let rest = t[close + "</skill>".len()..].trim_matches(py_space);
    Cow::Owned(if rest.is_empty() {
        format!("[skill:{name}]")
    } else {
        format!("[skill:{name}] {rest}")
    })
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

pub fn is_bare_command(user: &str) -> bool {
    user.len() > 1
        && user.starts_with('/')
        && !user.contains(char::is_whitespace)
        && !user[1..].contains('/')
}

/// Argument keys that best describe a call, in order of preference.
const NOTE_KEYS: &[&str] = &[
    "command",
    "pattern",
    "query",
    "url",
    "path",
    "file_path",
    "filePath",
    "file",
    "name",
];

/// `[tool] <best argument>` on one line, at most `max` chars (cut with `…`).
pub fn tool_note(note: &ToolNote, max: usize) -> String {
    let tool = if note.tool.trim().is_empty() {
        "tool"
    } else {
        note.tool.trim()
    };
    let arg = NOTE_KEYS
        .iter()
        .find_map(|k| {
            note.args
                .iter()
                .find(|(key, v)| key == k && !v.trim().is_empty())
        })
        .or_else(|| note.args.iter().find(|(_, v)| !v.trim().is_empty()))
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    let mut s = String::with_capacity(tool.len() + arg.len() + 3);
    s.push('[');
    push_visible(&mut s, tool);
    s.push(']');
    for word in arg.split(py_space).filter(|w| !w.is_empty()) {
        s.push(' ');
        push_visible(&mut s, word);
    }
    match s.char_indices().nth(max.max(2) - 1) {
        Some((cut, _)) if s.chars().count() > max => format!("{}…", &s[..cut]),
        _ => s,
    }
}

/// Appends `text` without its control characters.
fn push_visible(out: &mut String, text: &str) {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        out.push_str(text);
    } else {
        out.extend(text.chars().filter(|c| !c.is_control()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_line("> quoted"), "\\> quoted");
        assert_eq!(escape_line("   >> deep"), "   \\>> deep");
        assert_eq!(escape_line("--- a/src/lib.rs"), "\\--- a/src/lib.rs");
        assert_eq!(escape_line("\u{1c}> sneaky"), "\u{1c}\\> sneaky");
        assert_eq!(escape_line("\u{3000}---"), "\u{3000}\\---");
        assert_eq!(escape_line("a > b"), "a > b");
        assert_eq!(escape_line("-- two dashes"), "-- two dashes");
    }

    #[test]
    fn split_breaks_is_split_on_line_breaks() {
        for t in [
            "",
            "one",
            "a\n",
            "\n\nb\r\nc\x0b\x0cd\x1ce\x1de\x1ef\x1fg",
            "naïve\u{85}über\u{2028}日本語\u{2029}🚀\n",
            "\u{2028}",
        ] {
            let fast: Vec<&str> = split_breaks(t).collect();
            let slow: Vec<&str> = t.split(line_break).collect();
            assert_eq!(fast, slow, "{t:?}");
        }
    }

    #[test]
    fn user_messages() {
        assert_eq!(
            user_line("  one\n\n  two\r\nthree\u{2028}four  "),
            "one two three four"
        );
        let skill = "<skill name=\"review\" location=\"/p/SKILL.md\">\nReferences are relative to /p.\n\nBODY > x\n</skill>\n\nplease check src/";
        assert_eq!(user_line(skill), "[skill:review] please check src/");
        assert_eq!(
            user_line("<skill name=\"x\" location=\"l\">\nB\n</skill>"),
            "[skill:x]"
        );
        assert_eq!(
            user_line("<skillful> not a skill"),
            "<skillful> not a skill"
        );
        assert_eq!(
            user_lines("  why?\n\nfn main() {\n    x();\r\n> quoted\n---\n}  "),
            [
                "why?",
                "  fn main() {",
                "      x();",
                "  \\> quoted",
                "  \\---",
                "  }"
            ]
        );
        assert_eq!(user_lines(skill), ["[skill:review] please check src/"]);
        assert!(user_lines(" \n ").is_empty());
        assert!(is_bare_command("/mode"));
        assert!(!is_bare_command("/usr/bin/env"));
        assert!(!is_bare_command("/fix the bug"));
    }

    #[test]
    fn notes() {
        let n = |tool: &str, args: &[(&str, &str)]| ToolNote {
            tool: tool.into(),
            args: args
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        assert_eq!(
            tool_note(
                &n(
                    "bash",
                    &[("timeout", "5"), ("command", "cargo  test\n-p x")]
                ),
                200
            ),
            "[bash] cargo test -p x"
        );
        assert_eq!(
            tool_note(&n("edit", &[("oldText", "a"), ("path", "src/lib.rs")]), 200),
            "[edit] src/lib.rs"
        );
        assert_eq!(
            tool_note(&n("grep", &[("path", "src"), ("pattern", "fn main")]), 200),
            "[grep] fn main"
        );
        assert_eq!(tool_note(&n("", &[]), 200), "[tool]");
        let long = "x".repeat(500);
        let s = tool_note(&n("write", &[("content", &long)]), 20);
        assert_eq!(s.chars().count(), 20);
        assert!(s.ends_with('…') && s.starts_with("[write] xxx"));
    }
}
