//! Reading deployment files the way their tools do: compose services (command, environment,
//! env_file, ports, network_mode), env files, systemd Environment lines, `${VAR:-default}`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::serve::{ServeConfig, parse};
use crate::palace::hygiene::words;

/// Each compose service that serves MemPalace: its command, environment, env files and ports.
pub(super) fn compose(path: &Path, text: &str) -> Vec<ServeConfig> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let dotenv = read_env(&dir.join(".env"));
    let lines: Vec<&str> = text.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let Some(services_at) = lines.iter().position(|l| l.trim_end() == "services:") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut i = services_at + 1;
    let key_indent = lines[i..]
        .iter()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map_or(2, |l| indent(l));
    while i < lines.len() {
        let l = lines[i];
        if l.trim().is_empty() || l.trim_start().starts_with('#') || indent(l) != key_indent {
            if !l.trim().is_empty() && indent(l) < key_indent && !l.trim_start().starts_with('#') {
                break;
            }
            i += 1;
            continue;
        }
        let end = (i + 1..lines.len())
            .find(|&j| {
                !lines[j].trim().is_empty()
                    && !lines[j].trim_start().starts_with('#')
                    && indent(lines[j]) <= key_indent
            })
            .unwrap_or(lines.len());
        out.extend(service(path, dir, &dotenv, &lines, i + 1, end));
        i = end;
    }
    out
}

fn service(
    path: &Path,
    dir: &Path,
    dotenv: &BTreeMap<String, String>,
    lines: &[&str],
    from: usize,
    to: usize,
) -> Option<ServeConfig> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut env = dotenv.clone();
    let mut cmd = Vec::new();
    let mut cmd_line = 0;
    let mut ports = Vec::new();
    let mut host_network = false;
    let mut section = "";
    let mut section_indent = 0;
    for (n, raw) in lines.iter().enumerate().take(to).skip(from) {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if indent(raw) <= section_indent {
            section = "";
        }
        if let Some((k, v)) = l
            .split_once(':')
            .filter(|(k, _)| !k.starts_with('-') && !k.contains(' '))
        {
            let v = v.trim();
            match k {
                "command" | "entrypoint" | "environment" | "ports" | "env_file" => {
                    section = match k {
                        "entrypoint" => "command",
                        k => k,
                    };
                    section_indent = indent(raw);
                    if cmd_line == 0 && section == "command" {
                        cmd_line = n + 1;
                    }
                    if !v.is_empty() {
                        item(section, v, dir, &mut env, &mut cmd, &mut ports);
                    }
                    continue;
                }
                "network_mode" => host_network = v.trim_matches(['"', '\'']) == "host",
                _ => {}
            }
            if section == "environment" {
                let v = interpolate(&unquote(v), &env);
                env.insert(k.to_string(), v);
            }
            continue;
        }
        if let Some(v) = l.strip_prefix("- ") {
            item(section, v.trim(), dir, &mut env, &mut cmd, &mut ports);
        }
    }
    let src = format!("{}:{cmd_line}", path.display());
    let mut c = parse(&cmd, &env, &src)?;
    c.compose = true;
    c.host_network = host_network;
    c.published = ports
        .iter()
        .filter_map(|p| publish(&interpolate(p, &env), c.port))
        .collect();
    Some(c)
}

fn item(
    section: &str,
    v: &str,
    dir: &Path,
    env: &mut BTreeMap<String, String>,
    cmd: &mut Vec<String>,
    ports: &mut Vec<String>,
) {
    match section {
        "command" => cmd.extend(words(v).into_iter().map(|w| interpolate(&w, env))),
        "environment" => {
            for w in words(v) {
                if let Some((k, val)) = w.split_once('=') {
                    let val = interpolate(val, env);
                    env.insert(k.into(), val);
                }
            }
        }
        "env_file" => {
            for w in words(v) {
                env.extend(read_env(&dir.join(w)));
            }
        }
        "ports" => ports.extend(words(v)),
        _ => {}
    }
}

/// A compose port mapping to `port` inside: (host address, host port); no address = all.
fn publish(spec: &str, port: u16) -> Option<(String, u16)> {
    let spec = spec.split('/').next().unwrap_or(spec);
    let (addr, rest) = match spec.rsplitn(3, ':').collect::<Vec<_>>()[..] {
        [inner, host, addr] => (addr.trim_matches(['[', ']']).to_string(), (host, inner)),
        [inner, host] => ("0.0.0.0".to_string(), (host, inner)),
        [inner] => ("0.0.0.0".to_string(), (inner, inner)),
        _ => return None,
    };
    let inner: u16 = rest.1.parse().ok()?;
    (inner == port).then(|| (addr, rest.0.parse().unwrap_or(inner)))
}

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

fn unquote(v: &str) -> String {
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
    fn ports_and_interpolation() {
        assert_eq!(
            publish("172.17.0.1:8765:8765", 8765),
            Some(("172.17.0.1".into(), 8765))
        );
        assert_eq!(
            publish("8766:8765/tcp", 8765),
            Some(("0.0.0.0".into(), 8766))
        );
        assert_eq!(publish("9000:9000", 8765), None);
        let env: BTreeMap<String, String> = [("A".to_string(), "1".to_string())].into();
        assert_eq!(interpolate("${A}-${B:-two}-$A-${C}", &env), "1-two-1-");
    }
}
