//! Tests for `dormant_unless` against a fake filesystem: every arm positive and negative and
//! every unevaluable case (real temporary files are in `tests/real.rs`).

use std::cell::Cell;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::DormancyState::{Dormant, Live, Unevaluable};
use super::{Dormancy, DormancyState, Fs, StdFs, evaluate};

const BASE: &str = "2026-09-22T18:12:49Z";
const BASE_SECS: i64 = 1_790_100_769;

#[derive(Default)]
struct FakeFs {
    mtimes: HashMap<PathBuf, i64>,
    files: HashMap<PathBuf, Vec<u8>>,
    denied: Vec<PathBuf>,
    calls: Cell<usize>,
}

impl FakeFs {
    fn new() -> Self {
        let mut fs = FakeFs::default();
        fs.mtimes.insert("/etc/hostname".into(), BASE_SECS);
        let manifest = json!({
            "release_tag": "v1.9.4",
            "build": {"number": 3, "ok": true, "nothing": null, "tags": ["a", "b"]}
        });
        fs.files.insert(
            "/etc/pi-devbox/build-manifest.json".into(),
            manifest.to_string().into_bytes(),
        );
        fs.files
            .insert("/etc/broken.json".into(), b"{not json".to_vec());
        fs.denied.push("/root/secret.json".into());
        fs
    }
}

impl Fs for FakeFs {
    fn mtime_secs(&self, path: &Path) -> io::Result<i64> {
        self.calls.set(self.calls.get() + 1);
        if self.denied.iter().any(|p| p == path) {
            return Err(io::ErrorKind::PermissionDenied.into());
        }
        self.mtimes
            .get(path)
            .copied()
            .ok_or_else(|| io::ErrorKind::NotFound.into())
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.calls.set(self.calls.get() + 1);
        if self.denied.iter().any(|p| p == path) {
            return Err(io::ErrorKind::PermissionDenied.into());
        }
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| io::ErrorKind::NotFound.into())
    }
}

fn eval_with(fs: &dyn Fs, spec: Value) -> Option<Dormancy> {
    let meta = json!({ "dormant_unless": spec });
    evaluate(meta.as_object(), fs)
}

fn mtime(path: &str, baseline: Value) -> Value {
    json!({"kind": "file_mtime", "path": path, "baseline": baseline})
}

fn field(path: &str, field: &str, baseline: Value) -> Value {
    json!({"kind": "json_field", "path": path, "field": field, "baseline": baseline})
}

const MANIFEST: &str = "/etc/pi-devbox/build-manifest.json";

