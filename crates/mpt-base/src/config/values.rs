//! Settings that name files, carry the token or name this device, checked as they are read: a path
//! is absolute (or `~/…`), a CA file holds PEM, a token is printable ASCII, a device name one word.

use std::path::{Path, PathBuf};

use super::{Env, FileConfig, Secret};
use crate::error::{MptError, Result};

/// The environment variables that name files; each is checked by `Config::load`.
pub const PATH_VARS: [&str; 4] = ["MPT_CONFIG", "MPT_OUTBOX", "MPT_TOKEN_FILE", "MPT_CA_FILE"];

/// A path-valued environment variable: unset is `None`; set but empty, relative or not UTF-8 is
/// exit 2 (each would make the file depend on the folder mpt runs in, or name nothing).
pub fn env_path(env: &Env, key: &str) -> Result<Option<PathBuf>> {
    let Some(value) = env.raw(key)? else {
        return Ok(None);
    };
    absolute(value, key, env.get("HOME")).map(Some)
}

/// Checks each path the config file names, expanding a leading `~/`.
pub fn check_file_paths(file: &mut FileConfig, config: &Path, env: &Env) -> Result<()> {
    let home = env.get("HOME");
    let name = |field: &str| format!("\"{field}\" in {}", config.display());
    for (field, slot) in [
        ("palace", &mut file.palace),
        ("outbox", &mut file.outbox),
        ("ca_file", &mut file.ca_file),
        ("token_file", &mut file.token_file),
    ] {
        if let Some(p) = slot.as_ref() {
            *slot = Some(absolute(&lossless(p, &name(field))?, &name(field), home)?);
        }
    }
    if let Some(p) = file.child.as_ref() {
        let value = lossless(p, &name("child"))?;
        // A bare command name is looked up on PATH, which does not depend on the folder either.
        if value.is_empty() || value.contains('/') {
            file.child = Some(absolute(&value, &name("child"), home)?);
        }
    }
    Ok(())
}

fn lossless(p: &Path, name: &str) -> Result<String> {
    p.to_str()
        .map(str::to_string)
        .ok_or_else(|| MptError::usage(format!("{name} is not UTF-8")))
}

/// Room for a whole system CA bundle.
const CA_FILE_LIMIT: u64 = 4 << 20;

/// `MPT_CA_FILE`, else `ca_file` in the config: a regular file holding a PEM certificate, or
/// exit 2 naming the setting (a timer would otherwise retry a TLS failure forever).
pub fn check_ca_file(env: &Env, file: &FileConfig) -> Result<Option<PathBuf>> {
    let (setting, path) = match env_path(env, "MPT_CA_FILE")? {
        Some(p) => ("MPT_CA_FILE", p),
        None => match &file.ca_file {
            Some(p) => ("the config's ca_file", p.clone()),
            None => return Ok(None),
        },
    };
    let named = super::read::Named {
        setting,
        path: &path,
    };
    let pem = super::read::read_regular(&named, CA_FILE_LIMIT)?;
    if !reqwest::Certificate::from_pem_bundle(&pem).is_ok_and(|c| !c.is_empty()) {
        return Err(MptError::usage(format!(
            "{} holds no PEM certificate",
            named.says()
        ))
        .with_hint(format!(
            "point {setting} at the primary's CA certificate (PEM, -----BEGIN CERTIFICATE-----)"
        )));
    }
    Ok(Some(path))
}

