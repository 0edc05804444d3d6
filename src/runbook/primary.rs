//! Phase 1 steps, judged per serve configuration found: `serve-bind` (LAN, loopback-behind-a-
//! tunnel, or the docker0 gateway), `serve-token`, `serve-tls`, `serve-port` (8765 taken?).

use super::binds::{Bind, classify, exposure, fronting};
use super::docs::RECOMMENDED_BIND;
use super::scan::ScanSet;
use super::serve_configs::find;
use super::serve_line::ServeConfig;
use super::{Inputs, State, Step};
use mpt_base::config::ServeBind;
use mpt_palace::procs::Role;

/// How one serve configuration fares on one step: its state and the line that says why.
type Judge = fn(&ServeConfig, &Inputs) -> (State, String);

/// Step `serve-bind`.
pub fn check_bind(inputs: &Inputs, scan: &ScanSet) -> Step {
    judged("serve-bind", bind, inputs, scan, || {
        format!(
            "bind the docker0 gateway: `mempalace serve --host {RECOMMENDED_BIND} …` (or publish `{RECOMMENDED_BIND}:8765:8765` in compose); or, a deliberate choice, `mpt runbook phase1 --bind-ok loopback` (serve behind `mpt gateway` or a tunnel) or `--bind-ok lan` (TLS and a token), kept as `serve_bind` in the mpt config"
        )
    })
}

/// Step `serve-token`.
pub fn check_token(inputs: &Inputs, scan: &ScanSet) -> Step {
    judged(
        "serve-token",
        |c, _| token(c),
        inputs,
        scan,
        || {
            "put MEMPALACE_MCP_HTTP_TOKEN in the primary's .env (0600) and pass it through compose as ${MEMPALACE_MCP_HTTP_TOKEN}; never --token".into()
        },
    )
}

/// Step `serve-tls`.
pub fn check_tls(inputs: &Inputs, scan: &ScanSet) -> Step {
    judged(
        "serve-tls",
        |c, _| tls(c),
        inputs,
        scan,
        || {
            "add --tls-cert and --tls-key (PEM; or MEMPALACE_MCP_TLS_CERT/_KEY) and give clients an https:// URL".into()
        },
    )
}

/// Step `serve-port`.
pub fn check_port(inputs: &Inputs, scan: &ScanSet) -> Step {
    judged("serve-port", port, inputs, scan, || {
        "pick a free port (tor-ms22 moved to 8766: pi-studio owns 8765) and update MEMPALACE_REMOTE_URL on every client".into()
    })
}

/// Judges every serve configuration found; the step is as bad as the worst of them.
fn judged(
    id: &'static str,
    judge: Judge,
    inputs: &Inputs,
    scan: &ScanSet,
    manual: fn() -> String,
) -> Step {
    let configs = find(inputs, scan);
    if configs.is_empty() {
        return Step::new(
            id,
            State::NotApplicable,
            "no serve configuration found (give it with --serve-cmd, or --scan the compose file or unit)",
        );
    }
    let mut worst = State::NotApplicable;
    let mut lines = Vec::new();
    for c in &configs {
        let (state, line) = judge(c, inputs);
        worst = match (worst, state) {
            (State::ToDo, _) | (_, State::ToDo) => State::ToDo,
            (State::Done, _) | (_, State::Done) => State::Done,
            _ => State::NotApplicable,
        };
        lines.push(format!("[{}] {}: {line}", state.label(), c.source));
    }
    let summary = match (worst, lines.len()) {
        (_, 1) => lines[0]
            .split_once("] ")
            .map_or(lines[0].clone(), |(_, r)| r.to_string()),
        (State::ToDo, n) => format!(
            "{} of {n} serve configurations need a change",
            lines.iter().filter(|l| l.starts_with("[to do]")).count()
        ),
        (_, n) => format!("{n} serve configurations checked"),
    };
    let mut s = Step::new(id, worst, summary);
    if lines.len() > 1 {
        s.evidence = lines;
    }
    if worst == State::ToDo {
        s.manual = Some(manual());
    }
    s
}

/// What a deliberate bind costs, said in the step's evidence.
const LOOPBACK_COST: &str = "only this host reaches it: other devices need `mpt gateway` in front (`mpt gateway serve --listen 0.0.0.0:8443 --upstream http://127.0.0.1:PORT`, TLS and a token per device) or a tunnel that keeps the Host header (serve pins Host on loopback: a rewritten one is 403)";
const LAN_COST: &str = "every machine on the LAN reaches the port: it needs TLS (`serve-tls`) and a token (`serve-token`), which every device holding it may use for anything";