#[test]
fn table() {
    let fs = FakeFs::new();
    let rows: Vec<(&str, Value, DormancyState, &str)> = vec![
        // file_mtime
        (
            "mtime equal",
            json!([mtime("/etc/hostname", json!(BASE))]),
            Dormant,
            "waiting: file_mtime /etc/hostname = 2026-09-22T18:12:49Z",
        ),
        (
            "mtime equal, fractional baseline floored",
            json!([mtime("/etc/hostname", json!("2026-09-22T18:12:49.730Z"))]),
            Dormant,
            "waiting",
        ),
        (
            "mtime equal, offset baseline",
            json!([mtime("/etc/hostname", json!("2026-09-22T20:12:49+02:00"))]),
            Dormant,
            "waiting",
        ),
        (
            "mtime moved",
            json!([mtime("/etc/hostname", json!("2026-09-22T18:12:48Z"))]),
            Live,
            "condition 1: file_mtime /etc/hostname is 2026-09-22T18:12:49Z, baseline 2026-09-22T18:12:48Z",
        ),
        (
            "mtime file missing",
            json!([mtime("/etc/nope", json!(BASE))]),
            Unevaluable,
            "condition 1: file_mtime /etc/nope: file missing",
        ),
        (
            "mtime unreadable",
            json!([mtime("/root/secret.json", json!(BASE))]),
            Unevaluable,
            "file unreadable",
        ),
        (
            "mtime baseline garbage",
            json!([mtime("/etc/hostname", json!("yesterday"))]),
            Unevaluable,
            "condition 1: file_mtime /etc/hostname: baseline \"yesterday\" is not an ISO-8601 UTC time",
        ),
        (
            "mtime baseline integer",
            json!([mtime("/etc/hostname", json!(BASE_SECS))]),
            Unevaluable,
            "is not an ISO-8601 UTC time",
        ),
        (
            "mtime baseline without zone",
            json!([mtime("/etc/hostname", json!("2026-09-22T18:12:49"))]),
            Unevaluable,
            "is not an ISO-8601 UTC time",
        ),
        (
            "mtime relative path",
            json!([mtime("etc/hostname", json!(BASE))]),
            Unevaluable,
            "condition 1: file_mtime: relative path \"etc/hostname\"",
        ),
        (
            "mtime no baseline",
            json!([{"kind": "file_mtime", "path": "/etc/hostname"}]),
            Unevaluable,
            "no `baseline`",
        ),
        // json_field
        (
            "field equal",
            json!([field(MANIFEST, "release_tag", json!("v1.9.4"))]),
            Dormant,
            "waiting: json_field /etc/pi-devbox/build-manifest.json:release_tag = \"v1.9.4\"",
        ),
        (
            "field dotted",
            json!([field(MANIFEST, "build.tags.1", json!("b"))]),
            Dormant,
            "waiting",
        ),
        (
            "field number vs string baseline",
            json!([field(MANIFEST, "build.number", json!("3"))]),
            Dormant,
            "waiting",
        ),
        (
            "field number vs number baseline",
            json!([field(MANIFEST, "build.number", json!(3))]),
            Dormant,
            "waiting",
        ),
        (
            "field bool",
            json!([field(MANIFEST, "build.ok", json!("true"))]),
            Dormant,
            "waiting",
        ),
        (
            "field moved",
            json!([field(MANIFEST, "release_tag", json!("v1.9.3"))]),
            Live,
            "condition 1: json_field /etc/pi-devbox/build-manifest.json:release_tag is \"v1.9.4\", baseline \"v1.9.3\"",
        ),
        (
            "field number moved",
            json!([field(MANIFEST, "build.number", json!("4"))]),
            Live,
            "is \"3\", baseline \"4\"",
        ),
        (
            "field vanished",
            json!([field(MANIFEST, "release", json!("v1.9.4"))]),
            Unevaluable,
            "json_field /etc/pi-devbox/build-manifest.json:release: field vanished",
        ),
        (
            "field through a scalar",
            json!([field(MANIFEST, "release_tag.x", json!("v"))]),
            Unevaluable,
            "field vanished",
        ),
        (
            "field index out of range",
            json!([field(MANIFEST, "build.tags.2", json!("c"))]),
            Unevaluable,
            "field vanished",
        ),
        (
            "field null",
            json!([field(MANIFEST, "build.nothing", json!("null"))]),
            Unevaluable,
            "value null is not a scalar",
        ),
        (
            "field object",
            json!([field(MANIFEST, "build", json!("{}"))]),
            Unevaluable,
            "is not a scalar",
        ),
        (
            "field file missing",
            json!([field("/etc/none.json", "a", json!("1"))]),
            Unevaluable,
            "json_field /etc/none.json:a: file missing",
        ),
        (
            "field file unreadable",
            json!([field("/root/secret.json", "a", json!("1"))]),
            Unevaluable,
            "file unreadable",
        ),
        (
            "field file not json",
            json!([field("/etc/broken.json", "a", json!("1"))]),
            Unevaluable,
            "file is not valid JSON",
        ),
        (
            "field relative path",
            json!([field("build-manifest.json", "a", json!("1"))]),
            Unevaluable,
            "relative path",
        ),
        (
            "field baseline null",
            json!([field(MANIFEST, "release_tag", json!(null))]),
            Unevaluable,
            "baseline null is not a string, number or bool",
        ),
        (
            "field baseline object",
            json!([field(MANIFEST, "release_tag", json!({"v": 1}))]),
            Unevaluable,
            "is not a string, number or bool",
        ),
        (
            "field empty segment",
            json!([field(MANIFEST, "build..number", json!("3"))]),
            Unevaluable,
            "malformed field",
        ),
        (
            "field missing",
            json!([{"kind": "json_field", "path": MANIFEST, "baseline": "x"}]),
            Unevaluable,
            "no string `field`",
        ),
        // combinations: every must match, any moving is enough
        (
            "both match",
            json!([
                field(MANIFEST, "release_tag", json!("v1.9.4")),
                mtime("/etc/hostname", json!(BASE))
            ]),
            Dormant,
            "waiting: json_field",
        ),
        (
            "second moved",
            json!([
                field(MANIFEST, "release_tag", json!("v1.9.4")),
                mtime("/etc/hostname", json!("2026-01-01T00:00:00Z"))
            ]),
            Live,
            "condition 2: file_mtime",
        ),
        (
            "first moved",
            json!([
                field(MANIFEST, "release_tag", json!("v2")),
                mtime("/etc/hostname", json!(BASE))
            ]),
            Live,
            "condition 1: json_field",
        ),
        (
            "moved plus missing is unevaluable",
            json!([
                field(MANIFEST, "release_tag", json!("v2")),
                mtime("/etc/gone", json!(BASE))
            ]),
            Unevaluable,
            "condition 2: file_mtime /etc/gone: file missing",
        ),
        // shape of the list and of each condition
        (
            "unknown kind",
            json!([{"kind": "url", "path": "/x", "baseline": "y"}]),
            Unevaluable,
            "condition 1: unknown kind \"url\"",
        ),
        (
            "no kind",
            json!([{"path": "/x", "baseline": "y"}]),
            Unevaluable,
            "no string `kind`",
        ),
        (
            "unknown key",
            json!([{"kind": "file_mtime", "path": "/etc/hostname", "baseline": BASE, "op": "gt"}]),
            Unevaluable,
            "unknown key \"op\"",
        ),
        (
            "no path",
            json!([{"kind": "file_mtime", "baseline": BASE}]),
            Unevaluable,
            "no string `path`",
        ),
        (
            "condition not an object",
            json!(["file_mtime /etc/hostname"]),
            Unevaluable,
            "condition 1: not an object",
        ),
        (
            "not a list",
            json!({"kind": "file_mtime"}),
            Unevaluable,
            "dormant_unless is not a list",
        ),
        (
            "a string",
            json!("file_mtime"),
            Unevaluable,
            "dormant_unless is not a list",
        ),
        (
            "empty list",
            json!([]),
            Unevaluable,
            "dormant_unless is empty",
        ),
        (
            "nine conditions",
            Value::Array(vec![mtime("/etc/hostname", json!(BASE)); 9]),
            Unevaluable,
            "dormant_unless has 9 conditions, more than 8",
        ),
        (
            "eight conditions",
            Value::Array(vec![mtime("/etc/hostname", json!(BASE)); 8]),
            Dormant,
            "waiting",
        ),
    ];
    for (name, spec, state, reason) in rows {
        let got = eval_with(&fs, spec).unwrap_or_else(|| panic!("{name}: no verdict"));
        assert_eq!(got.state, state, "{name}: {}", got.reason);
        assert!(
            got.reason.contains(reason),
            "{name}: reason {:?} lacks {reason:?}",
            got.reason
        );
    }
}

#[test]
fn absent_or_null_means_no_dormancy() {
    let fs = FakeFs::new();
    assert_eq!(evaluate(None, &fs), None);
    assert_eq!(evaluate(json!({}).as_object(), &fs), None);
    assert_eq!(evaluate(json!({"other": 1}).as_object(), &fs), None);
    assert_eq!(eval_with(&fs, Value::Null), None);
}

#[test]
fn malformed_predicates_read_nothing() {
    let fs = FakeFs::new();
    let spec = json!([
        mtime("/etc/hostname", json!(BASE)),
        mtime("rel", json!(BASE))
    ]);
    assert_eq!(eval_with(&fs, spec).unwrap().state, Unevaluable);
    assert_eq!(fs.calls.get(), 0);
    let spec = Value::Array(vec![mtime("/etc/hostname", json!(BASE)); 9]);
    assert_eq!(eval_with(&fs, spec).unwrap().state, Unevaluable);
    assert_eq!(fs.calls.get(), 0);
}

mod real;
