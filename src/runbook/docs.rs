//! Steps `no-sync` (RFC 001 §7.2: `mempalace sync` where it could reach a shared palace) and
//! `stale-docs` (§2: docs that still advertise the unauthenticated transport or an http:// primary).

use super::scan::ScanSet;
use super::{Finding, Step};
use mpt_palace::hygiene::{is_comment, runs_sync, words};

/// The docker0 gateway: reachable from the host and its containers, not from the LAN.
pub const RECOMMENDED_BIND: &str = "172.17.0.1";

pub fn no_sync(scan: &ScanSet) -> Step {
    let mut findings = Vec::new();
    for f in scan.of(|k| k.runs()) {
        for (n, line) in f.lines() {
            if runs_sync(line) {
                findings.push(
                    Finding::at(&f.path, n, "runs `mempalace sync`: it deletes drawers whose source files are absent on THIS host; against a shared palace that is a fleet-wide wipe")
                        .text(line),
                );
            }
        }
    }
    let mut s = Step::from_findings(
        "no-sync",
        findings,
        "no `mempalace sync` in the crontabs, units, scripts and compose files searched",
        |n| format!("{n} place(s) run `mempalace sync`"),
    );
    s.evidence = searched(scan);
    if !s.findings.is_empty() {
        s = s.manual("remove each line (or point it at a palace no other machine shares); the edge never forwards mempalace_sync to a primary, but the CLI has no such guard");
    }
    s
}

pub fn stale(scan: &ScanSet) -> Step {
    let mut findings = Vec::new();
    for f in scan.of(|k| k.documents()) {
        for (n, line) in f.lines() {
            if let Some(r) = old_transport(line) {
                findings.push(Finding::at(&f.path, n, "advertises `--transport http`, the pre-3.6 way to share a palace (no token, no TLS); serve the primary with `mempalace serve` and the token from .env (MEMPALACE_MCP_HTTP_TOKEN), never --token on a command line").text(line).replacement(r));
            } else if let Some(r) = unauthenticated_claim(line) {
                findings.push(
                    Finding::at(&f.path, n, "says the HTTP transport is unauthenticated: true in the v1.3.0 era, not since mempalace 3.6.0")
                        .text(line)
                        .replacement(r),
                );
            } else if let Some(r) = http_primary(line) {
                findings.push(
                    Finding::at(
                        &f.path,
                        n,
                        "an http:// primary URL: the token would cross the network in clear text",
                    )
                    .text(line)
                    .replacement(r),
                );
            }
        }
    }
    let mut s = Step::from_findings(
        "stale-docs",
        findings,
        "no .env example, compose file, changelog or doc searched advertises the old transport",
        |n| format!("{n} stale line(s) in the docs people copy from"),
    );
    s.evidence = searched(scan);
    if !s.findings.is_empty() {
        s = s.manual("replace each line with the replacement shown (cert paths are placeholders: use the primary host's)");
    }
    s
}