fn bind(c: &ServeConfig, inputs: &Inputs) -> (State, String) {
    let deliberate = inputs.deliberate_bind();
    if c.compose && !c.host_network && classify(&c.host) == Bind::Loopback {
        return (
            State::ToDo,
            format!(
                "binds {} inside its container: the published port reaches nothing",
                c.host
            ),
        );
    }
    let exp = exposure(c);
    if exp.is_empty() {
        return (
            State::Done,
            "not published to the host: reachable only on its compose network".into(),
        );
    }
    let mut worst = (State::Done, String::new());
    for (addr, port) in exp {
        let r = match classify(&addr) {
            Bind::Loopback if let Some(f) = fronting(inputs, port) => (
                State::Done,
                format!(
                    "{addr}:{port} behind mpt gateway (pid {}, Phase 4): only the gateway reaches it, each device with its own token",
                    f.pid
                ),
            ),
            Bind::Lan
                if deliberate
                    .as_ref()
                    .is_some_and(|(b, _)| *b == ServeBind::Lan) =>
            {
                (
                    State::Done,
                    format!(
                        "{addr}:{port}, the LAN, deliberately ({}): {LAN_COST}",
                        deliberate.as_ref().map_or("", |(_, why)| why.as_str())
                    ),
                )
            }
            Bind::Loopback
                if deliberate
                    .as_ref()
                    .is_some_and(|(b, _)| *b == ServeBind::Loopback) =>
            {
                (
                    State::Done,
                    format!(
                        "{addr}:{port}, loopback, deliberately ({}): {LOOPBACK_COST}",
                        deliberate.as_ref().map_or("", |(_, why)| why.as_str())
                    ),
                )
            }
            Bind::Lan => (
                State::ToDo,
                format!(
                    "{addr}:{port} publishes the palace to the whole LAN; bind {RECOMMENDED_BIND} (the docker0 gateway)"
                ),
            ),
            Bind::Loopback => (
                State::ToDo,
                format!(
                    "{addr}:{port} is the trap that looks safe: behind a tunnel every proxied request 403s (Host is pinned on loopback), and without a token it starts with no authentication at all; bind {RECOMMENDED_BIND}"
                ),
            ),
            Bind::Gateway => (
                State::Done,
                format!(
                    "{addr}:{port}, the docker0 gateway: the host and its containers, not the LAN"
                ),
            ),
            Bind::Specific => (
                State::Done,
                format!(
                    "{addr}:{port}: reachable from that interface's network only; the docker0 gateway {RECOMMENDED_BIND} is the recommended bind"
                ),
            ),
        };
        if worst.1.is_empty() || r.0 == State::ToDo {
            worst = r;
        }
    }
    worst
}

fn token(c: &ServeConfig) -> (State, String) {
    if let Some(how) = &c.token {
        let note = if how.starts_with("--token") {
            " (visible in ps: see the credentials step)"
        } else {
            ""
        };
        return (State::Done, format!("token from {how}{note}"));
    }
    if c.token_unknown {
        return (State::ToDo, "its environment is not readable by this user: run the runbook as the primary's owner to know".into());
    }
    if c.allow_insecure {
        return (State::ToDo, "--allow-insecure (or MEMPALACE_MCP_HTTP_ALLOW_INSECURE_NO_TOKEN) and no token: anyone who reaches the port holds the palace".into());
    }
    match classify(&c.host) {
        Bind::Loopback => (State::ToDo, format!("no token on a loopback bind ({}): MemPalace mints one only for non-loopback binds, so it starts with no authentication at all", c.host)),
        _ => (State::Done, "no token given: serve mints one (non-loopback bind) and keeps it 0600 in ~/.mempalace/server/<key>/token on the primary host; clients need its value in MEMPALACE_REMOTE_TOKEN".into()),
    }
}

fn tls(c: &ServeConfig) -> (State, String) {
    let exp = exposure(c);
    let reached = exp.iter().any(|(a, _)| classify(a) != Bind::Loopback);
    if !reached {
        return (
            State::NotApplicable,
            "loopback only: TLS terminates wherever the tunnel does".into(),
        );
    }
    if c.tls {
        (State::Done, "TLS with --tls-cert/--tls-key".into())
    } else {
        (State::ToDo, "other machines reach it, but it speaks plain http: the bearer token crosses the network in clear text".into())
    }
}

fn port(c: &ServeConfig, inputs: &Inputs) -> (State, String) {
    let ports: Vec<u16> = if c.compose && !c.host_network {
        c.published.iter().map(|(_, p)| *p).collect()
    } else {
        vec![c.port]
    };
    if ports.is_empty() || ports == [0] {
        return (
            State::NotApplicable,
            "no fixed host port (not published, or --port 0)".into(),
        );
    }
    let all = inputs.procs().0;
    let shown: Vec<String> = ports.iter().map(u16::to_string).collect();
    let mut ours = None;
    for port in ports {
        for inode in listeners(port) {
            match all.iter().find(|p| p.open_sockets().contains(&inode)) {
                Some(p) if Some(p.pid) == c.pid || p.role == Some(Role::Hub) => {
                    ours = Some(format!(
                        "{port}: the primary itself listens (pid {})",
                        p.pid
                    ));
                }
                Some(p) if p.argv.iter().any(|a| a.contains("docker-proxy")) => {
                    ours = Some(format!(
                        "{port}: published by docker (pid {}), presumably this service",
                        p.pid
                    ));
                }
                Some(p) => {
                    let cmd = mpt_palace::hygiene::redact(&p.command_line());
                    return (
                        State::ToDo,
                        format!(
                            "port clash: pid {} ({cmd}) already listens on {port}",
                            p.pid
                        ),
                    );
                }
                None => {
                    return (
                        State::ToDo,
                        format!("port clash: a process of another user already listens on {port}"),
                    );
                }
            }
        }
    }
    let free = format!("nothing listens on {} yet", shown.join(", "));
    (State::Done, ours.unwrap_or(free))
}

/// Socket inodes listening on TCP `port` (`/proc/net/tcp`, `/proc/net/tcp6`).
fn listeners(port: u16) -> Vec<u64> {
    let mut out = Vec::new();
    for f in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for l in text.lines().skip(1) {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let (Some(local), Some(st), Some(inode)) = (cols.get(1), cols.get(3), cols.get(9))
            else {
                continue;
            };
            let p = local
                .rsplit(':')
                .next()
                .and_then(|h| u16::from_str_radix(h, 16).ok());
            if *st == "0A" && p == Some(port) {
                out.extend(inode.parse::<u64>().ok());
            }
        }
    }
    out
}
