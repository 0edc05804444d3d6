//! The front door, plain HTTP and TLS alike: one request per connection, each on its own task,
//! the unproven ones within a budget (`admission.rs`); the head's framing checked, then hyper serves it.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

use crate::http::admission::{Admit, PRE_AUTH, Ticket, Unproven};
use crate::http::framing::{self, Head, Prefixed};
use crate::http::reply::Body;
use mpt_base::log_debug;

/// A client must have sent its request headers this long after it starts them.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// And finished its TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Room for the request line and headers (bodies stream apart from it).
pub(super) const MAX_HEAD: usize = 64 * 1024;

/// What the front serves (the gateway's handler): one request, and the end of its connection.
pub trait Service: Send + Sync + 'static {
    fn call(
        self: Arc<Self>,
        peer: SocketAddr,
        req: Request<Incoming>,
    ) -> impl Future<Output = Response<Body>> + Send;

    /// The connection's reply is flushed and its socket shut.
    fn closed(&self);
}

/// Accepts connections until `stop` resolves (never waiting for room first: past the budget the
/// oldest unproven connection is closed instead); TLS on each when `tls` is given.
pub async fn run<S: Service>(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    shared: Arc<S>,
    stop: impl Future<Output = ()>,
) {
    let unproven = Unproven::new(PRE_AUTH);
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            () = &mut stop => return,
            a = listener.accept() => a,
        };
        let (stream, peer) = match accepted {
            Ok(a) => {
                mpt_base::hop!(GwAccepted);
                a
            }
            Err(e) => {
                // Out of descriptors, most likely: give the open connections a moment to end.
                log_debug!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let shared = Arc::clone(&shared);
        let tls = tls.clone();
        let ticket = unproven.enter();
        tokio::spawn(connection(stream, peer, tls, shared, ticket));
    }
}

async fn connection<S: Service>(
    stream: TcpStream,
    peer: SocketAddr,
    tls: Option<TlsAcceptor>,
    shared: Arc<S>,
    ticket: Arc<Ticket>,
) {
    let _ = stream.set_nodelay(true);
    let Some(tls) = tls else {
        return serve(stream, peer, shared, ticket).await;
    };
    let shaken = tokio::select! {
        s = tokio::time::timeout(HANDSHAKE_TIMEOUT, tls.accept(stream)) => s,
        () = ticket.evicted() => return evicted(peer),
    };
    match shaken {
        Ok(Ok(s)) => serve(s, peer, shared, ticket).await,
        Ok(Err(e)) => log_debug!("TLS handshake with {peer} failed: {e}"),
        Err(_) => log_debug!("TLS handshake with {peer} timed out"),
    }
}

fn evicted(peer: SocketAddr) {
    log_debug!("connection from {peer}: closed, unproven past the budget");
}

/// The connection's head read and its framing checked, then the request served by hyper.
async fn serve<I, S>(mut io: I, peer: SocketAddr, shared: Arc<S>, ticket: Arc<Ticket>)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: Service,
{
    let head = tokio::select! {
        h = framing::read_head(&mut io, MAX_HEAD, HEADER_READ_TIMEOUT) => h,
        () = ticket.evicted() => {
            // A client that is only slow is told to come back; an idle one does not read it.
            let busy = framing::write_reply(&mut io, crate::http::reply::connections_busy());
            let _ = tokio::time::timeout(Duration::from_secs(1), busy).await;
            return evicted(peer);
        }
    };
    let read = match head {
        Head::Serve(read) => read,
        Head::Refuse(why) => {
            if let Err(e) = framing::write_reply(&mut io, framing::bad_framing(why)).await {
                log_debug!("connection from {peer}: {e}");
            }
            return;
        }
        Head::Gone => return,
    };
    mpt_base::hop!(GwHeadRead);
    let held_by = Arc::clone(&shared);
    let admit = Admit::new(Arc::clone(&ticket));
    let service = service_fn(move |mut req: Request<Incoming>| {
        let shared = Arc::clone(&shared);
        // The handler admits the connection once its token is good.
        req.extensions_mut().insert(admit.clone());
        async move { Ok::<_, std::convert::Infallible>(shared.call(peer, req).await) }
    });
    // One request per connection, as `serve` does (`Connection: close`): a client's pooled
    // connection can then never meet the header timeout of an idle one mid-request.
    let serving = http1::Builder::new()
        .keep_alive(false)
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .max_buf_size(MAX_HEAD)
        .serve_connection(TokioIo::new(Prefixed::new(read, io)), service);
    // Closed by the budget only until its token is good (an admitted ticket is never rung).
    let served = tokio::select! {
        s = serving => s,
        () = ticket.evicted() => return evicted(peer),
    };
    mpt_base::hop!(GwClosed);
    // The reply is flushed and the socket shut: its response record goes to the log now.
    held_by.closed();
    mpt_base::hop!(GwResponseAudited);
    if let Err(e) = served {
        log_debug!("connection from {peer}: {e}");
    }
}
