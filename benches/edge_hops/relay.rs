//! The physical floor: the edge's hops done by the least code that can do them (`bench_edge`
//! re-run as a helper, `BENCH_RELAY=<role>`): plain blocking threads, one read and one write a hop.
//!
//! - `front <socket>`: the shim's place. stdin -> the socket on one thread, the socket -> stdout
//!   on another.
//! - `back <socket> <child> <args..>`: the owner's place. Listens on `socket` (says `ready` on
//!   stdout once it does), takes one connection, starts the child: the socket -> its stdin on one
//!   thread, its stdout -> the socket on another.
//! - `single <child> <args..>`: the one hop of `--standalone`: starts the child, stdin -> its
//!   stdin on one thread, its stdout -> stdout on another.
//! - `echo`: every line of stdin back to stdout (a ping-pong's far end, over pipes or a socket).
//!
//! The relays stamp the same hops as the hop-trace build (`mpt_base::hop_trace::Hop`), into vectors
//! allocated up front, and write them at exit to `$BENCH_RELAY_TRACE.<pid>` in its format.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::process::{Command, Stdio};

use mpt_base::hop_trace::Hop;

use super::harness::now;

/// Runs the role `BENCH_RELAY` names, if it names one: `true` once it ran (the process exits).
pub fn run_if_asked() -> bool {
    let Ok(role) = std::env::var("BENCH_RELAY") else {
        return false;
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    match role.as_str() {
        "front" => front(&args[0]),
        "back" => back(&args[0], &args[1], &args[2..]),
        "single" => single(&args[0], &args[1..]),
        "echo" => echo(),
        other => panic!("BENCH_RELAY={other}: front, back, single or echo"),
    }
    true
}

/// Stamps of one thread, a vector per hop, room made before the first call.
struct Stamps(Vec<Vec<u64>>);

impl Stamps {
    fn new() -> Stamps {
        Stamps(
            Hop::ALL
                .iter()
                .map(|_| Vec::with_capacity(mpt_base::hop_trace::CAP))
                .collect(),
        )
    }

    fn stamp(&mut self, hop: Hop) {
        self.0[hop as usize].push(now());
    }

    fn merge(mut self, other: Stamps) -> Stamps {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            a.extend(b);
        }
        self
    }

    fn write(&self) {
        if let Ok(prefix) = std::env::var("BENCH_RELAY_TRACE") {
            let path = format!("{prefix}.{}", std::process::id());
            std::fs::write(format!("{path}.tmp"), mpt_base::hop_trace::encode(&self.0)).unwrap();
            std::fs::rename(format!("{path}.tmp"), path).unwrap();
        }
    }
}

/// Each line of `from` to `to`, stamped once read and as it is written, until `from` ends.
fn pump(
    from: impl std::io::Read,
    mut to: impl Write,
    (read, sends): (Hop, Hop),
    also: Option<Hop>,
) -> Stamps {
    let mut stamps = Stamps::new();
    let mut lines = BufReader::with_capacity(64 * 1024, from);
    let mut buf = Vec::with_capacity(64 * 1024);
    loop {
        buf.clear();
        match lines.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return stamps,
            Ok(_) => {}
        }
        stamps.stamp(read);
        if let Some(h) = also {
            stamps.stamp(h);
        }
        stamps.stamp(sends);
        if to.write_all(&buf).is_err() {
            return stamps;
        }
    }
}

fn front(socket: &str) {
    let conn = UnixStream::connect(socket).unwrap();
    let (up_conn, down_conn) = (conn.try_clone().unwrap(), conn);
    let up = std::thread::spawn(move || {
        let s = pump(
            std::io::stdin(),
            &up_conn,
            (Hop::ShimReadHarness, Hop::ShimSendsOwner),
            None,
        );
        let _ = up_conn.shutdown(std::net::Shutdown::Write);
        s
    });
    let down = pump(
        &down_conn,
        std::io::stdout(),
        (Hop::ShimReadOwner, Hop::ShimSendsHarness),
        None,
    );
    up.join().unwrap().merge(down).write();
}

fn back(socket: &str, program: &str, args: &[String]) {
    let _ = std::fs::remove_file(socket);
    let listener = UnixListener::bind(socket).unwrap();
    println!("ready");
    std::io::stdout().flush().unwrap();
    let (conn, _) = listener.accept().unwrap();
    let up_conn = conn.try_clone().unwrap();
    let stamps = to_child(program, args, up_conn, &conn);
    let _ = conn.shutdown(std::net::Shutdown::Write);
    stamps.write();
}

/// The owner's place: starts the child, each line of `from` to its stdin on a thread of its own,
/// each of its replies to `to`, until its stdout ends (`from` ended: its stdin closed, it exited).
fn to_child(
    program: &str,
    args: &[String],
    from: impl std::io::Read + Send + 'static,
    to: impl Write,
) -> Stamps {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    // The child's stdin closes when `from` ends: the child exits, its stdout ends.
    let up = std::thread::spawn(move || {
        pump(
            from,
            stdin,
            (Hop::OwnerReadShim, Hop::OwnerSendsChild),
            None,
        )
    });
    let down = pump(
        stdout,
        to,
        (Hop::OwnerReadChild, Hop::OwnerSendsShim),
        Some(Hop::OwnerReplied),
    );
    let _ = child.wait();
    up.join().unwrap().merge(down)
}

/// `--standalone`'s one hop: the harness's pipes straight to the child's, a thread each way.
fn single(program: &str, args: &[String]) {
    to_child(program, args, std::io::stdin(), std::io::stdout()).write();
}

fn echo() {
    let mut out = std::io::stdout().lock();
    let mut lines = std::io::stdin().lock();
    let mut buf = Vec::with_capacity(64 * 1024);
    loop {
        buf.clear();
        match lines.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if out.write_all(&buf).and_then(|_| out.flush()).is_err() {
            return;
        }
    }
}
