//! `dormant_unless` predicates: parse, evaluate against local files, and explain the verdict.
//! Dormancy must be proven: anything that cannot be evaluated leaves the ask owed.

use std::io::{self, Read};
use std::path::Path;
use std::time::UNIX_EPOCH;

use serde::Serialize;
use serde_json::{Map, Value};

use mpt_base::time::{format_iso_utc, parse_iso_utc};

/// More conditions than this and the whole predicate is unevaluable (the seed's limit).
pub const MAX_CONDITIONS: usize = 8;
/// A `json_field` file larger than this is unreadable for our purpose.
pub const MAX_JSON_BYTES: u64 = 4 << 20;

/// The only file access dormancy needs; tests substitute a fake.
pub trait Fs {
    /// Modification time in whole seconds since the Unix epoch (UTC), floored.
    fn mtime_secs(&self, path: &Path) -> io::Result<i64>;
    /// The whole content of a regular file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
}

/// [`Fs`] over `std::fs`. Follows symlinks; refuses non-regular files (a FIFO or `/dev/zero`
/// would block or never end) and files over [`MAX_JSON_BYTES`].
#[derive(Debug, Default, Clone, Copy)]
pub struct StdFs;

impl Fs for StdFs {
    fn mtime_secs(&self, path: &Path) -> io::Result<i64> {
        let modified = std::fs::metadata(path)?.modified()?;
        Ok(match modified.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            Err(e) => {
                let d = e.duration();
                let whole = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
                -whole - i64::from(d.subsec_nanos() > 0)
            }
        })
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let meta = std::fs::metadata(path)?;
        if !meta.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        if meta.len() > MAX_JSON_BYTES {
            return Err(io::Error::other("file too large"));
        }
        let mut buf = Vec::new();
        std::fs::File::open(path)?
            .take(MAX_JSON_BYTES + 1)
            .read_to_end(&mut buf)?;
        if buf.len() as u64 > MAX_JSON_BYTES {
            return Err(io::Error::other("file too large"));
        }
        Ok(buf)
    }
}

/// Verdict on an ask's `dormant_unless`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DormancyState {
    /// Every condition was evaluated and matches its baseline: not announced.
    Dormant,
    /// Every condition was evaluated and at least one moved: owed.
    Live,
    /// Something could not be evaluated: owed, and the reason says what.
    Unevaluable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dormancy {
    pub state: DormancyState,
    pub reason: String,
}

impl Dormancy {
    fn new(state: DormancyState, reason: impl Into<String>) -> Self {
        Dormancy {
            state,
            reason: reason.into(),
        }
    }
}

enum Condition<'a> {
    FileMtime {
        path: &'a str,
        baseline: i64,
    },
    JsonField {
        path: &'a str,
        field: &'a str,
        baseline: String,
    },
}

enum Outcome {
    Matches(String),
    Differs(String),
    Unevaluable(String),
}

/// Scalars compared as strings, so a manifest's `3` matches a baseline of `"3"`.
/// `null`, objects and arrays have no string form here.
fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

fn parse_condition(v: &Value) -> Result<Condition<'_>, String> {
    let obj = v.as_object().ok_or("not an object")?;
    let kind = obj
        .get("kind")
        .and_then(Value::as_str)
        .ok_or("no string `kind`")?;
    let allowed: &[&str] = match kind {
        "file_mtime" => &["kind", "path", "baseline"],
        "json_field" => &["kind", "path", "field", "baseline"],
        other => return Err(format!("unknown kind {other:?}")),
    };
    if let Some(extra) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("{kind}: unknown key {extra:?}"));
    }
    let path = obj
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{kind}: no string `path`"))?;
    if !Path::new(path).is_absolute() {
        return Err(format!("{kind}: relative path {path:?}"));
    }
    let baseline = obj
        .get("baseline")
        .ok_or_else(|| format!("{kind} {path}: no `baseline`"))?;
    if kind == "file_mtime" {
        let secs = baseline.as_str().and_then(parse_iso_utc).ok_or_else(|| {
            format!("file_mtime {path}: baseline {baseline} is not an ISO-8601 UTC time")
        })?;
        return Ok(Condition::FileMtime {
            path,
            baseline: secs,
        });
    }
    let field = obj
        .get("field")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("json_field {path}: no string `field`"))?;
    if field.split('.').any(str::is_empty) {
        return Err(format!("json_field {path}: malformed field {field:?}"));
    }
    let baseline = scalar_string(baseline).ok_or_else(|| {
        format!("json_field {path}:{field}: baseline {baseline} is not a string, number or bool")
    })?;
    Ok(Condition::JsonField {
        path,
        field,
        baseline,
    })
}

