//! A blocking front's worker thread (`blocking/`): the sockets it has open (cut at shutdown), and
//! an executor that polls a future on this thread, parked between polls, given up at the stop.

use std::cell::RefCell;
use std::future::Future;
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

/// One worker: its sockets open now, its thread, the pool's stop.
pub struct Slot {
    fds: Mutex<Vec<RawFd>>,
    thread: Thread,
    waker: Waker,
    stop: Arc<AtomicBool>,
}

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Slot {
    /// The calling thread's slot.
    pub fn new(stop: Arc<AtomicBool>) -> Slot {
        let thread = std::thread::current();
        Slot {
            fds: Mutex::new(Vec::with_capacity(2)),
            waker: Waker::from(Arc::new(Unpark(thread.clone()))),
            thread,
            stop,
        }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Notes socket `fd` as open; one opened after the stop is cut at once.
    fn track(&self, fd: RawFd) {
        let mut fds = lock(&self.fds);
        fds.push(fd);
        if self.stopped() {
            shut(fd);
        }
    }

    fn untrack(&self, fd: RawFd) {
        lock(&self.fds).retain(|f| *f != fd);
    }

    /// At shutdown (after the stop is set): every socket of this worker shut, so a blocked read,
    /// write or connect returns, and its executor woken to see the stop.
    pub fn cut(&self) {
        for fd in lock(&self.fds).iter() {
            shut(*fd);
        }
        self.thread.unpark();
    }
}

fn shut(fd: RawFd) {
    // SAFETY: `fd` is open: a socket leaves its slot (under the same lock) before it is closed.
    unsafe {
        libc::shutdown(fd, libc::SHUT_RDWR);
    }
}

/// A socket known to its worker's slot while it is open.
pub struct Tracked<S: AsRawFd = TcpStream> {
    io: Option<S>,
    fd: RawFd,
    slot: Arc<Slot>,
}

impl<S: AsRawFd> Tracked<S> {
    pub fn new(io: S, slot: &Arc<Slot>) -> Tracked<S> {
        let fd = io.as_raw_fd();
        slot.track(fd);
        Tracked {
            io: Some(io),
            fd,
            slot: Arc::clone(slot),
        }
    }

    pub fn get(&self) -> &S {
        self.io.as_ref().expect("only taken by release")
    }

    /// The socket, no longer the slot's (handed to the runtime).
    pub fn release(mut self) -> S {
        self.slot.untrack(self.fd);
        self.io.take().expect("only taken here")
    }
}

impl<S: AsRawFd> Drop for Tracked<S> {
    fn drop(&mut self) {
        // Out of the slot before `io` closes (its fields drop after this); once only.
        if self.io.is_some() {
            self.slot.untrack(self.fd);
        }
    }
}

thread_local! {
    static HERE: RefCell<Option<Arc<Slot>>> = const { RefCell::new(None) };
}

/// Makes the calling thread a worker with `slot`.
pub fn enter(slot: &Arc<Slot>) {
    HERE.with(|h| *h.borrow_mut() = Some(Arc::clone(slot)));
}

/// This thread's slot, when it is a worker.
pub fn slot() -> Option<Arc<Slot>> {
    HERE.with(|h| h.borrow().clone())
}

/// Whether the calling thread is a worker of the blocking front.
pub fn on_worker() -> bool {
    HERE.with(|h| h.borrow().is_some())
}

/// Polls `f` on this worker thread to its end; `None` when the front stopped first.
pub fn block_on<F: Future>(f: F, slot: &Slot) -> Option<F::Output> {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(&slot.waker);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return Some(v);
        }
        if slot.stopped() {
            return None;
        }
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    #[test]
    fn a_blocked_read_returns_once_its_worker_is_cut() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (_server, _) = l.accept().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let stopping = Arc::clone(&stop);
        let reader = std::thread::spawn(move || {
            let slot = Arc::new(Slot::new(stopping));
            let s = Tracked::new(client, &slot);
            tx.send(Arc::clone(&slot)).unwrap();
            let mut b = [0u8; 1];
            (&mut s.get()).read(&mut b).map(|n| n == 0).unwrap_or(true)
        });
        let slot = rx.recv().unwrap();
        stop.store(true, Ordering::SeqCst);
        slot.cut();
        assert!(reader.join().unwrap(), "the read ended at the cut");
    }

    #[test]
    fn a_future_waiting_at_the_stop_is_given_up() {
        let stop = Arc::new(AtomicBool::new(true));
        let slot = Slot::new(stop);
        assert_eq!(block_on(std::future::pending::<()>(), &slot), None);
        assert_eq!(block_on(async { 7 }, &slot), Some(7));
    }
}
