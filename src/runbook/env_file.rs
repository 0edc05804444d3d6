//! The environment deployment files give a command: env files, systemd `Environment=` and
//! `EnvironmentFile=` lines, exports, and `${VAR:-default}` resolved the way compose does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mpt_palace::hygiene::words;

/// `${VAR}`, `${VAR:-default}` and `$VAR` resolved against `env` (unset → empty, as compose does).
pub fn interpolate(s: &str, env: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(body) = after.strip_prefix('{')
            && let Some(close) = body.find('}')
        {
            let inner = &body[..close];
            let (name, default) = match inner.split_once(":-").or_else(|| inner.split_once('-')) {
                Some((n, d)) => (n, Some(d)),
                None => (inner, None),
            };
            match env.get(name).filter(|v| !v.is_empty()) {
                Some(v) => out.push_str(v),
                None => out.push_str(default.unwrap_or("")),
            }
            rest = &body[close + 1..];
            continue;
        }
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if len == 0 {
            out.push('$');
        } else {
            out.push_str(env.get(&after[..len]).map_or("", String::as_str));
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

pub(super) fn unquote(v: &str) -> String {
    v.trim().trim_matches(['"', '\'']).to_string()
}

/// `KEY=value` lines of an env file (comments and `export` allowed).
pub fn read_env(path: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .map(|t| env_lines(&t))
        .unwrap_or_default()
}

fn env_lines(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim().trim_start_matches("export ").trim();
            if l.starts_with('#') {
                return None;
            }
            let (k, v) = l.split_once('=')?;
            (!k.contains(' ')).then(|| (k.to_string(), unquote(v)))
        })
        .collect()
}

/// The environment a unit or script gives its commands: `Environment=`, `EnvironmentFile=`, exports.
pub(super) fn file_env(path: &Path, text: &str) -> BTreeMap<String, String> {
    let mut env = env_lines(text);
    for l in text.lines() {
        let l = l.trim();
        if let Some(v) = l.strip_prefix("Environment=") {
            for w in words(v) {
                if let Some((k, val)) = w.split_once('=') {
                    env.insert(k.into(), val.into());
                }
            }
        }
        if let Some(f) = l.strip_prefix("EnvironmentFile=") {
            let f = PathBuf::from(f.trim_start_matches('-'));
            let f = if f.is_absolute() {
                f
            } else {
                path.parent().unwrap_or(Path::new("/")).join(f)
            };
            env.extend(read_env(&f));
        }
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation() {
        let env: BTreeMap<String, String> = [("A".to_string(), "1".to_string())].into();
        assert_eq!(interpolate("${A}-${B:-two}-$A-${C}", &env), "1-two-1-");
    }
}
