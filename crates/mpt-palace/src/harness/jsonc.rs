//! JSON with comments and trailing commas (opencode.jsonc) read as plain JSON: comments and
//! trailing commas are blanked out outside strings, byte offsets (and so line numbers) kept.
//!
//! Kept rather than `jsonc-parser` (#29): the spans `jsonspan` edits by are offsets into this
//! blanked text, which is the file's own bytes; why the crate's CST edits do not fit is there.

/// Plain JSON text for `src`: `//` and `/* */` comments and trailing commas replaced by spaces.
pub fn strip(src: &str) -> String {
    let no_comments = strip_comments(src).into_bytes();
    let no_commas = blank(&no_comments, |b, i, out| {
        if b[i] == b','
            && b[i + 1..]
                .iter()
                .find(|c| !c.is_ascii_whitespace())
                .is_some_and(|c| *c == b'}' || *c == b']')
        {
            out[i] = b' ';
        }
        0
    });
    String::from_utf8(no_commas).unwrap_or_else(|_| src.to_string())
}

/// `src` with only its comments replaced by spaces (trailing commas kept), offsets kept.
pub fn strip_comments(src: &str) -> String {
    let no_comments = blank(src.as_bytes(), |b, i, out| {
        if b[i] != b'/' {
            return 0;
        }
        let end = match b.get(i + 1) {
            Some(b'/') => (i..b.len()).find(|&j| b[j] == b'\n').unwrap_or(b.len()),
            Some(b'*') => (i + 2..b.len().saturating_sub(1))
                .find(|&j| &b[j..j + 2] == b"*/")
                .map_or(b.len(), |j| j + 2),
            _ => return 0,
        };
        for o in &mut out[i..end] {
            if *o != b'\n' {
                *o = b' ';
            }
        }
        end - i
    });
    String::from_utf8(no_comments).unwrap_or_else(|_| src.to_string())
}

/// Walks `b` outside string literals; `f` may blank bytes in the output and returns how many
/// input bytes it consumed (0 = just this one, untouched).
fn blank(b: &[u8], mut f: impl FnMut(&[u8], usize, &mut Vec<u8>) -> usize) -> Vec<u8> {
    let mut out = b.to_vec();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            match c {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
            i += 1;
            continue;
        }
        let used = f(b, i, &mut out);
        i += used.max(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_go_strings_stay() {
        let src = "{\n  // a comment\n  \"a\": \"http://x//y\", /* block */\n  \"b\": [1, 2, // two\n  ],\n  \"c\": \"a,]\",\n}\n";
        let v: serde_json::Value = serde_json::from_str(&strip(src)).unwrap();
        assert_eq!(v["a"], "http://x//y");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
        assert_eq!(v["c"], "a,]");
        assert_eq!(strip(src).lines().count(), src.lines().count());
    }
}
