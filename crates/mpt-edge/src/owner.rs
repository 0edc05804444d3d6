//! The one owner of a palace's child on this machine: holds the owner lock, serves every
//! `mpt edge` shim over a Unix socket, and exits a grace period after its last client leaves.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::UnixListener;
use tokio::sync::Notify;

use super::identity::{Admission, Identity, admit, answer};
use super::proxy::Proxy;
use super::quiet_io;
use super::serve::serve;
use super::stamp::Stamper;
use super::stop_gate::Gate;
use mpt_base::error::{ErrorKind, MptError, Result};
use mpt_base::lock::PidLock;
use mpt_base::log_debug;
pub use mpt_mcp::owner_socket::{OwnerPaths, client, lingering_pid, live, owner_pid};

/// What a shim says first on its connection (`mpt_mcp::owner_socket::Hello`), with this edge's
/// routing configuration.
pub type Hello = mpt_mcp::owner_socket::Hello<Identity>;

/// Takes the owner lock (`None`: another owner holds it).
pub fn take_lock(paths: &OwnerPaths) -> Result<Option<PidLock>> {
    mpt_base::private_fs::take_pid_lock(&paths.lock, "edge owner")
}

/// Why the owner stopped serving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// `grace` passed with no shim connected.
    Idle,
    /// SIGTERM.
    Terminated,
    /// `mpt edge stop`: no harness session was attached; it does not linger.
    Stopped,
}

/// Serves shims until `grace` passes with none connected (or SIGTERM), then stops the child
/// and returns why.
pub async fn run(
    proxy: Arc<Proxy>,
    paths: &OwnerPaths,
    grace: Duration,
    stamper_for: impl Fn(&str) -> Option<Stamper>,
    identity: &Identity,
) -> Result<Ended> {
    let _ = std::fs::remove_file(&paths.socket);
    let listener = UnixListener::bind(&paths.socket).map_err(|e| {
        MptError::new(
            ErrorKind::Io,
            format!("cannot listen on {}: {e}", paths.socket.display()),
        )
    })?;
    let clients = Arc::new(AtomicUsize::new(0));
    let changed = Arc::new(Notify::new());
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| MptError::io("installing the SIGTERM handler", &e))?;
    let mut tasks = tokio::task::JoinSet::new();
    let gate = Arc::new(Gate::default());
    let ended = loop {
        let idle = clients.load(Ordering::SeqCst) == 0;
        let grace_timer = async {
            if idle {
                tokio::time::sleep(grace).await
            } else {
                std::future::pending::<()>().await
            }
        };
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let peer = stream.peer_cred().ok().and_then(|c| c.pid()).map(|p| p as u32);
                clients.fetch_add(1, Ordering::SeqCst);
                let (proxy, clients, changed) = (Arc::clone(&proxy), Arc::clone(&clients), Arc::clone(&changed));
                let (mut read, mut write) = stream.into_split();
                let hello = read_hello(&mut read).await;
                let others = clients.load(Ordering::SeqCst) - 1;
                let admission = admit(identity, hello.as_ref().and_then(|h| h.identity.as_ref()), others);
                if !answer(&mut write, &admission, others).await {
                    clients.fetch_sub(1, Ordering::SeqCst);
                    match admission {
                        // Stepping down for a shim with another configuration: as after the
                        // last shim (the queue of this configuration still drains).
                        Admission::Restart(_) => break Ended::Idle,
                        _ => continue,
                    }
                }
                let stamper = hello.as_ref().and_then(|h| stamper_for(&h.harness));
                let proxy = if hello.as_ref().is_some_and(|h| h.local_reads) {
                    Arc::new(proxy.without_primary())
                } else {
                    proxy
                };
                let harness = hello.as_ref().map_or("?".into(), |h| h.harness.clone());
                log_debug!("edge owner: a {harness} client connected");
                let session = hello.as_ref().is_some_and(|h| h.identity.is_some());
                // A `mailbox watch` listens (the device's one log stream): it never keeps the
                // owner, so its writer lease, past the grace of the last harness session.
                let listener = harness == super::log_fanout::LISTENER_HARNESS;
                if listener {
                    clients.fetch_sub(1, Ordering::SeqCst);
                }
                // Read-only on the reactor from here (`quiet_io`: no wake at each reply read).
                let Ok((read, write)) = read.reunite(write).map_err(|_| ()).and_then(|s| quiet_io::socket_halves(s).map_err(|_| ())) else {
                    if !listener {
                        clients.fetch_sub(1, Ordering::SeqCst);
                    }
                    continue;
                };
                let gate = Arc::clone(&gate);
                let attached = gate.attach(peer, &harness, session);
                tasks.spawn(async move {
                    serve(proxy, stamper, read, write, Some(Arc::clone(&gate))).await;
                    gate.detach(attached);
                    if !listener {
                        clients.fetch_sub(1, Ordering::SeqCst);
                        changed.notify_one();
                    }
                });
            }
            _ = changed.notified() => {}
            _ = gate.stop_requested() => break Ended::Stopped,
            _ = grace_timer => break Ended::Idle,
            _ = term.recv() => break Ended::Terminated,
        }
        while tasks.try_join_next().is_some() {}
    };
    let _ = std::fs::remove_file(&paths.socket);
    drop(listener);
    if ended == Ended::Stopped {
        // Every call in flight is answered (a write: applied and queued) before the child stops;
        // the gate refuses new ones meanwhile.
        gate.drained().await;
    } else {
        // In-flight requests of live connections finish (their replies are already being written).
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
    }
    proxy.child.shutdown().await;
    Ok(ended)
}

/// The first line of a connection, read byte by byte (nothing after it is consumed).
async fn read_hello(r: &mut tokio::net::unix::OwnedReadHalf) -> Option<Hello> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while line.len() < 4096 {
        match r.read(&mut byte).await {
            Ok(1) if byte[0] == b'\n' => break,
            Ok(1) => line.push(byte[0]),
            _ => return None,
        }
    }
    serde_json::from_slice::<serde_json::Value>(&line)
        .ok()
        .and_then(|v| serde_json::from_value(v.get("mpt_edge_hello")?.clone()).ok())
}
