//! A bounded busy wait for a reply the edge expects soon: `poll(2)` with no timeout, again and
//! again for at most the spin budget (`MPT_EDGE_SPIN_US`), before a read blocks as it would anyway.
//!
//! Why: on a VM whose idle vCPU halts to the host at once, a process asleep in `read` takes tens
//! of microseconds to wake. Spinning only while a request is outstanding (never while idle), the
//! waiter is awake when the reply lands. It changes when a read starts, never what it reads.

use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The spin budget in microseconds, set once at start (`set_budget`); 0: never spin.
static BUDGET_US: AtomicU64 = AtomicU64::new(0);

pub fn set_budget(budget: Duration) {
    BUDGET_US.store(budget.as_micros() as u64, Ordering::Relaxed);
}

fn budget() -> Option<Duration> {
    match BUDGET_US.load(Ordering::Relaxed) {
        0 => None,
        us => Some(Duration::from_micros(us)),
    }
}

/// Spins until one of `fds` is readable (or hung up) or the budget passes; `true`: one is.
pub fn until_readable(fds: &[RawFd]) -> bool {
    budget().is_some_and(|b| spin(fds, b))
}

fn spin(fds: &[RawFd], budget: Duration) -> bool {
    let mut polled: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let start = Instant::now();
    loop {
        // SAFETY: poll(2) on a valid array of `polled.len()` pollfds, no timeout.
        let n = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, 0) };
        if n != 0 {
            return n > 0;
        }
        if start.elapsed() >= budget {
            return false;
        }
        std::hint::spin_loop();
    }
}

/// A blocking reader's wake-up call from the thread that sends the requests, so that it spins for
/// a reply expected soon even though it went to sleep idle: an eventfd it sleeps on beside its
/// descriptor. Only with a budget (`None` without: the reader blocks in its read as before).
pub struct Kick {
    fd: std::os::fd::OwnedFd,
}

impl Kick {
    pub fn new() -> Option<Kick> {
        budget()?;
        // SAFETY: eventfd(2); a descriptor >= 0 is ours to own.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        (fd >= 0).then(|| Kick {
            // SAFETY: a fresh descriptor nobody else owns.
            fd: unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) },
        })
    }

    /// A request went out: the reader spins for its reply.
    pub fn kick(&self) {
        let one = 1u64.to_ne_bytes();
        // SAFETY: an 8-byte write to our eventfd (EAGAIN at its maximum count: already kicked).
        unsafe { libc::write(self.fd.as_raw_fd(), one.as_ptr().cast(), 8) };
    }

    /// Before a blocking read of `fd`: idle (`waiting()` false), sleeps until it is readable or a
    /// kick; then, with a request waiting, spins until `fd` is readable or the budget passes.
    pub fn before_read(&self, fd: RawFd, waiting: impl Fn() -> bool) {
        if !waiting() {
            let mut both = [
                libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: self.fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // SAFETY: poll(2) on two valid pollfds, no deadline (a read would block as long).
            unsafe { libc::poll(both.as_mut_ptr(), 2, -1) };
            let mut count = [0u8; 8];
            // SAFETY: an 8-byte read from our non-blocking eventfd (resets it).
            unsafe { libc::read(self.fd.as_raw_fd(), count.as_mut_ptr().cast(), 8) };
        }
        if waiting() {
            until_readable(&[fd]);
        }
    }
}

/// The descriptors the async runtime may spin on before it parks: each with its count of
/// requests waiting for a reply on it.
static EXPECTED: Mutex<Vec<(RawFd, Arc<AtomicUsize>)>> = Mutex::new(Vec::new());

/// A descriptor a reply is read from, watched while its count is above 0; no longer once dropped
/// (before the descriptor closes).
pub struct Expected {
    fd: RawFd,
}

impl Expected {
    pub fn new(fd: RawFd, waiting: Arc<AtomicUsize>) -> Expected {
        expected().push((fd, waiting));
        Expected { fd }
    }
}

impl Drop for Expected {
    fn drop(&mut self) {
        expected().retain(|(fd, _)| *fd != self.fd);
    }
}

fn expected() -> std::sync::MutexGuard<'static, Vec<(RawFd, Arc<AtomicUsize>)>> {
    EXPECTED.lock().unwrap_or_else(|e| e.into_inner())
}

/// The runtime's hook before it parks (`on_thread_park`): with a request outstanding on a
/// watched descriptor, spin until a reply is readable there (the park's `epoll_wait` then returns
/// at once) or the budget passes. Idle, it returns at once.
pub fn before_park() {
    if budget().is_none() {
        return;
    }
    let fds: Vec<RawFd> = expected()
        .iter()
        .filter(|(_, waiting)| waiting.load(Ordering::Relaxed) > 0)
        .map(|(fd, _)| *fd)
        .collect();
    if !fds.is_empty() {
        until_readable(&fds);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_spin_ends_at_a_readable_descriptor_or_the_budget() {
        let (mut a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let budget = Duration::from_micros(2_000);
        let t = Instant::now();
        assert!(!spin(&[b.as_raw_fd()], budget), "nothing to read");
        assert!(t.elapsed() >= budget);
        a.write_all(b"x\n").unwrap();
        assert!(spin(&[b.as_raw_fd()], budget));
    }
}
