//! Response records whose reply is still being sent: written once its connection has flushed
//! and shut the socket, before any later record (the log keeps the order clients saw), never lost.

use std::sync::Mutex;

use crate::record::audit::Event;

/// The records a relayed body handed over when it ended, not yet in the log.
#[derive(Debug, Default)]
pub struct Held(Mutex<Vec<Event>>);

impl Held {
    pub fn hold(&self, e: Event) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(e);
    }

    /// The records held so far, in the order they were handed over.
    pub fn take(&self) -> Vec<Event> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}
