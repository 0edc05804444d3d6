//! What one request costs each front's own process, figures the machine's load moves little: its
//! CPU time (its threads' run time, schedstat) and its syscalls (`strace -f -c` attached for a run).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The process that serves a front's requests: nginx's worker (the master's child), else `pid`.
pub fn server_pid(pid: u32) -> u32 {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .ok()
        .and_then(|c| c.split_whitespace().next()?.parse().ok())
        .unwrap_or(pid)
}

fn tasks(pid: u32) -> Vec<String> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The run time of `pid`'s threads so far, in ns.
pub fn cpu_ns(pid: u32) -> u64 {
    tasks(pid)
        .iter()
        .filter_map(|t| {
            std::fs::read_to_string(format!("/proc/{pid}/task/{t}/schedstat"))
                .ok()?
                .split_whitespace()
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum()
}

fn traced(pid: u32) -> bool {
    tasks(pid).iter().all(|t| {
        std::fs::read_to_string(format!("/proc/{pid}/task/{t}/status"))
            .unwrap_or_default()
            .lines()
            .any(|l| l.starts_with("TracerPid:") && l.trim_end() != "TracerPid:\t0")
    })
}

/// `run` with `strace -f -c` attached to `pid`: the syscalls it counted and its table.
pub fn syscalls(pid: u32, dir: &Path, run: impl FnOnce()) -> Option<(u64, String)> {
    let out = dir.join(format!("strace-{pid}.txt"));
    let mut strace = Command::new("strace")
        .args(["-f", "-c", "-o"])
        .arg(&out)
        .args(["-p", &pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let t = Instant::now();
    while !traced(pid) {
        if t.elapsed() > Duration::from_secs(10) || strace.try_wait().ok().flatten().is_some() {
            let _ = strace.kill();
            let _ = strace.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    run();
    unsafe {
        libc::kill(strace.id() as libc::pid_t, libc::SIGINT);
    }
    let _ = strace.wait();
    let table = std::fs::read_to_string(&out).ok()?;
    let total = table
        .lines()
        .find(|l| l.trim_end().ends_with(" total"))?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()?;
    Some((total, table))
}
