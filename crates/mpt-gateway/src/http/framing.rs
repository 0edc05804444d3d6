//! The framing check in front of hyper, on plain and TLS connections alike: a request head whose
//! body two readers could frame differently is refused before hyper (which would pick one) reads it.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::{Response, StatusCode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

use crate::http::reply::{self, Body};

/// Headers in one request head (hyper's own limit).
const MAX_HEADERS: usize = 100;
/// One read's room while the head comes in.
const READ_AHEAD: usize = 8 << 10;

/// What a head read so far says.
#[derive(Debug, PartialEq, Eq)]
pub enum Framing {
    /// More of the head is needed.
    Partial,
    /// hyper reads it: a head framed one way only, or one hyper itself refuses (too long, too
    /// many headers, not HTTP as httparse reads it).
    Pass,
    /// Framing two readers could disagree on (request smuggling's raw material).
    Refuse(&'static str),
}

fn is(name: &str, want: &str) -> bool {
    name.eq_ignore_ascii_case(want)
}

/// A Content-Length value: digits only (no sign, no list, no spaces inside).
fn length(value: &[u8]) -> Option<u64> {
    if value.is_empty() || value.len() > 19 || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value).ok()?.parse().ok()
}

/// Judges the head at the start of `buf`, of any method and path: hyper 1.x takes
/// Transfer-Encoding over a Content-Length beside it and silently drops a second equal
/// Content-Length, where another reader (a proxy in front, `serve` behind) may not.
pub fn check(buf: &[u8], max_head: usize) -> Framing {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(buf) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) if buf.len() < max_head => return Framing::Partial,
        // Too long, too many headers, or not HTTP as httparse reads it (an obs-fold, a space
        // before a colon): hyper refuses it as it always has.
        _ => return Framing::Pass,
    }
    let (mut lengths, mut bad_length, mut chunked) = (0, false, false);
    for h in req.headers.iter() {
        if is(h.name, "content-length") {
            lengths += 1;
            bad_length |= length(h.value).is_none();
        } else if is(h.name, "transfer-encoding") {
            chunked = true;
        }
    }
    match (chunked, lengths) {
        (true, 0) => Framing::Pass,
        (true, _) => Framing::Refuse("transfer-encoding and content-length"),
        (false, 0) => Framing::Pass,
        (false, 1) if bad_length => Framing::Refuse("content-length is not a number"),
        (false, 1) => Framing::Pass,
        (false, _) => Framing::Refuse("content-length twice"),
    }
}

/// The 400 for framing two readers could disagree on.
pub fn bad_framing(why: &'static str) -> Response<Body> {
    reply::json(
        StatusCode::BAD_REQUEST,
        &serde_json::json!({"error": "bad_framing", "why": why}),
    )
}

