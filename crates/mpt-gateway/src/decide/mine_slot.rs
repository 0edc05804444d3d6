//! The gateway's one mine slot: taken by a mine until its whole answer is in, free again when
//! the holder is dropped (`mine_call` answers a second mine 429).

use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Default)]
pub struct MineSlot(AtomicBool);

/// The slot, held: released when dropped (the answer relayed, or the client gone).
pub struct MineHeld<'a>(&'a MineSlot);

impl MineSlot {
    pub fn try_take(&self) -> Option<MineHeld<'_>> {
        self.0
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| MineHeld(self))
    }
}

impl Drop for MineHeld<'_> {
    fn drop(&mut self) {
        (self.0).0.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time() {
        let slot = MineSlot::default();
        let first = slot.try_take();
        assert!(first.is_some());
        assert!(slot.try_take().is_none());
        drop(first);
        assert!(slot.try_take().is_some());
    }
}
