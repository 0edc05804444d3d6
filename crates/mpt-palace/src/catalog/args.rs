//! The arguments each tool takes and their JSON types, as MemPalace 3.11 declares them (its
//! `tools/list`, committed beside this file) plus what its handlers read beyond the schema.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde_json::Value;

use super::py_space;

/// MemPalace 3.11's `tools/list` reply: every tool's input schema.
pub const TOOLS_LIST: &str = include_str!("tools-list-3.11.json");

/// A transport argument in no schema that `serve` accepts and drops before the handler
/// (`protocol.py`: "wait_for_previous is an internal transport kwarg").
pub const TRANSPORT_ONLY: &str = "wait_for_previous";

/// Keys a handler reads beyond its declared schema: (tool, the object's pointer, key, type).
/// `tool_checkpoint` reads `diary.get("entry") or diary.get("content")`.
const HANDLER_ALIASES: &[(&str, &str, &str, Kind)] =
    &[("checkpoint", "/diary", "content", Kind::String)];

/// An argument's JSON type.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    String,
    /// `serve` coerces a value that is not a Python int with `int(value)` (`protocol.py`).
    Integer,
    /// `serve` coerces a value that is not a Python number with `float(value)`.
    Number,
    /// Never coerced: a handler tests it for truth.
    Boolean,
    /// An object whose keys are declared (a checkpoint's `diary`, each of its `items`).
    Object(Shape),
    /// An object stored as it is (`metadata`).
    FreeObject,
    Array(Box<Kind>),
}

/// The keys an object (or a tool's arguments) may carry, each with its type.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Shape {
    pub fields: BTreeMap<String, Kind>,
}

impl Shape {
    pub fn get(&self, key: &str) -> Option<&Kind> {
        self.fields.get(key)
    }
}

static SHAPES: LazyLock<BTreeMap<String, Shape>> = LazyLock::new(|| {
    let list: Value = serde_json::from_str(TOOLS_LIST).expect("the committed tools/list parses");
    let mut out = BTreeMap::new();
    for t in list["result"]["tools"].as_array().into_iter().flatten() {
        let name = super::bare(t["name"].as_str().unwrap_or_default()).to_string();
        // A tool's arguments are an object with declared keys, none declared when it takes none.
        let mut shape = shape_of(&t["inputSchema"]);
        for (tool, at, key, k) in HANDLER_ALIASES {
            if *tool == name
                && let Some(Kind::Object(inner)) = pointer_mut(&mut shape, at)
            {
                inner.fields.insert(key.to_string(), k.clone());
            }
        }
        out.insert(name, shape);
    }
    out
});

/// The arguments `tool` (bare or full name) takes; `None` for a tool 3.11 does not have.
pub fn shape(tool: &str) -> Option<&'static Shape> {
    SHAPES.get(super::bare(tool))
}

fn kind(schema: &Value) -> Kind {
    match schema["type"].as_str() {
        Some("integer") => Kind::Integer,
        Some("number") => Kind::Number,
        Some("boolean") => Kind::Boolean,
        Some("array") => Kind::Array(Box::new(kind(&schema["items"]))),
        Some("object") if schema.get("properties").is_some() => Kind::Object(shape_of(schema)),
        Some("object") => Kind::FreeObject,
        _ => Kind::String,
    }
}

fn shape_of(schema: &Value) -> Shape {
    let props = schema["properties"].as_object().into_iter().flatten();
    Shape {
        fields: props.map(|(k, v)| (k.clone(), kind(v))).collect(),
    }
}

fn pointer_mut<'a>(shape: &'a mut Shape, at: &str) -> Option<&'a mut Kind> {
    let key = at.strip_prefix('/')?;
    shape.fields.get_mut(key)
}

/// The integer `serve` hands the tool for `v` (`int(v)` unless already an int; a bool is an int
/// to Python and acts as 0 or 1), or `None` when the gateway will not judge it: Python would
/// refuse it, or could read it another way than this does (digits beyond ASCII, a float beyond
/// 2^53, an integer beyond 64 bits).
pub fn py_int(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Some(i),
            (None, Some(f)) if f.is_finite() && f.abs() < 9_007_199_254_740_992.0 => {
                Some(f.trunc() as i64)
            }
            _ => None,
        },
        Value::String(s) => {
            // `int()` strips Python's whitespace but for `\x1c`-`\x1f`, which `str.strip()`
            // takes (the differential test found it): those make the string no integer.
            let s = s.trim_matches(|c| py_space(c) && !matches!(c, '\x1c'..='\x1f'));
            let (negative, digits) = match s.as_bytes().first() {
                Some(b'-') => (true, &s[1..]),
                Some(b'+') => (false, &s[1..]),
                _ => (false, s),
            };
            // Python allows one `_` between digits: `1_000`, never `_1`, `1_` or `1__0`.
            let groups_ok = !digits.is_empty()
                && digits
                    .split('_')
                    .all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()));
            if !groups_ok {
                return None;
            }
            let n: i64 = digits.replace('_', "").parse().ok()?;
            Some(if negative { -n } else { n })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_tool_has_its_declared_arguments_and_the_handler_aliases() {
        assert_eq!(shape("mempalace_status"), Some(&Shape::default()));
        let search = shape("search").unwrap();
        assert_eq!(search.get("limit"), Some(&Kind::Integer));
        assert_eq!(search.get("cli_compatible"), Some(&Kind::Boolean));
        assert_eq!(search.get("max_distance"), Some(&Kind::Number));
        assert_eq!(
            search.get("min_similarity"),
            None,
            "in no schema: refused by serve"
        );
        let Some(Kind::Object(diary)) = shape("checkpoint").unwrap().get("diary") else {
            panic!("a checkpoint's diary is shaped");
        };
        assert_eq!(
            diary.get("content"),
            Some(&Kind::String),
            "the handler's alias"
        );
        let Some(Kind::Array(item)) = shape("checkpoint").unwrap().get("items") else {
            panic!("items");
        };
        let Kind::Object(item) = item.as_ref() else {
            panic!("each item is shaped");
        };
        assert_eq!(
            item.fields.keys().collect::<Vec<_>>(),
            ["content", "room", "wing"]
        );
        assert_eq!(
            shape("event_append").unwrap().get("metadata"),
            Some(&Kind::FreeObject)
        );
        assert_eq!(shape("brand_new"), None);
    }

    #[test]
    fn integers_are_read_as_python_reads_them_or_not_at_all() {
        for (v, want) in [
            (json!(7), Some(7)),
            (json!(true), Some(1)),
            (json!(false), Some(0)),
            (json!(1.9), Some(1)),
            (json!(-1.9), Some(-1)),
            (json!(" 12\u{3000}"), Some(12)),
            (json!(" 12\x1c"), None),
            (json!("+3"), Some(3)),
            (json!("-0"), Some(0)),
            (json!("1_000"), Some(1000)),
            (json!("0012"), Some(12)),
            (json!("1__0"), None),
            (json!("_1"), None),
            (json!("1_"), None),
            (json!("\u{663}"), None),
            (json!("0x10"), None),
            (json!("1.0"), None),
            (json!(""), None),
            (json!("99999999999999999999"), None),
            (json!(1e300), None),
            (json!([1]), None),
            (json!({}), None),
            (Value::Null, None),
        ] {
            assert_eq!(py_int(&v), want, "{v}");
        }
    }
}
