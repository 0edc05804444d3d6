//! Lines of a JSONL file: split with their terminators noted, and parsed despite damage inside a
//! string (a lone UTF-16 surrogate escape, invalid UTF-8), which costs a character, not the line.

/// Parse one line. On failure, retry with each lone UTF-16 surrogate escape replaced by U+FFFD
/// and any invalid UTF-8 replaced likewise: both are damage inside one string, not a broken line.
pub(super) fn parse_json<T: serde::de::DeserializeOwned>(line: &[u8]) -> Option<T> {
    if let Ok(v) = serde_json::from_slice(line) {
        return Some(v);
    }
    let repaired = replace_lone_surrogates(line);
    let line = repaired.as_deref().unwrap_or(line);
    if repaired.is_some()
        && let Ok(v) = serde_json::from_slice(line)
    {
        return Some(v);
    }
    match std::str::from_utf8(line) {
        Err(_) => serde_json::from_str(&String::from_utf8_lossy(line)).ok(),
        Ok(_) => None,
    }
}

/// The line with every lone surrogate escape (`\ud83d` without its low half, as Node's
/// `JSON.stringify` writes for a string cut mid-emoji, or a stray low half) replaced by `\ufffd`;
/// `None` when there is none. Escapes only occur inside strings, so no string tracking is needed.
fn replace_lone_surrogates(line: &[u8]) -> Option<Vec<u8>> {
    let unit_at = |i: usize| -> Option<u16> {
        if line.get(i) != Some(&b'\\') || line.get(i + 1) != Some(&b'u') {
            return None;
        }
        let hex = std::str::from_utf8(line.get(i + 2..i + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut out = Vec::new();
    let (mut i, mut copied) = (0, 0);
    while let Some(at) = line
        .get(i..)
        .and_then(|r| r.iter().position(|&c| c == b'\\'))
    {
        let at = at + i;
        let Some(unit) = unit_at(at) else {
            i = at + 2; // any other escape: two bytes, so `\\u` is never read as `\u`
            continue;
        };
        let paired = (0xD800..=0xDBFF).contains(&unit)
            && unit_at(at + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low));
        if paired {
            i = at + 12;
        } else if (0xD800..=0xDFFF).contains(&unit) {
            out.extend_from_slice(&line[copied..at]);
            out.extend_from_slice(b"\\ufffd");
            i = at + 6;
            copied = i;
        } else {
            i = at + 6;
        }
    }
    if copied == 0 {
        return None;
    }
    out.extend_from_slice(&line[copied..]);
    Some(out)
}

/// Lines with their terminator stripped (`\n` or `\r\n`), flagged with whether they were terminated.
pub(super) fn split_lines(bytes: &[u8]) -> impl Iterator<Item = (&[u8], bool)> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, terminated) = match rest.iter().position(|&c| c == b'\n') {
            Some(i) => {
                let line = &rest[..i];
                rest = &rest[i + 1..];
                (line, true)
            }
            None => (std::mem::take(&mut rest), false),
        };
        Some((line.strip_suffix(b"\r").unwrap_or(line), terminated))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::{Block, RawEntry};

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let fix =
            |s: &str| replace_lone_surrogates(s.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(fix(r#""cut \ud83d""#).as_deref(), Some(r#""cut \ufffd""#));
        assert_eq!(
            fix(r#""\ude80 x \ud83d\ude80""#).as_deref(),
            Some(r#""\ufffd x \ud83d\ude80""#)
        );
        assert_eq!(
            fix(r#""\ud83d\ud83d\ude80""#).as_deref(),
            Some(r#""\ufffd\ud83d\ude80""#)
        );
        assert_eq!(fix(r#""\\ud83d is text, \ud83d\ude80 a pair""#), None);
        assert_eq!(fix(r#""trailing \"#), None);
        let line =
            br#"{"type":"message","id":"u1","message":{"role":"user","content":"rocket \ud83d"}}"#;
        assert!(
            serde_json::from_slice::<RawEntry>(line).is_err(),
            "serde_json refuses it"
        );
        let e: RawEntry = parse_json(line).unwrap();
        assert_eq!(
            e.message.unwrap().content,
            vec![Block::text("rocket \u{fffd}".into())]
        );
    }
}
