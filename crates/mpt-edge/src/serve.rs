//! The MCP server loop of the edge over any byte stream (stdin/stdout, or a Unix socket to a shim):
//! newline-framed JSON-RPC, requests served concurrently, replies written whole, one per line.

use std::collections::VecDeque;
use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use super::proxy::Proxy;
use super::stamp::Stamper;
use super::stop_gate::{Gate, InFlight};
use mpt_mcp::jsonrpc;

/// The largest message accepted (MemPalace's own HTTP cap).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

pub(crate) enum Line {
    Data(Vec<u8>),
    TooLong,
    Eof,
}

/// Serves until the reader ends; in-flight requests are finished before it returns. The owner's
/// `gate` answers `mpt edge stop` and counts each call until its reply is sent.
///
/// One task does it all (no hop between reading a line, calling the child and writing the
/// reply): it reads lines, drives every request in flight, and writes each reply as soon as it
/// is ready, in the order they complete. Reading never waits on a slow reader of the replies.
pub async fn serve<R, W>(
    proxy: Arc<Proxy>,
    stamper: Option<Stamper>,
    reader: R,
    writer: W,
    gate: Option<Arc<Gate>>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut lines = Lines::new(reader);
    let mut out = Replies::new(writer);
    let mut inflight = FuturesUnordered::new();
    let mut reading = true;
    while reading || !inflight.is_empty() || out.pending() {
        tokio::select! {
            biased;
            () = out.write_some(), if out.pending() => {}
            Some(reply) = inflight.next(), if !inflight.is_empty() => out.push(reply),
            line = lines.next(), if reading => {
                mpt_base::hop!(OwnerReadShim);
                let line = match line {
                    Line::Eof => {
                        reading = false;
                        continue;
                    }
                    Line::TooLong => {
                        out.push(reply(&jsonrpc::error_response(&Value::Null, -32600, "Request too large"), None));
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
                        out.push(reply(&jsonrpc::error_response(&Value::Null, -32700, "Parse error"), None));
                        continue;
                    }
                };
                drop(line);
                if msg.is_array() {
                    // Batches left MCP in 2025-06-18; MemPalace answers them the same way.
                    out.push(reply(&jsonrpc::error_response(&Value::Null, -32600, "Invalid Request"), None));
                    continue;
                }
                if let Some(g) = &gate
                    && let Some(answer) = g.intercept(&msg)
                {
                    // Counted too: a stopping owner exits only once this answer is written.
                    out.push(reply(&answer, Some(g.enter())));
                    continue;
                }
                let counted = gate.as_ref().map(|g| g.enter());
                let (proxy, stamper) = (&proxy, stamper.as_ref());
                inflight.push(async move {
                    let answer = proxy.handle(msg, stamper).await?;
                    reply(&answer, counted)
                });
            }
        }
    }
    out.finish().await;
}

/// A line for the writer, with the count of the call it answers (if the owner's gate counts it).
type Outgoing = (Vec<u8>, Option<InFlight>);

/// One reply, serialised whole with its newline; a known secret a server echoed never reaches
/// the harness.
fn reply(v: &Value, counted: Option<InFlight>) -> Option<Outgoing> {
    mpt_base::hop!(OwnerReplied);
    let mut bytes = serde_json::to_vec(v).ok()?;
    bytes.push(b'\n');
    let bytes = match mpt_base::secrets::scrub_bytes(&bytes) {
        std::borrow::Cow::Borrowed(_) => bytes,
        std::borrow::Cow::Owned(clean) => clean,
    };
    Some((bytes, counted))
}

/// The replies not yet written, in order; a counted call stays counted until its reply is
/// written (its guard drops with it). Once the reader of the replies is gone they are dropped.
struct Replies<W> {
    writer: W,
    queue: VecDeque<Outgoing>,
    /// How much of the front reply is written.
    at: usize,
    /// Written since the last flush.
    unflushed: bool,
    broken: bool,
}

impl<W: AsyncWrite + Unpin> Replies<W> {
    fn new(writer: W) -> Self {
        Replies {
            writer,
            queue: VecDeque::new(),
            at: 0,
            unflushed: false,
            broken: false,
        }
    }

    fn push(&mut self, reply: Option<Outgoing>) {
        if let Some(r) = reply
            && !self.broken
        {
            self.queue.push_back(r);
        }
    }

    fn pending(&self) -> bool {
        !self.broken && (!self.queue.is_empty() || self.unflushed)
    }

    /// Writes what the writer takes now (cancel-safe: `at` keeps the place), flushing once the
    /// queue is empty (a buffered writer, such as stdout, gets each reply out at once).
    async fn write_some(&mut self) {
        mpt_base::hop!(OwnerSendsShim);
        let result = match self.queue.front() {
            Some((bytes, _)) => match self.writer.write(&bytes[self.at..]).await {
                Ok(0) => Err(()),
                Ok(n) => {
                    self.at += n;
                    self.unflushed = true;
                    if self.at == bytes.len() {
                        self.queue.pop_front();
                        self.at = 0;
                    }
                    Ok(())
                }
                Err(_) => Err(()),
            },
            None => match self.writer.flush().await {
                Ok(()) => {
                    self.unflushed = false;
                    Ok(())
                }
                Err(_) => Err(()),
            },
        };
        if result.is_err() {
            self.broken = true;
            self.queue.clear();
        }
    }

    async fn finish(&mut self) {
        while self.pending() {
            self.write_some().await;
        }
    }
}

/// The reader's lines; `next` is cancel-safe (a line read in part stays here for the next call).
pub(crate) struct Lines<R> {
    reader: BufReader<R>,
    buf: Vec<u8>,
    too_long: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub(crate) fn new(reader: R) -> Self {
        Lines {
            reader: BufReader::with_capacity(64 * 1024, reader),
            buf: Vec::new(),
            too_long: false,
        }
    }

    pub(crate) async fn next(&mut self) -> Line {
        read_line(&mut self.reader, &mut self.buf, &mut self.too_long).await
    }
}

/// One line, at most `MAX_LINE` bytes; a longer one is consumed to its end and reported. What
/// was read of a line stays in `buf` and `too_long` should the call be cancelled.
async fn read_line<R: AsyncRead + Unpin>(
    r: &mut BufReader<R>,
    buf: &mut Vec<u8>,
    too_long: &mut bool,
) -> Line {
    loop {
        let chunk = match r.fill_buf().await {
            Ok(c) => c,
            Err(_) => return Line::Eof,
        };
        if chunk.is_empty() {
            let line = std::mem::take(buf);
            return if std::mem::take(too_long) {
                Line::TooLong
            } else if line.is_empty() {
                Line::Eof
            } else {
                Line::Data(line)
            };
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !*too_long {
            if buf.len() + take > MAX_LINE + 1 {
                *too_long = true;
                *buf = Vec::new();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        r.consume(take);
        if done {
            return if std::mem::take(too_long) {
                Line::TooLong
            } else {
                Line::Data(std::mem::take(buf))
            };
        }
    }
}
