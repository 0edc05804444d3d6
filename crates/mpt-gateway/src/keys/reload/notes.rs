//! Whether a followed file may have changed, without a `stat` per request: inotify on the file
//! and on its folder, read without blocking; `None` (a `stat` each time) where inotify cannot tell.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::inotify::{self, CreateFlags, WatchFlags};

/// Its writes in place, its mode and links (a rename over it, an unlink), its removal.
const ON_FILE: u32 = libc::IN_MODIFY
    | libc::IN_CLOSE_WRITE
    | libc::IN_ATTRIB
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF;
/// A name in the folder created, renamed to or from, removed, written or changed (never a mere
/// write in place: the audit log's appends beside it stay silent).
const ON_FOLDER: u32 = libc::IN_CREATE
    | libc::IN_MOVED_TO
    | libc::IN_MOVED_FROM
    | libc::IN_DELETE
    | libc::IN_CLOSE_WRITE
    | libc::IN_ATTRIB
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_ONLYDIR;

/// Folders inotify does not hear another host write (network and user-space file systems).
const REMOTE: &[i64] = &[
    0x6969,      // NFS
    0x517B,      // SMB
    0xFF53_4D42, // CIFS
    0xFE53_4D42, // SMB2
    0x6573_5546, // FUSE
    0x0102_1997, // 9p
    0x00C3_6400, // Ceph
];

/// The kernel queues an event before the write or rename that caused it returns, so a change
/// made before a request arrived is in the queue when that request reads it.
pub struct Notes {
    fd: OwnedFd,
    path: PathBuf,
    name: OsString,
    folder: i32,
    file: Option<i32>,
    /// The folder's watch is gone (or events were lost for good): every call says changed.
    blind: bool,
    /// Where the queue is read into: zeroed once, not on every request.
    buf: Vec<u8>,
}

impl Notes {
    /// Watches `path` (a plain file, or one not there yet) in a local folder; `None` otherwise:
    /// a symlink (its target's folder is not watched), a remote folder, no inotify.
    pub fn open(path: &Path) -> Option<Notes> {
        let folder = path.parent()?;
        let name = path.file_name()?.to_os_string();
        if !plain(path) || remote(folder) {
            return None;
        }
        let fd = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC).ok()?;
        let mut notes = Notes {
            fd,
            path: path.to_path_buf(),
            name,
            folder: -1,
            file: None,
            blind: false,
            buf: vec![0; 4096],
        };
        notes.folder = notes.add(folder, ON_FOLDER)?;
        notes.rearm();
        Some(notes)
    }

    fn add(&self, path: &Path, mask: u32) -> Option<i32> {
        inotify::add_watch(&self.fd, path, WatchFlags::from_bits_retain(mask)).ok()
    }

    /// Watches the file now at the path (a new one after a rename over it); none while absent
    /// (the folder's watch hears it come back).
    fn rearm(&mut self) {
        self.file = self.add(&self.path, ON_FILE | libc::IN_DONT_FOLLOW);
    }

    /// Whether anything happened to the file since the last call: `true` the first time the
    /// queue holds an event for it (or overflowed, or cannot be read). The file's watch is then
    /// placed again before the caller reads the file, so a change after that read is heard.
    pub fn changed(&mut self) -> bool {
        let mut buf = std::mem::take(&mut self.buf);
        let mut hit = self.blind;
        loop {
            match rustix::io::read(&self.fd, &mut buf[..]) {
                Ok(n) if n > 0 => hit |= self.about_the_file(&buf[..n]),
                Err(rustix::io::Errno::AGAIN) => break,
                // The end of the queue's file, or a failed read: nothing is heard any more.
                _ => {
                    hit = true;
                    break;
                }
            }
        }
        self.buf = buf;
        if hit {
            self.rearm();
        }
        hit
    }

    /// Whether a batch of events names the file (or lost some, or the folder went away: then
    /// nothing is heard any more, and every call says `true`).
    fn about_the_file(&mut self, mut bytes: &[u8]) -> bool {
        let head = std::mem::size_of::<libc::inotify_event>();
        let mut hit = false;
        while bytes.len() >= head {
            let field = |at: usize| u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap());
            let (wd, mask, len) = (field(0) as i32, field(4), field(12) as usize);
            let name = bytes.get(head..head + len).unwrap_or_default();
            let name = &name[..name.iter().position(|b| *b == 0).unwrap_or(name.len())];
            let gone = libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_IGNORED;
            self.blind |=
                mask & libc::IN_Q_OVERFLOW != 0 || (wd == self.folder && mask & gone != 0);
            hit |= self.blind || Some(wd) == self.file || name == self.name.as_bytes();
            bytes = bytes.get(head + len..).unwrap_or_default();
        }
        hit
    }
}

/// Whether `path` is a plain file or absent (a symlink or anything else is not watched).
pub fn plain(path: &Path) -> bool {
    path.symlink_metadata().map_or(true, |m| m.is_file())
}

fn remote(folder: &Path) -> bool {
    // `f_type`'s width is the platform's (i64 on x86_64, i32 elsewhere).
    #[allow(clippy::unnecessary_cast)]
    rustix::fs::statfs(folder).map_or(true, |st| REMOTE.contains(&(st.f_type as i64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_to_the_file_is_heard_and_the_folder_s_other_files_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("policy.json");
        std::fs::write(&p, "1").unwrap();
        let mut n = Notes::open(&p).expect("inotify on a local folder");
        assert!(!n.changed());
        // A log appended beside it, another file renamed into place: silent.
        let mut log = std::fs::File::options()
            .create(true)
            .append(true)
            .open(dir.path().join("audit.jsonl"))
            .unwrap();
        std::io::Write::write_all(&mut log, b"x\n").unwrap();
        std::fs::write(dir.path().join("other.tmp"), "o").unwrap();
        std::fs::rename(dir.path().join("other.tmp"), dir.path().join("other")).unwrap();
        assert!(!n.changed());
        // Written in place; replaced by a rename; its mode changed; removed and put back.
        std::fs::write(&p, "2").unwrap();
        assert!(n.changed());
        assert!(!n.changed(), "heard once");
        std::fs::write(dir.path().join("p.tmp"), "3").unwrap();
        std::fs::rename(dir.path().join("p.tmp"), &p).unwrap();
        assert!(n.changed());
        std::fs::write(&p, "4").unwrap();
        assert!(n.changed(), "the new file is watched in place too");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(n.changed());
        std::fs::remove_file(&p).unwrap();
        assert!(n.changed());
        std::fs::write(&p, "5").unwrap();
        assert!(n.changed());
    }

    #[test]
    fn a_symlink_is_not_watched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere.json");
        std::fs::write(&target, "1").unwrap();
        let p = dir.path().join("policy.json");
        std::os::unix::fs::symlink(&target, &p).unwrap();
        assert!(Notes::open(&p).is_none());
    }
}
