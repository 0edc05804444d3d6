//! The feed's non-blocking lock: one prepare (and its transfer and mine) per staging folder at a
//! time; a second caller learns at once who holds it. The kernel drops it when the holder dies.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A held lock; released when dropped (or when the process dies, even by SIGKILL).
#[derive(Debug)]
pub struct FeedLock {
    file: File,
    pub path: PathBuf,
}

/// Who holds the lock, as its holder recorded it (`<pid> <what>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pid: Option<u32>,
    pub what: Option<String>,
}

impl FeedLock {
    /// Takes the lock at `path` without waiting (creating the file and its folder, mode 0600), and
    /// records `<our pid> <what>` in it. `Ok(Err(holder))` when another process holds it.
    pub fn try_acquire(path: &Path, what: &str) -> io::Result<Result<FeedLock, Holder>> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Ok(Err(parse_holder(&text)));
            }
            Err(TryLockError::Error(e)) => return Err(e),
        }
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        writeln!(file, "{} {what}", std::process::id())?;
        file.flush()?;
        Ok(Ok(FeedLock {
            file,
            path: path.to_path_buf(),
        }))
    }

    /// The file descriptor stays open (and locked) for as long as this value lives.
    pub fn file(&self) -> &File {
        &self.file
    }
}

fn parse_holder(text: &str) -> Holder {
    let line = text.lines().next().unwrap_or("").trim();
    let (pid, what) = match line.split_once(' ') {
        Some((p, w)) => (p.parse().ok(), Some(w.to_string())),
        None => (line.parse().ok(), None),
    };
    Holder { pid, what }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_learns_the_holder_and_the_lock_frees_on_drop() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub/feed.lock");
        let held = FeedLock::try_acquire(&p, "feed prepare").unwrap().unwrap();
        let other = FeedLock::try_acquire(&p, "feed mine").unwrap().unwrap_err();
        assert_eq!(other.pid, Some(std::process::id()));
        assert_eq!(other.what.as_deref(), Some("feed prepare"));
        drop(held);
        let again = FeedLock::try_acquire(&p, "feed mine").unwrap().unwrap();
        let text = std::fs::read_to_string(&again.path).unwrap();
        assert_eq!(text, format!("{} feed mine\n", std::process::id()));
    }
}
