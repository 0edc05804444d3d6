//! Line-level text rules the miner imposes on a transcript: escaping lines it would misread,
//! keeping a user message's lines inside its turn, shortening skill expansions and tool calls.

use super::session::ToolNote;
use std::borrow::Cow;

/// Characters Python's `str.strip()` removes (`str.isspace`): Unicode White_Space plus `\x1c`-`\x1f`.
pub fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Characters treated as line breaks in message text (`split_breaks` is the scan the feed uses;
/// this is the rule it is tested against).
#[cfg(test)]
fn line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\x0b' | '\x0c' | '\x1c'..='\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// `text.split(line_break)` by a byte scan, 8 bytes a step: every line break's UTF-8 starts with a
/// byte below 0x20 or with 0xC2 (U+0085) or 0xE2 (U+2028, U+2029); only those bytes are looked at
/// closer. The same pieces as the char split.
pub fn split_breaks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        match find_break(t.as_bytes()) {
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

const ONES: u64 = u64::MAX / 255;

/// Whether a byte of `w` is zero: the lowest flagged byte is exact (Mycroft's test).
fn zero_byte(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & (ONES << 7)
}

/// The first line break in `b`: its index and length in bytes.
fn find_break(b: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    loop {
        // The next byte that may start a break.
        while i + 8 <= b.len() {
            let w = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
            let low = w.wrapping_sub(ONES * 0x20) & !w & (ONES << 7);
            let hit = low | zero_byte(w ^ (ONES * 0xC2)) | zero_byte(w ^ (ONES * 0xE2));
            if hit != 0 {
                i += hit.trailing_zeros() as usize / 8;
                break;
            }
            i += 8;
        }
        while i < b.len() && !(b[i] < 0x20 || b[i] == 0xC2 || b[i] == 0xE2) {
            i += 1;
        }
        match b.get(i)? {
            b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1e => return Some((i, 1)),
            0xC2 if b.get(i + 1) == Some(&0x85) => return Some((i, 2)),
            0xE2 if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xA8 | 0xA9)) => {
                return Some((i, 3));
            }
            _ => i += 1,
        }
    }
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
    match escape_at(line) {
        Some(at) => {
            let mut out = String::with_capacity(line.len() + 1);
            out.push_str(&line[..at]);
            out.push('\\');
            out.push_str(&line[at..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(line),
    }
}

/// Where [`escape_line`] puts its `\`, if the line needs one.
fn escape_at(line: &str) -> Option<usize> {
    let rest = line.trim_start_matches(py_space);
    (rest.starts_with('>') || rest.starts_with("---")).then(|| line.len() - rest.len())
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
            // `escape_line` of the indented line, made in one allocation.
            let mut line = String::with_capacity(USER_CONTINUATION.len() + part.len() + 1);
            line.push_str(USER_CONTINUATION);
            line.push_str(part);
            if let Some(at) = escape_at(&line) {
                line.insert(at, '\\');
            }
            out.push(line);
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
    // The first non-blank argument under the most preferred key, else the first non-blank one:
    // one pass over the arguments.
    let mut best: Option<(usize, &str)> = None;
    for (key, v) in &note.args {
        if v.trim().is_empty() {
            continue;
        }
        let rank = NOTE_KEYS
            .iter()
            .position(|k| *k == key.as_str())
            .unwrap_or(NOTE_KEYS.len());
        if best.is_none_or(|(r, _)| rank < r) {
            best = Some((rank, v));
        }
    }
    let arg = best.map_or("", |(_, v)| v);
    let mut s = String::with_capacity(tool.len() + arg.len() + 3);
    s.push('[');
    push_visible(&mut s, tool);
    s.push(']');
    for word in arg.split(py_space).filter(|w| !w.is_empty()) {
        s.push(' ');
        push_visible(&mut s, word);
    }
    if s.len() <= max {
        // No more chars than bytes: nothing to cut.
        return s;
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
            "tabs\tand\x1f units, no break at all in a line longer than eight bytes",
            "near-misses: \u{a0} \u{c2} \u{2027} \u{202a} \u{2000}\u{20ac} \u{e2}\u{80}\u{a8} and one\u{2029}",
            "\u{85}\u{85}x\u{2028}\u{2029}\u{2028}",
        ] {
            let fast: Vec<&str> = split_breaks(t).collect();
            let slow: Vec<&str> = t.split(line_break).collect();
            assert_eq!(fast, slow, "{t:?}");
        }
        // Every break and near-miss at every offset of a line longer than a step of the scan.
        let pieces = [
            "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\u{85}", "\u{2028}", "\u{2029}",
            "\t", "\x1f", "\u{a0}", "\u{2027}", "\u{202f}", "é", "日",
        ];
        for a in pieces {
            for b in pieces {
                for at in 0..20 {
                    let t = format!("{}{a}{}{b}x", "w".repeat(at), "v".repeat(at % 9));
                    let fast: Vec<&str> = split_breaks(&t).collect();
                    let slow: Vec<&str> = t.split(line_break).collect();
                    assert_eq!(fast, slow, "{t:?}");
                }
            }
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
        // The first non-blank argument under the most preferred key, else the first non-blank.
        assert_eq!(
            tool_note(
                &n(
                    "x",
                    &[
                        ("a", " "),
                        ("b", "first"),
                        ("path", ""),
                        ("path", "p1"),
                        ("query", "q"),
                        ("path", "p2")
                    ]
                ),
                200
            ),
            "[x] q"
        );
        assert_eq!(
            tool_note(&n("x", &[("a", " "), ("b", "first"), ("c", "second")]), 200),
            "[x] first"
        );
        // A note exactly at its length is kept whole; one char more is cut.
        assert_eq!(tool_note(&n("ab", &[("c", "de")]), 7), "[ab] de");
        assert_eq!(tool_note(&n("ab", &[("c", "dé")]), 7), "[ab] dé");
        assert_eq!(tool_note(&n("ab", &[("c", "déf")]), 7), "[ab] d…");
        assert_eq!(tool_note(&n("ab", &[("c", "def")]), 7), "[ab] d…");
        let long = "x".repeat(500);
        let s = tool_note(&n("write", &[("content", &long)]), 20);
        assert_eq!(s.chars().count(), 20);
        assert!(s.ends_with('…') && s.starts_with("[write] xxx"));
    }
}
