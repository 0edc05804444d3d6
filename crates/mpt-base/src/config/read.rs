//! Reading a small file a setting names (the config, a token file, a CA): a regular file only,
//! never a FIFO or a device that would hang or stream forever, and never more than a set size.

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::error::{ErrorKind, MptError, Result};

/// A config file is a few hundred bytes; this bounds what a wrong path makes mpt read.
pub const CONFIG_FILE_LIMIT: u64 = 1 << 20;

/// A file and the setting that named it, for messages: `MPT_CONFIG`, `the token file`, ...
pub struct Named<'a> {
    pub setting: &'a str,
    pub path: &'a Path,
}

impl Named<'_> {
    /// `MPT_CONFIG=/p` for a variable or flag, `the token file /p` for a description.
    pub fn says(&self) -> String {
        let sep = if self.setting.contains(' ') { " " } else { "=" };
        format!("{}{sep}{}", self.setting, self.path.display())
    }

    /// The one fix: point the setting at `want`.
    fn hint(&self, want: &str) -> String {
        if self.setting.contains(' ') {
            format!("make {} name {want}", self.setting)
        } else {
            format!("point {} at {want}, or unset it", self.setting)
        }
    }
}

/// Opens `named.path` without blocking (a FIFO with no writer would wait forever) and refuses
/// anything but a regular file (exit 2); a missing file is exit 2 too.
pub fn open_regular(named: &Named) -> Result<(File, Metadata)> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(named.path)
        .map_err(|e| {
            let kind = match e.kind() {
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
                    ErrorKind::Usage
                }
                _ => ErrorKind::Io,
            };
            MptError::new(kind, format!("cannot read {}: {e}", named.says()))
                .with_hint(named.hint("an existing file"))
                .with_source(e)
        })?;
    let meta = file
        .metadata()
        .map_err(|e| MptError::io(format!("reading {}", named.says()), &e))?;
    if !meta.is_file() {
        let ft = meta.file_type();
        let what = if ft.is_dir() {
            "a directory"
        } else if ft.is_fifo() {
            "a FIFO"
        } else if ft.is_char_device() {
            "a character device"
        } else if ft.is_block_device() {
            "a block device"
        } else if ft.is_socket() {
            "a socket"
        } else {
            "not a file"
        };
        return Err(MptError::usage(format!(
            "{} is {what}, not a regular file: mpt reads settings only from regular files",
            named.says()
        ))
        .with_hint(named.hint("a regular file")));
    }
    Ok((file, meta))
}

/// The whole of an opened regular file, refusing one larger than `limit` bytes (exit 2).
pub fn read_bounded(file: File, named: &Named, limit: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| MptError::io(format!("reading {}", named.says()), &e))?;
    if bytes.len() as u64 > limit {
        return Err(MptError::usage(format!(
            "{} is larger than {} KiB: not the file that setting expects",
            named.says(),
            limit >> 10
        ))
        .with_hint(named.hint("the right file")));
    }
    Ok(bytes)
}

/// `open_regular` then `read_bounded`.
pub fn read_regular(named: &Named, limit: u64) -> Result<Vec<u8>> {
    let (file, _) = open_regular(named)?;
    read_bounded(file, named, limit)
}

/// The file's text: a UTF-8 byte order mark (some Windows editors write one) is accepted and
/// dropped; bytes that are not UTF-8 are exit 2 naming the file and the offset.
pub fn config_text(bytes: &[u8], path: &Path) -> Result<String> {
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let skipped = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    String::from_utf8(bytes[skipped..].to_vec()).map_err(|e| {
        MptError::usage(format!(
            "{}: not UTF-8 (byte {} of the file)",
            path.display(),
            skipped + e.utf8_error().valid_up_to() + 1
        ))
        .with_hint("save the file as UTF-8")
    })
}

/// Without a remote URL the token is not used, but it is still a secret this process may meet
/// (in arguments to queue, in text to print): register it for scrubbing. A token file that
/// cannot be read is left alone here; it matters only once a URL is set.
pub fn register_unused_token(env: &super::Env, token_file: Option<&std::path::Path>) {
    if let Some(t) = env.get("MEMPALACE_REMOTE_TOKEN") {
        crate::secrets::register(t);
    }
    let path = env
        .get("MPT_TOKEN_FILE")
        .map(std::path::PathBuf::from)
        .or_else(|| token_file.map(std::path::Path::to_path_buf));
    // Only a small regular file: a FIFO or a device must not hang a command that never uses it.
    if let Some(p) = path
        && std::fs::metadata(&p).is_ok_and(|m| m.is_file() && m.len() <= 64 * 1024)
        && let Ok(text) = std::fs::read_to_string(&p)
    {
        crate::secrets::register(text.trim());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(path: &Path) -> Named<'_> {
        Named {
            setting: "MPT_X",
            path,
        }
    }

    #[test]
    fn a_device_a_directory_and_a_missing_file_are_exit_2_naming_the_setting() {
        let dir = tempfile::tempdir().unwrap();
        for p in [
            Path::new("/dev/zero"),
            dir.path(),
            &dir.path().join("missing"),
        ] {
            let e = read_regular(&named(p), 1024).unwrap_err();
            assert_eq!(e.exit().code(), 2, "{p:?}: {}", e.message);
            assert!(e.message.contains("MPT_X="), "{}", e.message);
        }
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = read_regular(&named(&fifo), 1024).unwrap_err();
        assert!(e.message.contains("a FIFO"), "{}", e.message);
        assert_eq!(e.exit().code(), 2);
    }

    #[test]
    fn a_file_past_the_limit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        std::fs::write(&p, vec![b'a'; 2049]).unwrap();
        assert_eq!(read_regular(&named(&p), 2049).unwrap().len(), 2049);
        let e = read_regular(&named(&p), 2048).unwrap_err();
        assert_eq!(e.exit().code(), 2, "{}", e.message);
    }
}
