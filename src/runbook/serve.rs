//! The primary's serve configuration, wherever it is written: `--serve-cmd`, a compose service,
//! a systemd unit, a script, or a running hub; parsed into bind, port, token, TLS and publishing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Inputs;
use super::scan::{Kind, ScanSet};
use crate::palace::hygiene::{mempalace_subcommands, words};
use crate::palace::procs::{self, Role};

pub const DEFAULT_PORT: u16 = 8765;

#[derive(Debug, Clone, Default)]
pub struct ServeConfig {
    /// `file:line`, `--serve-cmd` or `pid N`.
    pub source: String,
    /// The server's own bind (`--host`, default 127.0.0.1).
    pub host: String,
    pub port: u16,
    /// How the token reaches the server, when it does.
    pub token: Option<String>,
    /// The token could not be seen (another user's process).
    pub token_unknown: bool,
    pub tls: bool,
    pub allow_insecure: bool,
    /// A compose service (its `ports:` decide what the host publishes).
    pub compose: bool,
    pub host_network: bool,
    /// Compose `ports:` that map to the serve port: (host address, host port).
    pub published: Vec<(String, u16)>,
    pub pid: Option<u32>,
}

/// Every serve configuration to judge: `--serve-cmd` alone when given, else all that are found.
pub fn find(inputs: &Inputs, scan: &ScanSet) -> Vec<ServeConfig> {
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    for k in [
        "MEMPALACE_MCP_HTTP_TOKEN",
        "MEMPALACE_MCP_TLS_CERT",
        "MEMPALACE_MCP_TLS_KEY",
    ] {
        if let Some(v) = inputs.env.get(k) {
            vars.insert(k.into(), v.into());
        }
    }
    if let Some(cmd) = &inputs.serve_cmd {
        return parse(&words(cmd), &vars, "--serve-cmd")
            .into_iter()
            .collect();
    }
    let mut out = Vec::new();
    for f in scan.files.iter() {
        match f.kind {
            Kind::Compose => out.extend(compose(&f.path, &f.text)),
            Kind::Systemd | Kind::Script | Kind::Crontab | Kind::Other => {
                let mut env = file_env(&f.path, &f.text);
                env.extend(vars.clone());
                for (n, line) in f.lines() {
                    let l = line.trim_start().trim_start_matches("ExecStart=");
                    let l = l.trim_start_matches(['-', '@', '+', '!']);
                    if line.trim_start().starts_with('#') {
                        continue;
                    }
                    let src = format!("{}:{n}", f.path.display());
                    out.extend(parse(&words(l), &env, &src));
                }
            }
            _ => {}
        }
    }
    if let Ok(home) = inputs.env.home() {
        for p in procs::mine(&procs::list(), &home) {
            if p.role != Some(Role::Hub) {
                continue;
            }
            let env = p.environ();
            let vars: BTreeMap<String, String> =
                env.clone().unwrap_or_default().into_iter().collect();
            if let Some(mut c) = parse(&p.argv, &vars, &format!("pid {}", p.pid)) {
                c.pid = Some(p.pid);
                c.token_unknown = env.is_none() && c.token.is_none();
                out.push(c);
            }
        }
    }
    out
}

/// A serve command in `w`: `mempalace serve …`, or `mempalace-mcp` / `-m mempalace.mcp_server`
/// with `--transport http`. `vars` is the environment it would run with.
pub fn parse(w: &[String], vars: &BTreeMap<String, String>, source: &str) -> Option<ServeConfig> {
    let start = match mempalace_subcommands(w).iter().find(|(_, s)| *s == "serve") {
        Some((i, _)) => w
            .iter()
            .skip(*i)
            .position(|a| a == "serve")
            .map(|p| p + i + 1)?,
        None => {
            let http = w
                .windows(2)
                .any(|p| p[0] == "--transport" && p[1] == "http")
                || w.iter().any(|a| a == "--transport=http");
            let i = w.iter().position(|a| {
                a.rsplit('/').next() == Some("mempalace-mcp") || a == "mempalace.mcp_server"
            })?;
            if !http {
                return None;
            }
            i + 1
        }
    };
    let mut c = ServeConfig {
        source: source.to_string(),
        host: "127.0.0.1".into(),
        port: DEFAULT_PORT,
        ..Default::default()
    };
    let mut env = vars.clone();
    for a in &w[..start] {
        if let Some((k, v)) = a.split_once('=')
            && k.starts_with("MEMPALACE_")
        {
            env.insert(k.into(), v.into());
        }
    }
    let (mut cert, mut key) = (false, false);
    let mut i = start;
    while i < w.len() && !matches!(w[i].as_str(), ";" | "&&" | "||" | "|") {
        let (flag, inline) = match w[i].split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (w[i].clone(), None),
        };
        let takes = matches!(
            flag.as_str(),
            "--host"
                | "--port"
                | "--token"
                | "--tls-cert"
                | "--tls-key"
                | "--palace"
                | "--backend"
                | "--transport"
        );
        let value = if takes && inline.is_none() {
            i += 1;
            w.get(i).cloned().unwrap_or_default()
        } else {
            inline.unwrap_or_default()
        };
        match flag.as_str() {
            "--host" => c.host = interpolate(&value, &env),
            "--port" => c.port = interpolate(&value, &env).parse().unwrap_or(DEFAULT_PORT),
            "--token" => c.token = Some("--token on the command line".into()),
            "--tls-cert" => cert = true,
            "--tls-key" => key = true,
            "--allow-insecure" => c.allow_insecure = true,
            _ => {}
        }
        i += 1;
    }
    let set = |k: &str| env.get(k).is_some_and(|v| !v.trim().is_empty());
    if c.token.is_none() && set("MEMPALACE_MCP_HTTP_TOKEN") {
        c.token = Some("MEMPALACE_MCP_HTTP_TOKEN in its environment".into());
    }
    c.tls = (cert || set("MEMPALACE_MCP_TLS_CERT")) && (key || set("MEMPALACE_MCP_TLS_KEY"));
    c.allow_insecure |= set("MEMPALACE_MCP_HTTP_ALLOW_INSECURE_NO_TOKEN");
    Some(c)
}

/// Each compose service that serves MemPalace: its command, environment, env files and ports.
fn compose(path: &Path, text: &str) -> Vec<ServeConfig> {
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
                env.insert(k.to_string(), unquote(v));
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
fn file_env(path: &Path, text: &str) -> BTreeMap<String, String> {
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

    fn p(cmd: &str) -> ServeConfig {
        parse(&words(cmd), &BTreeMap::new(), "t").unwrap()
    }

    #[test]
    fn serve_lines() {
        let c = p("mempalace serve --host 0.0.0.0 --port 8766 --tls-cert a.pem --tls-key b.pem");
        assert_eq!(
            (c.host.as_str(), c.port, c.tls, c.token),
            ("0.0.0.0", 8766, true, None)
        );
        let c = p("MEMPALACE_MCP_HTTP_TOKEN=x mempalace --palace /p serve");
        assert_eq!((c.host.as_str(), c.port), ("127.0.0.1", 8765));
        assert!(c.token.is_some());
        let c = p("python3 -m mempalace.mcp_server --transport http --host=172.17.0.1 --port 0");
        assert_eq!((c.host.as_str(), c.port), ("172.17.0.1", 0));
        assert!(parse(&words("mempalace-mcp --palace /p"), &BTreeMap::new(), "t").is_none());
    }

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
