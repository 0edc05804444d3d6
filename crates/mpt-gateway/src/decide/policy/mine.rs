//! A member's scoped remote mine: `convos` mode, a `source` that resolves (`..` and symlinks
//! followed, on the primary host) under its `mine.source_prefix`, and a wing named; else admin's.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::MineScope;

/// The canonical source a scoped mine may go on with (forwarded in place of what was sent, so
/// the path checked is the path mined), or the rule refusing it. `resolved` stands in for the
/// filesystem (a policy test's `current.source`); `home`: where `~` points.
pub fn scoped(
    scope: &MineScope,
    args: &Value,
    resolved: Option<&Path>,
    home: Option<&Path>,
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
            std::fs::canonicalize(expand_home(s, home)).map_err(|_| "mine:source_not_found")?
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

/// `~` and `~/…` as the server's `os.path.expanduser` reads them (the gateway runs beside it,
/// so its HOME is the server's).
fn expand_home(s: &str, home: Option<&Path>) -> PathBuf {
    match home {
        Some(home) => mpt_palace::paths::expand_tilde(Path::new(s), home),
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
            max_file_bytes: None,
            max_bytes: None,
        };
        let mine = |source: &Path, mode: &str| {
            scoped(
                &scope,
                &json!({"source": source, "mode": mode, "wing": "wing_lap"}),
                None,
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
            scoped(
                &scope,
                &json!({"source": staged, "mode": "convos"}),
                None,
                None
            ),
            Err("mine:wing_required")
        );
    }

    #[test]
    fn a_tilde_source_expands_with_the_home_it_is_given_not_the_processs() {
        let home = tempfile::tempdir().unwrap();
        let staged = home.path().join("staging/lap");
        std::fs::create_dir_all(staged.join("batch")).unwrap();
        let scope = MineScope {
            source_prefix: staged.to_string_lossy().into(),
            max_file_bytes: None,
            max_bytes: None,
        };
        let args = json!({"source": "~/staging/lap/batch", "mode": "convos", "wing": "wing_lap"});
        assert_eq!(
            scoped(&scope, &args, None, Some(home.path())),
            Ok(std::fs::canonicalize(staged.join("batch")).unwrap())
        );
        assert_eq!(
            scoped(&scope, &args, None, None),
            Err("mine:source_not_found"),
            "no HOME given: `~` stays as sent"
        );
    }
}
