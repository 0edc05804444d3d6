//! A member's scoped remote mine: `convos` mode, a `source` that resolves (`..` and symlinks
//! followed, on the primary host) under its `mine.source_prefix`, and a wing named; else admin's.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::MineScope;

/// The canonical source a scoped mine may go on with (forwarded in place of what was sent, so
/// the path checked is the path mined), or the rule refusing it. `resolved` stands in for the
/// filesystem (a policy test's `current.source`).
pub fn scoped(
    scope: &MineScope,
    args: &Value,
    resolved: Option<&Path>,
) -> Result<PathBuf, &'static str> {
    let text = |k: &str| args.get(k).and_then(Value::as_str).map(str::trim);
    if text("mode") != Some("convos") {
        return Err("mine:mode_not_convos");
    }
    if text("wing").is_none_or(str::is_empty) {
        return Err("mine:wing_required");
    }
    let source = match (resolved, text("source")) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(s)) if !s.is_empty() => {
            std::fs::canonicalize(expand_home(s)).map_err(|_| "mine:source_not_found")?
        }
        _ => return Err("mine:source_not_found"),
    };
    let prefix = Path::new(&scope.source_prefix);
    let prefix = std::fs::canonicalize(prefix).unwrap_or_else(|_| prefix.to_path_buf());
    if source.starts_with(&prefix) {
        Ok(source)
    } else {
        Err("mine:outside_source_prefix")
    }
}

/// `~` and `~/…` as the server's `os.path.expanduser` reads them (the gateway runs beside it).
fn expand_home(s: &str) -> PathBuf {
    match std::env::var_os("HOME") {
        Some(home) => crate::palace::paths::expand_tilde(Path::new(s), Path::new(&home)),
        None => PathBuf::from(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn under_the_prefix_resolved_and_nothing_else() {
        let root = tempfile::tempdir().unwrap();
        let staged = root.path().join("staging/lap");
        std::fs::create_dir_all(staged.join("batch")).unwrap();
        let outside = root.path().join("secrets");
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, staged.join("link")).unwrap();
        let scope = MineScope {
            source_prefix: staged.to_string_lossy().into(),
        };
        let mine = |source: &Path, mode: &str| {
            scoped(
                &scope,
                &json!({"source": source, "mode": mode, "wing": "wing_lap"}),
                None,
            )
        };
        assert!(mine(&staged.join("batch"), "convos").is_ok());
        assert_eq!(
            mine(&staged.join("batch/../../../secrets"), "convos"),
            Err("mine:outside_source_prefix")
        );
        assert_eq!(
            mine(&staged.join("link"), "convos"),
            Err("mine:outside_source_prefix"),
            "a symlink out of the prefix"
        );
        assert_eq!(
            mine(&staged.join("batch"), "projects"),
            Err("mine:mode_not_convos")
        );
        assert_eq!(
            mine(&staged.join("gone"), "convos"),
            Err("mine:source_not_found")
        );
        assert_eq!(
            scoped(&scope, &json!({"source": staged, "mode": "convos"}), None),
            Err("mine:wing_required")
        );
    }
}
