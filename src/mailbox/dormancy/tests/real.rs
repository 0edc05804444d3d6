//! Dormancy against real temporary files through `StdFs`: sub-second mtimes, missing files,
//! directories, and pre-epoch times. Each test cleans up what it creates.

use super::*;

/// A unique temp path, removed on drop.
struct Temp(PathBuf);

impl Temp {
    fn new(tag: &str) -> Temp {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let name = format!("mailbox-dormancy-{}-{tag}-{nanos}", std::process::id());
        Temp(std::env::temp_dir().join(name))
    }
    fn s(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn real_files() {
    let stamp = Temp::new("stamp");
    let file = std::fs::File::create(&stamp.0).unwrap();
    // Sub-second residue on disk must not defeat a whole-second baseline.
    let when = UNIX_EPOCH + Duration::new(BASE_SECS as u64, 987_654_321);
    file.set_modified(when).unwrap();
    drop(file);
    assert_eq!(StdFs.mtime_secs(&stamp.0).unwrap(), BASE_SECS);

    let manifest = Temp::new("manifest");
    std::fs::write(&manifest.0, br#"{"release_tag": "v1.9.4", "n": 3}"#).unwrap();
    let dir = Temp::new("dir");
    std::fs::create_dir(&dir.0).unwrap();
    let gone = Temp::new("gone");

    let rows: Vec<(&str, Value, DormancyState)> = vec![
        (
            "mtime matches",
            json!([mtime(stamp.s(), json!(BASE))]),
            Dormant,
        ),
        (
            "mtime moved",
            json!([mtime(stamp.s(), json!("2026-09-22T18:12:50Z"))]),
            Live,
        ),
        (
            "mtime missing",
            json!([mtime(gone.s(), json!(BASE))]),
            Unevaluable,
        ),
        (
            "field matches",
            json!([field(manifest.s(), "n", json!("3"))]),
            Dormant,
        ),
        (
            "field moved",
            json!([field(manifest.s(), "release_tag", json!("v1"))]),
            Live,
        ),
        (
            "field vanished",
            json!([field(manifest.s(), "x", json!("1"))]),
            Unevaluable,
        ),
        (
            "field file missing",
            json!([field(gone.s(), "n", json!("3"))]),
            Unevaluable,
        ),
        (
            "field on a directory",
            json!([field(dir.s(), "n", json!("3"))]),
            Unevaluable,
        ),
        (
            "both",
            json!([
                field(manifest.s(), "release_tag", json!("v1.9.4")),
                mtime(stamp.s(), json!(BASE))
            ]),
            Dormant,
        ),
    ];
    for (name, spec, state) in rows {
        let got = eval_with(&StdFs, spec).unwrap();
        assert_eq!(got.state, state, "{name}: {}", got.reason);
    }
    let got = eval_with(&StdFs, json!([field(dir.s(), "n", json!("3"))])).unwrap();
    assert!(got.reason.contains("not a regular file"), "{}", got.reason);
}

#[test]
fn pre_epoch_mtime_floors() {
    let t = Temp::new("old");
    let file = std::fs::File::create(&t.0).unwrap();
    file.set_modified(UNIX_EPOCH - Duration::from_millis(1500))
        .unwrap();
    drop(file);
    assert_eq!(StdFs.mtime_secs(&t.0).unwrap(), -2);
}
