//! The lean path for the common request, a plain `POST /mcp` with a Content-Length body: its
//! head parsed by httparse, framing that reads two ways refused (the blocking front reads with it).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri, Version};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::forward::ClientBody;
use super::reply::{self, Body};

/// Headers in one request head (hyper's own limit).
const MAX_HEADERS: usize = 100;

/// What a head read so far says.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Framing {
    Partial,
    Hyper,
    Refuse(&'static str),
    /// The lean path's: the head's length, the body's, and the headers as hyper would have
    /// made them (`None`: one that no header map can hold), so the head is parsed once.
    Body {
        head: usize,
        length: usize,
        headers: Option<HeaderMap>,
    },
}

fn is(name: &str, want: &str) -> bool {
    name.eq_ignore_ascii_case(want)
}

/// A Content-Length value: digits only (no sign, no list, no spaces inside).
fn length(value: &[u8]) -> Option<usize> {
    if value.is_empty() || value.len() > 19 || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value).ok()?.parse().ok()
}

/// Whether the head in `buf` is the lean path's (a `POST /mcp` over HTTP/1.1 framed by one
/// Content-Length and nothing else), hyper's (anything else), or refused.
pub(super) fn classify(buf: &[u8], max_head: usize) -> Framing {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let head = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() < max_head => return Framing::Partial,
        // Too long, too many headers, or not HTTP as httparse reads it (an obs-fold, a space
        // before a colon): hyper answers it as it always has.
        _ => return Framing::Hyper,
    };
    if req.method != Some("POST") || req.path != Some("/mcp") || req.version != Some(1) {
        return Framing::Hyper;
    }
    let (mut lengths, mut value, mut chunked) = (0, None, false);
    for h in req.headers.iter() {
        if is(h.name, "content-length") {
            lengths += 1;
            value = length(h.value);
        } else if is(h.name, "transfer-encoding") {
            chunked = true;
        } else if is(h.name, "expect") {
            // `100-continue`: hyper sends the interim reply when the body is asked for.
            return Framing::Hyper;
        }
    }
    let length = match (chunked, lengths, value) {
        (true, 0, _) => return Framing::Hyper,
        (true, _, _) => return Framing::Refuse("transfer-encoding and content-length"),
        (false, 0, _) => 0,
        (false, 1, Some(length)) => length,
        (false, 1, None) => return Framing::Refuse("content-length is not a number"),
        (false, _, _) => return Framing::Refuse("content-length twice"),
    };
    Framing::Body {
        head,
        length,
        headers: header_map(req.headers),
    }
}

/// Every header of a head, as hyper would have made them.
fn header_map(parsed: &[httparse::Header<'_>]) -> Option<HeaderMap> {
    let mut map = HeaderMap::with_capacity(parsed.len());
    for h in parsed {
        map.append(
            HeaderName::from_bytes(h.name.as_bytes()).ok()?,
            HeaderValue::from_bytes(h.value).ok()?,
        );
    }
    Some(map)
}

/// The 400 for framing two readers could disagree on (request smuggling's raw material).
pub(super) fn bad_framing(why: &'static str) -> Response<Body> {
    reply::json(
        StatusCode::BAD_REQUEST,
        &serde_json::json!({"error": "bad_framing", "why": why}),
    )
}

/// The request hyper would have made of the lean path's head: `POST /mcp` over HTTP/1.1 with
/// every header.
pub(super) fn request(headers: HeaderMap, body: Bytes) -> Request<ClientBody> {
    let mut r = Request::new(ClientBody::Read(body));
    *r.method_mut() = Method::POST;
    *r.uri_mut() = Uri::from_static("/mcp");
    *r.version_mut() = Version::HTTP_11;
    *r.headers_mut() = headers;
    r
}

/// A connection whose first bytes were read already, given back to hyper: those bytes first.
pub struct Prefixed {
    prefix: Bytes,
    io: TcpStream,
}

impl Prefixed {
    pub fn new(prefix: Bytes, io: TcpStream) -> Prefixed {
        Prefixed { prefix, io }
    }
}

impl AsyncRead for Prefixed {
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

impl AsyncWrite for Prefixed {
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
        classify(head.as_bytes(), 64 << 10)
    }

    #[test]
    fn a_post_to_mcp_framed_by_one_length_is_lean() {
        let h = "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n";
        let mut want = HeaderMap::new();
        want.append("host", HeaderValue::from_static("a"));
        want.append("content-length", HeaderValue::from_static("12"));
        assert_eq!(
            of(h),
            Framing::Body {
                head: h.len(),
                length: 12,
                headers: Some(want),
            },
            "the headers as hyper makes them, parsed once"
        );
        let h = "POST /mcp HTTP/1.1\r\nHost: a\r\n\r\n";
        assert!(matches!(
            of(h),
            Framing::Body { head, length: 0, headers: Some(_) } if head == h.len()
        ));
        assert_eq!(of("POST /mcp HTTP/1.1\r\nHost: a\r\n"), Framing::Partial);
    }

    #[test]
    fn framing_that_reads_two_ways_is_refused() {
        let refused = |h: &str| matches!(of(h), Framing::Refuse(_));
        assert!(refused(
            "POST /mcp HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
        ));
        assert!(refused(
            "POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
        ));
        assert!(refused(
            "POST /mcp HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"
        ));
        for bad in ["5, 5", "+5", "-1", "0x5", "5 5", "99999999999999999999"] {
            assert!(
                refused(&format!(
                    "POST /mcp HTTP/1.1\r\nContent-Length: {bad}\r\n\r\n"
                )),
                "{bad}"
            );
        }
    }

    #[test]
    fn everything_else_is_hypers_as_before() {
        for h in [
            "GET /healthz HTTP/1.1\r\n\r\n",
            "GET /mcp HTTP/1.1\r\n\r\n",
            "POST /mcp?x=1 HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
            "POST /sync/ops HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
            "POST /mcp HTTP/1.0\r\nContent-Length: 0\r\n\r\n",
            "POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST /mcp HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n",
            // An obs-fold, a space before the colon: not HTTP as httparse reads it.
            "POST /mcp HTTP/1.1\r\nX-A: 1\r\n 2\r\nContent-Length: 0\r\n\r\n",
            "POST /mcp HTTP/1.1\r\nContent-Length : 0\r\n\r\n",
        ] {
            assert_eq!(of(h), Framing::Hyper, "{h}");
        }
        // A head past the room for one.
        let long = format!("POST /mcp HTTP/1.1\r\nX: {}\r\n", "a".repeat(100));
        assert_eq!(classify(long.as_bytes(), 64), Framing::Hyper);
    }
}
