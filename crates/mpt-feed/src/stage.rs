//! The staging folder the miner reads: one stable `<session-id>.md` per session, replaced atomically
//! (dot-prefixed `.tmp` in the same folder, then rename) and only when its bytes change; a run's
//! files made durable in batches ([`Stager`]).

use mpt_base::hex::hex;
use sha2::{Digest, Sha256};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Suffix of in-flight files. The miner reads only `.txt .md .json .jsonl`, so a half-written
/// `.x.md.<pid>-<n>.tmp` can never be mined, even if a crash leaves it behind.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Temp files older than this are assumed abandoned by a killed run and removed.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(60);

static SEQ: AtomicU64 = AtomicU64::new(0);

/// How many written files a [`Stager`] syncs, then renames, at a time: each fsync after the first
/// of a batch finds its data already carried by the first's journal commit.
const SYNC_BATCH: usize = 256;

/// What [`Stager::stage`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageOutcome {
    /// The file was created or replaced; this many bytes were written.
    Written(u64),
    /// The file already held exactly these bytes; it was not touched (its mtime is kept).
    Unchanged,
}

/// The staged file name for a session id: `<id>.md` when the id is a plain token (letters, digits,
/// `-`, `_`, `.`; not starting with `.`; at most 128 bytes), else `sid-<sha256(id)[..32]>.md`.
pub fn staged_name(session_id: &str) -> String {
    let plain = !session_id.is_empty()
        && session_id.len() <= 128
        && !session_id.starts_with('.')
        && session_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if plain {
        format!("{session_id}.md")
    } else {
        format!(
            "sid-{}.md",
            &hex(&Sha256::digest(session_id.as_bytes()))[..32]
        )
    }
}

/// The name used when two session files claim the same id: `<stem>.<sha256(source)[..8]>.md`.
pub fn disambiguated_name(name: &str, source: &Path) -> String {
    let stem = name.strip_suffix(".md").unwrap_or(name);
    let h = hex(&Sha256::digest(source.to_string_lossy().as_bytes()));
    format!("{stem}.{}.md", &h[..8])
}

/// Write `content` to `dir/name` unless it already holds exactly those bytes, on its own (a
/// [`Stager`] of one file: with fsync, a sync of its own).
pub fn stage_file(dir: &Path, name: &str, content: &[u8], fsync: bool) -> io::Result<StageOutcome> {
    let mut stager = Stager::new(dir, fsync);
    let outcome = stager.stage(name, content)?;
    stager.finish()?;
    Ok(outcome)
}

/// One run's writes to the staging folder. Each new content goes to a dot-prefixed temp file in
/// the folder and is renamed over its target, so a reader (or a crash) never sees a partial file.
/// With `fsync`, a file's data reaches the disk before its rename, as with a sync per file; but
/// the syncs are made [`SYNC_BATCH`] files at a time, after their writes, so one journal commit
/// carries a batch (a sync per file right after its write paid a commit each: 2.5 s for 1,000
/// files here, 0.3-1.0 s batched). Until [`Stager::finish`], up to a batch of files is written but
/// not yet under its name; a stager dropped unfinished (an error) removes those temp files.
pub struct Stager {
    dir: PathBuf,
    fsync: bool,
    /// Written temp files waiting for their sync and rename: (temp, target).
    pending: Vec<(PathBuf, PathBuf)>,
}

impl Stager {
    pub fn new(dir: &Path, fsync: bool) -> Stager {
        Stager {
            dir: dir.to_path_buf(),
            fsync,
            pending: Vec::new(),
        }
    }

    /// Stage `content` as `name`, unless the file already holds exactly those bytes (its mtime is
    /// then kept). Without fsync the file is under its name when this returns; with it, by
    /// [`Stager::finish`] at the latest.
    pub fn stage(&mut self, name: &str, content: &[u8]) -> io::Result<StageOutcome> {
        let ahead = write_ahead(&self.dir, name, content, self.fsync)?;
        self.commit(ahead)
    }

    /// Puts a content written ahead ([`write_ahead`], in this stager's folder) under its name as
    /// [`Stager::stage`] would have: now without fsync, by [`Stager::finish`] with it.
    pub fn commit(&mut self, mut ahead: Ahead) -> io::Result<StageOutcome> {
        let Some(tmp) = ahead.tmp.take() else {
            return Ok(StageOutcome::Unchanged);
        };
        self.pending.push((tmp, std::mem::take(&mut ahead.target)));
        if !self.fsync || self.pending.len() >= SYNC_BATCH {
            self.settle()?;
        }
        Ok(StageOutcome::Written(ahead.len))
    }

    /// Every staged file under its name (synced first, with fsync).
    pub fn finish(mut self) -> io::Result<()> {
        self.settle()
    }

