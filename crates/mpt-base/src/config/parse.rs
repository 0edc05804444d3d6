//! The config file's text turned into a `FileConfig`: an unknown field refused (exit 4), a
//! malformed value or a replication pattern that is no glob exit 2, each naming the file.

use std::path::Path;

use super::FileConfig;
use crate::error::{MptError, Result};

/// Parses the JSON config; an unknown field is refused (exit 4), a malformed value is exit 2.
pub fn parse_file(text: &str, path: &Path) -> Result<FileConfig> {
    let file = serde_json::from_str::<FileConfig>(text).map_err(|e| {
        let msg = e.to_string();
        if msg.starts_with("unknown field") {
            MptError::refused(format!("{}: {msg}", path.display())).with_hint(
                "an unknown field is refused, never ignored (a typo must not silently disable what it declares): fix or remove it",
            )
        } else {
            MptError::usage(format!("{}: {msg}", path.display()))
                .with_hint("fix the value at that line; `mpt config` shows what mpt reads")
        }
    })?;
    check_globs(path, "replication", file.replication.keys())?;
    check_globs(
        path,
        "trusted_devices",
        file.trusted_devices.iter().flatten(),
    )?;
    Ok(file)
}

/// Each of the `field`'s patterns a glob, else exit 2 naming it and the file.
fn check_globs<'a>(
    path: &Path,
    field: &str,
    patterns: impl Iterator<Item = &'a String>,
) -> Result<()> {
    for pattern in patterns {
        if let Err(e) = glob::Pattern::new(pattern) {
            return Err(MptError::usage(format!(
                "{}: the {field} pattern '{pattern}' is not a glob pattern: {}",
                path.display(),
                e.msg
            ))
            .with_hint("`*` is any run of characters, `?` one, `[...]` one of a set: close the bracket or write the character as `[[]`"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_field_is_refused_and_named() {
        let e = parse_file(r#"{"palace":"/p","replicaton":{}}"#, Path::new("/c.json")).unwrap_err();
        assert_eq!(e.exit().code(), 4);
        assert!(
            e.message.contains("replicaton") && e.message.contains("/c.json"),
            "{}",
            e.message
        );
    }

    #[test]
    fn malformed_value_is_exit_2() {
        let e = parse_file(
            r#"{"replication":{"*":"everywhere"}}"#,
            Path::new("/c.json"),
        )
        .unwrap_err();
        assert_eq!(e.exit().code(), 2, "{}", e.message);
    }

    #[test]
    fn a_replication_pattern_that_is_no_glob_is_exit_2_naming_it() {
        let e = parse_file(
            r#"{"replication":{"wing_[code":"local"}}"#,
            Path::new("/c.json"),
        )
        .unwrap_err();
        assert_eq!(e.exit().code(), 2, "{}", e.message);
        assert!(e.message.contains("'wing_[code'"), "{}", e.message);
    }
}
