//! Part of the `config` check: opencode's remote MemPalace entry can authenticate. Its `{env:X}`
//! set in each running opencode (else this shell), its `{file:P}` there, 0600, non-empty, and the
//! token either one resolves to compared with mpt's by hash; no token is ever printed.

use std::os::unix::fs::PermissionsExt;

use sha2::{Digest, Sha256};

use super::{Inputs, Status};
use mpt_base::config::{Config, TokenSource};
use mpt_palace::harness::opencode::Entry;
use mpt_palace::harness::opencode::token_ref::{self, TokenRef};
use mpt_palace::procs::{Proc, Role};

/// One finding: its status, what is wrong, the fix (the `config` check's `push`).
type Push<'p> = &'p mut dyn FnMut(Status, String, String);

/// Checks each enabled remote entry's token reference.
pub fn findings<'a>(
    inputs: &Inputs,
    config: &Config,
    entries: &[&Entry],
    procs: &dyn Fn() -> &'a [Proc],
    push: Push,
) {
    let mine = config
        .remote
        .as_ref()
        .and_then(|r| r.token.as_ref())
        .map(|(secret, source)| (digest(secret.expose()), source));
    for e in entries.iter().filter(|e| e.remote_kind()) {
        let at = format!("opencode's entry '{}' in {}", e.name, e.file.display());
        let rewire = match mine.as_ref().map(|(_, s)| *s) {
            Some(TokenSource::File(p)) => format!(
                "`mpt edge wire opencode` writes `Bearer {{file:{}}}` (the token file mpt reads), then restart opencode",
                p.display()
            ),
            _ => format!(
                "export {} in the shell that starts opencode (or set MPT_TOKEN_FILE and run `mpt edge wire opencode`), then restart opencode",
                token_ref::ENV_VAR
            ),
        };
        let resolved: Vec<(String, Option<String>)> = match token_ref::parse(
            e.authorization.as_deref(),
        ) {
            TokenRef::Missing => {
                push(
                    Status::Fail,
                    format!(
                        "{at} sends no bearer token: the primary refuses it and opencode shows \"needs authentication\""
                    ),
                    rewire,
                );
                continue;
            }
            TokenRef::Literal => {
                push(
                    Status::Warn,
                    format!(
                        "{at} holds the token itself: anyone who can read that file holds the palace"
                    ),
                    "`mpt edge wire opencode` references it instead ({file:…} or {env:…})".into(),
                );
                continue;
            }
            TokenRef::Env(var) => env_values(inputs, &var, procs()),
            TokenRef::File(written) => {
                let home = inputs.env.home().ok();
                let path = token_ref::file_path(&written, &e.file, home.as_deref());
                match file_value(&path) {
                    Ok(v) => vec![(format!("{{file:{written}}}"), Some(v))],
                    Err((status, why, fix)) => {
                        push(status, format!("{at} reads {{file:{written}}}: {why}"), fix);
                        continue;
                    }
                }
            }
        };
        for (whose, value) in resolved {
            match (value, &mine) {
                (None, _) => push(
                    Status::Fail,
                    format!(
                        "{at} sends `Bearer {whose}`, which is unset: opencode sends an empty token and shows \"needs authentication\""
                    ),
                    rewire.clone(),
                ),
                (Some(v), Some((want, _))) if digest(&v) != *want => push(
                    Status::Fail,
                    format!(
                        "{at}: `{whose}` is not the token mpt uses (compared by hash): the primary refuses one of them"
                    ),
                    rewire.clone(),
                ),
                _ => {}
            }
        }
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// `{env:var}` as each running opencode of this user sees it (from `/proc`), else as an opencode
/// started from this shell would: (whose, the value; `None` when unset or empty).
fn env_values(inputs: &Inputs, var: &str, procs: &[Proc]) -> Vec<(String, Option<String>)> {
    let running: Vec<(String, Option<String>)> = procs
        .iter()
        .filter(|p| p.role == Some(Role::Opencode))
        .filter_map(|p| {
            let env = p.environ()?;
            let value = env.get(var).filter(|v| !v.is_empty()).cloned();
            if let Some(v) = &value {
                mpt_base::secrets::register(v);
            }
            Some((format!("{{env:{var}}} in opencode pid {}", p.pid), value))
        })
        .collect();
    if !running.is_empty() {
        return running;
    }
    let value = inputs.env.get(var).map(str::to_string);
    vec![(format!("{{env:{var}}} in this shell"), value)]
}

/// The token in `path` as opencode reads it (trimmed), or why opencode cannot use it safely.
fn file_value(path: &std::path::Path) -> Result<String, (Status, String, String)> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| {
        (
            Status::Fail,
            format!("{shown} cannot be read ({e}): opencode refuses its whole config (\"bad file reference\")"),
            format!("put the token in {shown} (mode 0600), or `mpt edge wire opencode`"),
        )
    })?;
    if !meta.is_file() {
        return Err((
            Status::Fail,
            format!("{shown} is not a regular file"),
            "point the entry at the token file, or `mpt edge wire opencode`".to_string(),
        ));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err((
            Status::Fail,
            format!(
                "{shown} is mode {mode:04o}: other users on this machine can read the palace token"
            ),
            format!("chmod 600 {shown}"),
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        (
            Status::Fail,
            format!("{shown} cannot be read ({e})"),
            format!("put the token in {shown} (mode 0600)"),
        )
    })?;
    let token = text.trim().to_string();
    if token.is_empty() {
        return Err((
            Status::Fail,
            format!(
                "{shown} is empty: opencode sends an empty token and shows \"needs authentication\""
            ),
            format!("put the token in {shown}"),
        ));
    }
    mpt_base::secrets::register(&token);
    Ok(token)
}
