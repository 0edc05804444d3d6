//! The MCP server loop of the edge over any byte stream (stdin/stdout, or a Unix socket to a shim):
//! newline-framed JSON-RPC, requests served concurrently, replies written whole, one per line.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::proxy::Proxy;
use super::stamp::Stamper;
use super::stop_gate::{Gate, InFlight};
use crate::mcp::jsonrpc;

/// The largest message accepted (MemPalace's own HTTP cap).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

enum Line {
    Data(Vec<u8>),
    TooLong,
    Eof,
}

/// Serves until the reader ends; in-flight requests are finished before it returns. The owner's
/// `gate` answers `mpt edge stop` and counts each call until its reply is sent.
pub async fn serve<R, W>(
    proxy: Arc<Proxy>,
    stamper: Option<Stamper>,
    reader: R,
    writer: W,
    gate: Option<Arc<Gate>>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<Outgoing>();
    let writer_task = tokio::spawn(async move {
        let mut w = writer;
        // A counted call stays counted until its reply is written (the guard drops after it).
        while let Some((mut bytes, _counted)) = rx.recv().await {
            bytes.push(b'\n');
            if w.write_all(&bytes).await.is_err() || w.flush().await.is_err() {
                break;
            }
        }
    });
    let stamper = Arc::new(stamper);
    let mut reader = BufReader::new(reader);
    let mut inflight = JoinSet::new();
    loop {
        let line = match read_line(&mut reader).await {
            Line::Eof => break,
            Line::TooLong => {
                send(
                    &tx,
                    &jsonrpc::error_response(&Value::Null, -32600, "Request too large"),
                );
                continue;
            }
            Line::Data(d) => d,
        };
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        let msg: Value = match serde_json::from_slice(text) {
            Ok(v) => v,
            Err(_) => {
                send(
                    &tx,
                    &jsonrpc::error_response(&Value::Null, -32700, "Parse error"),
                );
                continue;
            }
        };
        if msg.is_array() {
            // Batches left MCP in 2025-06-18; MemPalace answers them the same way.
            send(
                &tx,
                &jsonrpc::error_response(&Value::Null, -32600, "Invalid Request"),
            );
            continue;
        }
        if let Some(g) = &gate
            && let Some(reply) = g.intercept(&msg)
        {
            // Counted too: a stopping owner exits only once this answer is written.
            send_counted(&tx, &reply, Some(g.enter()));
            continue;
        }
        let counted = gate.as_ref().map(|g| g.enter());
        let proxy = Arc::clone(&proxy);
        let stamper = Arc::clone(&stamper);
        let tx = tx.clone();
        inflight.spawn(async move {
            if let Some(reply) = proxy.handle(msg, stamper.as_ref().as_ref()).await {
                send_counted(&tx, &reply, counted);
            }
        });
        while inflight.try_join_next().is_some() {}
    }
    while inflight.join_next().await.is_some() {}
    drop(tx);
    let _ = writer_task.await;
}

/// A line for the writer, with the count of the call it answers (if the owner's gate counts it).
type Outgoing = (Vec<u8>, Option<InFlight>);

/// One reply, serialised whole; a known secret a server echoed never reaches the harness.
fn send(tx: &mpsc::UnboundedSender<Outgoing>, v: &Value) {
    send_counted(tx, v, None);
}

/// `send`, the call counted until its reply is written.
fn send_counted(tx: &mpsc::UnboundedSender<Outgoing>, v: &Value, counted: Option<InFlight>) {
    if let Ok(bytes) = serde_json::to_vec(v) {
        let _ = tx.send((crate::secrets::scrub_bytes(&bytes).into_owned(), counted));
    }
}

/// One line, at most `MAX_LINE` bytes; a longer one is consumed to its end and reported.
async fn read_line<R: AsyncRead + Unpin>(r: &mut BufReader<R>) -> Line {
    let mut buf = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = match r.fill_buf().await {
            Ok(c) => c,
            Err(_) => return Line::Eof,
        };
        if chunk.is_empty() {
            return if buf.is_empty() && !too_long {
                Line::Eof
            } else if too_long {
                Line::TooLong
            } else {
                Line::Data(buf)
            };
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > MAX_LINE + 1 {
                too_long = true;
                buf = Vec::new();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        r.consume(take);
        if done {
            return if too_long {
                Line::TooLong
            } else {
                Line::Data(buf)
            };
        }
    }
}
