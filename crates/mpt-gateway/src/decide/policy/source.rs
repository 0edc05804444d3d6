//! A write's `source_file`, the key MemPalace purges a mined file's closets by: a non-admin may
//! name only a file under its own scoped mine's prefix, never another wing's mined source.

use std::path::{Component, Path};

use serde_json::Value;

use super::{Device, Role};
use mpt_palace::catalog::py_strip;

/// The rule refusing a non-admin's write whose `source_file` lies outside its mine prefix.
pub fn refusal(d: &Device, tool: &str, args: &Value) -> Option<String> {
    if d.role >= Role::Admin || !super::wings::writes_wings(tool) {
        return None;
    }
    let sent = args.get("source_file").filter(|v| !v.is_null())?;
    let inside = sent.as_str().is_some_and(|s| {
        let path = Path::new(py_strip(s));
        d.mine.as_ref().is_some_and(|scope| {
            path.components().all(|c| c != Component::ParentDir)
                && path.starts_with(&scope.source_prefix)
        })
    });
    (!inside).then(|| "source_file:outside_mine_prefix".to_string())
}

#[cfg(test)]
mod tests {
    use super::super::Policy;
    use super::*;
    use serde_json::json;

    #[test]
    fn a_non_admin_names_only_its_own_mined_files() {
        let p = Policy::parse(
            &json!({"schema": super::super::SCHEMA, "devices": {
                "lap": {"role": "member", "mine": {"source_prefix": "/srv/inbox/lap"}},
                "desk": {"role": "member"},
                "hub": {"role": "admin"}}})
            .to_string(),
            Path::new("/p.json"),
        )
        .unwrap();
        let add =
            |f: Value| json!({"wing": "wing_lap", "room": "r", "content": "c", "source_file": f});
        let r = |d: &str, f: Value| refusal(p.device(d).unwrap(), "mempalace_add_drawer", &add(f));
        assert_eq!(r("lap", json!("/srv/inbox/lap/s.md")), None);
        for outside in [
            json!("/srv/inbox/desk/s.md"),
            json!("/srv/inbox/lap/../desk/s.md"),
            json!("/srv/inbox/lapx/s.md"),
            json!(7),
        ] {
            assert_eq!(
                r("lap", outside.clone()).as_deref(),
                Some("source_file:outside_mine_prefix"),
                "{outside}"
            );
        }
        assert!(
            r("desk", json!("/srv/inbox/desk/s.md")).is_some(),
            "no mine scope: none"
        );
        assert_eq!(r("desk", Value::Null), None, "null is absent");
        assert_eq!(r("hub", json!("/anything")), None);
        assert_eq!(
            refusal(
                p.device("desk").unwrap(),
                "mempalace_search",
                &json!({"source_file": "/x"})
            ),
            None,
            "a read's filter is not a write"
        );
    }
}
