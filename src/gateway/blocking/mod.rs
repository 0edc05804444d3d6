//! The plain-HTTP front on blocking threads: each connection served to its end by one thread of
//! a pool that grows with the connections open (at most `MAX_CONNECTIONS`), so a request costs
//! no wake-up of the runtime's one thread. A `POST /mcp` (the lean front's request) is decided by
//! the same handler as before, polled on the connection's thread (`worker.rs`), its upstream
//! exchange made there with blocking sockets and deadlines (`blocking_up.rs`); anything else (a
//! GET, an SSE stream, hyper's framing) is handed to the runtime, which also keeps TLS, the
//! reloads and the timers.

mod conn;
mod pool;

pub use pool::run;
