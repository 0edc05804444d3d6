//! Pid lock files (feed, outbox flush, edge owner, linger, pull): one holder at a time, `<pid> <what>`
//! recorded in a 0600 file, and `holder()` that asks the kernel who holds it without taking it.
//!
//! The locks are open-file-description locks (`F_OFD_SETLK`), so the kernel drops one when its
//! holder exits, however it exits, and `F_OFD_GETLK` tests for a holder without ever taking the
//! lock: a read-only `mpt outbox` can no longer make a starting flush find the lock busy.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A held lock; released when dropped (or when the process dies, even by SIGKILL).
#[derive(Debug)]
pub struct PidLock {
    _file: File,
    path: PathBuf,
}

impl PidLock {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lock's descriptor, for a child that must hold the lock as long as it lives (the
    /// edge's pull): a descriptor it inherits across exec shares the lock's open file
    /// description, so the lock is free only once the holder and that child have both exited.
    pub fn as_raw_fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self._file)
    }

    /// A heartbeat: the holder is alive and making progress. Kept as the file's mtime (taking
    /// the lock sets it too), which `heartbeat` reads without touching the lock.
    pub fn beat(&self) {
        let _ = self._file.set_modified(std::time::SystemTime::now());
    }
}

/// Who holds a lock, as its holder recorded it (`<pid> <what>`; either may be missing when the
/// holder could not write, e.g. on a full disk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pid: Option<u32>,
    pub what: Option<String>,
}

/// The lock at `path` without waiting (the file is created 0600; its folder must exist), with
/// `<our pid> <what>` recorded in it. `None` when another holder has it.
pub fn try_acquire(path: &Path, what: &str) -> io::Result<Option<PidLock>> {
    let file = open_for_locking(path)?;
    if !sys::try_lock(&file)? {
        return Ok(None);
    }
    Ok(Some(stamped(file, path, what)))
}

/// The lock at `path`, waiting for its holder to let go.
pub fn acquire(path: &Path, what: &str) -> io::Result<PidLock> {
    let file = open_for_locking(path)?;
    sys::lock(&file)?;
    Ok(stamped(file, path, what))
}

