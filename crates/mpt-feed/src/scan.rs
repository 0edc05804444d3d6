//! Finding pi session files: a recursive walk for `**/*.jsonl` below the sessions root, sorted, one
//! path per real file, never following directory symlinks (no loops) nor failing on one subfolder.
//! Hand-written rather than `glob::glob("**/*.jsonl")`: that follows directory symlinks and cannot
//! refuse a loop.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One candidate session file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    pub path: PathBuf,
    /// The path relative to the sessions root (the gate matches subagent folders on it).
    pub rel: PathBuf,
    pub size: u64,
    pub mtime: SystemTime,
}

/// Walk `root` for regular files (or symlinks to them) ending in `.jsonl` (any case). Returns the
/// files sorted by path plus one message per directory or file that could not be read. Fails only
/// if `root` itself cannot be listed. A file reached by several paths (a `latest.jsonl` symlink
/// beside the session, a hard link) is listed once, by a path that is not a symlink when one is.
pub fn scan(root: &Path) -> io::Result<(Vec<SessionFile>, Vec<String>)> {
    // (file, (device, inode), reached through a symlink)
    let mut files: Vec<(SessionFile, (u64, u64), bool)> = Vec::new();
    let mut warnings = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    let mut first = true;
    while let Some(dir) = stack.pop() {
        let rd = match fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if first => return Err(e),
            Err(e) => {
                warnings.push(format!("cannot list {}: {e}", dir.display()));
                continue;
            }
        };
        first = false;
        for entry in rd {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    warnings.push(format!("cannot list {}: {e}", dir.display()));
                    continue;
                }
            };
            let path = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() {
                stack.push(path);
                continue;
            }
            if !is_jsonl(&path) {
                continue;
            }
            // `fs::metadata` follows a file symlink; a symlink to a directory is not descended.
            let meta = match fs::metadata(&path) {
                Ok(m) if m.is_file() => m,
                Ok(_) => continue,
                Err(e) => {
                    warnings.push(format!("cannot stat {}: {e}", path.display()));
                    continue;
                }
            };
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let identity = (meta.dev(), meta.ino());
            let file = SessionFile {
                path,
                rel,
                size: meta.len(),
                mtime,
            };
            files.push((file, identity, ft.is_symlink()));
        }
    }
    files.sort_by(|a, b| (a.1, a.2, &a.0.path).cmp(&(b.1, b.2, &b.0.path)));
    let mut seen = HashSet::new();
    let mut files: Vec<SessionFile> = files
        .into_iter()
        .filter(|(_, identity, _)| seen.insert(*identity))
        .map(|(f, _, _)| f)
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((files, warnings))
}

fn is_jsonl(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_jsonl_only() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::create_dir_all(r.join("--a--/deeper")).unwrap();
        fs::create_dir_all(r.join("--b--")).unwrap();
        for p in [
            "--a--/x.jsonl",
            "--a--/deeper/y.JSONL",
            "--b--/z.jsonl",
            "--b--/notes.md",
            "top.jsonl",
        ] {
            fs::write(r.join(p), b"{}\n").unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(r, r.join("--b--/loop")).unwrap();
        let (files, warnings) = scan(r).unwrap();
        let rels: Vec<String> = files
            .iter()
            .map(|f| f.rel.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            rels,
            [
                "--a--/deeper/y.JSONL",
                "--a--/x.jsonl",
                "--b--/z.jsonl",
                "top.jsonl"
            ]
        );
        assert!(warnings.is_empty());
        assert!(scan(&r.join("missing")).is_err());
    }

    #[test]
    fn a_file_reached_by_several_paths_is_listed_once_by_its_real_path() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::create_dir_all(r.join("--a--")).unwrap();
        fs::write(r.join("--a--/2026_s1.jsonl"), b"{}\n").unwrap();
        std::os::unix::fs::symlink("2026_s1.jsonl", r.join("--a--/a-latest.jsonl")).unwrap();
        std::os::unix::fs::symlink(r.join("--a--/2026_s1.jsonl"), r.join("top.jsonl")).unwrap();
        fs::hard_link(r.join("--a--/2026_s1.jsonl"), r.join("--a--/z-hard.jsonl")).unwrap();
        let (files, _) = scan(r).unwrap();
        let rels: Vec<String> = files
            .iter()
            .map(|f| f.rel.to_string_lossy().into_owned())
            .collect();
        assert_eq!(rels, ["--a--/2026_s1.jsonl"]);
    }
}
