//! A file the running gateway follows (policy, tokens): read again when its identity or times
//! change (an atomic rename is a new inode), looked at only when inotify heard something (`notes`);
//! one that does not load is refused, the last good kept.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mpt_base::error::{MptError, Result};

mod notes;

/// What identifies one version of a file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp {
        dev: m.dev(),
        ino: m.ino(),
        size: m.size(),
        mtime_ns: m.mtime() * 1_000_000_000 + m.mtime_nsec(),
        ctime_ns: m.ctime() * 1_000_000_000 + m.ctime_nsec(),
    })
}

/// What a refresh found.
#[derive(Debug)]
pub enum Refresh {
    /// Nothing changed.
    Same,
    /// A new version loaded and is in use.
    Reloaded,
    /// A new version does not load: the last good one stays in use.
    Refused(MptError),
}

/// The last good value of a followed file.
pub struct Watched<T> {
    path: PathBuf,
    seen: Option<Stamp>,
    value: Arc<T>,
    load: fn(&Path) -> Result<T>,
    /// Whether it may have changed; `None`: a `stat` each time.
    notes: Option<notes::Notes>,
}

impl<T> Watched<T> {
    /// The file as it is now; it must load.
    pub fn open(path: &Path, load: fn(&Path) -> Result<T>) -> Result<Watched<T>> {
        // Watching starts before the first read: a change after it is heard.
        let notes = notes::Notes::open(path);
        let seen = stamp(path);
        let value = Arc::new(load(path)?);
        Ok(Watched {
            path: path.to_path_buf(),
            seen,
            value,
            load,
            notes,
        })
    }

    pub fn get(&self) -> Arc<T> {
        Arc::clone(&self.value)
    }

    /// Reads the file again if it changed since it was last read (or always, with `force`). A
    /// version that does not load is refused once (not re-read until it changes again).
    pub fn refresh(&mut self, force: bool) -> Refresh {
        if !force && let Some(n) = &mut self.notes {
            if !n.changed() {
                return Refresh::Same;
            }
            // Become a symlink: its target's folder is not watched; a `stat` each time from now.
            if !notes::plain(&self.path) {
                self.notes = None;
            }
        }
        let now = stamp(&self.path);
        if now == self.seen && !force {
            return Refresh::Same;
        }
        let unchanged = now == self.seen;
        self.seen = now;
        match (self.load)(&self.path) {
            Ok(v) => {
                self.value = Arc::new(v);
                if unchanged {
                    Refresh::Same
                } else {
                    Refresh::Reloaded
                }
            }
            Err(e) => Refresh::Refused(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(p: &Path) -> Result<u32> {
        std::fs::read_to_string(p)
            .map_err(|e| MptError::io("reading", &e))?
            .trim()
            .parse()
            .map_err(|_| MptError::usage("not a number"))
    }

    fn replace(p: &Path, text: &str) {
        let tmp = p.with_extension("tmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, p).unwrap();
    }

    #[test]
    fn a_change_is_picked_up_and_a_bad_one_keeps_the_last_good() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("n");
        std::fs::write(&p, "1").unwrap();
        let mut w = Watched::open(&p, load).unwrap();
        assert!(matches!(w.refresh(false), Refresh::Same));
        replace(&p, "2");
        assert!(matches!(w.refresh(false), Refresh::Reloaded));
        assert_eq!(*w.get(), 2);
        replace(&p, "two");
        assert!(matches!(w.refresh(false), Refresh::Refused(_)));
        assert_eq!(*w.get(), 2, "the last good value stays");
        assert!(matches!(w.refresh(false), Refresh::Same), "refused once");
        replace(&p, "3");
        assert!(matches!(w.refresh(false), Refresh::Reloaded));
        assert_eq!(*w.get(), 3);
    }
}