/// The lock at `path` once its holder lets go, within `patience` (`None` past it). For holders
/// that keep it a moment at a time (an edge's flusher).
pub fn acquire_within(path: &Path, what: &str, patience: Duration) -> io::Result<Option<PidLock>> {
    let until = Instant::now() + patience;
    loop {
        if let Some(held) = try_acquire(path, what)? {
            return Ok(Some(held));
        }
        if Instant::now() >= until {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Who holds the lock at `path` (`None`: nobody, or no such file). Only reads: it neither takes
/// the lock, even for an instant, nor writes, so it can never get in a taker's way.
pub fn holder(path: &Path) -> io::Result<Option<Holder>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !sys::is_held(&file)? {
        return Ok(None);
    }
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    Ok(Some(parse(&text)))
}

/// Who holds the lock at `path`, for a busy message: `pid 123, feed mine`, `pid 123`, or
/// `another process` when it recorded nothing (or nobody holds it any more).
pub fn describe_holder(path: &Path) -> String {
    match holder(path).ok().flatten().map(|h| (h.pid, h.what)) {
        Some((Some(p), Some(w))) => format!("pid {p}, {w}"),
        Some((Some(p), None)) => format!("pid {p}"),
        _ => "another process".to_string(),
    }
}

/// When the holder of the lock at `path` last beat (`PidLock::beat`, or took the lock); `None`
/// when nobody holds it. Only reads, like `holder`.
pub fn heartbeat(path: &Path) -> io::Result<Option<std::time::SystemTime>> {
    if holder(path)?.is_none() {
        return Ok(None);
    }
    std::fs::metadata(path).and_then(|m| m.modified()).map(Some)
}

fn open_for_locking(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)?;
    // A file an older `mpt` created with the umask's mode becomes private too.
    let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
    Ok(file)
}

/// Records `<pid> <what>` (best effort: the lock itself is what counts).
fn stamped(mut file: File, path: &Path, what: &str) -> PidLock {
    let _ = file.set_len(0);
    let _ = file.write_all(format!("{} {what}\n", std::process::id()).as_bytes());
    PidLock {
        _file: file,
        path: path.to_path_buf(),
    }
}

fn parse(text: &str) -> Holder {
    let line = text.lines().next().unwrap_or("").trim();
    let (pid, what) = match line.split_once(' ') {
        Some((p, w)) => (p.parse().ok(), Some(w.trim().to_string())),
        None => (line.parse().ok(), None),
    };
    Holder {
        pid,
        what: what.filter(|w| !w.is_empty()),
    }
}

#[cfg(target_os = "linux")]
mod sys {
    use std::fs::File;
    use std::io;
    use std::os::fd::AsRawFd;

    /// One whole-file OFD lock call; `Ok(None)` when another description holds a conflicting lock.
    fn fcntl(file: &File, cmd: libc::c_int, kind: libc::c_int) -> io::Result<Option<libc::flock>> {
        // SAFETY: a zeroed `flock` is valid (l_pid must be 0 for OFD commands). Safe code will
        // not do: std's `File::lock` and rustix's `fcntl_lock` take a lock but cannot ask who
        // holds one (F_OFD_GETLK), which the lock's holder check needs.
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = kind as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        loop {
            // SAFETY: the fd is open for the call's duration and `fl` outlives it.
            if unsafe { libc::fcntl(file.as_raw_fd(), cmd, &mut fl) } != -1 {
                return Ok(Some(fl));
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EAGAIN | libc::EACCES) => return Ok(None),
                _ => return Err(e),
            }
        }
    }

    pub fn try_lock(file: &File) -> io::Result<bool> {
        Ok(fcntl(file, libc::F_OFD_SETLK, libc::F_WRLCK)?.is_some())
    }

    pub fn lock(file: &File) -> io::Result<()> {
        fcntl(file, libc::F_OFD_SETLKW, libc::F_WRLCK).map(|_| ())
    }

    /// `F_OFD_GETLK` reports a lock that would conflict with ours, and takes nothing.
    pub fn is_held(file: &File) -> io::Result<bool> {
        let fl = fcntl(file, libc::F_OFD_GETLK, libc::F_WRLCK)?;
        Ok(fl.is_some_and(|fl| fl.l_type != libc::F_UNLCK as libc::c_short))
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    //! Elsewhere: `flock`, and a holder known by the pid it recorded being alive (no lock taken).
    use std::fs::{File, TryLockError};
    use std::io::{self, Read};

    pub fn try_lock(file: &File) -> io::Result<bool> {
        match file.try_lock() {
            Ok(()) => Ok(true),
            Err(TryLockError::WouldBlock) => Ok(false),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    pub fn lock(file: &File) -> io::Result<()> {
        file.lock()
    }

    pub fn is_held(mut file: &File) -> io::Result<bool> {
        let mut text = String::new();
        let _ = file.read_to_string(&mut text);
        let pid: i32 = match super::parse(&text).pid {
            Some(p) => p as i32,
            None => return Ok(false),
        };
        Ok(crate::sys::alive(pid as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me(what: &str) -> Holder {
        Holder {
            pid: Some(std::process::id()),
            what: Some(what.into()),
        }
    }

    #[test]
    fn the_file_is_private_and_names_its_holder_until_dropped() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.lock");
        let held = try_acquire(&p, "feed prepare").unwrap().unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            format!("{} feed prepare\n", std::process::id())
        );
        // Another open file description is another taker, even in this process.
        assert!(try_acquire(&p, "feed mine").unwrap().is_none());
        assert_eq!(holder(&p).unwrap(), Some(me("feed prepare")));
        drop(held);
        assert_eq!(holder(&p).unwrap(), None, "the file stays; nobody holds it");
        let again = try_acquire(&p, "feed mine").unwrap().unwrap();
        assert_eq!(again.path(), p);
        assert_eq!(holder(&p).unwrap(), Some(me("feed mine")));
    }

    #[test]
    fn a_beat_is_read_as_the_holders_heartbeat() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.lock");
        assert_eq!(heartbeat(&p).unwrap(), None);
        let held = try_acquire(&p, "outbox flush").unwrap().unwrap();
        let long_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        held._file.set_modified(long_ago).unwrap();
        assert_eq!(heartbeat(&p).unwrap(), Some(long_ago));
        held.beat();
        let beat = heartbeat(&p).unwrap().unwrap();
        assert!(beat > long_ago + Duration::from_secs(3000), "{beat:?}");
        drop(held);
        // Another test of this binary spawning a child shares the released description until the
        // child's exec (see `asking_who_holds_it_never_makes_a_taker_find_it_busy`): that instant
        // is waited out, boundedly.
        let released = (0..500).any(|_| {
            let none = heartbeat(&p).unwrap().is_none();
            if !none {
                std::thread::sleep(Duration::from_millis(10));
            }
            none
        });
        assert!(released, "nobody holds it: no heartbeat");
    }

    #[test]
    fn holder_only_reads_a_held_lock() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.lock");
        assert_eq!(holder(&p).unwrap(), None, "no file: no holder");
        let held = try_acquire(&p, "outbox flush").unwrap().unwrap();
        let before = std::fs::metadata(&p).unwrap();
        // Readable only: nothing to open for writing, nothing to lock with.
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o400)).unwrap();
        assert_eq!(holder(&p).unwrap(), Some(me("outbox flush")));
        let after = std::fs::metadata(&p).unwrap();
        assert_eq!(before.modified().unwrap(), after.modified().unwrap());
        assert_eq!(before.len(), after.len());
        drop(held);
    }

    #[test]
    fn asking_who_holds_it_never_makes_a_taker_find_it_busy() {
        // The old probe took a shared lock for an instant: a taker in that instant found the lock
        // busy (a flush exiting 6 beside a read-only `mpt outbox`). Counted, not timed. The count
        // runs in a process of its own: another test of this binary spawning a child duplicates
        // every open descriptor until the child's exec, and a released lock whose description a
        // half-spawned child still shares stays held for that instant.
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.lock");
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "lock::tests::count_takers_finding_it_busy"])
            .env("MPT_LOCK_TEST_PATH", &p)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "the counting child failed: {log}");
        let count = std::fs::read_to_string(p.with_extension("count")).unwrap();
        let (busy, asked) = count
            .strip_prefix("busy=")
            .and_then(|c| c.split_once(" asked="))
            .unwrap_or_else(|| panic!("the child wrote no count: {count}"));
        assert_ne!(asked, "0", "the asker never ran");
        assert_eq!(
            busy, "0",
            "a taker found the lock busy while only asked about"
        );
    }

    /// Run in a child process by the test above (a no-op otherwise): takes and drops the lock
    /// 20,000 times while another thread asks who holds it, and writes how often it was busy beside
    /// the lock.
    #[test]
    fn count_takers_finding_it_busy() {
        let Some(p) = std::env::var_os("MPT_LOCK_TEST_PATH") else {
            return;
        };
        let p = PathBuf::from(p);
        drop(try_acquire(&p, "first").unwrap().unwrap());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let asker = {
            let (p, stop) = (p.clone(), std::sync::Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut asked = 0u64;
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let _ = holder(&p).unwrap();
                    asked += 1;
                }
                asked
            })
        };
        let mut busy = 0;
        for _ in 0..20_000 {
            match try_acquire(&p, "taker").unwrap() {
                Some(held) => drop(held),
                None => busy += 1,
            }
        }
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let asked = asker.join().unwrap();
        std::fs::write(
            p.with_extension("count"),
            format!("busy={busy} asked={asked}"),
        )
        .unwrap();
    }

    #[test]
    fn another_process_is_seen_holding_it_and_not_once_it_is_killed() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.lock");
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "lock::tests::child_holds_the_lock",
                "--nocapture",
            ])
            .env("MPT_LOCK_TEST_PATH", &p)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Ready when the child holds it and has recorded itself (holder() only reads): taking
        // the lock and writing `<pid> <what>` are two steps, and in between the kernel already
        // reports a holder whose record is still empty.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while holder(&p).ok().flatten().is_none_or(|h| h.pid.is_none()) {
            assert!(child.try_wait().unwrap().is_none(), "the child ended first");
            assert!(
                std::time::Instant::now() < deadline,
                "the child never took the lock"
            );
            std::thread::yield_now();
        }
        let seen = holder(&p).unwrap();
        assert_eq!(
            seen,
            Some(Holder {
                pid: Some(child.id()),
                what: Some("child".into())
            })
        );
        assert!(try_acquire(&p, "parent").unwrap().is_none());
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(std::fs::read_to_string(&p).unwrap().ends_with(" child\n"));
        assert_eq!(
            holder(&p).unwrap(),
            None,
            "its pid stays in the file; the lock died with it"
        );
        assert!(try_acquire(&p, "parent").unwrap().is_some());
    }

    /// Run in a child process by the test above (a no-op otherwise): holds the lock until it is
    /// killed.
    #[test]
    fn child_holds_the_lock() {
        if let Some(p) = std::env::var_os("MPT_LOCK_TEST_PATH") {
            let _held = try_acquire(Path::new(&p), "child").unwrap().unwrap();
            // Held until the parent kills it (at most two minutes, should the parent die first).
            let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
            while std::time::Instant::now() < until {
                std::thread::park_timeout(std::time::Duration::from_secs(1));
            }
        }
    }
}
