//! The lean front for the common request, a plain `POST /mcp` with a Content-Length body: its
//! head parsed by httparse, framing that reads two ways refused, its reply written in one go.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Body as _;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri, Version};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

use super::forward::{ClientBody, MAX_BODY, Unread, unread_reply};
use super::reply::{self, Body};

/// Headers in one request head (hyper's own limit).
const MAX_HEADERS: usize = 100;
/// How much more is read at a time.
const READ_AHEAD: usize = 8 << 10;

/// What the start of a connection asks for.
pub enum Start {
    /// A whole `POST /mcp`, served here.
    Lean(Request<ClientBody>),
    /// Refused here: framing that reads two ways, a body past the cap, one that never came.
    Refused(Response<Body>),
    /// Anything else, for hyper to serve as before: the bytes read so far.
    Hyper(Bytes),
    /// Gone, or no head within the header timeout: nothing to answer.
    Gone,
}

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

/// Reads into `buf`, keeping room ahead; `false` at the end of the stream or an error.
async fn more(s: &mut TcpStream, buf: &mut BytesMut) -> bool {
    if buf.capacity() - buf.len() < READ_AHEAD / 2 {
        buf.reserve(READ_AHEAD);
    }
    matches!(s.read_buf(buf).await, Ok(n) if n > 0)
}

/// Reads the request's head (within `head_timeout`) and, on the lean path, its whole body
/// (within `body_timeout`).
pub async fn start(
    s: &mut TcpStream,
    max_head: usize,
    head_timeout: Duration,
    body_timeout: Duration,
) -> Start {
    let mut buf = BytesMut::with_capacity(READ_AHEAD);
    let framing = tokio::time::timeout(head_timeout, async {
        loop {
            if !more(s, &mut buf).await {
                return None;
            }
            match classify(&buf, max_head) {
                Framing::Partial => {}
                f => return Some(f),
            }
        }
    })
    .await;
    let (head, length, headers) = match framing {
        Ok(Some(Framing::Body {
            head,
            length,
            headers,
        })) => (head, length, headers),
        Ok(Some(Framing::Refuse(why))) => return Start::Refused(bad_framing(why)),
        Ok(Some(_)) => return Start::Hyper(buf.freeze()),
        Ok(None) | Err(_) => return Start::Gone,
    };
    crate::hop!(GwHeadRead);
    if length > MAX_BODY {
        return Start::Refused(reply::too_large());
    }
    let whole = head + length;
    if buf.len() < whole {
        buf.reserve(whole - buf.len());
        let read = tokio::time::timeout(body_timeout, async {
            while buf.len() < whole {
                if !more(s, &mut buf).await {
                    return false;
                }
            }
            true
        })
        .await;
        match read {
            Ok(true) => {}
            Ok(false) => return Start::Refused(unread_reply(Unread::Failed)),
            Err(_) => return Start::Refused(unread_reply(Unread::TimedOut)),
        }
    }
    crate::hop!(GwBodyRead);
    let bytes = buf.freeze();
    match headers {
        Some(h) => Start::Lean(request(h, bytes.slice(head..whole))),
        None => Start::Refused(reply::json(
            StatusCode::BAD_REQUEST,
            &serde_json::json!({"error": "bad_request"}),
        )),
    }
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

/// Writes a reply (`parts`, `body`): a body of known length in the same write as the head; one of
/// unknown length (a stream) after it, frame by frame, delimited by the close. The body stays the
/// caller's: a relayed one holds the upstream's connection, closed once the client's is.
pub async fn answer(
    s: &mut TcpStream,
    parts: hyper::http::response::Parts,
    body: &mut Body,
) -> io::Result<()> {
    let exact = body.size_hint().exact();
    let mut out = Vec::with_capacity(512 + exact.unwrap_or(0) as usize);
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
    if let Some(n) = exact {
        out.extend_from_slice(format!("content-length: {n}\r\n").as_bytes());
    }
    out.extend_from_slice(b"connection: close\r\n\r\n");
    let head = out.len();
    let broke = || io::Error::other("the reply's body failed");
    if let Some(n) = exact {
        while let Some(frame) = body.frame().await {
            if let Ok(d) = frame.map_err(|_| broke())?.into_data() {
                out.extend_from_slice(&d);
            }
        }
        if (out.len() - head) as u64 != n {
            return Err(io::Error::other("the reply's body is not its length"));
        }
        return s.write_all(&out).await;
    }
    s.write_all(&out).await?;
    while let Some(frame) = body.frame().await {
        if let Ok(d) = frame.map_err(|_| broke())?.into_data() {
            s.write_all(&d).await?;
        }
    }
    Ok(())
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
