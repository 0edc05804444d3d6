//! MCP over a Unix socket (the edge owner's): newline-framed JSON-RPC on one lazily opened
//! connection, an optional first line (the edge's hello), one request at a time, with deadlines.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::Mutex;

use super::{Deadline, Handshake, McpError, PROTOCOL_VERSION, jsonrpc};

type Conn = (BufReader<OwnedReadHalf>, OwnedWriteHalf);

pub struct UnixClient {
    path: PathBuf,
    preamble: Option<String>,
    timeout: Option<Duration>,
    conn: Mutex<Option<Conn>>,
    next_id: AtomicU64,
}

impl UnixClient {
    pub fn new(path: PathBuf, preamble: Option<String>, timeout: Option<Duration>) -> UnixClient {
        UnixClient {
            path,
            preamble,
            timeout,
            conn: Mutex::new(None),
            next_id: AtomicU64::new(1),
        }
    }

    fn gone(&self, reason: String) -> McpError {
        McpError::ChildExited {
            program: format!("the edge owner on {}", self.path.display()),
            reason,
            stderr_tail: Vec::new(),
        }
    }

    pub async fn handshake(&self) -> Result<Handshake, McpError> {
        let started = Instant::now();
        let init = self
            .request("initialize", Some(json!({"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "mpt", "version": env!("CARGO_PKG_VERSION")}})), Deadline::Default)
            .await?;
        let tools = self.request("tools/list", None, Deadline::Default).await?;
        Ok(Handshake {
            init,
            tools: tools
                .get("tools")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            elapsed: started.elapsed(),
        })
    }

    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        deadline: Deadline,
    ) -> Result<Value, McpError> {
        let mut guard = self.conn.lock().await;
        if guard.is_none() {
            let stream = UnixStream::connect(&self.path)
                .await
                .map_err(|e| self.gone(e.to_string()))?;
            let (r, mut w) = stream.into_split();
            if let Some(p) = &self.preamble {
                w.write_all(format!("{p}\n").as_bytes())
                    .await
                    .map_err(|e| self.gone(e.to_string()))?;
            }
            *guard = Some((BufReader::new(r), w));
        }
        let id = json!(self.next_id.fetch_add(1, Ordering::SeqCst));
        let (reader, writer) = guard.as_mut().expect("connected above");
        let mut line = serde_json::to_vec(&jsonrpc::request(&id, method, params))
            .map_err(|e| McpError::Protocol(e.to_string()))?;
        line.push(b'\n');
        let exchange = async {
            writer
                .write_all(&line)
                .await
                .map_err(|e| self.gone(e.to_string()))?;
            let mut buf = Vec::new();
            loop {
                buf.clear();
                if reader
                    .read_until(b'\n', &mut buf)
                    .await
                    .map_err(|e| self.gone(e.to_string()))?
                    == 0
                {
                    return Err(self.gone("it closed the connection".into()));
                }
                if let Ok(v) = serde_json::from_slice::<Value>(buf.trim_ascii())
                    && v.get("id") == Some(&id)
                {
                    return jsonrpc::into_result(v);
                }
            }
        };
        let result = match deadline.resolve(self.timeout) {
            None => exchange.await,
            Some(d) => tokio::time::timeout(d, exchange).await.unwrap_or_else(|_| {
                Err(McpError::Timeout {
                    what: format!("edge owner request '{method}'"),
                    ms: d.as_millis() as u64,
                })
            }),
        };
        if matches!(
            result,
            Err(McpError::Timeout { .. } | McpError::ChildExited { .. })
        ) {
            // A late reply must not be read as the next request's: start over next time.
            *guard = None;
        }
        result
    }
}
