//! The worker threads: each blocks in `accept` on the one listener (the kernel hands a new
//! connection to one of them) and serves what it took to its end. Spares are kept ahead of need,
//! so a connection never waits for a thread to start; more are started as connections stay open
//! (a stuck upstream holds only its own), at most `MAX_CONNECTIONS`; past `MAX_SPARE` idle ones
//! end. At the stop every socket is shut, so each blocked call returns, and every thread is joined.

use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::gateway::front::{HEADER_READ_TIMEOUT, MAX_CONNECTIONS};
use crate::gateway::shared::Shared;
use crate::gateway::worker::{self, Slot};
use crate::{log_debug, log_warn};

/// Threads waiting in `accept` kept ahead of need: one starts when fewer are left.
const SPARE: usize = 2;
/// Idle threads past this end once their connection is served.
const MAX_SPARE: usize = 8;
/// Started with the front.
const FIRST: usize = 4;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct Pool {
    listener: TcpListener,
    shared: Arc<Shared>,
    rt: tokio::runtime::Handle,
    /// Whether accepted sockets have nodelay and the header timeout from the listener.
    inherited: bool,
    stop: Arc<AtomicBool>,
    /// Threads in `accept` now, and all of them.
    idle: AtomicUsize,
    total: AtomicUsize,
    slots: Mutex<Vec<Arc<Slot>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

/// Serves `listener` (plain HTTP) on worker threads until `stop` resolves; then stops them all.
pub async fn run(
    listener: TcpListener,
    shared: Arc<Shared>,
    stop: impl std::future::Future<Output = ()>,
) {
    if let Err(e) = listener.set_nonblocking(false) {
        log_warn!("the listener cannot block: {e}");
        return;
    }
    // Set once on the listener, each accepted socket has them from it (Linux copies a
    // listener's options to its connections): no nodelay and no header timeout per connection.
    let sock = socket2::SockRef::from(&listener);
    let inherited = sock.set_tcp_nodelay(true).is_ok()
        && sock.set_read_timeout(Some(HEADER_READ_TIMEOUT)).is_ok();
    let pool = Arc::new(Pool {
        listener,
        shared,
        rt: tokio::runtime::Handle::current(),
        inherited,
        stop: Arc::new(AtomicBool::new(false)),
        idle: AtomicUsize::new(0),
        total: AtomicUsize::new(0),
        slots: Mutex::new(Vec::new()),
        threads: Mutex::new(Vec::new()),
    });
    for _ in 0..FIRST {
        pool.start();
    }
    stop.await;
    pool.halt();
    // Joined off the runtime's thread: a worker may still wait on it (a TLS upstream's exchange).
    let p = Arc::clone(&pool);
    let _ = tokio::task::spawn_blocking(move || p.join()).await;
}

impl Pool {
    /// One more worker, unless there are `MAX_CONNECTIONS` already.
    fn start(self: &Arc<Self>) {
        if self.stop.load(Ordering::SeqCst)
            || self.total.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS
        {
            self.total.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        let me = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("mpt-gw-conn".into())
            .spawn(move || me.work());
        let mut threads = lock(&self.threads);
        threads.retain(|t| !t.is_finished());
        match spawned {
            Ok(t) => threads.push(t),
            Err(e) => {
                self.total.fetch_sub(1, Ordering::SeqCst);
                log_warn!("cannot start a connection thread: {e}");
            }
        }
    }

    fn work(self: Arc<Self>) {
        let _rt = self.rt.enter();
        let slot = Arc::new(Slot::new(Arc::clone(&self.stop)));
        lock(&self.slots).push(Arc::clone(&slot));
        worker::enter(&slot);
        loop {
            self.idle.fetch_add(1, Ordering::SeqCst);
            let accepted = self.listener.accept();
            let idle = self.idle.fetch_sub(1, Ordering::SeqCst) - 1;
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            match accepted {
                Ok((stream, peer)) => {
                    crate::hop!(GwAccepted);
                    if idle < SPARE {
                        self.start();
                    }
                    super::conn::serve(stream, peer, self.inherited, &self.shared, &slot);
                }
                // The listener's read timeout (the header timeout) also bounds an idle accept.
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => {
                    // Out of descriptors, most likely: give the open connections a moment to end.
                    log_debug!("accept failed: {e}");
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
            if self.idle.load(Ordering::SeqCst) >= MAX_SPARE {
                break;
            }
        }
        lock(&self.slots).retain(|s| !Arc::ptr_eq(s, &slot));
        self.total.fetch_sub(1, Ordering::SeqCst);
    }

    /// Every worker told to stop: the listener shut (each `accept` returns), every open socket
    /// shut (each read, write or connect returns), each executor woken.
    fn halt(&self) {
        self.stop.store(true, Ordering::SeqCst);
        // SAFETY: the listener is open (the pool owns it until it drops).
        unsafe {
            libc::shutdown(self.listener.as_raw_fd(), libc::SHUT_RDWR);
        }
        for s in lock(&self.slots).iter() {
            s.cut();
        }
    }

    fn join(&self) {
        let threads = std::mem::take(&mut *lock(&self.threads));
        for t in threads {
            let _ = t.join();
        }
    }
}
