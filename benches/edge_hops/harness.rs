//! A harness as plain blocking code, stamping its own send and receive on CLOCK_MONOTONIC (the
//! clock the hop-trace build stamps with): the same client for every side of `BENCH_HOPS`.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// CLOCK_MONOTONIC in nanoseconds (the vDSO's clock: the same in every process).
pub fn now() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write to.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// One call as the harness saw it: just before its write, once the reply's read returned.
#[derive(Debug, Clone, Copy)]
pub struct Call {
    pub start: u64,
    pub got: u64,
}

/// Where the lines go and come from: a child's pipes, or one end of a Unix socket.
enum Wire {
    Pipes(ChildStdin, BufReader<ChildStdout>),
    Socket(UnixStream, BufReader<UnixStream>),
}

/// A process the harness talks to, newline-framed.
pub struct Peer {
    pub child: Child,
    wire: Wire,
    next_id: u64,
    buf: Vec<u8>,
}

impl Peer {
    /// `program args` with exactly `env`, its stdin and stdout the harness's pipes.
    pub fn spawn(program: &Path, args: &[&str], env: &[(String, String)]) -> Peer {
        let mut child = Command::new(program)
            .args(args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
        let wire = Wire::Pipes(
            child.stdin.take().unwrap(),
            BufReader::new(child.stdout.take().unwrap()),
        );
        Peer::new(child, wire)
    }

    /// `program args` whose stdin and stdout are both one end of a Unix socket pair.
    pub fn spawn_on_socket(program: &Path, args: &[&str], env: &[(String, String)]) -> Peer {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let child = Command::new(program)
            .args(args)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::from(std::os::fd::OwnedFd::from(
                theirs.try_clone().unwrap(),
            )))
            .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let wire = Wire::Socket(ours.try_clone().unwrap(), BufReader::new(ours));
        Peer::new(child, wire)
    }

    fn new(child: Child, wire: Wire) -> Peer {
        Peer {
            child,
            wire,
            next_id: 1,
            buf: Vec::with_capacity(64 * 1024),
        }
    }

    fn write(&mut self, line: &[u8]) {
        match &mut self.wire {
            Wire::Pipes(w, _) => w.write_all(line).unwrap(),
            Wire::Socket(w, _) => w.write_all(line).unwrap(),
        }
    }

    /// The next line into `self.buf`.
    fn read(&mut self) {
        self.buf.clear();
        let n = match &mut self.wire {
            Wire::Pipes(_, r) => r.read_until(b'\n', &mut self.buf).unwrap(),
            Wire::Socket(_, r) => r.read_until(b'\n', &mut self.buf).unwrap(),
        };
        assert!(n > 0, "the peer closed its end");
    }

    /// A request, and its reply once it came (lines that answer something else are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let line = format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        );
        self.write(line.as_bytes());
        loop {
            self.read();
            let v: Value = serde_json::from_slice(&self.buf).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// MCP's `initialize` and `notifications/initialized`.
    pub fn handshake(&mut self) {
        let init = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench_edge", "version": "0"}}),
        );
        assert!(init.get("result").is_some(), "initialize: {init}");
        self.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    }

    /// One `tools/call` of `tool` with no arguments, stamped; the reply must be a good result.
    pub fn call(&mut self, tool: &str) -> Call {
        let id = self.next_id;
        self.next_id += 1;
        let line = format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
        );
        let start = now();
        self.write(line.as_bytes());
        let got = loop {
            self.read();
            let got = now();
            let v: Value = serde_json::from_slice(&self.buf).unwrap();
            if v["id"] == json!(id) {
                assert!(
                    v["result"].is_object() && v["result"]["isError"] != json!(true),
                    "{tool}: {v}"
                );
                // A good JSON-RPC result can still carry the palace's own failure in its payload.
                let payload: Value = v["result"]["content"][0]["text"]
                    .as_str()
                    .and_then(|t| serde_json::from_str(t).ok())
                    .unwrap_or(Value::Null);
                assert!(
                    payload.is_object()
                        && payload.get("success") != Some(&json!(false))
                        && payload.get("error").is_none(),
                    "{tool}: {v}"
                );
                break got;
            }
        };
        Call { start, got }
    }

    /// One line out and the same line back (an echo peer), stamped.
    pub fn echo(&mut self, line: &[u8]) -> Call {
        let start = now();
        self.write(line);
        self.read();
        let got = now();
        assert_eq!(self.buf, line, "the echo");
        Call { start, got }
    }

    /// Closes the peer's input and waits for it to end.
    pub fn finish(self) {
        let Peer {
            mut child, wire, ..
        } = self;
        drop(wire);
        let _ = child.wait();
    }
}
