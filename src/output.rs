//! Where output goes: one JSON document (with a `schema`) on stdout under `--json`, text for
//! people otherwise; logs and diagnostics on stderr, gated by `-q`/`-v`. Colour only on a terminal.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicI8, Ordering};

use crate::error::{MptError, Result};
use crate::secrets;

/// -1 quiet, 0 default, 1 `-v`, 2 `-vv`. Set once at start-up; read by the `log_*` macros.
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

/// `-v` and up.
#[macro_export]
macro_rules! log_debug {
    ($($arg:tt)*) => {
        if $crate::output::verbosity() >= 1 {
            $crate::output::log_line("debug", &format!($($arg)*));
        }
    };
}

/// `-vv` and up.
#[macro_export]
macro_rules! log_trace {
    ($($arg:tt)*) => {
        if $crate::output::verbosity() >= 2 {
            $crate::output::log_line("trace", &format!($($arg)*));
        }
    };
}

/// Warnings show unless `-q`.
#[macro_export]
macro_rules! log_warn {
    ($($arg:tt)*) => {
        if $crate::output::verbosity() >= 0 {
            $crate::output::log_line("warning", &format!($($arg)*));
        }
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// How this invocation prints. Built once from the global flags.
#[derive(Debug, Clone)]
pub struct Output {
    pub json: bool,
    pub color: bool,
}

impl Output {
    pub fn new(json: bool, choice: ColorChoice, no_color_env: bool) -> Self {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => !no_color_env && io::stdout().is_terminal(),
        };
        Output { json, color }
    }

    /// Prints a command's result: the JSON document under `--json`, else the human text. Known
    /// secrets are scrubbed from both (server text may echo the token).
    pub fn emit(
        &self,
        doc: &serde_json::Value,
        human: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<()> {
        debug_assert!(
            doc.get("schema").is_some(),
            "every JSON document names its schema"
        );
        let stdout = io::stdout();
        let mut out = stdout.lock();
        let res = if self.json {
            write_json(&mut out, doc)
        } else {
            let mut text = Vec::new();
            human(&mut text).and_then(|_| {
                out.write_all(&secrets::scrub_bytes(&text))?;
                out.flush()
            })
        };
        res.map_err(|e| MptError::io("writing to stdout", &e))
    }

    /// Raw bytes to stdout (generated completions, man pages).
    pub fn write_raw(&self, bytes: &[u8]) -> Result<()> {
        let stdout = io::stdout();
        let mut out = stdout.lock();
        out.write_all(bytes)
            .and_then(|_| out.flush())
            .map_err(|e| MptError::io("writing to stdout", &e))
    }

    /// Prints an error once: the `mpt.error/v1` envelope on stdout under `--json`, else to stderr.
    pub fn error(&self, err: &MptError) {
        if self.json {
            let stdout = io::stdout();
            let _ = write_json(&mut stdout.lock(), &err.to_json());
            return;
        }
        let mut e = io::stderr().lock();
        let (red, bold, reset) = if self.color && io::stderr().is_terminal() {
            ("\x1b[31m", "\x1b[1m", "\x1b[0m")
        } else {
            ("", "", "")
        };
        let _ = writeln!(
            e,
            "{red}{bold}error{reset}: {}",
            secrets::scrub(&err.message)
        );
        if verbosity() >= 1 {
            for cause in err.causes() {
                let _ = writeln!(e, "  caused by: {}", secrets::scrub(&cause));
            }
        }
        if let Some(h) = &err.hint {
            let _ = writeln!(e, "  {bold}hint{reset}: {}", secrets::scrub(h));
        }
    }

    /// Wraps `s` in an ANSI style when colour is on.
    pub fn paint(&self, style: Style, s: &str) -> String {
        if !self.color {
            return s.to_string();
        }
        let code = match style {
            Style::Ok => "32",
            Style::Warn => "33",
            Style::Fail => "31",
            Style::Dim => "2",
            Style::Bold => "1",
        };
        format!("\x1b[{code}m{s}\x1b[0m")
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Style {
    Ok,
    Warn,
    Fail,
    Dim,
    Bold,
}

fn write_json(out: &mut dyn Write, doc: &serde_json::Value) -> io::Result<()> {
    let mut doc = doc.clone();
    secrets::scrub_json(&mut doc);
    let mut bytes = serde_json::to_vec_pretty(&doc).map_err(io::Error::other)?;
    bytes.push(b'\n');
    out.write_all(&bytes)?;
    out.flush()
}
