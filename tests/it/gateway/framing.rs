//! The lean front's framing over the wire: a request two readers could frame differently is
//! refused (400 `bad_framing`); every other shape it does not take is still served by hyper.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use serde_json::json;

use crate::support::gateway::Setup;

/// `head` (with `{bearer}` replaced) and `body` sent on a connection of their own: the reply.
fn exchange(port: u16, head: &str, body: &[u8], half_close: bool) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    if half_close {
        s.shutdown(Shutdown::Write).unwrap();
    }
    let mut reply = Vec::new();
    s.read_to_end(&mut reply).unwrap();
    String::from_utf8_lossy(&reply).into_owned()
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
    let s = Setup::new(json!({"obs": {"role": "observer"}}));
    let port = s.gw.port;
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
        let r = exchange(
            port,
            &format!("{start}{order}\r\n"),
            chunked.as_bytes(),
            false,
        );
        refused(&r, "transfer-encoding and content-length");
    }
    let twice = format!(
        "{start}Content-Length: {n}\r\nContent-Length: {n}\r\n\r\n",
        n = ping.len()
    );
    refused(
        &exchange(port, &twice, ping.as_bytes(), false),
        "content-length twice",
    );
    for bad in [
        format!("{n}, {n}", n = ping.len()),
        format!("+{}", ping.len()),
    ] {
        let head = format!("{start}Content-Length: {bad}\r\n\r\n");
        refused(
            &exchange(port, &head, ping.as_bytes(), false),
            "content-length is not a number",
        );
    }
    // An obs-fold is not HTTP as either reader reads it: hyper's 400, nothing forwarded.
    let folded = format!(
        "{start}X-Folded: a\r\n b\r\nContent-Length: {}\r\n\r\n",
        ping.len()
    );
    let r = exchange(port, &folded, ping.as_bytes(), false);
    assert!(r.starts_with("HTTP/1.1 400"), "{r}");
    // A body cut short: the gateway's own 400, nothing forwarded.
    let short = format!("{start}Content-Length: {}\r\n\r\n", ping.len() + 10);
    let r = exchange(port, &short, ping.as_bytes(), true);
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
    answered(&exchange(port, &lean, ping.as_bytes(), false));
    let r = exchange(
        port,
        &format!("{start}Transfer-Encoding: chunked\r\n\r\n"),
        chunked.as_bytes(),
        false,
    );
    answered(&r);
    let expect = format!(
        "{start}Expect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        ping.len()
    );
    let r = exchange(port, &expect, ping.as_bytes(), false);
    let r = r
        .strip_prefix("HTTP/1.1 100 Continue\r\n\r\n")
        .unwrap_or(&r);
    answered(r);
}
