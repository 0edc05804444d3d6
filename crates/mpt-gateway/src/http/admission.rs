//! Connections that have not yet shown a good token share one budget: past it, the oldest of them
//! is closed, so a flood of idle peers (all 127.0.0.1 behind a local proxy) never starves a device.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// Connections between accept and an authenticated head, at most.
pub const PRE_AUTH: usize = 1024;

/// The connections still unproven, oldest first, each with the bell that closes it.
#[derive(Default)]
pub struct Unproven {
    waiting: Mutex<(u64, BTreeMap<u64, Arc<Notify>>)>,
    budget: usize,
}

/// One connection's place among the unproven: [`Ticket::admit`] takes it out of the budget;
/// [`Ticket::evicted`] resolves when the budget closed it; dropping it leaves.
pub struct Ticket {
    id: u64,
    bell: Arc<Notify>,
    of: Arc<Unproven>,
}

/// What the handler finds in a request's extensions to admit its connection.
#[derive(Clone)]
pub struct Admit(Arc<Ticket>);

impl Unproven {
    pub fn new(budget: usize) -> Arc<Unproven> {
        Arc::new(Unproven {
            waiting: Mutex::default(),
            budget,
        })
    }

    /// A new connection's ticket; the oldest unproven one is closed when the budget is full.
    pub fn enter(self: &Arc<Self>) -> Arc<Ticket> {
        let bell = Arc::new(Notify::new());
        let mut w = self.lock();
        let id = w.0;
        w.0 += 1;
        w.1.insert(id, Arc::clone(&bell));
        while w.1.len() > self.budget {
            if let Some((_, oldest)) = w.1.pop_first() {
                // A stored permit: the connection closes even if it is not waiting yet.
                oldest.notify_one();
            }
        }
        Arc::new(Ticket {
            id,
            bell,
            of: Arc::clone(self),
        })
    }

    /// How many connections are unproven now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().1.len()
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, BTreeMap<u64, Arc<Notify>>)> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Ticket {
    /// The connection showed a good token: it no longer counts, and is never closed for it.
    pub fn admit(&self) {
        self.of.lock().1.remove(&self.id);
    }

    /// Resolves when the budget closed this connection.
    pub async fn evicted(&self) {
        self.bell.notified().await;
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.admit();
    }
}

impl Admit {
    pub fn new(ticket: Arc<Ticket>) -> Admit {
        Admit(ticket)
    }

    pub fn admit(&self) {
        self.0.admit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn past_the_budget_the_oldest_unproven_is_closed_and_an_admitted_one_never() {
        let u = Unproven::new(2);
        let first = u.enter();
        let second = u.enter();
        second.admit();
        let third = u.enter();
        let fourth = u.enter();
        assert_eq!(u.len(), 2, "third and fourth");
        // The first was closed when the fourth came (the second, admitted, never counted).
        tokio::time::timeout(std::time::Duration::from_secs(1), first.evicted())
            .await
            .expect("the oldest unproven is closed");
        let fifth = u.enter();
        tokio::time::timeout(std::time::Duration::from_secs(1), third.evicted())
            .await
            .expect("then the next oldest");
        drop(fourth);
        drop(fifth);
        assert!(u.is_empty());
        let never = tokio::time::timeout(std::time::Duration::from_millis(50), second.evicted());
        assert!(never.await.is_err(), "an admitted connection stays");
    }
}
