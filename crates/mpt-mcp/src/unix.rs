//! MCP over a Unix socket (the edge owner's): newline-framed JSON-RPC on one lazily opened
//! connection, an optional first line (the edge's hello), one request at a time, with deadlines.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::Mutex;

use super::{CallError, Deadline, Handshake, handshake, jsonrpc};

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

    fn gone(&self, reason: String) -> CallError {
        CallError::ChildExited {
            program: format!("the edge owner on {}", self.path.display()),
            reason,
            stderr_tail: Vec::new(),
        }
    }

    /// `initialize`, `notifications/initialized`, `tools/list` (all pages): `handshake::run`.
    pub async fn handshake(&self) -> Result<Handshake, CallError> {
        handshake::run(self).await
    }

    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        deadline: Deadline,
    ) -> Result<Value, CallError> {
        let mut guard = self.connected().await?;
        let id = json!(self.next_id.fetch_add(1, Ordering::SeqCst));
        let (reader, writer) = guard.as_mut().expect("connected above");
        let mut line = serde_json::to_vec(&jsonrpc::request(&id, method, params))
            .map_err(|e| CallError::Protocol(e.to_string()))?;
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
                Err(CallError::Timeout {
                    what: format!("edge owner request '{method}'"),
                    ms: d.as_millis() as u64,
                })
            }),
        };
        if matches!(
            result,
            Err(CallError::Timeout { .. } | CallError::ChildExited { .. })
        ) {
            // A late reply must not be read as the next request's: start over next time.
            *guard = None;
        }
        result
    }

    /// A notification: written, nothing read back.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), CallError> {
        let mut guard = self.connected().await?;
        let (_, writer) = guard.as_mut().expect("connected above");
        let mut line = serde_json::to_vec(&jsonrpc::notification(method, params))
            .map_err(|e| CallError::Protocol(e.to_string()))?;
        line.push(b'\n');
        let written = writer.write_all(&line).await;
        if let Err(e) = written {
            *guard = None;
            return Err(self.gone(e.to_string()));
        }
        Ok(())
    }

    /// The connection, opened (with its preamble) on first use.
    async fn connected(&self) -> Result<tokio::sync::MutexGuard<'_, Option<Conn>>, CallError> {
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
        Ok(guard)
    }
}

impl handshake::Peer for UnixClient {
    async fn request(&self, method: &str, params: Option<Value>) -> Result<Value, CallError> {
        UnixClient::request(self, method, params, Deadline::Default).await
    }

    async fn notify(&self, method: &str) -> Result<(), CallError> {
        UnixClient::notify(self, method, None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::UnixListener;

    /// A fake owner that records every line it receives and serves `tools/list` in two pages
    /// (the real server never pages; this is the misbehaviour on demand).
    async fn paging_peer(listener: UnixListener) -> Vec<Value> {
        let (stream, _) = listener.accept().await.unwrap();
        let (r, mut w) = stream.into_split();
        let mut lines = BufReader::new(r).lines();
        let mut seen = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            let msg: Value = serde_json::from_str(&line).unwrap();
            seen.push(msg.clone());
            let result = match (msg["method"].as_str(), msg.pointer("/params/cursor")) {
                (Some("initialize"), _) => {
                    json!({"protocolVersion": "2025-11-25", "capabilities": {}})
                }
                (Some("tools/list"), None) => json!({"tools": [{"name": "a"}], "nextCursor": "p2"}),
                (Some("tools/list"), Some(_)) => json!({"tools": [{"name": "b"}]}),
                _ => continue,
            };
            let reply = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
            w.write_all(format!("{reply}\n").as_bytes()).await.unwrap();
        }
        seen
    }

    #[tokio::test]
    async fn the_handshake_sends_initialized_and_pages_tools_list() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("owner.sock");
        let peer = tokio::spawn(paging_peer(UnixListener::bind(&path).unwrap()));
        let client = UnixClient::new(path, Some(r#"{"mpt_edge_hello":{}}"#.into()), None);
        let h = client.handshake().await.unwrap();
        let names: Vec<_> = h.tools.iter().map(|t| t["name"].clone()).collect();
        assert_eq!(names, [json!("a"), json!("b")], "both pages");
        drop(client);
        let seen = peer.await.unwrap();
        let methods: Vec<_> = seen.iter().map(|m| m["method"].clone()).collect();
        assert_eq!(
            methods,
            [
                Value::Null, // the hello preamble
                json!("initialize"),
                json!("notifications/initialized"),
                json!("tools/list"),
                json!("tools/list"),
            ]
        );
        assert!(seen[2].get("id").is_none(), "a notification has no id");
        assert_eq!(seen[4]["params"]["cursor"], "p2");
    }
}
