//! The opencode run's pipeline: one thread reads, handing each item over a channel that holds at
//! most a few, to workers that each turn one item into its output; outputs come back to the caller.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Mutex, PoisonError};

/// How many items the channel holds: the reader can be this far ahead of the workers (plus one
/// item in each worker's hands), so memory holds a few sessions' rows, never the database's.
pub const BOUND: usize = 4;

/// Runs `read` on a thread of its own; each item it hands over goes to one of `workers` threads
/// running `work` (at least one), and `done` sees each output on the calling thread as it comes
/// (for progress). Returns `read`'s result and every output, in the order `read` handed the items
/// over.
pub fn run<T: Send, U: Send, R: Send>(
    workers: usize,
    read: impl FnOnce(&mut dyn FnMut(T)) -> R + Send,
    work: impl Fn(T) -> U + Sync,
    done: impl FnMut(&U),
) -> (std::thread::Result<R>, Vec<U>) {
    run_with(workers, BOUND, &|| {}, read, work, done)
}

/// [`run`], with `full` called each time the reader finds the channel full (before it waits).
fn run_with<T: Send, U: Send, R: Send>(
    workers: usize,
    bound: usize,
    full: &(dyn Fn() + Sync),
    read: impl FnOnce(&mut dyn FnMut(T)) -> R + Send,
    work: impl Fn(T) -> U + Sync,
    mut done: impl FnMut(&U),
) -> (std::thread::Result<R>, Vec<U>) {
    // Each item with its place in the hand-over order.
    let (tx, rx) = sync_channel::<(usize, T)>(bound);
    let rx = Mutex::new(rx);
    let (out_tx, out_rx) = std::sync::mpsc::channel::<(usize, U)>();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut n = 0;
            read(&mut |item| {
                hand(&tx, (n, item), full);
                n += 1;
            })
        });
        for _ in 0..workers.max(1) {
            let (rx, out_tx, work) = (&rx, out_tx.clone(), &work);
            scope.spawn(move || {
                while let Some((n, item)) = next(rx) {
                    if out_tx.send((n, work(item))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(out_tx);
        let mut out = Vec::new();
        for u in out_rx {
            done(&u.1);
            out.push(u);
        }
        out.sort_unstable_by_key(|u| u.0);
        (reader.join(), out.into_iter().map(|u| u.1).collect())
    })
}

/// Hands `item` to the workers, waiting while the channel is full (an item no worker is left to
/// take is dropped: the workers are gone only when one panicked, which the run reports).
fn hand<T>(tx: &SyncSender<T>, item: T, full: &(dyn Fn() + Sync)) {
    match tx.try_send(item) {
        Ok(()) | Err(TrySendError::Disconnected(_)) => {}
        Err(TrySendError::Full(item)) => {
            full();
            let _ = tx.send(item);
        }
    }
}

/// The next item for a worker; `None` once the reader is done and the channel empty.
fn next<T>(rx: &Mutex<Receiver<T>>) -> Option<T> {
    rx.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .recv()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use std::sync::{Condvar, Mutex};

    /// Every item is worked once, whatever the number of workers, the outputs in the order the
    /// items were handed over, and the reader's result comes back.
    #[test]
    fn every_item_is_worked_once_in_order() {
        for workers in [0, 1, 2, 3] {
            let (read, out) = run(
                workers,
                |each| {
                    (0..100).rev().for_each(&mut *each);
                    "read"
                },
                |i: u32| i * 2,
                |_| {},
            );
            assert_eq!(read.unwrap(), "read");
            assert_eq!(out, (0..100).rev().map(|i| i * 2).collect::<Vec<_>>());
        }
    }

    /// The reader gets at most the channel's bound plus one item per worker ahead of the finished
    /// work. The workers hold their first item until the reader has handed everything over or
    /// found the channel full: with a channel that never fills, the reader would hand all 50
    /// over while nothing is finished, and the in-flight count would reach 50.
    #[test]
    fn the_reader_waits_when_the_workers_are_behind() {
        const N: usize = 50;
        let (workers, bound) = (2, 3);
        let sent = AtomicUsize::new(0);
        let finished = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let open = (Mutex::new(false), Condvar::new());
        let release = || {
            *open.0.lock().unwrap() = true;
            open.1.notify_all();
        };
        let (read, out) = run_with(
            workers,
            bound,
            &release,
            |each| {
                for i in 0..N {
                    each(i);
                    let n = sent.fetch_add(1, SeqCst) + 1;
                    most.fetch_max(n.saturating_sub(finished.load(SeqCst)), SeqCst);
                }
                release();
            },
            |i| {
                let mut o = open.0.lock().unwrap();
                while !*o {
                    o = open.1.wait(o).unwrap();
                }
                drop(o);
                finished.fetch_add(1, SeqCst);
                i
            },
            |_| {},
        );
        read.unwrap();
        assert_eq!(out.len(), N);
        let most = most.load(SeqCst);
        assert!(most <= bound + workers, "{most} items in flight at once");
    }

    /// A panicking reader is reported, and what it handed over before is still worked.
    #[test]
    fn a_reader_that_panics_is_reported() {
        let (read, out) = run(
            2,
            |each| {
                each(1u8);
                panic!("the read failed");
            },
            |i| i,
            |_| {},
        );
        assert!(read.is_err());
        assert_eq!(out, [1]);
    }
}
