//! The few process-level system calls mpt makes itself, through rustix's safe wrappers: whether a
//! pid is alive, a signal to a process or its group, this process's user ids.

use rustix::process::{Pid, Signal};

pub use rustix::process::Signal as Sig;

fn pid_of(pid: u32) -> Option<Pid> {
    Pid::from_raw(i32::try_from(pid).ok()?)
}

/// Whether process `pid` exists (signal 0; a process of another user's counts: EPERM).
pub fn alive(pid: u32) -> bool {
    let Some(p) = pid_of(pid) else {
        return false;
    };
    match rustix::process::test_kill_process(p) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

/// Sends `sig` to process `pid`; whether it was delivered.
pub fn signal(pid: u32, sig: Signal) -> bool {
    pid_of(pid).is_some_and(|p| rustix::process::kill_process(p, sig).is_ok())
}

/// Sends `sig` to the process group led by `pid` (a child spawned as its group's leader).
pub fn signal_group(pid: u32, sig: Signal) -> bool {
    pid_of(pid).is_some_and(|p| rustix::process::kill_process_group(p, sig).is_ok())
}

/// This process's effective user id.
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// This process's real user id.
pub fn uid() -> u32 {
    rustix::process::getuid().as_raw()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_pid_past_the_range_is_not() {
        assert!(alive(std::process::id()));
        assert!(!alive(u32::MAX));
        assert!(!alive(0), "0 names no process of its own");
        assert_eq!(euid(), euid_from_proc());
    }

    /// The effective uid as /proc says it, to check the wrapper against.
    fn euid_from_proc() -> u32 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    }
}
