//! A POST to a plain-TCP upstream without hyper's client: the request written as the connection is
//! made, the reply's head parsed by httparse, its body (Content-Length or to the close) read as the
//! client takes it.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use futures_util::FutureExt;
use http_body_util::{BodyExt, Full};
use hyper::body::{Frame, SizeHint};
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode, Version};
use socket2::{Domain, Protocol, Socket, Type};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

use super::reply::BoxError;

/// Headers in one reply head.
const MAX_HEADERS: usize = 100;
/// Room for the reply's head.
const MAX_HEAD: usize = 64 << 10;
const READ_AHEAD: usize = 16 << 10;

/// Why the exchange got no reply (the caller's `Failed::Unreachable`).
type Failed = String;

fn unreachable(why: impl std::fmt::Display) -> Failed {
    why.to_string()
}

/// The request as it goes on the wire: its line, its headers (a Content-Length always), its body.
fn wire(req: &Request<Full<Bytes>>, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(512 + body.len());
    out.extend_from_slice(req.method().as_str().as_bytes());
    out.push(b' ');
    let target = req.uri().path_and_query().map_or("/", |p| p.as_str());
    out.extend_from_slice(target.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\n");
    for (name, value) in req.headers() {
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    if !req.headers().contains_key(hyper::header::CONTENT_LENGTH) {
        out.extend_from_slice(format!("content-length: {}\r\n", body.len()).as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// A reply's head: its length in bytes, its status and headers, its body's length (`None`: to
/// the close).
pub(super) type Head = (usize, Response<()>, Option<u64>);

/// The reply's head in `buf`, once it is whole. A chunked reply is refused (`serve` frames
/// every `/mcp` reply by its length).
pub(super) fn head(buf: &[u8]) -> Result<Option<Head>, Failed> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let n = match resp.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => return Ok(None),
        Ok(httparse::Status::Partial) => return Err(unreachable("a reply head past 64 KiB")),
        Err(e) => return Err(unreachable(format!("a reply that is not HTTP ({e})"))),
    };
    let status = resp
        .code
        .and_then(|c| StatusCode::from_u16(c).ok())
        .ok_or_else(|| unreachable("a reply without a status"))?;
    let mut map = HeaderMap::with_capacity(resp.headers.len());
    let mut length = None;
    for h in resp.headers.iter() {
        if h.name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(unreachable("a chunked reply to a POST"));
        }
        if h.name.eq_ignore_ascii_case("content-length") {
            let n = std::str::from_utf8(h.value)
                .ok()
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|v| v.parse::<u64>().ok());
            match (length, n) {
                (None, Some(n)) => length = Some(n),
                _ => return Err(unreachable("a reply framed two ways")),
            }
        }
        let name = HeaderName::from_bytes(h.name.as_bytes()).map_err(unreachable)?;
        let value = HeaderValue::from_bytes(h.value).map_err(unreachable)?;
        map.append(name, value);
    }
    let mut r = Response::new(());
    *r.status_mut() = status;
    *r.version_mut() = Version::HTTP_11;
    *r.headers_mut() = map;
    // No body, whatever the headers say (RFC 9112 §6.3).
    if status.is_informational()
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED
    {
        length = Some(0);
    }
    Ok(Some((n, r, length)))
}

/// `req` as it goes on the wire, its body taken out of it (a `Full` body is ready at once).
pub fn wire_of(req: Request<Full<Bytes>>) -> Vec<u8> {
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .now_or_never()
        .and_then(Result::ok)
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    wire(&Request::from_parts(parts, Full::new(Bytes::new())), &body)
}

/// Connects to `addr` and writes what the socket takes of `wire` at once, in the same turn of the
/// event loop: on loopback the handshake is done inside `connect()` itself, so waiting for the
/// socket to turn writable (`TcpStream::connect`'s way) only cost one more wake-up of the
/// gateway's thread before the request could leave. While the connection is still being made
/// (a remote upstream) the first write would block: then it waits for the connection, as
/// `TcpStream::connect` does. The stream and how much of `wire` is sent.
pub async fn connect(addr: SocketAddr, wire: &[u8]) -> io::Result<(TcpStream, usize)> {
    let socket = Socket::new(
        Domain::for_address(addr),
        Type::STREAM.nonblocking(),
        Some(Protocol::TCP),
    )?;
    socket.set_tcp_nodelay(true)?;
    match socket.connect(&addr.into()) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {}
        Err(e) => return Err(e),
    }
    let first = match socket.send_with_flags(wire, libc::MSG_NOSIGNAL) {
        Ok(n) => Some(n),
        // Still connecting (a write then blocks, EAGAIN).
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => None,
        Err(e) => return Err(e),
    };
    let tcp = TcpStream::from_std(std::net::TcpStream::from(socket))?;
    if let Some(n) = first {
        return Ok((tcp, n));
    }
    tcp.writable().await?;
    if let Some(e) = tcp.take_error()? {
        return Err(e);
    }
    Ok((tcp, 0))
}

