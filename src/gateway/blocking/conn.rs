//! One connection on a worker thread: the request's head read within the header timeout and
//! classified as the lean front does (`lean::classify`); a `POST /mcp` read whole within the
//! body's, handled, answered in one write and closed; anything else handed to the runtime's hyper.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Body as _;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use crate::gateway::forward::{self, ClientBody, IDLE, MAX_BODY, Unread};
use crate::gateway::front::{self, HEADER_READ_TIMEOUT, MAX_HEAD};
use crate::gateway::lean::{self, Framing, Prefixed};
use crate::gateway::reply::{self, Body};
use crate::gateway::shared::Shared;
use crate::gateway::worker::{self, Slot, Tracked};
use crate::log_debug;

const READ_AHEAD: usize = 8 << 10;
/// A reply past this may not fit the socket's buffer: its write may block, so it gets a deadline.
const BIG: usize = 64 << 10;

/// What the start of a connection asks for.
enum Start {
    Lean(Request<ClientBody>),
    Refused(Response<Body>),
    Hyper(Bytes),
    Gone,
}

/// Reads more of the request into `buf[*filled..]`: `Ok(false)` at the end of the stream or an
/// error, `Err(())` when the read timeout passed.
fn more(s: &TcpStream, buf: &mut Vec<u8>, filled: &mut usize) -> Result<bool, ()> {
    if buf.len() - *filled < READ_AHEAD / 2 {
        buf.resize(buf.len() + READ_AHEAD, 0);
    }
    match (&mut &*s).read(&mut buf[*filled..]) {
        Ok(0) => Ok(false),
        Ok(n) => {
            *filled += n;
            Ok(true)
        }
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Err(())
        }
        Err(_) => Ok(false),
    }
}

/// Sets the read timeout to what is left until `deadline`; `false` when nothing is.
fn until(s: &TcpStream, deadline: Instant) -> bool {
    let left = deadline.saturating_duration_since(Instant::now());
    !left.is_zero() && s.set_read_timeout(Some(left)).is_ok()
}

/// Reads the request's head (within the header timeout, which the socket has when `inherited`)
/// and, on the lean path, its whole body (within `BODY_READ`).
fn start(s: &TcpStream, inherited: bool) -> Start {
    let mut buf = vec![0u8; READ_AHEAD];
    let mut filled = 0;
    let head_by = Instant::now() + HEADER_READ_TIMEOUT;
    if !inherited && s.set_read_timeout(Some(HEADER_READ_TIMEOUT)).is_err() {
        return Start::Gone;
    }
    let (head, length, headers) = loop {
        match more(s, &mut buf, &mut filled) {
            Ok(true) => {}
            Ok(false) | Err(()) => return Start::Gone,
        }
        match lean::classify(&buf[..filled], MAX_HEAD) {
            Framing::Partial => {
                if !until(s, head_by) {
                    return Start::Gone;
                }
            }
            Framing::Body {
                head,
                length,
                headers,
            } => break (head, length, headers),
            Framing::Refuse(why) => return Start::Refused(lean::bad_framing(why)),
            Framing::Hyper => {
                buf.truncate(filled);
                return Start::Hyper(Bytes::from(buf));
            }
        }
    };
    crate::hop!(GwHeadRead);
    if length > MAX_BODY {
        return Start::Refused(reply::too_large());
    }
    let whole = head + length;
    if filled < whole {
        let body_by = Instant::now() + forward::BODY_READ;
        if buf.len() < whole {
            buf.resize(whole, 0);
        }
        if s.set_read_timeout(Some(forward::BODY_READ)).is_err() {
            return Start::Gone;
        }
        while filled < whole {
            match more(s, &mut buf, &mut filled) {
                Ok(true) => {}
                Ok(false) => return Start::Refused(forward::unread_reply(Unread::Failed)),
                Err(()) => return Start::Refused(forward::unread_reply(Unread::TimedOut)),
            }
            if filled < whole && !until(s, body_by) {
                return Start::Refused(forward::unread_reply(Unread::TimedOut));
            }
        }
    }
    crate::hop!(GwBodyRead);
    buf.truncate(filled);
    let bytes = Bytes::from(buf);
    match headers {
        Some(h) => Start::Lean(lean::request(h, bytes.slice(head..whole))),
        None => Start::Refused(reply::json(
            StatusCode::BAD_REQUEST,
            &serde_json::json!({"error": "bad_request"}),
        )),
    }
}

