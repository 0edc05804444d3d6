//! The gateway's framing over the wire, on a plain and a TLS listener alike: a request two
//! readers could frame differently is refused (400 `bad_framing`) before hyper reads it; every
//! other shape is served by hyper.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::support::gateway::Setup;

/// How a test reaches the gateway: plain TCP, or TLS trusting the setup's CA.
enum Wire {
    Plain(u16),
    Tls(u16, Arc<rustls::ClientConfig>),
}

impl Wire {
    fn of(s: &Setup, tls: bool) -> Wire {
        if !tls {
            return Wire::Plain(s.gw.port);
        }
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_file_iter(s.ca()).unwrap() {
            roots.add(c.unwrap()).unwrap();
        }
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        Wire::Tls(s.gw.port, Arc::new(config))
    }

    /// `head` and `body` sent on a connection of their own (its write side closed after them
    /// when `half_close`): the reply, as far as it came.
    fn exchange(&self, head: &str, body: &[u8], half_close: bool) -> String {
        let port = match self {
            Wire::Plain(p) | Wire::Tls(p, _) => *p,
        };
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let mut reply = Vec::new();
        match self {
            Wire::Plain(_) => {
                s.write_all(head.as_bytes()).unwrap();
                s.write_all(body).unwrap();
                if half_close {
                    s.shutdown(Shutdown::Write).unwrap();
                }
                s.read_to_end(&mut reply).unwrap();
            }
            Wire::Tls(_, config) => {
                let name = "127.0.0.1".try_into().unwrap();
                let conn = rustls::ClientConnection::new(Arc::clone(config), name).unwrap();
                let mut t = rustls::StreamOwned::new(conn, s);
                t.write_all(head.as_bytes()).unwrap();
                t.write_all(body).unwrap();
                t.flush().unwrap();
                if half_close {
                    t.conn.send_close_notify();
                    t.flush().unwrap();
                    t.sock.shutdown(Shutdown::Write).unwrap();
                }
                // A close without close_notify ends the read with an error: what came counts.
                let mut piece = [0u8; 4096];
                while let Ok(n) = t.read(&mut piece) {
                    if n == 0 {
                        break;
                    }
                    reply.extend_from_slice(&piece[..n]);
                }
            }
        }
        String::from_utf8_lossy(&reply).into_owned()
    }
}

fn refused(reply: &str, why: &str) {
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    assert!(
        reply.contains("\"bad_framing\"") && reply.contains(why),
        "{reply}"
    );
    assert!(
        reply.to_lowercase().contains("server: mpt-gateway"),
        "{reply}"
    );
}

#[test]
fn framing_that_reads_two_ways_is_refused_and_other_shapes_are_still_served() {
    framing(false);
}

#[test]
fn framing_that_reads_two_ways_is_refused_on_a_tls_listener_too() {
    framing(true);
}

fn framing(tls: bool) {
    let devices = json!({"obs": {"role": "observer"}});
    let s = if tls {
        Setup::tls(devices)
    } else {
        Setup::new(devices)
    };
    let wire = Wire::of(&s, tls);
    let bearer = s.token("obs");
    let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}).to_string();
    let start = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {bearer}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
    );
    let chunked = format!("{:x}\r\n{ping}\r\n0\r\n\r\n", ping.len());

    // Both framings at once: one reader takes the length, the next the chunks.
    for order in [
        format!(
            "Content-Length: {}\r\nTransfer-Encoding: chunked\r\n",
            ping.len()
        ),
        format!(
            "Transfer-Encoding: chunked\r\nContent-Length: {}\r\n",
            ping.len()
        ),
    ] {
        let r = wire.exchange(&format!("{start}{order}\r\n"), chunked.as_bytes(), false);
        refused(&r, "transfer-encoding and content-length");
    }
    let twice = format!(
        "{start}Content-Length: {n}\r\nContent-Length: {n}\r\n\r\n",
        n = ping.len()
    );
    refused(
        &wire.exchange(&twice, ping.as_bytes(), false),
        "content-length twice",
    );
    for bad in [
        format!("{n}, {n}", n = ping.len()),
        format!("+{}", ping.len()),
    ] {
        let head = format!("{start}Content-Length: {bad}\r\n\r\n");
        refused(
            &wire.exchange(&head, ping.as_bytes(), false),
            "content-length is not a number",
        );
    }
    // On any route, not only `/mcp`, and before the token is looked at.
    refused(
        &wire.exchange(
            "POST /sync/ops HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
            b"hello",
            false,
        ),
        "content-length twice",
    );
    // An obs-fold is not HTTP as either reader reads it: hyper's 400, nothing forwarded.
    let folded = format!(
        "{start}X-Folded: a\r\n b\r\nContent-Length: {}\r\n\r\n",
        ping.len()
    );
    let r = wire.exchange(&folded, ping.as_bytes(), false);
    assert!(r.starts_with("HTTP/1.1 400"), "{r}");
    // A body cut short: the gateway's own 400, nothing forwarded.
    let short = format!("{start}Content-Length: {}\r\n\r\n", ping.len() + 10);
    let r = wire.exchange(&short, ping.as_bytes(), true);
    assert!(r.starts_with("HTTP/1.1 400"), "{r}");
    assert!(r.contains("body_unreadable"), "{r}");

    // The shapes the lean front leaves to hyper are served as before.
    let answered = |r: &str| {
        assert!(r.starts_with("HTTP/1.1 200"), "{r}");
        let body = &r[r.find("\r\n\r\n").unwrap() + 4..];
        let v: serde_json::Value = serde_json::from_str(body).expect(body);
        assert_eq!(
            (v["id"].clone(), v["result"].clone()),
            (json!(7), json!({})),
            "{r}"
        );
    };
    let lean = format!("{start}Content-Length: {}\r\n\r\n", ping.len());
    answered(&wire.exchange(&lean, ping.as_bytes(), false));
    let r = wire.exchange(
        &format!("{start}Transfer-Encoding: chunked\r\n\r\n"),
        chunked.as_bytes(),
        false,
    );
    answered(&r);
    let expect = format!(
        "{start}Expect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        ping.len()
    );
    let r = wire.exchange(&expect, ping.as_bytes(), false);
    let r = r
        .strip_prefix("HTTP/1.1 100 Continue\r\n\r\n")
        .unwrap_or(&r);
    answered(r);
}
