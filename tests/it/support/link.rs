//! A device's network link to the primary: a loopback TCP forwarder the test switches between
//! passing, refusing (no listener), dropping (accept and close), black-holing (accept, never
//! answer; or, as a real black hole does, also silencing live connections and keeping all of them
//! hung after the heal) and swallowing replies (the request reaches the primary, the reply never
//! comes back).

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Pass,
    /// Connection refused: the port has no listener.
    Refuse,
    /// Accepted, then closed before a byte is read.
    Drop,
    /// Accepted and held: nothing is read or answered. Held connections are closed when the mode
    /// changes (a forwarder that gives up on them).
    BlackHole,
    /// A real black hole (a sleeping laptop, a dropped NAT entry): new connections are accepted
    /// and held, and every connection forwarded so far goes silent too. Nothing is ever closed:
    /// what it held stays hung after the heal, with no RST, and only new connections pass again.
    Freeze,
    /// Forwarded to the primary (which applies it); the reply is thrown away, the connection closed.
    DropReply,
}

struct State {
    mode: Mode,
    upstream: u16,
    held: Vec<TcpStream>,
    /// Connections a `Freeze` silenced: kept open (never answered) until the link is dropped.
    frozen: Vec<TcpStream>,
    /// Bumped each time the link enters `Freeze`: a forward started before it goes silent.
    freezes: u64,
    /// Connections accepted per mode, for assertions that a mode was exercised.
    accepted: Vec<Mode>,
}

pub struct Link {
    pub port: u16,
    state: Arc<(Mutex<State>, Condvar)>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Link {
    /// Binds an ephemeral loopback port (its number is known before the primary starts: the
    /// primary's Host pin must name it). `upstream` may be set later.
    pub fn bind() -> Link {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new((
            Mutex::new(State {
                mode: Mode::Pass,
                upstream: 0,
                held: Vec::new(),
                frozen: Vec::new(),
                freezes: 0,
                accepted: Vec::new(),
            }),
            Condvar::new(),
        ));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, sp) = (Arc::clone(&state), Arc::clone(&stop));
        let thread = std::thread::spawn(move || accept_loop(listener, port, st, sp));
        Link {
            port,
            state,
            stop,
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    pub fn set_upstream(&self, port: u16) {
        self.state.0.lock().unwrap().upstream = port;
    }

    /// Switches the mode; connections `BlackHole` held are closed when it changes, those a
    /// `Freeze` holds or silenced are not.
    pub fn set(&self, mode: Mode) {
        let (lock, cv) = &*self.state;
        let mut s = lock.lock().unwrap();
        if mode == Mode::Freeze && s.mode != Mode::Freeze {
            s.freezes += 1;
        }
        s.mode = mode;
        for c in s.held.drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
        cv.notify_all();
    }

    /// How many connections arrived while in `mode`.
    pub fn accepted(&self, mode: Mode) -> usize {
        let s = self.state.0.lock().unwrap();
        s.accepted.iter().filter(|m| **m == mode).count()
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.set(Mode::Pass);
        for c in self.state.0.lock().unwrap().frozen.drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Accepts while the mode is not Refuse; under Refuse the listener is closed (connects are
/// refused) and bound again on the same port when the mode changes.
fn accept_loop(
    listener: TcpListener,
    port: u16,
    state: Arc<(Mutex<State>, Condvar)>,
    stop: Arc<AtomicBool>,
) {
    let mut listener = Some(listener);
    while !stop.load(Ordering::SeqCst) {
        let mode = state.0.lock().unwrap().mode;
        if mode == Mode::Refuse {
            listener = None;
            let (lock, cv) = &*state;
            let s = lock.lock().unwrap();
            let _unused = cv
                .wait_while(s, |s| {
                    s.mode == Mode::Refuse && !stop.load(Ordering::SeqCst)
                })
                .unwrap();
            continue;
        }
        let l = listener.get_or_insert_with(|| {
            // SO_REUSEADDR (std sets it on Unix): the port comes back at once.
            TcpListener::bind(("127.0.0.1", port)).expect("the link's port can be bound again")
        });
        l.set_nonblocking(true).unwrap();
        match l.accept() {
            Ok((conn, _)) => {
                conn.set_nonblocking(false).unwrap();
                handle(conn, &state);
            }
            // Polling the non-blocking listener (so a mode switch to Refuse closes it promptly).
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(2))
            }
            Err(_) => {}
        }
    }
}

type Shared = Arc<(Mutex<State>, Condvar)>;

fn handle(conn: TcpStream, state: &Shared) {
    let (mode, upstream, freezes) = {
        let mut s = state.0.lock().unwrap();
        let m = s.mode;
        s.accepted.push(m);
        (m, s.upstream, s.freezes)
    };
    match mode {
        Mode::Refuse | Mode::Drop => drop(conn),
        Mode::BlackHole => state.0.lock().unwrap().held.push(conn),
        Mode::Freeze => state.0.lock().unwrap().frozen.push(conn),
        Mode::Pass | Mode::DropReply => {
            let state = Arc::clone(state);
            std::thread::spawn(move || {
                forward(conn, upstream, mode == Mode::DropReply, &state, freezes)
            });
        }
    }
}

/// Copies both ways until either side closes; with `swallow`, the reply is read and discarded.
/// A `Freeze` after it started (`freezes` moved on) silences it: both sockets are kept, open
/// and unanswered, until the link is dropped.
fn forward(client: TcpStream, upstream: u16, swallow: bool, state: &Shared, freezes: u64) {
    let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
        return;
    };
    let (c_read, s_write) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    let up_state = Arc::clone(state);
    let up = std::thread::spawn(move || {
        if copy_until_frozen(c_read, &s_write, false, &up_state, freezes) {
            let _ = s_write.shutdown(Shutdown::Write);
        }
    });
    let ended = copy_until_frozen(
        server.try_clone().unwrap(),
        &client,
        swallow,
        state,
        freezes,
    );
    if ended {
        let _ = client.shutdown(Shutdown::Both);
        let _ = server.shutdown(Shutdown::Both);
    } else {
        state.0.lock().unwrap().frozen.extend([client, server]);
    }
    let _ = up.join();
}

/// Copies `from` into `to` (or discards it with `swallow`) until `from` ends (`true`) or a
/// freeze silences the connection (`false`: nothing more is read or written).
fn copy_until_frozen(
    mut from: TcpStream,
    mut to: &TcpStream,
    swallow: bool,
    state: &Shared,
    freezes: u64,
) -> bool {
    let frozen = || state.0.lock().unwrap().freezes != freezes;
    // Polled, so a freeze is noticed while the peer is quiet too.
    let _ = from.set_read_timeout(Some(Duration::from_millis(20)));
    let mut buf = [0u8; 16 * 1024];
    loop {
        if frozen() {
            return false;
        }
        match from.read(&mut buf) {
            Ok(0) => return true,
            Ok(n) => {
                if frozen() {
                    return false;
                }
                if !swallow && to.write_all(&buf[..n]).is_err() {
                    return true;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return true,
        }
    }
}
