//! The join code on the device: read from a file, a pipe or the terminal (not echoed), never
//! from the command line; its checksum checked before anything is sent.

use std::path::{Path, PathBuf};

use mpt_base::error::{MptError, Result};
use mpt_gateway::keys::token::JOIN_CODE;

/// Where the code comes from.
#[derive(Debug, Clone)]
pub enum From {
    File(PathBuf),
    /// The line piped to standard input (read by the command).
    Piped(String),
    /// Asked for on the controlling terminal, not echoed.
    Terminal,
}

/// The code, its format and checksum checked (a mistyped code is refused here, before any request);
/// registered as a secret, so nothing mpt prints or logs after this shows it.
pub fn read(from: &From) -> Result<String> {
    let raw = match from {
        From::File(p) => read_file(p)?,
        From::Piped(line) => line.clone(),
        From::Terminal => prompt()?,
    };
    let code = raw.trim().to_string();
    mpt_base::secrets::register(&code);
    check(&code)?;
    Ok(code)
}

/// Exit 2 for a code that is not one (empty, a token, or mistyped: its checksum says so).
pub fn check(code: &str) -> Result<()> {
    if JOIN_CODE.parse(code).is_some() {
        return Ok(());
    }
    let what = if code.is_empty() {
        "no join code was given".to_string()
    } else if code.starts_with(mpt_base::secrets::GATEWAY_TOKEN_PREFIX) {
        "that is a device token (mptg_…), not a join code (mptj_…)".to_string()
    } else if code.starts_with(mpt_base::secrets::JOIN_CODE_PREFIX) {
        "the join code does not check out (a character mistyped or missing)".to_string()
    } else {
        "that is not a join code (they start with mptj_)".to_string()
    };
    Err(MptError::usage(what).with_hint(
        "copy the code `mpt gateway invite DEVICE` printed on the primary host whole, and run `mpt join` again",
    ))
}

fn read_file(p: &Path) -> Result<String> {
    // Read as a token file is: a regular file of ours, 0600, bounded.
    mpt_base::config::read_token_file(p).map(|s| s.expose().to_string())
}

/// Asks on the controlling terminal, not echoed.
fn prompt() -> Result<String> {
    super::tty::ask(
        "join code (from `mpt gateway invite` on the primary host): ",
        false,
    )
    .map_err(|e| {
        MptError::io("reading the join code from the terminal", &e)
            .with_hint("give it in a file instead: `mpt join URL --code-file FILE`")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_or_a_mistyped_code_is_refused_before_any_request() {
        let (_, code) = JOIN_CODE.mint().unwrap();
        assert!(check(&code).is_ok());
        let (_, token) = mpt_gateway::keys::token::mint().unwrap();
        let e = check(&token).unwrap_err();
        assert!(e.message.contains("device token"), "{}", e.message);
        let e = check(&code[..code.len() - 1]).unwrap_err();
        assert!(e.message.contains("mistyped"), "{}", e.message);
        assert_eq!(e.exit().code(), 2);
        assert!(check("").unwrap_err().message.contains("no join code"));
    }
}
