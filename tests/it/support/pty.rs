//! A pseudo-terminal the test plays the terminal emulator of: every byte written to its slave side
//! is collected from the master by a reader thread, for the test to wait on with a deadline.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use super::wait_for;

pub struct Pty {
    seen: Arc<Mutex<Vec<u8>>>,
    slave: Option<OwnedFd>,
}

fn cloexec(fd: &OwnedFd) {
    // SAFETY: fcntl on a descriptor this process owns.
    let rc = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    assert_eq!(rc, 0, "fcntl: {}", std::io::Error::last_os_error());
}

impl Pty {
    /// A `cols`×`rows` pty, its master read until every slave descriptor is closed.
    pub fn open(cols: u16, rows: u16) -> Pty {
        let (mut master, mut slave) = (-1, -1);
        let size = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty fills two descriptors; no name buffer, no termios, a valid winsize.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: openpty just returned these descriptors to us, and nothing else owns them.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        // Not inherited by the children other tests spawn meanwhile (the master would never
        // see EOF while one of them held the slave).
        cloexec(&master);
        cloexec(&slave);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let mut reader = std::fs::File::from(master);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the last slave descriptor is closed: the terminal's other end is gone.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Pty {
            seen,
            slave: Some(slave),
        }
    }

    /// The slave side, for one of a child's standard streams.
    pub fn stdio(&self) -> Stdio {
        Stdio::from(
            self.slave
                .as_ref()
                .expect("slave still open")
                .try_clone()
                .unwrap(),
        )
    }

    /// `cmd`'s stdin, stdout and stderr on the slave, which becomes its controlling terminal in a
    /// session of its own (as a terminal emulator starts its shell).
    pub fn attach(&self, cmd: &mut Command) {
        cmd.stdin(self.stdio())
            .stdout(self.stdio())
            .stderr(self.stdio());
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(cmd, || {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }

    /// Closes this process's slave descriptor once the children that use it are started, so
    /// the reader ends when they do.
    pub fn close_slave(&mut self) {
        self.slave = None;
    }

    /// Everything read from the master so far.
    pub fn seen(&self) -> Vec<u8> {
        self.seen.lock().unwrap().clone()
    }

    /// Waits up to `secs` until `needle` has been read.
    pub fn wait_for_bytes(&self, secs: f64, needle: &[u8]) -> bool {
        wait_for(secs, || contains(&self.seen.lock().unwrap(), needle))
    }
}

pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
