//! The bottom floor every module may log through: one verbosity, set once from the CLI, and
//! diagnostic lines on stderr (scrubbed). Engines log here; only commands print (`crate::output`).

use std::io::{self, Write};
use std::sync::atomic::{AtomicI8, Ordering};

use crate::secrets;

/// -1 quiet, 0 default, 1 `-v`, 2 `-vv`. Set once at start-up; read by the `log_*` macros and by
/// `Output`.
static VERBOSITY: AtomicI8 = AtomicI8::new(0);

pub fn set_verbosity(level: i8) {
    VERBOSITY.store(level, Ordering::Relaxed);
}

pub fn verbosity() -> i8 {
    VERBOSITY.load(Ordering::Relaxed)
}

/// Writes one diagnostic line to stderr. Never call with a secret in `msg`; a known one that
/// arrives in server text is scrubbed all the same.
pub fn log_line(level: &str, msg: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "mpt: {level}: {}", secrets::scrub(msg));
}

/// A line a child process wrote on its stderr, shown under its label (`-v`), scrubbed.
pub fn child_line(label: &str, pid: u32, line: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{label}[{pid}]: {}", secrets::scrub(line));
}

/// `-v` and up.
#[macro_export]
macro_rules! log_debug {
    ($($arg:tt)*) => {
        if $crate::log::verbosity() >= 1 {
            $crate::log::log_line("debug", &format!($($arg)*));
        }
    };
}

/// `-vv` and up.
#[macro_export]
macro_rules! log_trace {
    ($($arg:tt)*) => {
        if $crate::log::verbosity() >= 2 {
            $crate::log::log_line("trace", &format!($($arg)*));
        }
    };
}

/// Warnings show unless `-q`.
#[macro_export]
macro_rules! log_warn {
    ($($arg:tt)*) => {
        if $crate::log::verbosity() >= 0 {
            $crate::log::log_line("warning", &format!($($arg)*));
        }
    };
}
