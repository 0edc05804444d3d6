//! Reading deployment files the way their tools do: compose services (command, environment,
//! env_file, ports, network_mode), env files, systemd Environment lines, `${VAR:-default}`.

use std::collections::BTreeMap;
use std::path::Path;

use super::env_file::{interpolate, read_env, unquote};
use super::serve_line::{ServeConfig, parse};
use mpt_palace::hygiene::words;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports() {
        assert_eq!(
            publish("172.17.0.1:8765:8765", 8765),
            Some(("172.17.0.1".into(), 8765))
        );
        assert_eq!(
            publish("8766:8765/tcp", 8765),
            Some(("0.0.0.0".into(), 8766))
        );
        assert_eq!(publish("9000:9000", 8765), None);
    }
}