/// `value` as an absolute path (`~/…` expanded), or exit 2 naming `name`.
fn absolute(value: &str, name: &str, home: Option<&str>) -> Result<PathBuf> {
    if value.trim().is_empty() {
        return Err(MptError::usage(format!(
            "{name} is empty: an empty path would name whatever folder mpt runs in"
        ))
        .with_hint(format!("remove {name}, or give it an absolute path")));
    }
    let path = match value.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            let home = home.ok_or_else(|| {
                MptError::usage(format!(
                    "{name}='{value}' starts with ~ but HOME is not set"
                ))
                .with_hint("export HOME, or give an absolute path")
            })?;
            PathBuf::from(format!("{home}{rest}"))
        }
        _ => PathBuf::from(value),
    };
    if !path.is_absolute() {
        return Err(MptError::usage(format!(
            "{name}='{value}' is a relative path: it would resolve against whatever folder mpt runs in, so each folder would get its own"
        ))
        .with_hint(format!("give {name} an absolute path (or ~/…)")));
    }
    Ok(path)
}

/// A token as read from `source` (trimmed); refused (exit 2, the value never printed) unless it
/// is one line of printable ASCII, the only thing an `Authorization: Bearer` header can carry.
pub fn token(raw: &str, source: &str) -> Result<Option<Secret>> {
    let token = raw.trim();
    if token.is_empty() {
        return Ok(None);
    }
    if let Some(at) = token.chars().position(|c| !c.is_ascii_graphic()) {
        return Err(MptError::usage(format!(
            "{source} holds a character a bearer token cannot carry (a line break, a space, a control or non-ASCII character) at character {}",
            at + 1
        ))
        .with_hint(format!(
            "set {source} to the token alone, on one line: the primary's token is printable ASCII"
        )));
    }
    Ok(Some(Secret::new(token.to_string())))
}

/// The variable that names this device (stamped `<harness>@<device>`, the mailbox's address).
pub const DEVICE_VAR: &str = "MEMPALACE_PI_DEVICE";

/// `MEMPALACE_PI_DEVICE` holds no whitespace or control character, or exit 2 naming it. Never
/// trimmed: the pi bridge stamps the value verbatim, so a trimmed `lap` here would not match the
/// bridge's `lap\r` (asks addressed to one are never owed by the other).
pub fn check_device(env: &Env) -> Result<()> {
    let Some(value) = env.raw(DEVICE_VAR)?.filter(|v| !v.is_empty()) else {
        return Ok(());
    };
    let Some(bad) = value.chars().find(|c| c.is_whitespace() || c.is_control()) else {
        return Ok(());
    };
    let shown = value.escape_debug();
    if value.ends_with('\r') && !value[..value.len() - 1].contains(char::is_whitespace) {
        return Err(MptError::usage(format!(
            "{DEVICE_VAR}='{shown}' ends in a carriage return: the .env it came from has Windows line endings (CRLF), which leave a \\r on every value; stamped as it is, this device's writes and its mailbox address would not match the pi bridge's"
        ))
        .with_hint(format!(
            "convert the file to LF line endings (`sed -i 's/\\r$//' .env`, or `dos2unix .env`), then export {DEVICE_VAR} again from it"
        )));
    }
    let what = match bad {
        '\n' => "a line break".to_string(),
        '\r' => "a carriage return".to_string(),
        ' ' => "a space".to_string(),
        '\t' => "a tab".to_string(),
        c => format!("the character {}", c.escape_unicode()),
    };
    Err(MptError::usage(format!(
        "{DEVICE_VAR}='{shown}' holds {what}: a device name is one word, stamped verbatim into every write and the mailbox's addresses (a line break breaks the coordination log's records)"
    ))
    .with_hint(format!(
        "set {DEVICE_VAR} to this machine's name without spaces or line breaks, e.g. {DEVICE_VAR}=lap"
    )))
}

