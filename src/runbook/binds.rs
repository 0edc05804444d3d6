//! Where a serve listens and what fronts it: an address judged (the LAN, loopback, the docker0
//! gateway), what other machines reach, and the running `mpt gateway serve` in front of it.

use super::Inputs;
use super::docs::RECOMMENDED_BIND;
use super::serve_line::ServeConfig;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bind {
    Lan,
    Loopback,
    Gateway,
    Specific,
}

pub(super) fn classify(addr: &str) -> Bind {
    let a = addr.trim_matches(['[', ']']);
    match a {
        "" | "0.0.0.0" | "::" | "*" => Bind::Lan,
        "localhost" | "::1" => Bind::Loopback,
        a if a.starts_with("127.") => Bind::Loopback,
        RECOMMENDED_BIND => Bind::Gateway,
        _ => Bind::Specific,
    }
}

/// Where other machines would reach it: the published addresses (compose), else the bind.
pub(super) fn exposure(c: &ServeConfig) -> Vec<(String, u16)> {
    if c.compose && !c.host_network {
        return c.published.clone();
    }
    vec![(c.host.clone(), c.port)]
}

/// A running `mpt gateway serve` of this user: its pid, `--listen` and `--upstream`.
#[derive(Debug, Clone)]
pub struct Front {
    pub pid: u32,
    pub listen: Option<String>,
    pub upstream: Option<String>,
}

impl Front {
    /// The upstream's host and port, when it is a URL.
    pub fn upstream_addr(&self) -> Option<(String, u16)> {
        let u = reqwest::Url::parse(self.upstream.as_deref()?).ok()?;
        Some((u.host_str()?.to_string(), u.port_or_known_default()?))
    }
}

/// The running gateways of this user (`mpt gateway serve`, read from `/proc`).
pub fn fronts(inputs: &Inputs) -> Vec<Front> {
    let flag = |argv: &[String], name: &str| {
        let eq = format!("{name}=");
        argv.iter().enumerate().find_map(|(i, a)| {
            a.strip_prefix(&eq)
                .map(str::to_string)
                .or_else(|| (a == name).then(|| argv.get(i + 1).cloned()).flatten())
        })
    };
    inputs
        .procs()
        .1
        .iter()
        .filter(|p| {
            p.argv
                .first()
                .is_some_and(|a| a.rsplit('/').next() == Some("mpt"))
                && p.argv
                    .windows(2)
                    .any(|w| w[0] == "gateway" && w[1] == "serve")
        })
        .map(|p| Front {
            pid: p.pid,
            listen: flag(&p.argv, "--listen"),
            upstream: flag(&p.argv, "--upstream"),
        })
        .collect()
}

/// The running gateway whose upstream is this host's loopback `port`.
pub fn fronting(inputs: &Inputs, port: u16) -> Option<Front> {
    fronts(inputs).into_iter().find(|f| {
        f.upstream_addr()
            .is_some_and(|(h, p)| classify(&h) == Bind::Loopback && p == port)
    })
}
