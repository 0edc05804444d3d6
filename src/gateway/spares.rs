//! Upstream connections made ahead of need (preconnect): a few plain-TCP connections to `serve`
//! made by one task as clients connect, each used once, at most [`MAX_AGE`] old, checked before use.

use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::net::TcpStream;
use tokio::sync::Notify;

/// The oldest a spare may be when it is taken. `serve`'s handler gives up on a connection that
/// sent nothing for 10 s (`timeout = 10` in `mcp_server/http.py`) and closes it: half of that
/// leaves a spare five seconds clear of the close it could meet mid-write.
pub const MAX_AGE: Duration = Duration::from_secs(5);
/// After a failed connect, no spare is made for this long (doubled per failure in a row, up to
/// [`BACKOFF_MAX`]): a `serve` that is down is not connected to in a loop.
const BACKOFF_FIRST: Duration = Duration::from_millis(200);
const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// How long making one spare may take.
const CONNECT: Duration = Duration::from_secs(5);

/// The spares of one upstream, and the task that makes them.
pub struct Spares {
    host: String,
    port: u16,
    /// How many are kept ready.
    want: usize,
    state: Mutex<State>,
    /// A client connected (or the spares were closed): the task looks again.
    wake: Notify,
}

struct State {
    idle: VecDeque<(TcpStream, Instant)>,
    /// Spares are made: since a client last connected and none has expired unused since.
    warm: bool,
    /// The task is running.
    started: bool,
    /// No spare before this (a connect failed).
    not_before: Option<Instant>,
    backoff: Duration,
    closed: bool,
}

