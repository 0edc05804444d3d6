//! The requests waiting on one child's replies, by id, and the one watchdog that fails those past
//! their deadline: one timer for them all, re-armed lazily (a request sets no timer of its own).

use std::collections::HashMap;
use std::sync::Mutex as StdMutex;
use std::time::Instant;

use serde_json::Value;
use tokio::sync::{Notify, oneshot};

/// What a waiting request gets: its reply, or word that its deadline passed. (A dropped sender
/// means the child's stdout closed.)
pub(super) enum Answer {
    Reply(Value),
    Stalled,
}

struct Waiter {
    tx: oneshot::Sender<Answer>,
    due: Option<Instant>,
}

#[derive(Default)]
struct Table {
    waiting: HashMap<String, Waiter>,
    /// When the watchdog wakes next (`None`: it waits for a request with a deadline).
    armed: Option<Instant>,
    closed: bool,
}

#[derive(Default)]
pub(super) struct Waiters {
    table: StdMutex<Table>,
    wake: Notify,
}

impl Waiters {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for the reply to `key`, failed as stalled once `due` passes. The watchdog is woken
    /// only when this deadline is its earliest (a run of calls with one timeout wakes it once
    /// per timeout, not once per call).
    pub(super) fn wait(&self, key: String, due: Option<Instant>) -> oneshot::Receiver<Answer> {
        let (tx, rx) = oneshot::channel();
        let mut t = self.table();
        t.waiting.insert(key, Waiter { tx, due });
        let earlier = due.is_some_and(|d| t.armed.is_none_or(|a| d < a));
        if earlier {
            t.armed = due;
            drop(t);
            self.wake.notify_one();
        }
        rx
    }

    pub(super) fn forget(&self, key: &str) {
        self.table().waiting.remove(key);
    }

    /// Hands `reply` to the request waiting for `key`; `false` when none does.
    pub(super) fn answer(&self, key: &str, reply: Value) -> bool {
        let waiter = self.table().waiting.remove(key);
        match waiter {
            Some(w) => {
                let _ = w.tx.send(Answer::Reply(reply));
                true
            }
            None => false,
        }
    }

    /// The child's stdout closed: every waiter hears it exited, and the watchdog ends.
    pub(super) fn close(&self) {
        let mut t = self.table();
        t.closed = true;
        t.waiting.clear();
        drop(t);
        self.wake.notify_one();
    }

    /// The watchdog, for the session's life: fails each request whose deadline passed.
    pub(super) async fn watch(&self) {
        loop {
            let next = {
                let mut t = self.table();
                if t.closed {
                    return;
                }
                let now = Instant::now();
                let overdue: Vec<String> = t
                    .waiting
                    .iter()
                    .filter(|(_, w)| w.due.is_some_and(|d| d <= now))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in overdue {
                    if let Some(w) = t.waiting.remove(&k) {
                        let _ = w.tx.send(Answer::Stalled);
                    }
                }
                t.armed = t.waiting.values().filter_map(|w| w.due).min();
                t.armed
            };
            match next {
                Some(at) => tokio::select! {
                    _ = tokio::time::sleep_until(at.into()) => {}
                    _ = self.wake.notified() => {}
                },
                None => self.wake.notified().await,
            }
        }
    }
}
