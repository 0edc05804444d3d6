//! The files the runbook searches: the current folder, `--scan` paths, the crontabs and systemd
//! unit folders; each read once (text only, 2 MiB at most) and classified by name.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::Inputs;
use mpt_palace::hygiene::is_compose_name;
use mpt_palace::paths::realpath;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Compose,
    /// `.env` and `*.env`: where secrets belong.
    Env,
    /// `.env.example` and friends: documentation people copy.
    EnvExample,
    Changelog,
    /// Markdown and other docs.
    Doc,
    Crontab,
    /// systemd units and timers.
    Systemd,
    Script,
    /// Given with `--scan` but of no kind above.
    Other,
}

impl Kind {
    /// Files that run something (where a `mempalace sync` or a serve command would execute).
    pub fn runs(self) -> bool {
        matches!(
            self,
            Kind::Compose | Kind::Crontab | Kind::Systemd | Kind::Script | Kind::Other
        )
    }

    /// Files people read and copy from.
    pub fn documents(self) -> bool {
        matches!(
            self,
            Kind::EnvExample | Kind::Compose | Kind::Changelog | Kind::Doc
        )
    }
}

#[derive(Debug, Clone)]
pub struct Scanned {
    pub path: PathBuf,
    pub kind: Kind,
    pub text: String,
}

impl Scanned {
    /// (1-based line number, line).
    pub fn lines(&self) -> impl Iterator<Item = (usize, &str)> {
        self.text.lines().enumerate().map(|(i, l)| (i + 1, l))
    }
}

/// Everything read, and where it looked.
#[derive(Debug, Clone, Default)]
pub struct ScanSet {
    pub files: Vec<Scanned>,
    pub searched: Vec<PathBuf>,
    pub unreadable: Vec<PathBuf>,
    /// `--scan` paths that do not exist: nothing was searched there.
    pub missing: Vec<PathBuf>,
}

const MAX_BYTES: u64 = 2 * 1024 * 1024;
const MAX_DEPTH: usize = 4;
const SKIP_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".cache",
];
pub const CRON_DIRS: &[&str] = &["/etc/cron.d", "/var/spool/cron/crontabs", "/var/spool/cron"];
pub const SYSTEM_UNITS: &str = "/etc/systemd/system";

impl ScanSet {
    pub fn collect(inputs: &Inputs) -> ScanSet {
        let mut s = ScanSet::default();
        let mut seen = BTreeSet::new();
        // The current folder: its top level only, and only files of a known kind.
        s.searched.push(inputs.cwd.clone());
        s.dir(&inputs.cwd, 0, 0, &mut seen);
        for p in &inputs.scan {
            if std::fs::symlink_metadata(p).is_err() {
                s.missing.push(p.clone());
                continue;
            }
            s.searched.push(p.clone());
            if p.is_dir() {
                s.dir(p, 0, MAX_DEPTH, &mut seen);
            } else {
                s.file(p, true, &mut seen);
            }
        }
        s.searched.push(PathBuf::from("/etc/crontab"));
        s.file(Path::new("/etc/crontab"), true, &mut seen);
        for d in CRON_DIRS {
            s.searched.push(PathBuf::from(d));
            s.dir(Path::new(d), 0, 1, &mut seen);
        }
        let mut unit_dirs = vec![PathBuf::from(SYSTEM_UNITS)];
        if let Ok(home) = inputs.env.home() {
            unit_dirs.push(home.join(".config/systemd/user"));
        }
        for d in unit_dirs {
            s.searched.push(d.clone());
            s.dir(&d, 0, 2, &mut seen);
        }
        s
    }

    pub fn of(&self, pred: impl Fn(Kind) -> bool) -> impl Iterator<Item = &Scanned> {
        self.files.iter().filter(move |f| pred(f.kind))
    }

