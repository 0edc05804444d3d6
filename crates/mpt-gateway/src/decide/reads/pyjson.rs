//! JSON as MemPalace's `serve` writes it (Python's `json.dumps`, `ensure_ascii=False`): the
//! envelope with `", "` and `": "`, a tool's text with `indent=2`; a reply the gateway rewrites
//! is then byte for byte what `serve` would have sent.

use std::io;

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};

/// Python's default separators, on one line.
struct Compact;

impl Formatter for Compact {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

/// `json.dumps(v, ensure_ascii=False)`.
pub fn compact(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = v.serialize(&mut Serializer::with_formatter(&mut out, Compact));
    out
}

/// `json.dumps(v, indent=2, ensure_ascii=False)`.
pub fn indented(v: &Value) -> String {
    let mut out = Vec::new();
    let _ = v.serialize(&mut Serializer::with_formatter(
        &mut out,
        PrettyFormatter::with_indent(b"  "),
    ));
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_spacing_and_indent() {
        let v: Value =
            serde_json::from_str(r#"{"b": 1.50, "a": [1, {}], "é": "x\n\u0001"}"#).unwrap();
        assert_eq!(
            String::from_utf8(compact(&v)).unwrap(),
            r#"{"b": 1.50, "a": [1, {}], "é": "x\n\u0001"}"#
        );
        assert_eq!(
            indented(&json!({"error": "Drawer not found: d", "l": [], "m": [1]})),
            "{\n  \"error\": \"Drawer not found: d\",\n  \"l\": [],\n  \"m\": [\n    1\n  ]\n}"
        );
    }
}
