//! The controlling terminal (`/dev/tty`, whatever stdin and stdout are): a question asked there and
//! its answer read, with the echo off for a secret and restored after, also on an error.

use std::io::{BufRead, Write};

/// Whether a person is at a terminal to answer.
pub fn available() -> bool {
    open().is_ok()
}

fn open() -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
}

/// `question` on the terminal, the line typed after it (echoed only with `echo`).
pub fn ask(question: &str, echo: bool) -> std::io::Result<String> {
    use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
    let tty = open()?;
    let before = tcgetattr(&tty)?;
    if !echo {
        let mut quiet = before.clone();
        quiet.local_modes.remove(LocalModes::ECHO);
        quiet.local_modes.insert(LocalModes::ECHONL);
        tcsetattr(&tty, OptionalActions::Flush, &quiet)?;
    }
    let asked = (|| -> std::io::Result<String> {
        let mut w = &tty;
        write!(w, "{question}")?;
        w.flush()?;
        let mut line = String::new();
        std::io::BufReader::new(&tty).read_line(&mut line)?;
        Ok(line)
    })();
    if !echo {
        let _ = tcsetattr(&tty, OptionalActions::Flush, &before);
    }
    asked
}

/// Shows `lines` and asks `question` with a `[y/N]`; `false` for anything but y or yes.
pub fn confirm(lines: &[String], question: &str) -> std::io::Result<bool> {
    let mut tty = open()?;
    for l in lines {
        writeln!(tty, "{l}")?;
    }
    let answer = ask(&format!("{question} [y/N] "), true)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}
