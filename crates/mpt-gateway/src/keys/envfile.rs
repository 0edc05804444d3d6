//! A device's new token on disk: `--out FILE`, the token alone in a new 0600 file (what
//! `MPT_TOKEN_FILE` names); `--env-file FILE`, the line `MEMPALACE_REMOTE_TOKEN=<token>` in an env file.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::state::write_private;
use mpt_base::error::{MptError, Result};

const KEY: &str = "MEMPALACE_REMOTE_TOKEN=";

/// Writes `token` alone into a new file at `path` (0600, its missing folders made 0700); a file
/// already there is refused unless `force` (then replaced whole, atomically).
pub fn write_token_file(path: &Path, token: &str, force: bool) -> Result<()> {
    if path.symlink_metadata().is_ok() && !force {
        return Err(MptError::refused(format!(
            "--out {} is already there: a token file is never overwritten silently",
            path.display()
        ))
        .with_hint("add --force to replace it, or give another path"));
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
            .map_err(|e| MptError::io(format!("creating {}", parent.display()), &e))?;
    }
    write_private(path, format!("{token}\n").as_bytes())
        .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
}

/// Writes the token line into `path`.
pub fn write_token_line(path: &Path, token: &str) -> Result<()> {
    let line = format!("{KEY}{token}");
    let target = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return write_private(path, format!("{line}\n").as_bytes())
                .map_err(|e| MptError::io(format!("writing {}", path.display()), &e));
        }
        Err(e) => return Err(MptError::io(format!("reading {}", path.display()), &e)),
    };
    let meta = std::fs::metadata(&target)
        .map_err(|e| MptError::io(format!("reading {}", path.display()), &e))?;
    if !meta.is_file() {
        return Err(MptError::usage(format!(
            "--out {} is not a regular file",
            path.display()
        )));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(MptError::refused(format!(
            "--out {} is mode {mode:04o}: other users could read the device token",
            path.display()
        ))
        .with_hint(format!("chmod 600 {}, then run this again", path.display())));
    }
    let text = std::fs::read_to_string(&target)
        .map_err(|e| MptError::io(format!("reading {}", path.display()), &e))?;
    write_private(&target, with_line(&text, &line).as_bytes())
        .map_err(|e| MptError::io(format!("writing {}", path.display()), &e))
}

/// `text` with its `MEMPALACE_REMOTE_TOKEN=` line (an `export ` before it kept) replaced by
/// `line`, any later one dropped, or `line` appended when there is none.
fn with_line(text: &str, line: &str) -> String {
    let mut out = String::with_capacity(text.len() + line.len() + 1);
    let mut done = false;
    for l in text.split_inclusive('\n') {
        let body = l.trim_end_matches(['\n', '\r']);
        let export = body.starts_with("export ");
        let bare = body.trim_start_matches("export ").trim_start();
        if bare.starts_with(KEY) {
            if !done {
                out.push_str(if export { "export " } else { "" });
                out.push_str(line);
                out.push_str(&l[body.len()..]);
                done = true;
            }
            continue;
        }
        out.push_str(l);
    }
    if !done {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_holds_the_token_alone_and_is_never_overwritten_silently() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("new/deeper/lap.token");
        write_token_file(&p, "mptg_t1", false).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "mptg_t1\n");
        assert_eq!(crate::state::mode(&p), Some(0o600));
        assert_eq!(crate::state::mode(p.parent().unwrap()), Some(0o700));
        assert_eq!(
            write_token_file(&p, "mptg_t2", false)
                .unwrap_err()
                .exit()
                .code(),
            4
        );
        write_token_file(&p, "mptg_t2", true).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "mptg_t2\n");
    }

    #[test]
    fn only_the_token_line_changes() {
        let l = "MEMPALACE_REMOTE_TOKEN=new";
        assert_eq!(with_line("", l), "MEMPALACE_REMOTE_TOKEN=new\n");
        assert_eq!(
            with_line("A=1\nMEMPALACE_REMOTE_TOKEN=old\nB=2", l),
            "A=1\nMEMPALACE_REMOTE_TOKEN=new\nB=2"
        );
        assert_eq!(
            with_line(
                "export MEMPALACE_REMOTE_TOKEN=old\r\nMEMPALACE_REMOTE_TOKEN=dup\n",
                l
            ),
            "export MEMPALACE_REMOTE_TOKEN=new\r\n"
        );
        assert_eq!(with_line("A=1", l), "A=1\nMEMPALACE_REMOTE_TOKEN=new\n");
    }

    #[test]
    fn a_file_others_can_read_is_refused_and_a_new_one_is_private() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join(".env");
        write_token_line(&p, "t1").unwrap();
        assert_eq!(crate::state::mode(&p), Some(0o600));
        std::fs::write(&p, "X=1\nMEMPALACE_REMOTE_TOKEN=t1\n").unwrap();
        write_token_line(&p, "t2").unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "X=1\nMEMPALACE_REMOTE_TOKEN=t2\n"
        );
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(write_token_line(&p, "t3").unwrap_err().exit().code(), 4);
    }
}
