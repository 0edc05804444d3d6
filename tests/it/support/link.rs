//! A device's network link to the primary: a loopback TCP forwarder the test switches between
//! passing, refusing (no listener), dropping (accept and close), black-holing (accept, never
//! answer) and swallowing replies (the request reaches the primary, the reply never comes back).

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
    /// Accepted and held: nothing is read or answered.
    BlackHole,
    /// Forwarded to the primary (which applies it); the reply is thrown away, the connection closed.
    DropReply,
}

struct State {
    mode: Mode,
    upstream: u16,
    held: Vec<TcpStream>,
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

    /// Switches the mode; held (black-holed) connections are closed when it changes.
    pub fn set(&self, mode: Mode) {
        let (lock, cv) = &*self.state;
        let mut s = lock.lock().unwrap();
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

fn handle(conn: TcpStream, state: &Arc<(Mutex<State>, Condvar)>) {
    let (mode, upstream) = {
        let mut s = state.0.lock().unwrap();
        let m = s.mode;
        s.accepted.push(m);
        (m, s.upstream)
    };
    match mode {
        Mode::Refuse | Mode::Drop => drop(conn),
        Mode::BlackHole => state.0.lock().unwrap().held.push(conn),
        Mode::Pass | Mode::DropReply => {
            std::thread::spawn(move || forward(conn, upstream, mode == Mode::DropReply));
        }
    }
}

/// Copies both ways until either side closes; with `swallow`, the reply is read and discarded.
fn forward(client: TcpStream, upstream: u16, swallow: bool) {
    let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
        return;
    };
    let (mut c_read, mut s_write) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut c_read, &mut s_write);
        let _ = s_write.shutdown(Shutdown::Write);
    });
    let (mut s_read, mut c_write) = (server, client);
    let mut buf = [0u8; 16 * 1024];
    loop {
        match s_read.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) if !swallow => {
                if c_write.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            Ok(_) => {}
        }
    }
    let _ = c_write.shutdown(Shutdown::Both);
    let _ = s_read.shutdown(Shutdown::Both);
    let _ = up.join();
}
