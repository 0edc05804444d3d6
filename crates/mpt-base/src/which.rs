//! Finding a program on `$PATH` the way a shell would, through the environment mpt was given
//! (never the process's own): the one lookup the doctor, the runbook, the edge and wire share.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::config::Env;

/// `name` on `$PATH` as the environment `env` sees it (empty entries skipped): the first
/// executable file by that name, as a shell's lookup finds it (a file without an `x` bit is
/// passed over, as `execvp` passes it over).
pub fn which(name: &str, env: &Env) -> Option<PathBuf> {
    env.get("PATH")?
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(name))
        .find(|p| is_executable(p))
}

/// A regular file (after links) with an execute bit.
pub fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(p: &Path, mode: u32) {
        std::fs::write(p, "").unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn finds_the_first_executable_file_on_the_given_path_only() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let c = tempfile::tempdir().unwrap();
        file(&b.path().join("tool"), 0o644); // not executable: passed over
        file(&c.path().join("tool"), 0o755);
        std::fs::create_dir(a.path().join("tool")).unwrap(); // a folder is not a program
        let path = format!(
            "{}::{}:{}",
            a.path().display(),
            b.path().display(),
            c.path().display()
        );
        let env = Env::from_pairs([("PATH", path.as_str())]);
        assert_eq!(which("tool", &env), Some(c.path().join("tool")));
        std::fs::set_permissions(
            b.path().join("tool"),
            std::fs::Permissions::from_mode(0o700),
        )
        .unwrap();
        assert_eq!(which("tool", &env), Some(b.path().join("tool")));
        assert_eq!(which("absent", &env), None);
        assert_eq!(which("tool", &Env::from_pairs([("HOME", "/h")])), None);
    }
}
