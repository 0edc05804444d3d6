//! Byte spans inside JSON text (after `jsonc::strip`, so offsets match the original file): where
//! an object member's value starts and ends, where an object closes, and the text without one
//! member. Lets a tool rewrite one entry of a config file and keep every other byte, comments too.
//!
//! Why not `jsonc-parser`'s `cst` (tried against 0.34, #29): its edits re-format what they
//! touch, and the wiring promises the user's bytes back.
//! 1. `set_value` takes a structured value and writes it pretty-printed over several lines, so
//!    withdrawing cannot put the user's own one-line entry back as they wrote it: the file no
//!    longer equals `CUSTOM` in the integration test
//!    `edge::wire::a_customised_entry_is_kept_through_every_state_and_restored`.
//! 2. Removing the member in `{"mcp": {"mempalace": {}, // one⏎}}` drops the comment `// one`
//!    with it, and in `{"mcp": {"mempalace": {"a": 1}, "gh": {}}}` leaves `{ "gh"` (both in
//!    `a_member_goes_with_one_comma_and_every_comment_stays` below).
//! 3. An entry it appends is split and indented its own way, not put after the last comment as
//!    `edge::wire::withdrawing_where_there_was_no_entry_removes_mpts_and_invents_none` pins.

/// Where `path` (object keys from the root) is: the member's key start, its value's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub key_start: usize,
    pub value_start: usize,
    pub value_end: usize,
}

/// The member at `path`, if every step is an object holding that key.
pub fn find(text: &str, path: &[&str]) -> Option<Member> {
    let b = text.as_bytes();
    let mut at = skip_ws(b, 0);
    let mut found = None;
    for key in path {
        let m = member_of(b, at, key)?;
        at = m.value_start;
        found = Some(m);
    }
    found
}

/// The offset of the closing `}` of the object at `path` (empty path: the root), and whether
/// it has any members.
pub fn object_close(text: &str, path: &[&str]) -> Option<(usize, bool)> {
    let b = text.as_bytes();
    let start = match path {
        [] => skip_ws(b, 0),
        _ => find(text, path)?.value_start,
    };
    if b.get(start) != Some(&b'{') {
        return None;
    }
    let end = value_end(b, start)?;
    let inner = skip_ws(b, start + 1);
    Some((end - 1, inner < end - 1))
}

/// `text` without the member at `path` (`plain` is `jsonc::strip(text)`): its key, value and one
/// separating comma go; a comment beside it stays. `None` when there is no such member.
pub fn without_member(text: &str, plain: &str, path: &[&str]) -> Option<String> {
    let m = find(plain, path)?;
    without_span(text, plain, m.key_start, m.value_end)
}

/// `text` with `member` (`"key": value`) put last in the object whose `}` is at `close` (from
/// [`object_close`]): after the last value comes the separator, then whatever followed it (a
/// comment, a trailing comma), then the member, so [`without_member`] gives the same bytes back.
pub fn with_member(text: &str, plain: &str, close: usize, nonempty: bool, member: &str) -> String {
    let prev = plain[..close].trim_end();
    let kept = text[..close].trim_end().len();
    let trailing = super::jsonc::strip_comments(text)[prev.len()..kept].contains(',');
    let sep = if nonempty && !trailing { "," } else { "" };
    format!(
        "{}{sep}{}\n  {member}{}",
        &text[..prev.len()],
        &text[prev.len()..kept],
        &text[kept..]
    )
}