    /// Sync the pending files (a read-only descriptor syncs the file's data as well), then rename
    /// each; a failure leaves the rest pending, for `Drop` to remove.
    fn settle(&mut self) -> io::Result<()> {
        if self.fsync {
            for (tmp, _) in &self.pending {
                fs::File::open(tmp)?.sync_all()?;
            }
        }
        let mut renamed = 0;
        let result = self.pending.iter().try_for_each(|(tmp, target)| {
            fs::rename(tmp, target)?;
            renamed += 1;
            Ok(())
        });
        self.pending.drain(..renamed);
        result
    }
}

/// A content written ahead of its staging ([`write_ahead`]): in a temp file of the folder (or
/// already the target's bytes), under its name only once a [`Stager`] commits it; a temp file
/// dropped uncommitted is removed. Lets a run write its files while it still reads, yet put none
/// under its name before it knows the read succeeded.
#[derive(Debug)]
pub struct Ahead {
    target: PathBuf,
    /// The temp file holding the content; `None` when the target already holds exactly it.
    tmp: Option<PathBuf>,
    len: u64,
}

impl Ahead {
    /// The content's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The name it was written for.
    pub fn name(&self) -> &str {
        self.target
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    }

    /// Whether it was written for the target `name`.
    pub fn is_named(&self, name: &str) -> bool {
        self.target.file_name() == Some(std::ffi::OsStr::new(name))
    }