/// This machine's host name (`uname`'s node name, what `gethostname` reads); `None` when the
/// system gives none.
pub fn hostname() -> Option<String> {
    let name = rustix::system::uname();
    let name = name.nodename().to_bytes();
    (!name.is_empty()).then(|| String::from_utf8_lossy(name).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_relative_env_paths_are_exit_2_and_tilde_expands() {
        let env = Env::from_pairs([
            ("HOME", "/h"),
            ("MPT_OUTBOX", ""),
            ("MPT_CA_FILE", "ca.pem"),
            ("MPT_TOKEN_FILE", "~/tok"),
        ]);
        for key in ["MPT_OUTBOX", "MPT_CA_FILE"] {
            let e = env_path(&env, key).unwrap_err();
            assert_eq!(e.exit().code(), 2);
            assert!(e.message.contains(key), "{}", e.message);
        }
        assert_eq!(
            env_path(&env, "MPT_TOKEN_FILE").unwrap(),
            Some(PathBuf::from("/h/tok"))
        );
        assert_eq!(env_path(&env, "MPT_CONFIG").unwrap(), None);
    }

    #[test]
    fn config_paths_must_be_absolute_but_child_may_be_a_command_name() {
        let env = Env::from_pairs([("HOME", "/h")]);
        let cfg = Path::new("/c.json");
        let mut ok = FileConfig {
            palace: Some("~/p".into()),
            child: Some("mempalace-mcp".into()),
            ..FileConfig::default()
        };
        check_file_paths(&mut ok, cfg, &env).unwrap();
        assert_eq!(ok.palace, Some(PathBuf::from("/h/p")));
        assert_eq!(ok.child, Some(PathBuf::from("mempalace-mcp")));
        for bad in [
            FileConfig {
                palace: Some("".into()),
                ..FileConfig::default()
            },
            FileConfig {
                outbox: Some("q.sqlite3".into()),
                ..FileConfig::default()
            },
            FileConfig {
                child: Some("bin/mempalace-mcp".into()),
                ..FileConfig::default()
            },
            FileConfig {
                child: Some("".into()),
                ..FileConfig::default()
            },
        ] {
            let e = check_file_paths(&mut bad.clone(), cfg, &env).unwrap_err();
            assert_eq!(e.exit().code(), 2, "{bad:?}");
            assert!(e.message.contains("/c.json"), "{}", e.message);
        }
    }

    #[test]
    fn a_device_name_with_a_cr_a_space_or_a_line_break_is_exit_2_naming_it() {
        let with = |v: &str| check_device(&Env::from_pairs([(DEVICE_VAR, v)]));
        for ok in ["lap", "pi-devbox.2", "café", ""] {
            with(ok).unwrap();
        }
        let crlf = with("lap\r").unwrap_err();
        assert_eq!(crlf.exit().code(), 2);
        assert!(
            crlf.message.contains("MEMPALACE_PI_DEVICE='lap\\r'"),
            "{}",
            crlf.message
        );
        assert!(crlf.message.contains("CRLF"), "{}", crlf.message);
        assert!(crlf.hint.as_deref().unwrap().contains("dos2unix"));
        for (bad, what) in [
            ("lap ", "a space"),
            (" lap", "a space"),
            ("my lap", "a space"),
            ("lap\n", "a line break"),
            ("la\np", "a line break"),
            ("lap\t", "a tab"),
            ("lap\u{7f}", "the character"),
            ("my lap\r", "a space"),
        ] {
            let e = with(bad).unwrap_err();
            assert_eq!(e.exit().code(), 2, "{bad:?}");
            assert!(
                e.message.starts_with("MEMPALACE_PI_DEVICE='"),
                "{}",
                e.message
            );
            assert!(e.message.contains(what), "{bad:?}: {}", e.message);
        }
    }

    #[test]
    fn a_token_with_a_line_break_inside_is_refused_without_printing_it() {
        let e = token("abc\ndef", "MEMPALACE_REMOTE_TOKEN").unwrap_err();
        assert_eq!(e.exit().code(), 2);
        assert!(e.message.contains("MEMPALACE_REMOTE_TOKEN"));
        assert!(!e.message.contains("abc"));
        assert!(token("caf\u{e9}", "X").is_err());
        assert_eq!(
            token("  tok-123\n", "X").unwrap().unwrap().expose(),
            "tok-123"
        );
        assert!(token(" \n", "X").unwrap().is_none());
    }
}