/// Writes the rest of the request on `tcp` and reads the reply's head; its body is the caller's
/// to read.
pub async fn exchange(mut tcp: TcpStream, rest: &[u8]) -> Result<Response<PlainBody>, Failed> {
    if !rest.is_empty() {
        tcp.write_all(rest).await.map_err(unreachable)?;
    }
    crate::hop!(GwUpWritten);
    let mut buf = BytesMut::with_capacity(READ_AHEAD);
    loop {
        if tcp.read_buf(&mut buf).await.map_err(unreachable)? == 0 {
            return Err(unreachable("the upstream closed before its reply's head"));
        }
        if let Some((n, resp, length)) = head(&buf)? {
            crate::hop!(GwUpHead);
            let mut read = buf.freeze().slice(n..);
            if let Some(l) = length {
                read.truncate(l as usize);
            }
            let left = length.map(|l| l - read.len() as u64);
            return Ok(resp.map(|()| PlainBody {
                read,
                left,
                io: tcp,
            }));
        }
        if buf.capacity() - buf.len() < READ_AHEAD / 2 {
            buf.reserve(READ_AHEAD);
        }
    }
}

/// A reply's body from a plain upstream: what came with the head, then the rest from the
/// socket, which closes when the body is dropped (after the client's reply, not before it).
pub struct PlainBody {
    read: Bytes,
    /// Bytes still to read; `None`: until the upstream closes.
    left: Option<u64>,
    io: TcpStream,
}

impl PlainBody {
    pub fn poll_frame(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        if !self.read.is_empty() {
            return Poll::Ready(Some(Ok(Frame::data(std::mem::take(&mut self.read)))));
        }
        if self.left == Some(0) {
            return Poll::Ready(None);
        }
        let mut chunk = vec![0u8; READ_AHEAD];
        let mut rb = ReadBuf::new(&mut chunk);
        match Pin::new(&mut self.io).poll_read(cx, &mut rb) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Some(Err(Box::new(e)))),
            Poll::Ready(Ok(())) => {
                let mut n = rb.filled().len();
                match self.left {
                    _ if n > 0 => {}
                    None => return Poll::Ready(None),
                    Some(_) => {
                        let e = io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "the upstream closed mid-body",
                        );
                        return Poll::Ready(Some(Err(Box::new(e))));
                    }
                }
                if let Some(l) = self.left.as_mut() {
                    n = n.min(*l as usize);
                    *l -= n as u64;
                }
                chunk.truncate(n);
                Poll::Ready(Some(Ok(Frame::data(Bytes::from(chunk)))))
            }
        }
    }

    pub fn is_end_stream(&self) -> bool {
        self.read.is_empty() && self.left == Some(0)
    }

    pub fn size_hint(&self) -> SizeHint {
        hint(self.read.len() as u64, self.left)
    }
}

/// A reply body's size: `read` bytes in hand and `left` to come (`None`: to the close).
pub(super) fn hint(read: u64, left: Option<u64>) -> SizeHint {
    match left {
        Some(l) => SizeHint::with_exact(read + l),
        None => {
            let mut h = SizeHint::new();
            h.set_lower(read);
            h
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_framed_by_its_length_or_its_close_and_never_two_ways() {
        let (n, r, len) = head(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
            .unwrap()
            .unwrap();
        assert_eq!((n, r.status().as_u16(), len), (38, 200, Some(2)));
        let (_, _, len) = head(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            .unwrap()
            .unwrap();
        assert_eq!(len, None);
        assert!(head(b"HTTP/1.1 200 OK\r\nContent-Le").unwrap().is_none());
        for bad in [
            &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n",
            b"NOT HTTP\r\n\r\n",
        ] {
            assert!(head(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[tokio::test]
    async fn a_request_written_as_it_connects_arrives_whole_and_gets_its_reply() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let wire = b"POST /mcp HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}".to_vec();
        let want = wire.len();
        let peer = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut s, _) = listener.accept().unwrap();
            let mut got = vec![0u8; want];
            s.read_exact(&mut got).unwrap();
            s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nfine")
                .unwrap();
            got
        });
        // Whether the connection was made inside connect() or waited for, the rest follows.
        let (tcp, sent) = connect(addr, &wire).await.unwrap();
        assert!(sent <= wire.len());
        let resp = exchange(tcp, &wire[sent..]).await.unwrap();
        assert_eq!(resp.status(), 200);
        let body = resp.into_body();
        assert_eq!(&body.read[..], b"fine");
        assert_eq!(peer.join().unwrap(), wire);
    }

    #[tokio::test]
    async fn a_port_nobody_listens_on_is_an_error_not_a_hang() {
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        // Refused at connect(), or at the first write: either way an error.
        let r = match connect(addr, b"GET / HTTP/1.1\r\n\r\n").await {
            Ok((tcp, sent)) => exchange(tcp, &b"GET / HTTP/1.1\r\n\r\n"[sent..])
                .await
                .map(|_| ()),
            Err(e) => Err(e.to_string()),
        };
        assert!(r.is_err());
    }
}
