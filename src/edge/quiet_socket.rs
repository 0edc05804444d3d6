//! The owner's end of a shim's connection, registered with the reactor for reading only: replies
//! are written straight to the socket, which is watched for room only while a write waits for it.
//!
//! Why: tokio registers a socket for both directions, and a Unix socket signals "writable" each
//! time its peer reads from it. The shim reads every reply, so the owner woke once per call (one
//! `epoll_wait` and a context switch) for an event nobody waited on.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::unix::{AsyncFd, AsyncFdRegisterError};
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// The connection as a reader and a writer (two handles on one socket).
pub fn halves(stream: tokio::net::UnixStream) -> io::Result<(QuietRead, QuietWrite)> {
    // Off tokio's reactor (still non-blocking), then back on it for reading only.
    let std = stream.into_std()?;
    let writer = std.try_clone()?;
    let read = watch(std, Interest::READABLE).map_err(|e| e.into_parts().1)?;
    Ok((
        QuietRead { fd: read },
        QuietWrite {
            state: Room::Plain(writer),
        },
    ))
}

/// `socket` on the reactor for `interest`.
fn watch(
    socket: UnixStream,
    interest: Interest,
) -> Result<AsyncFd<UnixStream>, AsyncFdRegisterError<UnixStream>> {
    // SAFETY: a `UnixStream` owns its descriptor until it is dropped (with the `AsyncFd`) or
    // handed back by `into_inner`: it stays open and the same all that time.
    unsafe { AsyncFd::register_with_interest(socket, interest) }
}

pub struct QuietRead {
    fd: AsyncFd<UnixStream>,
}

impl AsyncRead for QuietRead {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let len = unfilled.len();
            let mut socket: &UnixStream = guard.get_inner();
            match socket.read(unfilled) {
                Ok(n) => {
                    buf.advance(n);
                    // A short read emptied the socket: the next line wakes us (epoll is
                    // edge-triggered), so no read is tried only to hear EAGAIN (as tokio does).
                    if n > 0 && n < len {
                        guard.clear_ready();
                    }
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => guard.clear_ready(),
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

enum Room {
    /// Not registered: a write goes straight to the socket.
    Plain(UnixStream),
    /// The socket was full: registered for writability until a write gets through.
    Waiting(AsyncFd<UnixStream>),
    /// Only between the two states above (never seen by a caller).
    Gone,
}

pub struct QuietWrite {
    state: Room,
}

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the connection is gone")
}

impl AsyncWrite for QuietWrite {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            match &mut self.state {
                Room::Plain(socket) => match socket.write(buf) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        let Room::Plain(socket) = std::mem::replace(&mut self.state, Room::Gone)
                        else {
                            unreachable!("matched above")
                        };
                        match watch(socket, Interest::WRITABLE) {
                            Ok(fd) => self.state = Room::Waiting(fd),
                            Err(e) => {
                                let (socket, e) = e.into_parts();
                                self.state = Room::Plain(socket);
                                return Poll::Ready(Err(e));
                            }
                        }
                    }
                    other => return Poll::Ready(other),
                },
                Room::Waiting(fd) => {
                    let mut guard = ready!(fd.poll_write_ready(cx))?;
                    let mut socket: &UnixStream = guard.get_inner();
                    match socket.write(buf) {
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => guard.clear_ready(),
                        other => {
                            drop(guard);
                            // Room again: no longer watched (it would wake us at each read).
                            if let Room::Waiting(fd) =
                                std::mem::replace(&mut self.state, Room::Gone)
                            {
                                self.state = Room::Plain(fd.into_inner());
                            }
                            return Poll::Ready(other);
                        }
                    }
                }
                Room::Gone => return Poll::Ready(Err(gone())),
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.shut())
    }
}

impl QuietWrite {
    fn shut(&self) -> io::Result<()> {
        match &self.state {
            Room::Plain(s) => s.shutdown(std::net::Shutdown::Write),
            Room::Waiting(fd) => fd.get_ref().shutdown(std::net::Shutdown::Write),
            Room::Gone => Ok(()),
        }
    }
}

impl Drop for QuietWrite {
    /// As tokio's write half: the shim hears the end of the replies even while the reader lives.
    fn drop(&mut self) {
        let _ = self.shut();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(flavor = "current_thread")]
    async fn a_reply_larger_than_the_socket_holds_waits_for_room_and_arrives_whole() {
        let (ours, theirs) = tokio::net::UnixStream::pair().unwrap();
        let (mut read, mut write) = halves(ours).unwrap();
        let (mut peer_read, mut peer_write) = theirs.into_split();
        // Far more than a socket buffers: the writer meets a full socket and waits for room.
        let big: Vec<u8> = (0..4 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
        let sent = big.clone();
        let writer = async move {
            write.write_all(&sent).await.unwrap();
            // Dropped: the peer hears the end, though our reader lives on.
        };
        let reader = async move {
            let mut got = Vec::new();
            peer_read.read_to_end(&mut got).await.unwrap();
            got
        };
        let ((), got) = tokio::join!(writer, reader);
        assert_eq!(got.len(), big.len());
        assert!(got == big, "the bytes arrive as written, in order");

        peer_write.write_all(b"one\n").await.unwrap();
        peer_write.write_all(b"two\n").await.unwrap();
        drop(peer_write);
        let mut lines = Vec::new();
        read.read_to_end(&mut lines).await.unwrap();
        assert_eq!(lines, b"one\ntwo\n");
    }
}
