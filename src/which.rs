//! Finding a program on `$PATH` the way a shell would, through the environment mpt was given
//! (never the process's own): the one lookup the doctor, the runbook, the edge and wire share.

use std::path::{Path, PathBuf};

use crate::config::Env;

/// `name` on `$PATH` as the environment `env` sees it (empty entries skipped).
pub fn which(name: &str, env: &Env) -> Option<PathBuf> {
    env.get("PATH")?
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_file_on_the_given_path_only() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::write(b.path().join("tool"), "").unwrap();
        std::fs::create_dir(a.path().join("tool")).unwrap(); // a folder is not a program
        let path = format!("{}::{}", a.path().display(), b.path().display());
        let env = Env::from_pairs([("PATH", path.as_str())]);
        assert_eq!(which("tool", &env), Some(b.path().join("tool")));
        assert_eq!(which("absent", &env), None);
        assert_eq!(which("tool", &Env::from_pairs([("HOME", "/h")])), None);
    }
}
