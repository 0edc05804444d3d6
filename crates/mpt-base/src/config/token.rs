//! The device's token: `MEMPALACE_REMOTE_TOKEN`, else the 0600 file `MPT_TOKEN_FILE` (or the
//! config's `token_file`) names, read as the token alone or as the env line an older `--out` wrote.

use std::path::{Path, PathBuf};

use super::{Env, FileConfig, Secret, TokenSource, read, values};
use crate::error::{MptError, Result};

const TOKEN_FILE_LIMIT: u64 = 64 << 10;

pub(super) fn load_token(env: &Env, file: &FileConfig) -> Result<Option<(Secret, TokenSource)>> {
    if let Some(t) = env.raw("MEMPALACE_REMOTE_TOKEN")?
        && let Some(secret) = values::token(t, "MEMPALACE_REMOTE_TOKEN")?
    {
        return Ok(Some((secret, TokenSource::Env)));
    }
    match token_file_of(env, file)? {
        None => Ok(None),
        Some((p, setting)) => read_token(&p, setting).map(|s| Some((s, TokenSource::File(p)))),
    }
}

/// The token file a setting names (`MPT_TOKEN_FILE`, else the config's `token_file`), and that
/// setting, whether or not the file can be read.
fn token_file_of(env: &Env, file: &FileConfig) -> Result<Option<(PathBuf, &'static str)>> {
    Ok(match values::env_path(env, "MPT_TOKEN_FILE")? {
        Some(p) => Some((p, "MPT_TOKEN_FILE")),
        None => file
            .token_file
            .clone()
            .map(|p| (p, "the config's token_file")),
    })
}

/// The token file this machine names, found even when the configuration refuses to load because
/// of it (mode 0644 with a URL set): what `mpt runbook`'s `credentials` step checks and fixes.
pub fn token_file_setting(
    env: &Env,
    flag_path: Option<&Path>,
) -> Result<Option<(PathBuf, &'static str)>> {
    match values::env_path(env, "MPT_TOKEN_FILE")? {
        Some(p) => Ok(Some((p, "MPT_TOKEN_FILE"))),
        None => token_file_of(env, &super::load_file(env, flag_path)?.0),
    }
}

/// Reads a token file, refusing one that others can read (exit 4), one that is not a regular
/// file, too large for a token, or holding more than one line of printable ASCII (exit 2).
pub fn read_token_file(path: &Path) -> Result<Secret> {
    read_token(path, "the token file")
}

fn read_token(path: &Path, setting: &str) -> Result<Secret> {
    use std::os::unix::fs::PermissionsExt;
    let named = read::Named { setting, path };
    let (opened, meta) = read::open_regular(&named)?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(MptError::refused(format!(
            "the token file {} is mode {mode:04o}: other users on this machine can read the palace token",
            path.display()
        ))
        .with_hint(format!("chmod 600 {}", path.display())));
    }
    let bytes = read::read_bounded(opened, &named, TOKEN_FILE_LIMIT)?;
    let source = format!("the token file {}", path.display());
    let text = String::from_utf8(bytes)
        .map_err(|_| MptError::usage(format!("{source} holds bytes that are not UTF-8")))?;
    values::token(env_line_token(&text).unwrap_or(&text), &source)?
        .ok_or_else(|| MptError::usage(format!("{source} is empty")))
}

/// The token of a token file written as an env line (`MEMPALACE_REMOTE_TOKEN=<token>`, an
/// `export ` before it allowed: what `mpt gateway token --env-file` writes), read as the token
/// it holds; `None` for a file of the token alone. Doctor's `config` check says to strip it.
pub fn env_line_token(text: &str) -> Option<&str> {
    let line = text.trim();
    line.strip_prefix("export ")
        .unwrap_or(line)
        .trim_start()
        .strip_prefix("MEMPALACE_REMOTE_TOKEN=")
        .map(|t| t.trim_matches(['"', '\'']))
}

/// Where a device's gateway token file is kept (on the primary host when issued, on the device
/// once copied): the quick start's `~/.config/mpt/<device>.token`, as every printed fix names it.
pub fn device_token_file(device: &str) -> String {
    format!("~/.config/mpt/{device}.token")
}