fn io_reason(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::NotFound {
        "file missing".to_owned()
    } else {
        format!("file unreadable ({e})")
    }
}

/// Walks a dotted path through objects (by key) and arrays (by decimal index).
fn lookup<'v>(mut v: &'v Value, field: &str) -> Option<&'v Value> {
    for seg in field.split('.') {
        v = match v {
            Value::Object(m) => m.get(seg)?,
            Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

fn evaluate_one(c: &Condition<'_>, fs: &dyn Fs) -> Outcome {
    match c {
        Condition::FileMtime { path, baseline } => {
            let want = format_iso_utc(*baseline);
            match fs.mtime_secs(Path::new(path)) {
                Err(e) => Outcome::Unevaluable(format!("file_mtime {path}: {}", io_reason(&e))),
                Ok(m) if m == *baseline => Outcome::Matches(format!("file_mtime {path} = {want}")),
                Ok(m) => Outcome::Differs(format!(
                    "file_mtime {path} is {}, baseline {want}",
                    format_iso_utc(m)
                )),
            }
        }
        Condition::JsonField {
            path,
            field,
            baseline,
        } => {
            let at = format!("json_field {path}:{field}");
            let bytes = match fs.read(Path::new(path)) {
                Ok(b) => b,
                Err(e) => return Outcome::Unevaluable(format!("{at}: {}", io_reason(&e))),
            };
            let doc: Value = match serde_json::from_slice(&bytes) {
                Ok(d) => d,
                Err(_) => return Outcome::Unevaluable(format!("{at}: file is not valid JSON")),
            };
            match lookup(&doc, field) {
                None => Outcome::Unevaluable(format!("{at}: field vanished")),
                Some(v) => match scalar_string(v) {
                    None => Outcome::Unevaluable(format!("{at}: value {v} is not a scalar")),
                    Some(s) if s == *baseline => Outcome::Matches(format!("{at} = {s:?}")),
                    Some(s) => Outcome::Differs(format!("{at} is {s:?}, baseline {baseline:?}")),
                },
            }
        }
    }
}

/// Evaluates `metadata.dormant_unless`. `None` when the ask declares none (absent or `null`):
/// it behaves exactly as an ask did before dormancy existed.
pub fn evaluate(metadata: Option<&Map<String, Value>>, fs: &dyn Fs) -> Option<Dormancy> {
    use DormancyState::{Dormant, Live, Unevaluable};
    let spec = metadata?.get("dormant_unless")?;
    let list = match spec {
        Value::Null => return None,
        Value::Array(list) => list,
        _ => return Some(Dormancy::new(Unevaluable, "dormant_unless is not a list")),
    };
    if list.is_empty() {
        return Some(Dormancy::new(
            Unevaluable,
            "dormant_unless is empty: nothing proves dormancy",
        ));
    }
    if list.len() > MAX_CONDITIONS {
        return Some(Dormancy::new(
            Unevaluable,
            format!(
                "dormant_unless has {} conditions, more than {MAX_CONDITIONS}",
                list.len()
            ),
        ));
    }
    // Parse everything before touching the filesystem: a malformed predicate reads nothing.
    let mut conditions = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        match parse_condition(v) {
            Ok(c) => conditions.push(c),
            Err(why) => {
                return Some(Dormancy::new(
                    Unevaluable,
                    format!("condition {}: {why}", i + 1),
                ));
            }
        }
    }
    let (mut matches, mut differs, mut broken) = (Vec::new(), Vec::new(), Vec::new());
    for (i, c) in conditions.iter().enumerate() {
        match evaluate_one(c, fs) {
            Outcome::Matches(s) => matches.push(s),
            Outcome::Differs(s) => differs.push(format!("condition {}: {s}", i + 1)),
            Outcome::Unevaluable(s) => broken.push(format!("condition {}: {s}", i + 1)),
        }
    }
    Some(if !broken.is_empty() {
        Dormancy::new(Unevaluable, broken.join("; "))
    } else if !differs.is_empty() {
        Dormancy::new(Live, differs.join("; "))
    } else {
        Dormancy::new(Dormant, format!("waiting: {}", matches.join("; ")))
    })
}

#[cfg(test)]
mod tests;
