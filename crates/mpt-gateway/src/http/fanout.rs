//! One upstream `/logstream/stream`, unfiltered, its frames split and sent to every subscriber,
//! each filtering for itself: devices never take `serve`'s 8 stream slots; it ends with its last.

use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::{HeaderMap, Method};
use serde_json::Value;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::http::upstream::{Failed, UpBody, Upstream};

/// How many frames a slow subscriber may fall behind before its stream is ended (its client
/// reconnects with `Last-Event-ID` and is replayed what it missed).
const BACKLOG: usize = 1024;
/// How long the upstream stream may take to start.
const START: Duration = Duration::from_secs(30);
/// How long it may stay silent (`serve` pings every 15 s).
const IDLE: Duration = Duration::from_secs(60);

/// One SSE frame as `serve` sent it (`id:`, `event:`, `data:` lines, or a `: ping` comment).
#[derive(Debug, Clone)]
pub struct Frame {
    pub bytes: Bytes,
    /// The event's id (`None` for a ping).
    pub id: Option<String>,
    /// The event's routing fields a stream filters on (`stream`, `to_agent`, ...).
    pub fields: Arc<serde_json::Map<String, Value>>,
}

impl Frame {
    fn parse(bytes: Bytes) -> Frame {
        let text = String::from_utf8_lossy(&bytes);
        let (mut id, mut fields) = (None, serde_json::Map::new());
        for line in text.lines() {
            if let Some(i) = line.strip_prefix("id: ") {
                id = Some(i.to_string());
            } else if let Some(d) = line.strip_prefix("data: ")
                && let Ok(Value::Object(m)) = serde_json::from_str::<Value>(d)
            {
                fields = m;
            }
        }
        Frame {
            bytes,
            id,
            fields: Arc::new(fields),
        }
    }

    /// The event's `key` (a string field), if it has one.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }
}

/// A live upstream stream and its subscribers' channel (the sender is the pump's: when the
/// upstream ends, every subscriber's receiver closes).
pub struct Hub {
    tx: broadcast::WeakSender<Frame>,
    task: JoinHandle<()>,
}

impl Hub {
    /// A receiver of its frames from now on; `None` once its upstream ended.
    fn subscribe(&self) -> Option<broadcast::Receiver<Frame>> {
        self.tx.upgrade().map(|tx| tx.subscribe())
    }
}

/// A subscriber's hold on a hub, and its frames.
pub type Joined = (Arc<Hub>, broadcast::Receiver<Frame>);

impl Drop for Hub {
    /// The last subscriber left: the upstream stream is closed, its slot freed.
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Why a stream was not joined: the upstream's own answer (a 400 for a bad filter, a 503 at
/// its cap), relayed as it is, or no answer.
pub enum Refused {
    Answered(u16, Bytes),
    Failed(Failed),
}

/// The live hub, if any (weak: it lives while a subscriber holds it).
#[derive(Default)]
pub struct Hubs {
    live: tokio::sync::Mutex<Weak<Hub>>,
}

impl Hubs {
    /// The hub, its upstream stream opened when none is live.
    pub async fn join(&self, upstream: &Upstream) -> Result<Joined, Refused> {
        let mut live = self.live.lock().await;
        if let Some(hub) = live.upgrade()
            && let Some(rx) = hub.subscribe()
        {
            return Ok((hub, rx));
        }
        let up = upstream.request(
            Method::GET,
            "/logstream/stream",
            &HeaderMap::new(),
            &[],
            Bytes::new(),
        );
        let resp = upstream.send(up, START).await.map_err(Refused::Failed)?;
        if resp.status() != 200 {
            let status = resp.status().as_u16();
            let body = tokio::time::timeout(IDLE, resp.into_body().collect())
                .await
                .ok()
                .and_then(Result::ok)
                .map(|c| c.to_bytes())
                .unwrap_or_default();
            return Err(Refused::Answered(status, body));
        }
        let (tx, rx) = broadcast::channel(BACKLOG);
        let weak = tx.downgrade();
        let task = tokio::spawn(pump(resp.into_body(), tx));
        let hub = Arc::new(Hub { tx: weak, task });
        *live = Arc::downgrade(&hub);
        Ok((hub, rx))
    }
}

/// Reads the upstream stream, frame by frame, to every subscriber; ends (and with it every
/// subscriber's stream) when the upstream does or goes silent past [`IDLE`].
async fn pump(mut body: UpBody, tx: broadcast::Sender<Frame>) {
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let next = match tokio::time::timeout(IDLE, body.frame()).await {
            Ok(Some(Ok(f))) => f,
            _ => break,
        };
        let Some(data) = next.data_ref() else {
            continue;
        };
        buf.extend_from_slice(data);
        while let Some(end) = buf.windows(2).position(|w| w == b"\n\n") {
            let frame: Vec<u8> = buf.drain(..end + 2).collect();
            // No subscriber right now is fine: the hub lives while one holds it.
            let _ = tx.send(Frame::parse(Bytes::from(frame)));
        }
    }
}
