//! Folders a process sees read-only, as a container's read-only HOME is: a read-only bind mount in
//! a private mount namespace of the process (root, as the tests run in CI: a mode does not bind
//! root), else the folders' write bits taken away (which binds everyone else), put back on drop.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct ReadOnly {
    paths: Vec<PathBuf>,
    /// Folders whose mode was changed (not root), restored on drop.
    chmodded: Vec<(PathBuf, u32)>,
}

fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

impl ReadOnly {
    /// `paths` read-only for every command `apply` prepares (for other users, from now on).
    pub fn new(paths: &[&Path]) -> ReadOnly {
        let mut ro = ReadOnly {
            paths: paths.iter().map(|p| p.to_path_buf()).collect(),
            chmodded: Vec::new(),
        };
        if !is_root() {
            for p in paths {
                ro.chmod_tree(p);
            }
        }
        ro
    }

    fn chmod_tree(&mut self, dir: &Path) {
        let Ok(meta) = std::fs::symlink_metadata(dir) else {
            return;
        };
        if !meta.is_dir() {
            return;
        }
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            self.chmod_tree(&e.path());
        }
        let mode = meta.permissions().mode() & 0o7777;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & !0o222)).unwrap();
        self.chmodded.push((dir.to_path_buf(), mode));
    }

    /// Makes `cmd` (and every process it starts) see the folders read-only.
    pub fn apply(&self, cmd: &mut Command) {
        if !is_root() {
            return;
        }
        let paths: Vec<CString> = self
            .paths
            .iter()
            .map(|p| CString::new(p.as_os_str().as_bytes()).unwrap())
            .collect();
        // SAFETY: only async-signal-safe calls between fork and exec (the strings are made before).
        unsafe {
            cmd.pre_exec(move || {
                let fail = || Err(std::io::Error::last_os_error());
                if libc::unshare(libc::CLONE_NEWNS) != 0 {
                    return fail();
                }
                let root = c"/";
                if libc::mount(
                    std::ptr::null(),
                    root.as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) != 0
                {
                    return fail();
                }
                for p in &paths {
                    let bind = libc::mount(
                        p.as_ptr(),
                        p.as_ptr(),
                        std::ptr::null(),
                        libc::MS_BIND | libc::MS_REC,
                        std::ptr::null(),
                    );
                    let ro = libc::mount(
                        std::ptr::null(),
                        p.as_ptr(),
                        std::ptr::null(),
                        libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY,
                        std::ptr::null(),
                    );
                    if bind != 0 || ro != 0 {
                        return fail();
                    }
                }
                Ok(())
            });
        }
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        for (p, mode) in self.chmodded.iter().rev() {
            let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(*mode));
        }
    }
}
