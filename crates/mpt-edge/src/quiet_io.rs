//! The edge's relay ends on the reactor without tokio's extra wakes: a shim's connection in the
//! owner, and `--standalone`'s stdin/stdout, read when readable, written straight through.
//!
//! Why: tokio registers a socket for both directions, and a Unix socket signals "writable" each
//! time its peer reads from it: the shim reads every reply, so the owner woke once per call (an
//! `epoll_wait`, a context switch) for nothing; a writer here is watched only while it is full.
//! And tokio's stdin/stdout hand each read and write to a blocking-pool thread (a thread hop per
//! line): a pipe or socket on stdio is read and written in place instead.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use rustix::fs::{FileType, OFlags};
use rustix::stdio as fds;
use tokio::io::unix::{AsyncFd, AsyncFdRegisterError};
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// A descriptor the relay reads or writes: a socket, or a pipe on stdio.
pub trait End: AsRawFd + Sized
where
    for<'a> &'a Self: Read + Write,
{
    /// No more writes from this end (a socket tells its peer; a pipe closes with its last copy).
    fn end_writes(&self) -> io::Result<()>;
}

impl End for UnixStream {
    fn end_writes(&self) -> io::Result<()> {
        self.shutdown(std::net::Shutdown::Write)
    }
}

impl End for File {
    fn end_writes(&self) -> io::Result<()> {
        Ok(())
    }
}

/// The connection as a reader and a writer (two handles on one socket).
pub fn socket_halves(
    stream: tokio::net::UnixStream,
) -> io::Result<(QuietRead<UnixStream>, QuietWrite<UnixStream>)> {
    // Off tokio's reactor (still non-blocking), then back on it for reading only.
    let std = stream.into_std()?;
    let writer = std.try_clone()?;
    let read = watch(std, Interest::READABLE).map_err(|e| e.into_parts().1)?;
    Ok((QuietRead { fd: read }, QuietWrite::new(writer)))
}

/// stdin and stdout, when both are pipes or sockets (what a harness gives the edge), made
/// non-blocking: `None` for a terminal or a file (tokio's own stdio serves those). `Stdio`
/// puts their blocking mode back when dropped.
pub fn stdio() -> Option<(QuietRead<File>, QuietWrite<File>, Stdio)> {
    let (stdin, stdout) = (fds::stdin(), fds::stdout());
    if !pollable(stdin) || !pollable(stdout) {
        return None;
    }
    // Dropped on any way out below: what was made non-blocking is put back.
    let mut restore = Stdio { flags: [None; 2] };
    restore.flags[0] = Some(nonblocking(stdin)?);
    restore.flags[1] = Some(nonblocking(stdout)?);
    let input = File::from(stdin.try_clone_to_owned().ok()?);
    let output = File::from(stdout.try_clone_to_owned().ok()?);
    let read = watch(input, Interest::READABLE).ok()?;
    Some((QuietRead { fd: read }, QuietWrite::new(output), restore))
}

/// stdin's and stdout's file status flags as they were (their descriptions are shared with
/// whoever started us).
pub struct Stdio {
    flags: [Option<OFlags>; 2],
}

impl Drop for Stdio {
    fn drop(&mut self) {
        let ends = [fds::stdin(), fds::stdout()];
        for (fd, flags) in ends.into_iter().zip(self.flags) {
            if let Some(f) = flags {
                let _ = rustix::fs::fcntl_setfl(fd, f);
            }
        }
    }
}

fn pollable(fd: BorrowedFd<'_>) -> bool {
    rustix::fs::fstat(fd).is_ok_and(|st| {
        matches!(
            FileType::from_raw_mode(st.st_mode),
            FileType::Fifo | FileType::Socket
        )
    })
}

/// Sets O_NONBLOCK; the flags before (`None`: could not).
fn nonblocking(fd: BorrowedFd<'_>) -> Option<OFlags> {
    let flags = rustix::fs::fcntl_getfl(fd).ok()?;
    rustix::fs::fcntl_setfl(fd, flags | OFlags::NONBLOCK).ok()?;
    Some(flags)
}

/// `end` on the reactor for `interest`.
fn watch<T: AsRawFd>(end: T, interest: Interest) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
    // SAFETY: a `UnixStream` or a `File` owns its descriptor until it is dropped (with the
    // `AsyncFd`) or handed back by `into_inner`: it stays open and the same all that time.
    // Tokio's safe constructors (`with_interest`) are deprecated as unsound: this is the one left.
    unsafe { AsyncFd::register_with_interest(end, interest) }
}

pub struct QuietRead<T: AsRawFd> {
    fd: AsyncFd<T>,
}

impl<T: AsRawFd> AsyncRead for QuietRead<T>
where
    for<'a> &'a T: Read,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let len = unfilled.len();
            let mut end: &T = guard.get_inner();
            match end.read(unfilled) {
                Ok(n) => {
                    buf.advance(n);
                    // A short read emptied it: the next line wakes us (epoll is edge-triggered),
                    // so no read is tried only to hear EAGAIN (as tokio does).
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

enum Room<T: AsRawFd> {
    /// Not registered: a write goes straight through.
    Plain(T),
    /// It was full: registered for writability until a write gets through.
    Waiting(AsyncFd<T>),
    /// Only between the two states above (never seen by a caller).
    Gone,
}

pub struct QuietWrite<T: End>
where
    for<'a> &'a T: Read + Write,
{
    state: Room<T>,
}

impl<T: End> QuietWrite<T>
where
    for<'a> &'a T: Read + Write,
{
    fn new(end: T) -> Self {
        QuietWrite {
            state: Room::Plain(end),
        }
    }

    fn end_writes(&self) -> io::Result<()> {
        match &self.state {
            Room::Plain(e) => e.end_writes(),
            Room::Waiting(fd) => fd.get_ref().end_writes(),
            Room::Gone => Ok(()),
        }
    }
}

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the connection is gone")
}

impl<T: End + Unpin> AsyncWrite for QuietWrite<T>
where
    for<'a> &'a T: Read + Write,
{
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            match &mut self.state {
                Room::Plain(end) => match (&*end).write(buf) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        let Room::Plain(end) = std::mem::replace(&mut self.state, Room::Gone)
                        else {
                            unreachable!("matched above")
                        };
                        match watch(end, Interest::WRITABLE) {
                            Ok(fd) => self.state = Room::Waiting(fd),
                            Err(e) => {
                                let (end, e) = e.into_parts();
                                self.state = Room::Plain(end);
                                return Poll::Ready(Err(e));
                            }
                        }
                    }
                    other => return Poll::Ready(other),
                },
                Room::Waiting(fd) => {
                    let mut guard = ready!(fd.poll_write_ready(cx))?;
                    let mut end: &T = guard.get_inner();
                    match end.write(buf) {
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => guard.clear_ready(),
                        other => {
                            drop(guard);
                            // Room again: no longer watched (a socket would wake us at each read).
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
        Poll::Ready(self.end_writes())
    }
}

impl<T: End> Drop for QuietWrite<T>
where
    for<'a> &'a T: Read + Write,
{
    /// As tokio's write half: the shim hears the end of the replies even while the reader lives.
    fn drop(&mut self) {
        let _ = self.end_writes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(flavor = "current_thread")]
    async fn a_reply_larger_than_the_socket_holds_waits_for_room_and_arrives_whole() {
        let (ours, theirs) = tokio::net::UnixStream::pair().unwrap();
        let (mut read, mut write) = socket_halves(ours).unwrap();
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
