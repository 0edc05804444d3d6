//! An upstream body relayed to the client as it arrives (SSE, long polls: nothing buffered),
//! counted, cut when the upstream goes silent, and reported once when it ends or is dropped.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

use crate::http::reply::BoxError;
use crate::http::upstream::UpBody;

/// How a relayed body ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Complete,
    /// The upstream failed or went silent past the idle limit.
    Failed,
    /// The client went away first.
    Dropped,
}

type OnEnd = Box<dyn FnOnce(u64, End) + Send + Sync>;

pub struct Relay {
    inner: UpBody,
    idle: Duration,
    timer: Pin<Box<Sleep>>,
    bytes: u64,
    on_end: Option<OnEnd>,
}

impl Relay {
    /// Relays `inner`; `on_end(bytes, how)` runs once. Silence longer than `idle` between two
    /// frames ends it (`serve` sends an SSE ping every 15 s).
    pub fn new(inner: UpBody, idle: Duration, on_end: OnEnd) -> Relay {
        Relay {
            inner,
            idle,
            timer: Box::pin(tokio::time::sleep(idle)),
            bytes: 0,
            on_end: Some(on_end),
        }
    }

    fn finish(&mut self, how: End) {
        if let Some(f) = self.on_end.take() {
            f(self.bytes, how);
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("the upstream sent nothing for {0:?}")]
struct Silent(Duration);

impl Body for Relay {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(d) = frame.data_ref() {
                    this.bytes += d.len() as u64;
                }
                let idle = this.idle;
                this.timer.as_mut().reset(Instant::now() + idle);
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                this.finish(End::Failed);
                Poll::Ready(Some(Err(e)))
            }
            Poll::Ready(None) => {
                this.finish(End::Complete);
                Poll::Ready(None)
            }
            Poll::Pending => match this.timer.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.finish(End::Failed);
                    Poll::Ready(Some(Err(Box::new(Silent(this.idle)))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        // A body hyper never had to poll (an empty one) ended whole.
        let how = if self.inner.is_end_stream() {
            End::Complete
        } else {
            End::Dropped
        };
        self.finish(how);
    }
}