/// Serves the connection `stream` from `peer` to its end on this worker thread; `inherited`: it
/// has nodelay and the header timeout from the listener.
pub fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    inherited: bool,
    sh: &Arc<Shared>,
    slot: &Arc<Slot>,
) {
    if !inherited {
        let _ = stream.set_nodelay(true);
    }
    let s = Tracked::new(stream, slot);
    let reply = match start(s.get(), inherited) {
        Start::Lean(req) => match worker::block_on(
            crate::gateway::handler::handle(Arc::clone(sh), peer, req),
            slot,
        ) {
            Some(r) => r,
            None => return,
        },
        Start::Refused(r) => r,
        Start::Hyper(read) => return to_runtime(s.release(), read, peer, sh),
        Start::Gone => return,
    };
    let (parts, mut body) = reply.into_parts();
    let sent = answer(s.get(), parts, &mut body, slot);
    crate::hop!(GwReplied);
    drop(s);
    crate::hop!(GwClosed);
    // The upstream's connection (a relayed body's) closes after the client's, off its path; a
    // body cut short holds its record as it drops.
    drop(body);
    // The reply is written and the socket closed: its response record goes to the log now.
    sh.write_held();
    crate::hop!(GwResponseAudited);
    if let Err(e) = sent {
        log_debug!("connection from {peer}: {e}");
    }
}

/// A request the lean path does not serve: hyper serves it on the runtime, as before, with the
/// bytes read so far (this thread has the runtime's context).
fn to_runtime(stream: TcpStream, read: Bytes, peer: SocketAddr, sh: &Arc<Shared>) {
    let tcp = stream
        .set_nonblocking(true)
        .and_then(|()| tokio::net::TcpStream::from_std(stream));
    match tcp {
        Ok(tcp) => {
            let io = TokioIo::new(Prefixed::new(read, tcp));
            tokio::spawn(front::serve(io, peer, Arc::clone(sh)));
        }
        Err(e) => log_debug!("connection from {peer}: handing it to the runtime: {e}"),
    }
}

/// The reply written: a body of known length in the same write as the head; one
/// of unknown length (a stream) after it, piece by piece, delimited by the close.
fn answer(
    s: &TcpStream,
    parts: hyper::http::response::Parts,
    body: &mut Body,
    slot: &Slot,
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
    let stopped = || io::Error::other("the gateway is stopping");
    let next = |body: &mut Body| -> io::Result<Option<Bytes>> {
        loop {
            match worker::block_on(body.frame(), slot).ok_or_else(stopped)? {
                None => return Ok(None),
                Some(frame) => {
                    if let Ok(d) = frame.map_err(|_| broke())?.into_data() {
                        return Ok(Some(d));
                    }
                }
            }
        }
    };
    let mut w = s;
    if let Some(n) = exact {
        while let Some(d) = next(body)? {
            out.extend_from_slice(&d);
        }
        if (out.len() - head) as u64 != n {
            return Err(io::Error::other("the reply's body is not its length"));
        }
        if out.len() > BIG {
            s.set_write_timeout(Some(IDLE))?;
        }
        return w.write_all(&out);
    }
    // A stream: a client that stops reading is cut after the relay's silence limit.
    s.set_write_timeout(Some(IDLE))?;
    w.write_all(&out)?;
    while let Some(d) = next(body)? {
        w.write_all(&d)?;
    }
    Ok(())
}