/// What the start of a connection gave: the bytes to hand hyper, or a refusal to write.
pub enum Head {
    Serve(Bytes),
    Refuse(&'static str),
    /// The peer closed, failed, or sent no whole head within the timeout: nothing to answer.
    Gone,
}

/// Reads `io` until the request's head is whole (at most `max_head` bytes, within `timeout`)
/// and checks its framing; the bytes read (the head, and any body after it) are kept for hyper.
/// The buffer grows with what the peer sent, never with what its head declares.
pub async fn read_head<S: AsyncRead + Unpin>(
    io: &mut S,
    max_head: usize,
    timeout: Duration,
) -> Head {
    let mut buf = BytesMut::with_capacity(READ_AHEAD);
    let read = async {
        loop {
            if buf.capacity() - buf.len() < READ_AHEAD / 2 {
                buf.reserve(READ_AHEAD);
            }
            match io.read_buf(&mut buf).await {
                Ok(0) | Err(_) => return Head::Gone,
                Ok(_) => {}
            }
            match check(&buf, max_head) {
                Framing::Partial => continue,
                Framing::Refuse(why) => return Head::Refuse(why),
                Framing::Pass => return Head::Serve(Bytes::new()),
            }
        }
    };
    match tokio::time::timeout(timeout, read).await {
        Ok(Head::Serve(_)) => Head::Serve(buf.freeze()),
        Ok(other) => other,
        Err(_) => Head::Gone,
    }
}

/// Writes `reply` on `io` as one HTTP/1.1 response and closes the write side: for a request
/// hyper must not read.
pub async fn write_reply<S: AsyncWrite + Unpin>(
    io: &mut S,
    reply: Response<Body>,
) -> io::Result<()> {
    let (parts, body) = reply.into_parts();
    let body = body
        .collect()
        .await
        .map_err(|e| io::Error::other(e.to_string()))?
        .to_bytes();
    let mut out = Vec::with_capacity(256 + body.len());
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(parts.status.as_str().as_bytes());
    out.push(b' ');
    out.extend_from_slice(parts.status.canonical_reason().unwrap_or("").as_bytes());
    out.extend_from_slice(b"\r\n");
    for (name, value) in &parts.headers {
        if matches!(
            name.as_str(),
            "content-length" | "connection" | "transfer-encoding"
        ) {
            continue;
        }
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(
        format!(
            "content-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(&body);
    io.write_all(&out).await?;
    io.shutdown().await
}

/// A connection whose first bytes were read already, given to hyper: those bytes first.
pub struct Prefixed<S> {
    prefix: Bytes,
    io: S,
}

impl<S> Prefixed<S> {
    pub fn new(prefix: Bytes, io: S) -> Prefixed<S> {
        Prefixed { prefix, io }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Prefixed<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.prefix.is_empty() {
            return Pin::new(&mut self.io).poll_read(cx, buf);
        }
        let n = self.prefix.len().min(buf.remaining());
        let taken = self.prefix.split_to(n);
        buf.put_slice(&taken);
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Prefixed<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(head: &str) -> Framing {
        check(head.as_bytes(), 64 << 10)
    }

    #[test]
    fn a_head_framed_one_way_is_passed_to_hyper() {
        for h in [
            "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n",
            "POST /mcp HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /healthz HTTP/1.1\r\n\r\n",
            "POST /sync/ops HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
            "POST /mcp HTTP/1.0\r\nContent-Length: 0\r\n\r\n",
            "POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST /mcp HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n",
            // An obs-fold, a space before the colon: not HTTP as httparse reads it; hyper's 400.
            "POST /mcp HTTP/1.1\r\nX-A: 1\r\n 2\r\nContent-Length: 0\r\n\r\n",
            "POST /mcp HTTP/1.1\r\nContent-Length : 0\r\n\r\n",
        ] {
            assert_eq!(of(h), Framing::Pass, "{h}");
        }
        assert_eq!(of("POST /mcp HTTP/1.1\r\nHost: a\r\n"), Framing::Partial);
        // A head past the room for one: hyper's to refuse.
        let long = format!("POST /mcp HTTP/1.1\r\nX: {}\r\n", "a".repeat(100));
        assert_eq!(check(long.as_bytes(), 64), Framing::Pass);
    }

    #[test]
    fn framing_that_reads_two_ways_is_refused_on_any_route() {
        for route in [
            "POST /mcp",
            "POST /sync/ops",
            "GET /healthz",
            "POST /mcp?x=1",
        ] {
            let refused = |rest: &str| {
                matches!(
                    of(&format!("{route} HTTP/1.1\r\n{rest}\r\n")),
                    Framing::Refuse(_)
                )
            };
            assert!(refused(
                "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"
            ));
            assert!(refused(
                "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"
            ));
            assert!(refused("Content-Length: 5\r\nContent-Length: 5\r\n"));
            for bad in ["5, 5", "+5", "-1", "0x5", "5 5", "99999999999999999999"] {
                assert!(refused(&format!("Content-Length: {bad}\r\n")), "{bad}");
            }
        }
    }

    #[tokio::test]
    async fn the_head_is_read_whole_and_every_byte_given_back() {
        let (mut client, mut server) = tokio::io::duplex(64);
        let sent = b"POST /mcp HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody";
        tokio::spawn(async move {
            for piece in sent.chunks(7) {
                client.write_all(piece).await.unwrap();
                tokio::task::yield_now().await;
            }
            // Held open: the head is whole without the peer's end.
            tokio::time::sleep(Duration::from_secs(5)).await;
        });
        match read_head(&mut server, 64 << 10, Duration::from_secs(2)).await {
            Head::Serve(b) => assert!(sent.starts_with(&b) && b.len() >= sent.len() - 4),
            _ => panic!("not served"),
        }
        let (mut client, mut server) = tokio::io::duplex(64);
        client.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
        assert!(matches!(
            read_head(&mut server, 64 << 10, Duration::from_millis(50)).await,
            Head::Gone
        ));
    }
}
