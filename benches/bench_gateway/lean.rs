//! The lean floor: the gateway's hops with no HTTP library but `httparse` (accept, one read of
//! head and body, connect upstream, one write, read the reply, one write back, close), on tokio
//! (current-thread, as the gateway runs, or multi-thread) or on one plain blocking thread.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How a lean floor runs its connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// One thread, each connection served to its end before the next is accepted.
    Blocking,
    /// tokio's current-thread runtime, a task per connection (the gateway's runtime).
    Current,
    /// tokio's multi-thread runtime (two workers), a task per connection.
    Multi,
}

impl Flavor {
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Blocking => "lean-blocking",
            Flavor::Current => "lean-tokio-current",
            Flavor::Multi => "lean-tokio-multi",
        }
    }

    pub fn of(name: &str) -> Option<Flavor> {
        [Flavor::Blocking, Flavor::Current, Flavor::Multi]
            .into_iter()
            .find(|f| f.name() == name)
    }
}

/// What a lean floor knows: the upstream's port and bearer, and the device bearers it maps.
pub struct Map {
    pub upstream: u16,
    pub upstream_auth: String,
    pub bearers: HashSet<String>,
}

/// Room for a request or reply head.
const MAX_HEADERS: usize = 64;
/// The client headers the floor replaces or drops, as the hyper floor and nginx do (nginx's
/// `proxy_set_header` lines in the bench); every other one goes upstream.
const REPLACED: &[&str] = &[
    "host",
    "authorization",
    "connection",
    "origin",
    "content-length",
];

/// Where a message read so far stands.
enum Read_ {
    More,
    /// Head and body are in: its whole length.
    Whole(usize),
    Bad,
}

/// The length of a message whose head is `head` bytes and whose headers say `content-length`.
fn framed(buf: &[u8], head: usize, headers: &[httparse::Header<'_>]) -> Read_ {
    let mut length = None;
    for h in headers {
        if h.name.eq_ignore_ascii_case("transfer-encoding") {
            return Read_::Bad;
        }
        if h.name.eq_ignore_ascii_case("content-length") {
            let n = std::str::from_utf8(h.value)
                .ok()
                .and_then(|v| v.parse::<usize>().ok());
            match (length, n) {
                (None, Some(n)) => length = Some(n),
                _ => return Read_::Bad,
            }
        }
    }
    let whole = head + length.unwrap_or(0);
    if buf.len() >= whole {
        Read_::Whole(whole)
    } else {
        Read_::More
    }
}

fn request_read(buf: &[u8]) -> Read_ {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(buf) {
        Ok(httparse::Status::Complete(head)) => framed(buf, head, req.headers),
        Ok(httparse::Status::Partial) => Read_::More,
        Err(_) => Read_::Bad,
    }
}

/// A reply with a Content-Length is whole at its length; one without ends at the close.
fn reply_read(buf: &[u8]) -> Read_ {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    match resp.parse(buf) {
        Ok(httparse::Status::Complete(head)) => {
            if resp
                .headers
                .iter()
                .any(|h| h.name.eq_ignore_ascii_case("content-length"))
            {
                framed(buf, head, resp.headers)
            } else {
                Read_::More
            }
        }
        Ok(httparse::Status::Partial) => Read_::More,
        Err(_) => Read_::Bad,
    }
}

/// The request `serve` gets: the client's method, path and headers, but its own Host,
/// bearer and `Connection: close`, the body; `None` when the client's bearer is not mapped.
fn upstream_request(buf: &[u8], map: &Map) -> Option<Vec<u8>> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let httparse::Status::Complete(head) = req.parse(buf).ok()? else {
        return None;
    };
    let auth = req
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("authorization"))?;
    if !map.bearers.contains(std::str::from_utf8(auth.value).ok()?) {
        return None;
    }
    let body = &buf[head..];
    let mut out = Vec::with_capacity(buf.len() + 128);
    out.extend_from_slice(req.method?.as_bytes());
    out.push(b' ');
    out.extend_from_slice(req.path?.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\n");
    for h in req.headers.iter() {
        if !REPLACED.iter().any(|f| h.name.eq_ignore_ascii_case(f)) {
            out.extend_from_slice(h.name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(h.value);
            out.extend_from_slice(b"\r\n");
        }
    }
    let fixed = format!(
        "host: 127.0.0.1:{}\r\nauthorization: {}\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        map.upstream,
        map.upstream_auth,
        body.len()
    );
    out.extend_from_slice(fixed.as_bytes());
    out.extend_from_slice(body);
    Some(out)
}

/// The reply the client gets: upstream's status and headers but its connection's own, `Connection:
/// close` and its Content-Length (a close-delimited body is whole by now), the body.
fn client_reply(buf: &[u8]) -> Option<Vec<u8>> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let httparse::Status::Complete(head) = resp.parse(buf).ok()? else {
        return None;
    };
    let body = &buf[head..];
    let mut out = Vec::with_capacity(buf.len() + 64);
    let line = format!("HTTP/1.1 {} {}\r\n", resp.code?, resp.reason.unwrap_or(""));
    out.extend_from_slice(line.as_bytes());
    for h in resp.headers.iter() {
        let hop = [
            "connection",
            "keep-alive",
            "transfer-encoding",
            "content-length",
        ]
        .iter()
        .any(|n| h.name.eq_ignore_ascii_case(n));
        if !hop {
            out.extend_from_slice(h.name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(h.value);
            out.extend_from_slice(b"\r\n");
        }
    }
    let tail = format!(
        "via: 1.1 lean-floor\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    out.extend_from_slice(tail.as_bytes());
    out.extend_from_slice(body);
    Some(out)
}

const UNAUTHORIZED: &[u8] =
    b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
const BAD: &[u8] = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

/// A buffer's room to read into, grown when full.
fn room(buf: &mut Vec<u8>, filled: usize) -> &mut [u8] {
    if filled == buf.len() {
        buf.resize(buf.len() * 2, 0);
    }
    &mut buf[filled..]
}

/// Reads `s` until `done` says the message is whole (or, with `eof_ends`, the peer closes).
fn read_blocking(s: &mut TcpStream, done: fn(&[u8]) -> Read_, eof_ends: bool) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 16 << 10];
    let mut filled = 0;
    loop {
        let n = s.read(room(&mut buf, filled)).ok()?;
        filled += n;
        if n == 0 {
            buf.truncate(filled);
            return eof_ends.then_some(buf);
        }
        match done(&buf[..filled]) {
            Read_::More => {}
            Read_::Whole(len) => {
                buf.truncate(len);
                return Some(buf);
            }
            Read_::Bad => return None,
        }
    }
}

