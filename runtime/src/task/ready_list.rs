//! `ReadyList`: the completion list behind `JoinSet`, so that a finished task is found in
//! O(1) rather than by scanning the set.
//!
//! Each entry of a set owns a waker (`EntryWaker`: the list and the entry's index). A task
//! wakes its `JoinHandle`'s waker once, when it completes; that wake pushes the entry's
//! index onto the list and takes the set's waker, then wakes it after the lock is released.
//! The set, when polled, installs its waker and takes every pushed index in the same
//! critical section, so a wake either lands in the batch taken or finds the new waker:
//! none is lost. Indices may be stale (the entry was removed meanwhile) or repeated; the
//! set checks each against its slab, so both are harmless.
//!
//! Invariants: no waker is woken or dropped while the lock is held; the list holds only
//! indices pushed since the set last took them.

use std::sync::Arc as StdArc;
use std::task::{Wake, Waker};

use shim::sync::{Arc, Mutex};

/// The shared half of a `JoinSet`: indices of entries whose task completed, and the
/// waker of whoever polls the set.
#[doc(hidden)]
pub struct ReadyList {
    inner: Mutex<Inner>,
}

struct Inner {
    ready: Vec<usize>,
    waker: Option<Waker>,
}

impl ReadyList {
    /// An empty list.
    pub fn new() -> Arc<ReadyList> {
        Arc::new(ReadyList {
            inner: Mutex::new(Inner {
                ready: Vec::new(),
                waker: None,
            }),
        })
    }

    /// A waker that marks entry `index` ready.
    pub fn entry_waker(this: &Arc<ReadyList>, index: usize) -> Waker {
        Waker::from(StdArc::new(EntryWaker {
            list: this.clone(),
            index,
        }))
    }

    /// Marks `index` ready and wakes the set's waker (taken, so a burst of completions
    /// wakes the set once).
    pub fn push(&self, index: usize) {
        let waker = {
            let mut inner = self.inner.lock();
            inner.ready.push(index);
            inner.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Moves every ready index into `out` (which the caller has drained), installing
    /// `waker` (when given) for the next push in the same critical section.
    pub fn take(&self, out: &mut Vec<usize>, waker: Option<&Waker>) {
        debug_assert!(out.is_empty());
        let old = {
            let mut inner = self.inner.lock();
            std::mem::swap(&mut inner.ready, out);
            match waker {
                Some(w) if !inner.waker.as_ref().is_some_and(|old| old.will_wake(w)) => {
                    inner.waker.replace(w.clone())
                }
                _ => None,
            }
        };
        // The replaced waker is dropped here, outside the lock.
        drop(old);
    }

    /// Forgets every ready index (the set was emptied).
    pub fn clear(&self) {
        let ready = std::mem::take(&mut self.inner.lock().ready);
        drop(ready);
    }
}

struct EntryWaker {
    list: Arc<ReadyList>,
    index: usize,
}

impl Wake for EntryWaker {
    fn wake(self: StdArc<Self>) {
        self.list.push(self.index);
    }

    fn wake_by_ref(self: &StdArc<Self>) {
        self.list.push(self.index);
    }
}