fn searched(scan: &ScanSet) -> Vec<String> {
    let mut ev = vec![format!(
        "searched {} file(s) in: {}",
        scan.files.len(),
        scan.searched
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )];
    if !scan.missing.is_empty() {
        ev.push(format!(
            "--scan paths that do not exist, so not searched: {}",
            scan.missing
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !scan.unreadable.is_empty() {
        ev.push(format!(
            "not readable by this user (run as their owner to include them): {}",
            scan.unreadable
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    ev
}

/// `mempalace-mcp --transport http …` (or `-m mempalace.mcp_server --transport http`): the
/// replacement `mempalace serve` line, keeping what surrounds the command.
fn old_transport(line: &str) -> Option<String> {
    let w = words(line);
    let http = w
        .windows(2)
        .any(|p| p[0] == "--transport" && p[1] == "http")
        || w.iter().any(|a| a == "--transport=http");
    let start = w.iter().position(|a| {
        a.rsplit('/').next() == Some("mempalace-mcp") || a == "mempalace.mcp_server"
    })?;
    if !http {
        return None;
    }
    let mut port = "8765".to_string();
    let mut palace = None;
    let mut i = start + 1;
    let mut last = start;
    while i < w.len() {
        let (flag, inline) = match w[i].split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (w[i].as_str(), None),
        };
        if !matches!(
            flag,
            "--transport" | "--host" | "--port" | "--palace" | "--backend"
        ) {
            break;
        }
        let value = match inline {
            Some(v) => v,
            None if w.get(i + 1).is_some_and(|v| !v.starts_with('-')) => {
                i += 1;
                w[i].clone()
            }
            None => String::new(),
        };
        match flag {
            "--port" if !value.is_empty() => port = value,
            "--palace" => palace = Some(value),
            _ => {}
        }
        last = i;
        i += 1;
    }
    // Where the command starts in the line (a python launcher before `-m` included).
    let first = if w[start] == "mempalace.mcp_server" && start >= 2 {
        &w[start - 2]
    } else {
        &w[start]
    };
    let cmd_at = line.find(first.as_str())?;
    let prefix = match line[..cmd_at].rfind('[') {
        Some(b) => line[..b].to_string(),
        None => line[..cmd_at].to_string(),
    };
    let mut end = cmd_at;
    for word in &w[start..=last] {
        end = line[end..]
            .find(word.as_str())
            .map_or(end, |p| end + p + word.len());
    }
    let suffix = if prefix.len() < cmd_at && line[..cmd_at].contains('[') {
        String::new()
    } else {
        line[end..].to_string()
    };
    let palace = palace.map_or(String::new(), |p| format!(" --palace {p}"));
    Some(format!(
        "{prefix}mempalace serve --host {RECOMMENDED_BIND} --port {port}{palace} --tls-cert /path/to/cert.pem --tls-key /path/to/key.pem{suffix}"
    ))
}

fn unauthenticated_claim(line: &str) -> Option<String> {
    let l = line.to_ascii_lowercase();
    let claim = [
        "is unauthenticated",
        "are unauthenticated",
        "is not authenticated",
    ]
    .iter()
    .any(|c| l.contains(c));
    if !(claim && (l.contains("http") || l.contains("transport"))) {
        return None;
    }
    let indent_len = line.len() - line.trim_start().len();
    let comment = if is_comment(line) {
        let t = line.trim_start();
        let marks = t.len() - t.trim_start_matches(['#', ';']).len();
        format!("{} ", &t[..marks])
    } else {
        String::new()
    };
    Some(format!(
        "{}{comment}The HTTP transport is authenticated as of mempalace 3.6.0: `mempalace serve` requires a bearer token on non-loopback binds and terminates TLS itself (--tls-cert/--tls-key).",
        &line[..indent_len]
    ))
}

/// An `http://` URL to a non-loopback primary (`…/mcp`, or on a `MEMPALACE_REMOTE_URL` line).
fn http_primary(line: &str) -> Option<String> {
    let at = line.find("http://")?;
    let rest = &line[at + 7..];
    let end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ')' | '>'))
        .unwrap_or(rest.len());
    let url = &rest[..end];
    let host = url
        .split(['/', '?'])
        .next()
        .unwrap_or("")
        .rsplit_once(':')
        .map_or(url.split('/').next().unwrap_or(""), |(h, _)| h);
    let loopback = host == "localhost"
        || host.starts_with("127.")
        || host == "[::1]"
        || host.ends_with(".localhost");
    let primary = url.contains("/mcp") || line.contains("MEMPALACE_REMOTE_URL");
    if loopback || !primary {
        return None;
    }
    Some(format!("{}https://{}", &line[..at], &line[at + 7..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_transport_lines_get_a_serve_replacement() {
        assert_eq!(
            old_transport(
                "# mempalace-mcp --transport http --host 0.0.0.0 --port 8765  (shared palace)"
            )
            .unwrap(),
            "# mempalace serve --host 172.17.0.1 --port 8765 --tls-cert /path/to/cert.pem --tls-key /path/to/key.pem  (shared palace)"
        );
        assert_eq!(
            old_transport(r#"    command: ["mempalace-mcp", "--transport", "http", "--host", "0.0.0.0", "--port", "8766"]"#).unwrap(),
            "    command: mempalace serve --host 172.17.0.1 --port 8766 --tls-cert /path/to/cert.pem --tls-key /path/to/key.pem"
        );
        assert_eq!(old_transport("mempalace-mcp --palace /p"), None);
        // A flag without its value at the end of the line, and text around it in any script.
        assert!(old_transport("run `mempalace-mcp --transport http --port`").is_some());
        assert!(old_transport("é mempalace-mcp --transport http --host ü").is_some());
    }

    #[test]
    fn http_primary_urls_but_not_loopback() {
        assert_eq!(
            http_primary("# MEMPALACE_REMOTE_URL=http://mempalace.lan:8765/mcp").unwrap(),
            "# MEMPALACE_REMOTE_URL=https://mempalace.lan:8765/mcp"
        );
        assert_eq!(
            http_primary("MEMPALACE_REMOTE_URL=http://127.0.0.1:8765/mcp"),
            None
        );
        assert_eq!(http_primary("see http://example.com/docs"), None);
    }

    #[test]
    fn unauthenticated_claims_keep_the_comment() {
        let r = unauthenticated_claim(
            "  # NOTE: the HTTP transport is unauthenticated; front it with a reverse proxy",
        )
        .unwrap();
        assert!(
            r.starts_with("  # The HTTP transport is authenticated"),
            "{r}"
        );
    }
}