impl Spares {
    pub fn new(host: &str, port: u16, want: usize) -> Arc<Spares> {
        Arc::new(Spares {
            host: host.to_string(),
            port,
            want,
            state: Mutex::new(State {
                idle: VecDeque::new(),
                warm: true,
                started: false,
                not_before: None,
                backoff: BACKOFF_FIRST,
                closed: false,
            }),
            wake: Notify::new(),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts the task that makes spares (once; needs a runtime).
    pub fn start(self: &Arc<Self>) {
        let mut s = self.state();
        if s.started || s.closed {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        s.started = true;
        rt.spawn(Arc::clone(self).run());
    }

    /// A live spare, if one is ready: younger than [`MAX_AGE`], its peer neither closed nor
    /// sending (checked by a non-blocking peek). The next is made when the next client connects.
    pub fn take(self: &Arc<Self>) -> Option<TcpStream> {
        self.start();
        let mut found = None;
        {
            let mut s = self.state();
            if s.closed {
                return None;
            }
            while let Some((tcp, made)) = s.idle.pop_front() {
                if made.elapsed() < MAX_AGE && alive(&tcp) {
                    found = Some(tcp);
                    break;
                }
            }
        }
        found
    }

    /// A client connected: a spare is made for its request (unless one is ready, or a connect
    /// failed within the backoff), while the gateway reads, authenticates and audits it; `serve`
    /// accepts it and starts its thread meanwhile, and is not busy with a request of this client.
    pub fn client_connected(&self) {
        {
            let mut s = self.state();
            if s.not_before.is_none_or(|t| Instant::now() >= t) {
                s.warm = true;
            }
        }
        self.wake.notify_one();
    }

    /// Drops every spare and stops the task (the gateway is stopping).
    pub fn close(&self) {
        let mut s = self.state();
        s.closed = true;
        s.idle.clear();
        drop(s);
        self.wake.notify_one();
    }

    /// How many are ready now (for tests of the module).
    #[cfg(test)]
    fn ready(&self) -> usize {
        self.state().idle.len()
    }

    async fn run(self: Arc<Self>) {
        loop {
            self.fill().await;
            let oldest = {
                let s = self.state();
                if s.closed {
                    return;
                }
                s.idle.front().map(|(_, made)| *made)
            };
            match oldest {
                None => self.wake.notified().await,
                Some(made) => {
                    let expiry = tokio::time::Instant::from_std(made + MAX_AGE);
                    tokio::select! {
                        () = self.wake.notified() => {}
                        () = tokio::time::sleep_until(expiry) => self.expire(),
                    }
                }
            }
        }
    }

    /// Makes spares up to `want` while warm; a failed connect stops it and backs off.
    async fn fill(&self) {
        loop {
            {
                let s = self.state();
                if s.closed || !s.warm || s.idle.len() >= self.want {
                    return;
                }
            }
            let made =
                tokio::time::timeout(CONNECT, TcpStream::connect((self.host.as_str(), self.port)))
                    .await;
            let mut s = self.state();
            match made {
                Ok(Ok(tcp)) if !s.closed => {
                    let _ = tcp.set_nodelay(true);
                    s.idle.push_back((tcp, Instant::now()));
                    s.backoff = BACKOFF_FIRST;
                    s.not_before = None;
                }
                Ok(Ok(_)) => return,
                Ok(Err(_)) | Err(_) => {
                    // Down (or not answering): the next spare waits for a take past the backoff.
                    s.warm = false;
                    s.not_before = Some(Instant::now() + s.backoff);
                    s.backoff = (s.backoff * 2).min(BACKOFF_MAX);
                    return;
                }
            }
        }
    }

    /// Spares past their age are dropped, and none is made again until a client connects: an idle
    /// gateway does not keep reconnecting.
    fn expire(&self) {
        let mut s = self.state();
        let before = s.idle.len();
        s.idle.retain(|(_, made)| made.elapsed() < MAX_AGE);
        if s.idle.len() < before {
            s.warm = false;
        }
    }
}

/// Whether a spare can carry a request: a peek that would block (nothing sent, not closed).
/// End of file, bytes `serve` should never send first, or an error: dead.
fn alive(tcp: &TcpStream) -> bool {
    let mut b = [0u8; 1];
    // SAFETY: a one-byte buffer of ours, a descriptor the stream owns for the call's length.
    let n = unsafe {
        libc::recv(
            tcp.as_raw_fd(),
            b.as_mut_ptr().cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn pair(l: &tokio::net::TcpListener) -> (TcpStream, TcpStream) {
        let port = l.local_addr().unwrap().port();
        let (c, a) = tokio::join!(TcpStream::connect(("127.0.0.1", port)), l.accept());
        (c.unwrap(), a.unwrap().0)
    }

    #[tokio::test]
    async fn a_spare_whose_peer_closed_or_spoke_first_is_dead() {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let (c, _peer) = pair(&l).await;
        assert!(alive(&c));
        let (c, peer) = pair(&l).await;
        drop(peer);
        c.readable().await.unwrap();
        assert!(!alive(&c));
        let (c, mut peer) = pair(&l).await;
        peer.write_all(b"HTTP/1.1 408").await.unwrap();
        c.readable().await.unwrap();
        assert!(!alive(&c));
    }

    #[tokio::test]
    async fn spares_are_made_before_a_request_and_closed_with_the_gateway() {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = l.local_addr().unwrap().port();
        let spares = Spares::new("127.0.0.1", port, 1);
        spares.start();
        // Made ahead: accepted here before anything was taken.
        let (mut first, _) = l.accept().await.unwrap();
        let taken = loop {
            if let Some(t) = spares.take() {
                break t;
            }
            tokio::task::yield_now().await;
        };
        drop(taken);
        let mut b = [0u8; 1];
        assert_eq!(
            first.read(&mut b).await.unwrap(),
            0,
            "the taken spare was that one"
        );
        // The next client has the next one made; closing drops it.
        spares.client_connected();
        let (mut second, _) = l.accept().await.unwrap();
        while spares.ready() == 0 {
            tokio::task::yield_now().await;
        }
        spares.close();
        assert!(spares.take().is_none());
        assert_eq!(second.read(&mut b).await.unwrap(), 0, "closed at shutdown");
    }
}
