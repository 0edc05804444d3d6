//! One serve command line read the way MemPalace reads it: `mempalace serve …` or an HTTP
//! `mempalace-mcp`, into bind, port, token, TLS; compose and unit files feed it their lines.

use std::collections::BTreeMap;

use super::env_file::interpolate;
use mpt_palace::hygiene::mempalace_subcommands;

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

#[cfg(test)]
mod tests {
    use super::*;
    use mpt_palace::hygiene::words;

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
}
