//! The one door commands print through: one JSON document (with a `schema`) on stdout under
//! `--json` (JSON Lines for the commands that stream), text for people otherwise; notes, the
//! progress bar and errors on stderr, gated by `-q`/`-v` (`crate::log`). Colour only on a terminal.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{MptError, Result};
use crate::secrets;

pub use crate::log::verbosity;

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

    /// `emit` of a typed document (a `#[derive(Serialize)]` struct beside its command).
    pub fn emit_typed(
        &self,
        doc: &impl serde::Serialize,
        human: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<()> {
        self.emit(&crate::schema::to_document(doc)?, human)
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

    /// One line of a stream (`mailbox watch`): under `--json` the document compact on one line
    /// (JSON Lines), else the human text; flushed at once, secrets scrubbed.
    pub fn stream(
        &self,
        doc: &serde_json::Value,
        human: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<()> {
        debug_assert!(
            doc.get("schema").is_some(),
            "every JSON line names its schema"
        );
        let mut bytes = Vec::new();
        if self.json {
            let mut doc = doc.clone();
            secrets::scrub_json(&mut doc);
            serde_json::to_writer(&mut bytes, &doc)
                .map_err(|e| MptError::io("writing to stdout", &io::Error::other(e)))?;
            bytes.push(b'\n');
        } else {
            human(&mut bytes).map_err(|e| MptError::io("writing to stdout", &e))?;
            bytes = secrets::scrub_bytes(&bytes).into_owned();
        }
        let stdout = io::stdout();
        let mut out = stdout.lock();
        out.write_all(&bytes)
            .and_then(|_| out.flush())
            .map_err(|e| MptError::io("writing to stdout", &e))
    }

    /// `-v`, `-q` as the CLI set them (`crate::log::verbosity`).
    pub fn verbosity(&self) -> i8 {
        verbosity()
    }

    /// A note for people on stderr (`mpt: LABEL: msg`), unless `-q`; never part of `--json`.
    pub fn note(&self, label: &str, msg: &str) {
        if verbosity() >= 0 {
            crate::log::log_line(label, msg);
        }
    }

    /// Bytes for the terminal on stderr as they are (a desktop notification's escape sequence).
    pub fn to_terminal(&self, bytes: &[u8]) {
        let mut e = io::stderr().lock();
        let _ = e.write_all(bytes).and_then(|_| e.flush());
    }

    /// Is stderr a terminal (so [`Output::to_terminal`]'s bytes reach one)?
    pub fn terminal_attached(&self) -> bool {
        io::stderr().is_terminal()
    }

    /// Is stdout a terminal (a person reads it, not a pipe or a log)?
    pub fn stdout_is_terminal(&self) -> bool {
        io::stdout().is_terminal()
    }

    /// The first line of stdin when it is piped (`None` when it is a terminal: a person there
    /// is asked on the terminal instead).
    pub fn piped_line(&self) -> io::Result<Option<String>> {
        use std::io::BufRead;
        let stdin = io::stdin();
        if stdin.is_terminal() {
            return Ok(None);
        }
        let mut line = String::new();
        stdin.lock().read_line(&mut line)?;
        Ok(Some(line))
    }

    /// A progress bar on stderr (indicatif, `template` in its syntax), drawn only when
    /// [`show_progress`] allows it and once the work has lasted a quarter second.
    pub fn progress(&self, template: &str) -> Option<Bar> {
        show_progress(self.json, verbosity(), io::stderr().is_terminal())
            .then(|| Bar::new(template))
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

/// The one progress policy: a terminal on stderr, and neither `--json` nor `-q`.
pub fn show_progress(json: bool, verbosity: i8, stderr_is_terminal: bool) -> bool {
    !json && verbosity >= 0 && stderr_is_terminal
}

/// A progress bar from [`Output::progress`]; cleared when done or dropped.
pub struct Bar {
    bar: indicatif::ProgressBar,
    started: Instant,
    shown: AtomicBool,
}

impl Bar {
    fn new(template: &str) -> Bar {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(0),
            indicatif::ProgressDrawTarget::hidden(),
        );
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Bar {
            bar,
            started: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }

    /// `done` of `total`; the bar appears once the work has lasted a quarter second.
    pub fn set(&self, done: u64, total: u64) {
        self.bar.set_length(total);
        self.bar.set_position(done);
        if !self.shown.load(Ordering::Relaxed)
            && self.started.elapsed() > Duration::from_millis(250)
        {
            self.shown.store(true, Ordering::Relaxed);
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }

    /// The bar's `{msg}` (counts that have no total).
    pub fn message(&self, msg: String) {
        self.bar.set_message(msg);
        self.set(self.bar.position(), self.bar.length().unwrap_or(0));
    }

    /// Clears the bar (the report follows on stdout).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
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

#[cfg(test)]
mod tests {
    use super::show_progress;

    #[test]
    fn progress_only_on_a_terminal_and_never_under_json_or_quiet() {
        assert!(show_progress(false, 0, true));
        assert!(show_progress(false, 2, true));
        assert!(!show_progress(true, 0, true), "--json");
        assert!(!show_progress(false, -1, true), "-q");
        assert!(!show_progress(false, 0, false), "stderr not a terminal");
    }
}