fn relay_blocking(mut c: TcpStream, map: &Map) -> Option<()> {
    let _ = c.set_nodelay(true);
    let Some(req) = read_blocking(&mut c, request_read, false) else {
        return c.write_all(BAD).ok();
    };
    let Some(up_req) = upstream_request(&req, map) else {
        return c.write_all(UNAUTHORIZED).ok();
    };
    let mut u = TcpStream::connect(("127.0.0.1", map.upstream)).ok()?;
    let _ = u.set_nodelay(true);
    u.write_all(&up_req).ok()?;
    let reply = read_blocking(&mut u, reply_read, true)?;
    drop(u);
    c.write_all(&client_reply(&reply)?).ok()
}

async fn read_async(
    s: &mut tokio::net::TcpStream,
    done: fn(&[u8]) -> Read_,
    eof_ends: bool,
) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 16 << 10];
    let mut filled = 0;
    loop {
        let n = s.read(room(&mut buf, filled)).await.ok()?;
        filled += n;
        if n == 0 {
            buf.truncate(filled);
            return eof_ends.then_some(buf);
        }
        match done(&buf[..filled]) {
            Read_::More => {}
            Read_::Whole(len) => {
                buf.truncate(len);
                return Some(buf);
            }
            Read_::Bad => return None,
        }
    }
}

async fn relay_async(mut c: tokio::net::TcpStream, map: &Map) -> Option<()> {
    let _ = c.set_nodelay(true);
    let Some(req) = read_async(&mut c, request_read, false).await else {
        return c.write_all(BAD).await.ok();
    };
    let Some(up_req) = upstream_request(&req, map) else {
        return c.write_all(UNAUTHORIZED).await.ok();
    };
    let mut u = tokio::net::TcpStream::connect(("127.0.0.1", map.upstream))
        .await
        .ok()?;
    let _ = u.set_nodelay(true);
    u.write_all(&up_req).await.ok()?;
    let reply = read_async(&mut u, reply_read, true).await?;
    drop(u);
    c.write_all(&client_reply(&reply)?).await.ok()
}

/// Serves `listener` as `flavor` says, until the process ends.
pub fn serve(listener: TcpListener, flavor: Flavor, map: Map) {
    if flavor == Flavor::Blocking {
        for c in listener.incoming().flatten() {
            let _ = relay_blocking(c, &map);
        }
        return;
    }
    let rt = match flavor {
        Flavor::Multi => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build(),
        _ => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    }
    .unwrap();
    let map = std::sync::Arc::new(map);
    rt.block_on(async move {
        listener.set_nonblocking(true).unwrap();
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        loop {
            let Ok((c, _)) = listener.accept().await else {
                continue;
            };
            let map = std::sync::Arc::clone(&map);
            tokio::spawn(async move {
                let _ = relay_async(c, &map).await;
            });
        }
    });
}