    /// The content, read back (to stage it under another name than it was written for).
    pub fn content(&self) -> io::Result<Vec<u8>> {
        fs::read(self.tmp.as_ref().unwrap_or(&self.target))
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// Writes `content` for `dir/name` to a dot-prefixed temp file beside it (none when the target
/// already holds exactly these bytes), with fsync starting its writeback: what [`Stager::stage`]
/// does before the rename, which [`Stager::commit`] does.
pub fn write_ahead(dir: &Path, name: &str, content: &[u8], fsync: bool) -> io::Result<Ahead> {
    let target = dir.join(name);
    let len = content.len() as u64;
    if same_content(&target, content)? {
        return Ok(Ahead {
            target,
            tmp: None,
            len,
        });
    }
    let tmp = dir.join(format!(
        ".{name}.{}-{}{TEMP_SUFFIX}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(content)?;
            if fsync {
                start_writeback(&f);
            }
            Ok(())
        });
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(Ahead {
        target,
        tmp: Some(tmp),
        len,
    })
}

/// Ask the kernel to start writing `f`'s data now, without waiting (Linux's `sync_file_range`):
/// by the batch's syncs, its blocks are allocated and on their way, so the first sync's journal
/// commit carries them all and the others have little left to wait for. A hint only: the sync
/// that follows is what makes the data durable.
fn start_writeback(f: &fs::File) {
    #[cfg(target_os = "linux")]
    // SAFETY: sync_file_range on a descriptor `f` owns and keeps open for the call. Safe code
    // will not do: neither std nor rustix wraps sync_file_range.
    unsafe {
        libc::sync_file_range(
            std::os::fd::AsRawFd::as_raw_fd(f),
            0,
            0,
            libc::SYNC_FILE_RANGE_WRITE,
        );
    }
    #[cfg(not(target_os = "linux"))]
    let _ = f;
}

impl Drop for Stager {
    fn drop(&mut self) {
        for (tmp, _) in self.pending.drain(..) {
            let _ = fs::remove_file(tmp);
        }
    }
}

fn same_content(target: &Path, content: &[u8]) -> io::Result<bool> {
    match fs::metadata(target) {
        Ok(m) if m.is_file() && m.len() == content.len() as u64 => Ok(fs::read(target)? == content),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether a file name is one of this module's temp files.
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(TEMP_SUFFIX)
}

/// Remove temp files in `dir` (not recursive) last modified more than `older_than` before `now`.
/// Returns how many were removed.
pub fn clean_stale_temps(dir: &Path, older_than: Duration, now: SystemTime) -> io::Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if !is_temp_name(&name.to_string_lossy()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok());
        if meta.is_file() && age.is_some_and(|a| a >= older_than) {
            match fs::remove_file(entry.path()) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_once_and_keeps_mtime_when_unchanged() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(
            stage_file(d.path(), "a.md", b"> hi\n", true).unwrap(),
            StageOutcome::Written(5)
        );
        let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        fs::File::options()
            .write(true)
            .open(d.path().join("a.md"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(
            stage_file(d.path(), "a.md", b"> hi\n", true).unwrap(),
            StageOutcome::Unchanged
        );
        assert_eq!(
            fs::metadata(d.path().join("a.md"))
                .unwrap()
                .modified()
                .unwrap(),
            old
        );
        assert_eq!(
            stage_file(d.path(), "a.md", b"> hi!\n", false).unwrap(),
            StageOutcome::Written(6)
        );
        assert_eq!(fs::read(d.path().join("a.md")).unwrap(), b"> hi!\n");
        assert_ne!(
            fs::metadata(d.path().join("a.md"))
                .unwrap()
                .modified()
                .unwrap(),
            old
        );
        assert_eq!(names(d.path()), ["a.md"]);
    }

    #[test]
    fn synced_files_are_under_their_names_by_finish_and_an_unfinished_stager_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        let mut stager = Stager::new(d.path(), true);
        stager.stage("a.md", b"> a\n").unwrap();
        stager.stage("b.md", b"> b\n").unwrap();
        let waiting = names(d.path());
        assert_eq!(waiting.len(), 2, "{waiting:?}");
        assert!(waiting.iter().all(|n| is_temp_name(n)), "{waiting:?}");
        stager.finish().unwrap();
        assert_eq!(names(d.path()), ["a.md", "b.md"]);
        assert_eq!(fs::read(d.path().join("b.md")).unwrap(), b"> b\n");

        let mut stager = Stager::new(d.path(), true);
        stager.stage("a.md", b"> a, again\n").unwrap();
        drop(stager);
        assert_eq!(names(d.path()), ["a.md", "b.md"]);
        assert_eq!(fs::read(d.path().join("a.md")).unwrap(), b"> a\n");
    }

    #[test]
    fn a_full_batch_is_synced_and_renamed_before_the_next_file() {
        let d = tempfile::tempdir().unwrap();
        let mut stager = Stager::new(d.path(), true);
        for i in 0..=SYNC_BATCH {
            stager.stage(&format!("{i:04}.md"), b"> x\n").unwrap();
        }
        let all = names(d.path());
        let temps = all.iter().filter(|n| is_temp_name(n)).count();
        assert_eq!((all.len() - temps, temps), (SYNC_BATCH, 1), "{all:?}");
        stager.finish().unwrap();
        assert_eq!(names(d.path()).len(), SYNC_BATCH + 1);
    }

    /// A content written ahead is under its name only once committed; dropped, it leaves nothing;
    /// the target's own bytes write no temp file and commit as unchanged.
    #[test]
    fn written_ahead_is_under_its_name_only_once_committed() {
        let d = tempfile::tempdir().unwrap();
        let a = write_ahead(d.path(), "a.md", b"> a\n", false).unwrap();
        let b = write_ahead(d.path(), "b.md", b"> b\n", false).unwrap();
        let waiting = names(d.path());
        assert_eq!(waiting.len(), 2, "{waiting:?}");
        assert!(waiting.iter().all(|n| is_temp_name(n)), "{waiting:?}");
        assert!(a.is_named("a.md") && !a.is_named("b.md"));
        assert_eq!((a.len(), a.content().unwrap()), (4, b"> a\n".to_vec()));
        drop(b);
        assert_eq!(names(d.path()).len(), 1);
        let mut stager = Stager::new(d.path(), false);
        assert_eq!(stager.commit(a).unwrap(), StageOutcome::Written(4));
        assert_eq!(names(d.path()), ["a.md"]);
        assert_eq!(fs::read(d.path().join("a.md")).unwrap(), b"> a\n");

        let same = write_ahead(d.path(), "a.md", b"> a\n", true).unwrap();
        assert_eq!(names(d.path()), ["a.md"]);
        assert_eq!(same.content().unwrap(), b"> a\n");
        assert_eq!(stager.commit(same).unwrap(), StageOutcome::Unchanged);
        stager.finish().unwrap();
        assert_eq!(names(d.path()), ["a.md"]);
    }

    #[test]
    fn stale_temps_are_cleaned_and_fresh_ones_kept() {
        let d = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        for n in [".a.md.1-0.tmp", ".b.md.2-0.tmp", "keep.md", "x.tmp"] {
            fs::write(d.path().join(n), b"x").unwrap();
        }
        let f = fs::File::options()
            .write(true)
            .open(d.path().join(".a.md.1-0.tmp"))
            .unwrap();
        f.set_modified(now - Duration::from_secs(3600)).unwrap();
        assert_eq!(clean_stale_temps(d.path(), STALE_TEMP_AGE, now).unwrap(), 1);
        assert_eq!(names(d.path()), [".b.md.2-0.tmp", "keep.md", "x.tmp"]);
    }

    #[test]
    fn names_are_safe() {
        assert_eq!(staged_name("0197a-b_c.d"), "0197a-b_c.d.md");
        assert!(staged_name("../etc/passwd").starts_with("sid-"));
        assert!(staged_name(".hidden").starts_with("sid-"));
        assert!(staged_name("").starts_with("sid-"));
        let n = disambiguated_name("abc.md", Path::new("/x/y.jsonl"));
        assert!(n.starts_with("abc.") && n.ends_with(".md") && n.len() == "abc.".len() + 8 + 3);
    }
}