/// The spans of the elements of the array at `path`.
pub fn elements(text: &str, path: &[&str]) -> Option<Vec<(usize, usize)>> {
    let b = text.as_bytes();
    let start = find(text, path)?.value_start;
    if b.get(start) != Some(&b'[') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = skip_ws(b, start + 1);
    while b.get(i).is_some_and(|c| *c != b']') {
        let end = value_end(b, i)?;
        out.push((i, end));
        i = skip_ws(b, end);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    Some(out)
}

/// `text` with `value` put last in the array at `path` (`, value` right after the last element,
/// so [`without_element`] gives the same bytes back).
pub fn with_element(text: &str, plain: &str, path: &[&str], value: &str) -> Option<String> {
    let els = elements(plain, path)?;
    Some(match els.last() {
        Some(&(_, end)) => format!("{}, {value}{}", &text[..end], &text[end..]),
        None => {
            let open = find(plain, path)?.value_start;
            format!("{}{value}{}", &text[..open + 1], &text[open + 1..])
        }
    })
}

/// `text` without the array element spanning `span` and one separating comma.
pub fn without_element(text: &str, plain: &str, span: (usize, usize)) -> Option<String> {
    without_span(text, plain, span.0, span.1)
}

/// `text` without `start..end` (a member or an element) and one separating comma; a comment
/// beside it stays.
fn without_span(text: &str, plain: &str, start: usize, end: usize) -> Option<String> {
    let b = plain.as_bytes();
    let m = Member {
        key_start: start,
        value_start: start,
        value_end: end,
    };
    let blank = |from: usize, to: usize| text[from..to].trim().is_empty();
    let after = skip_ws(b, m.value_end);
    if b.get(after) == Some(&b',') {
        // Another member follows: the member, its comma and the space up to the next key go.
        let next = skip_ws(b, after + 1);
        let next = if blank(after + 1, next) {
            next
        } else {
            after + 1
        };
        return Some(format!("{}{}", &text[..m.key_start], &text[next..]));
    }
    // The last member: the comma that separated it goes (a comment after that comma stays), or,
    // as the only member, a trailing comma after it (`{,}` is not JSON).
    let kept_before = text[..m.key_start].trim_end().len();
    let before = b[..m.key_start]
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())?;
    let rest = &text[m.value_end..];
    Some(match b[before] {
        b',' => format!(
            "{}{}{rest}",
            &text[..before],
            &text[before + 1..kept_before]
        ),
        _ => {
            let rest = rest.trim_start().strip_prefix(',').unwrap_or(rest);
            format!("{}{rest}", &text[..kept_before])
        }
    })
}

fn member_of(b: &[u8], obj: usize, key: &str) -> Option<Member> {
    if b.get(obj) != Some(&b'{') {
        return None;
    }
    let mut i = skip_ws(b, obj + 1);
    while b.get(i) == Some(&b'"') {
        let key_start = i;
        let key_end = string_end(b, i)?;
        let name: String = serde_json::from_slice(&b[key_start..key_end]).ok()?;
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(b, i + 1);
        let value_end = value_end(b, value_start)?;
        if name == key {
            return Some(Member {
                key_start,
                value_start,
                value_end,
            });
        }
        i = skip_ws(b, value_end);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    None
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// One past the closing quote of the string starting at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// One past the end of the value starting at `i`.
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') && !b[j].is_ascii_whitespace()
            {
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_members_and_closes() {
        let t = r#"{ "a": 1, "mcp": { "x": {"command": ["a}", "b"]}, "mempalace": {"type": "local"} }, "z": "q" }"#;
        let m = find(t, &["mcp", "mempalace"]).unwrap();
        assert_eq!(&t[m.value_start..m.value_end], r#"{"type": "local"}"#);
        assert_eq!(&t[m.key_start..m.key_start + 11], r#""mempalace""#);
        assert!(find(t, &["mcp", "nope"]).is_none());
        let (close, nonempty) = object_close(t, &["mcp"]).unwrap();
        assert_eq!(&t[close..close + 1], "}");
        assert!(nonempty);
        let (root_close, _) = object_close(t, &[]).unwrap();
        assert_eq!(root_close, t.len() - 1);
    }

    fn without(text: &str) -> String {
        let plain = crate::harness::jsonc::strip(text);
        without_member(text, &plain, &["mcp", "mempalace"]).unwrap()
    }

    #[test]
    fn a_member_goes_with_one_comma_and_every_comment_stays() {
        assert_eq!(
            without(r#"{"mcp": {"mempalace": {"a": 1}, "gh": {}}}"#),
            r#"{"mcp": {"gh": {}}}"#
        );
        assert_eq!(
            without(
                "{\"mcp\": {\"gh\": {}, /* keep */\n  \"mempalace\": {\"a\": [1, 2]},\n  },\n}"
            ),
            "{\"mcp\": {\"gh\": {} /* keep */,\n  },\n}"
        );
        assert_eq!(
            without("{\"mcp\": {\"gh\": {},\n    \"mempalace\": {}\n  }}"),
            "{\"mcp\": {\"gh\": {}\n  }}"
        );
        assert_eq!(
            without("{\"mcp\": {\n  \"mempalace\": {\"x\": \"}\"}}}"),
            "{\"mcp\": {}}"
        );
        assert_eq!(
            without("{\"mcp\": {\"mempalace\": {}, // one\n}}"),
            "{\"mcp\": { // one\n}}"
        );
        let plain = crate::harness::jsonc::strip("{\"mcp\": {}}");
        assert_eq!(
            without_member("{\"mcp\": {}}", &plain, &["mcp", "mempalace"]),
            None
        );
    }
}