    fn dir(&mut self, dir: &Path, depth: usize, max: usize, seen: &mut BTreeSet<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            if dir.exists() {
                self.unreadable.push(dir.to_path_buf());
            }
            return;
        };
        let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                if depth < max && !SKIP_DIRS.contains(&name) {
                    self.dir(&p, depth + 1, max, seen);
                }
            } else {
                self.file(&p, false, seen);
            }
        }
    }

    /// Reads `path` when it is text of a known kind (or of any kind when `explicit`).
    fn file(&mut self, path: &Path, explicit: bool, seen: &mut BTreeSet<PathBuf>) {
        let Ok(meta) = std::fs::metadata(path) else {
            return;
        };
        if !meta.is_file() || meta.len() > MAX_BYTES {
            return;
        }
        // In a folder only what a deployment is made of (by name, or a `#!` script); a file named
        // with `--scan` whatever it is.
        let kind = classify(path).or_else(|| shebang(path).then_some(Kind::Script));
        if kind.is_none() && !explicit {
            return;
        }
        if !seen.insert(realpath(path)) {
            return;
        }
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(_) => {
                self.unreadable.push(path.to_path_buf());
                return;
            }
        };
        if bytes.iter().take(8192).any(|b| *b == 0) {
            return;
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let kind = kind.unwrap_or(Kind::Other);
        self.files.push(Scanned {
            path: path.to_path_buf(),
            kind,
            text,
        });
    }
}

/// Does the file start with `#!`?
fn shebang(path: &Path) -> bool {
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|_| &head == b"#!")
}

/// The kind a file's name (or folder) says it is.
pub fn classify(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_str()?;
    let lower = name.to_ascii_lowercase();
    let in_cron_dir = path
        .parent()
        .is_some_and(|d| CRON_DIRS.iter().any(|c| d == Path::new(c)));
    if is_compose_name(&lower) {
        return Some(Kind::Compose);
    }
    if lower.contains(".env.") && (lower.contains("example") || lower.contains("sample"))
        || lower == "env.example"
    {
        return Some(Kind::EnvExample);
    }
    if lower == ".env" || lower.starts_with(".env.") || lower.ends_with(".env") {
        return Some(Kind::Env);
    }
    let upper = name.to_ascii_uppercase();
    if ["CHANGELOG", "CHANGES", "HISTORY", "NEWS"]
        .iter()
        .any(|c| upper.starts_with(c))
    {
        return Some(Kind::Changelog);
    }
    if in_cron_dir || lower == "crontab" || lower.contains("cron") {
        return Some(Kind::Crontab);
    }
    if [".service", ".timer", ".socket", ".path"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        return Some(Kind::Systemd);
    }
    if [".sh", ".bash", ".zsh"].iter().any(|e| lower.ends_with(e)) {
        return Some(Kind::Script);
    }
    if [".md", ".txt", ".rst", ".adoc"]
        .iter()
        .any(|e| lower.ends_with(e))
        || lower.starts_with("readme")
    {
        return Some(Kind::Doc);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_names() {
        let k = |p: &str| classify(Path::new(p));
        assert_eq!(k("/x/docker-compose.mempalace.yml"), Some(Kind::Compose));
        assert_eq!(k("/x/compose.yaml"), Some(Kind::Compose));
        assert_eq!(k("/x/.env"), Some(Kind::Env));
        assert_eq!(k("/x/palace.env"), Some(Kind::Env));
        assert_eq!(k("/x/.env.example"), Some(Kind::EnvExample));
        assert_eq!(k("/x/CHANGELOG.md"), Some(Kind::Changelog));
        assert_eq!(k("/etc/cron.d/backup"), Some(Kind::Crontab));
        assert_eq!(k("/x/palace.crontab"), Some(Kind::Crontab));
        assert_eq!(k("/x/mempalace.timer"), Some(Kind::Systemd));
        assert_eq!(k("/x/nightly.sh"), Some(Kind::Script));
        assert_eq!(k("/x/README.md"), Some(Kind::Doc));
        assert_eq!(k("/x/main.rs"), None);
    }
}
