//! Why a request to the primary got no answer, said once: the layer that failed (DNS, refused,
//! TLS, no TLS at all, connect) and one plain cause; the library's own chain goes to `-v`'s log.

use std::error::Error as _;

use super::{CallError, HttpFailure};
use mpt_base::log_debug;

/// How a failed send to a device's gateway begins its detail (`via_gateway`: the client holds a
/// token `mpt gateway` issued): its hint then names the gateway, not `mempalace serve`.
pub(super) const GATEWAY_UNREACHABLE: &str = "cannot reach the gateway at ";

/// Names the layer that failed: DNS, refused, TLS, a server that speaks no TLS, or another
/// connect failure.
pub(super) fn classify(e: &reqwest::Error, via_gateway: bool) -> CallError {
    let text = chain(e);
    log_debug!("the request to the primary failed: {text}");
    let lower = text.to_lowercase();
    let refused = source_io_kind(e) == Some(std::io::ErrorKind::ConnectionRefused)
        || lower.contains("connection refused");
    let failure = if e.is_timeout() {
        HttpFailure::Connect
    } else if refused {
        HttpFailure::Refused
    } else if lower.contains("dns error")
        || lower.contains("failed to lookup")
        || lower.contains("name or service not known")
        || lower.contains("no address associated")
    {
        HttpFailure::Dns
    } else if speaks_no_tls(&lower) {
        HttpFailure::NotTls
    } else if lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("handshake")
        || lower.contains("unknownissuer")
    {
        HttpFailure::Tls
    } else if e.is_connect() {
        HttpFailure::Connect
    } else {
        HttpFailure::Dropped
    };
    let cause = match failure {
        HttpFailure::Refused => "connection refused".to_string(),
        HttpFailure::Dns => "its host name does not resolve".to_string(),
        HttpFailure::NotTls => "it does not speak TLS at that address (the TLS handshake met a plain reply or none: a plain-HTTP server?)".to_string(),
        HttpFailure::Tls => format!("the TLS handshake failed: {}", plain_cause(e)),
        HttpFailure::Connect if e.is_timeout() => "the connection timed out".to_string(),
        HttpFailure::Dropped => format!("the connection dropped: {}", plain_cause(e)),
        _ => plain_cause(e),
    };
    CallError::Http {
        failure,
        status: None,
        detail: match via_gateway {
            true => format!("{GATEWAY_UNREACHABLE}{}: {cause}", address(e)),
            false => format!("cannot reach the primary at {}: {cause}", address(e)),
        },
    }
}

/// A TLS client that met a server speaking plain HTTP: rustls reads the server's plain reply as
/// a corrupt record, or the server closes on the ClientHello it cannot parse (`mempalace serve`
/// without `--tls-cert` does), before any certificate is seen.
fn speaks_no_tls(lower: &str) -> bool {
    !lower.contains("certificate")
        && (lower.contains("invalidcontenttype")
            || lower.contains("corrupt message")
            || lower.contains("tls handshake eof"))
}

/// The host and port the request went to (never the URL's userinfo, path or query).
fn address(e: &reqwest::Error) -> String {
    e.url()
        .and_then(|u| {
            let host = u.host_str()?;
            Some(match u.port_or_known_default() {
                Some(p) => format!("{host}:{p}"),
                None => host.to_string(),
            })
        })
        .unwrap_or_else(|| "its address".into())
}

/// The innermost cause, as the OS or the TLS library says it, without its errno.
pub(super) fn plain_cause(e: &reqwest::Error) -> String {
    let mut last = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        last = s.to_string();
        src = s.source();
    }
    let trimmed = match last.find(" (os error") {
        Some(i) => &last[..i],
        None => &last,
    };
    let mut c = trimmed.chars();
    match c.next() {
        Some(first) => first.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// An error and its sources in one line, each said once (for the log).
pub(super) fn chain(e: &reqwest::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut src = e.source();
    while let Some(s) = src {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        src = s.source();
    }
    parts.join(": ")
}

fn source_io_kind(e: &reqwest::Error) -> Option<std::io::ErrorKind> {
    let mut src = e.source();
    while let Some(s) = src {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        src = s.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_http_reply_is_told_from_a_certificate_problem() {
        assert!(speaks_no_tls(
            "client error (connect): received corrupt message of type invalidcontenttype"
        ));
        assert!(speaks_no_tls("client error (connect): tls handshake eof"));
        assert!(!speaks_no_tls("invalid peer certificate: unknownissuer"));
    }
}
