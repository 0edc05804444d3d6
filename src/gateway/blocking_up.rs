//! A worker thread's upstream exchange: a new connection per request, as `upstream.rs` makes it
//! (5 s to connect, the reply's head within the request's wait), written and read with blocking
//! sockets in `plain_up.rs`'s wire format and head parser; the body read as the client takes it,
//! cut after the idle limit, its end reported once (as `relay.rs` reports a relayed one's).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::{Frame, SizeHint};
use hyper::{Request, Response};
use socket2::{Domain, Protocol, SockRef, Socket, Type};

use super::relay::End;
use super::reply::BoxError;
use super::shared::Shared;
use super::upstream::{CONNECT, Failed};
use super::worker::{self, Slot, Tracked};

const READ_AHEAD: usize = 16 << 10;
/// A request past this may not fit the socket's buffer: its write gets the request's deadline.
const BIG: usize = 64 << 10;

type OnEnd = Box<dyn FnOnce(u64, End) + Send + Sync>;

fn unreachable(e: impl std::fmt::Display) -> Failed {
    Failed::Unreachable(e.to_string())
}

fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// A socket to `addrs`, known to `slot` before it connects (a connect in progress is cut at
/// shutdown too); the connect's timeout is its send timeout.
fn connect(addrs: impl Iterator<Item = SocketAddr>, slot: &Arc<Slot>) -> Result<Tracked, Failed> {
    let deadline = Instant::now() + CONNECT;
    let mut last = unreachable("the upstream's host has no address");
    for a in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(unreachable("connect timed out"));
        }
        let sock = Socket::new(Domain::for_address(a), Type::STREAM, Some(Protocol::TCP))
            .map_err(unreachable)?;
        sock.set_write_timeout(Some(left)).map_err(unreachable)?;
        let tcp = Tracked::new(TcpStream::from(sock), slot);
        match SockRef::from(tcp.get()).connect(&a.into()) {
            Ok(()) => return Ok(tcp),
            Err(e) if timed_out(&e) || e.raw_os_error() == Some(libc::EINPROGRESS) => {
                last = unreachable("connect timed out");
            }
            Err(e) => last = unreachable(e),
        }
    }
    Err(last)
}

/// Sends `up` on a connection of its own (on a worker thread); the reply's head within `wait`,
/// then at most `idle` between two reads of its body.
pub fn exchange(
    sh: &Shared,
    up: Request<Full<Bytes>>,
    wait: Duration,
    idle: Duration,
) -> Result<Response<UpRead>, Failed> {
    let slot = worker::slot().ok_or_else(|| unreachable("not on a worker thread"))?;
    let addrs = sh
        .upstream
        .target()
        .to_socket_addrs()
        .map_err(unreachable)?;
    let tcp = connect(addrs, &slot)?;
    crate::hop!(GwUpConnected);
    let s = tcp.get();
    let wire = super::plain_up::wire_of(up);
    let deadline = Instant::now() + wait;
    let io_failed = |e: io::Error| {
        if timed_out(&e) {
            Failed::TimedOut
        } else {
            unreachable(e)
        }
    };
    s.set_read_timeout(Some(wait)).map_err(unreachable)?;
    // One write, and nothing after it: Nagle holds back nothing of a request that fits the
    // socket's buffer; a larger one (several writes) gets nodelay and the request's deadline.
    if wire.len() > BIG {
        let _ = s.set_nodelay(true);
        s.set_write_timeout(Some(wait)).map_err(unreachable)?;
    }
    (&mut &*s).write_all(&wire).map_err(io_failed)?;
    crate::hop!(GwUpWritten);
    let mut buf = vec![0u8; READ_AHEAD];
    let mut filled = 0;
    loop {
        if buf.len() - filled < READ_AHEAD / 2 {
            buf.resize(buf.len() + READ_AHEAD, 0);
        }
        let n = (&mut &*s).read(&mut buf[filled..]).map_err(io_failed)?;
        if n == 0 {
            return Err(unreachable("the upstream closed before its reply's head"));
        }
        filled += n;
        if let Some((n, resp, length)) =
            super::plain_up::head(&buf[..filled]).map_err(Failed::Unreachable)?
        {
            crate::hop!(GwUpHead);
            buf.truncate(filled);
            let mut read = Bytes::from(buf).slice(n..);
            if let Some(l) = length {
                read.truncate(l as usize);
            }
            let left = length.map(|l| l - read.len() as u64);
            if left != Some(0) {
                s.set_read_timeout(Some(idle)).map_err(unreachable)?;
            }
            return Ok(resp.map(|()| UpRead {
                read,
                left,
                io: tcp,
                bytes: 0,
                idle,
                on_end: None,
            }));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Failed::TimedOut);
        }
        s.set_read_timeout(Some(left)).map_err(unreachable)?;
    }
}

/// A reply's body from the upstream, read on the worker's thread as the client takes it; the
/// socket closes when it is dropped (after the client's reply, not before it).
pub struct UpRead {
    read: Bytes,
    /// Bytes still to read; `None`: until the upstream closes.
    left: Option<u64>,
    io: Tracked,
    bytes: u64,
    idle: Duration,
    on_end: Option<OnEnd>,
}

impl UpRead {
    /// What runs once when the body ends (`relay.rs`'s `on_end`): its bytes and how.
    pub fn on_end(&mut self, f: OnEnd) {
        self.on_end = Some(f);
    }

    fn finish(&mut self, how: End) {
        if let Some(f) = self.on_end.take() {
            f(self.bytes, how);
        }
    }

    fn ended(&self) -> bool {
        self.read.is_empty() && self.left == Some(0)
    }

    /// The next piece of the body (blocking), `None` at its end.
    pub fn next(&mut self) -> Option<io::Result<Bytes>> {
        let got = self.pull();
        match &got {
            Some(Ok(d)) => self.bytes += d.len() as u64,
            Some(Err(_)) => self.finish(End::Failed),
            None => self.finish(End::Complete),
        }
        got
    }

    fn pull(&mut self) -> Option<io::Result<Bytes>> {
        if !self.read.is_empty() {
            return Some(Ok(std::mem::take(&mut self.read)));
        }
        if self.left == Some(0) {
            return None;
        }
        let mut chunk = vec![0u8; READ_AHEAD];
        let mut n = match (&mut self.io.get()).read(&mut chunk) {
            Ok(n) => n,
            Err(e) if timed_out(&e) => {
                let why = format!("the upstream sent nothing for {:?}", self.idle);
                return Some(Err(io::Error::new(io::ErrorKind::TimedOut, why)));
            }
            Err(e) => return Some(Err(e)),
        };
        if n == 0 {
            return self.left.map(|_| {
                Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the upstream closed mid-body",
                ))
            });
        }
        if let Some(l) = self.left.as_mut() {
            n = n.min(*l as usize);
            *l -= n as u64;
        }
        chunk.truncate(n);
        Some(Ok(Bytes::from(chunk)))
    }
}

impl hyper::body::Body for UpRead {
    type Data = Bytes;
    type Error = BoxError;

    /// Blocks on the socket: polled only on its worker's thread.
    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        Poll::Ready(
            self.next()
                .map(|r| r.map(Frame::data).map_err(|e| Box::new(e) as BoxError)),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.ended()
    }

    fn size_hint(&self) -> SizeHint {
        super::plain_up::hint(self.read.len() as u64, self.left)
    }
}

impl Drop for UpRead {
    fn drop(&mut self) {
        // A body never read to its end (the client went first), unless nothing was left.
        let how = if self.ended() {
            End::Complete
        } else {
            End::Dropped
        };
        self.finish(how);
    }
}
