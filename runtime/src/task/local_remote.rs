//! The cross-thread half of a `LocalSet`: a queue that other threads push woken tasks into,
//! and the waker of whoever drives the set.
//!
//! Algorithm: `push` appends to an `Inject` (one CAS, lock-free) and then wakes the
//! registered waker; the driver `register`s its waker *before* it drains the queue, and
//! returns `Pending` only after a drain found it empty. The waker slot is a mutex, whose
//! acquisitions are totally ordered: either a pusher takes the lock after the driver's
//! `register` released it (and wakes the fresh waker), or before it, and then its push
//! happened before the driver's drain, which sees the item. So a remote wake is never
//! lost (loom: `loom-tests/tests/loom_local_set.rs`).
//!
//! Invariants: a waker is cloned under the lock but woken and dropped outside it; a closed
//! queue refuses pushes (the pusher disposes of the item) and nothing is pushed after the
//! owner drained it at close.

use std::task::Waker;

use queue::{Inject, Link};
use shim::sync::Mutex;

/// A thread-safe queue of woken items plus the waker of the thread that drains it.
#[doc(hidden)]
pub struct RemoteQueue<T: Link> {
    queue: Inject<T>,
    waker: Mutex<Option<Waker>>,
}

impl<T: Link> RemoteQueue<T> {
    /// An empty, open queue with no waker registered.
    pub fn new() -> Self {
        RemoteQueue {
            queue: Inject::new(),
            waker: Mutex::new(None),
        }
    }

    /// Pushes `item` and wakes the registered waker; hands `item` back when closed.
    pub fn push(&self, item: T) -> Result<(), T> {
        self.queue.push(item)?;
        self.wake();
        Ok(())
    }

    /// Wakes the registered waker (if any), outside the lock.
    pub fn wake(&self) {
        let waker = self.waker.lock().clone();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Registers the driver's waker; call it before draining the queue.
    pub fn register(&self, waker: &Waker) {
        let mut slot = self.waker.lock();
        if slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
            return;
        }
        let old = slot.replace(waker.clone());
        drop(slot);
        // The replaced waker drops outside the lock.
        drop(old);
    }

    /// Takes the oldest item.
    pub fn pop(&self) -> Option<T> {
        self.queue.pop()
    }

    /// Takes up to `n` items, oldest first.
    pub fn pop_n(&self, n: usize) -> queue::Chain<T> {
        self.queue.pop_n(n)
    }

    /// Refuses further pushes. True when this call closed it.
    pub fn close(&self) -> bool {
        self.queue.close()
    }

    /// Calls `f` with every queued item's node, under the queue's consumer lock (as a pop
    /// takes it), oldest first (`Inject::for_each_node`); `f` must not touch the queue.
    #[cfg(not(loom))]
    pub fn for_each_node(&self, f: impl FnMut(std::ptr::NonNull<T::Node>)) {
        self.queue.for_each_node(f);
    }

    /// Items queued (never under-counting a completed push).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when no item is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

impl<T: Link> Default for RemoteQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}
