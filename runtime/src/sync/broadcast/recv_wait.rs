//! A broadcast receive's wait: its node on the tail's waiter list (`Wait`) and the
//! future-side owner that polls and leaves it (`Recv`).
//!
//! A waiting receive queues a node under the tail lock, pointing at its own handoff word
//! (wait_list.rs's `Handoff`). A send or the close that serves the node frees it and then
//! stores `SERVED` into the word (Release): the receive, reading the word (Acquire),
//! knows its node is gone and leaves without the lock; reading 0, it takes the lock and
//! looks again before removing the node itself. The node's waker is recorded in the
//! wait registry (`task::waits`) for task dumps while it is queued, in the node's slot
//! (`Handoff::rec`), which whoever frees the node forgets under the tail lock.

use std::task::{Context, Poll, Waker};

use shim::sync::atomic::AtomicUsize;
use shim::sync::atomic::Ordering::{Acquire, Relaxed};
use shim::sync::Mutex;

use super::error::{RecvError, TryRecvError};
use super::{Receiver, Tail};
use crate::sync::wait_list::{Handoff, HandoffWord, WaitList};
use crate::sync::{poll_budget, spend_budget};

/// A handoff word's value once a send (or the close) served the node.
pub(super) const SERVED: usize = 1;

/// `Wait::key` when the receive has no node (no list key is `usize::MAX`).
const NO_KEY: usize = usize::MAX;

/// A receive's place on the tail's waiter list: its node's key while queued, and the
/// handoff word the node points at (see [`Handoff`]).
///
/// A `Wait` must not move while it has a node: the one owner, [`Recv`], is a local of
/// `Receiver::recv` borrowed by its `poll_fn` until the receive ends, and dropped there.
///
/// The key is only read and written by that owner (sends reach the node through the list,
/// never the key), so `Relaxed` suffices; it is an atomic rather than a `Cell` so that a
/// `Wait`, and the `recv` future holding it, is `Sync` as tokio's.
pub(super) struct Wait {
    /// The node's key, `NO_KEY` when there is none.
    key: AtomicUsize,
    served: HandoffWord,
}

impl Wait {
    pub(super) fn new() -> Wait {
        Wait {
            key: AtomicUsize::new(NO_KEY),
            served: HandoffWord::new(),
        }
    }

    fn key(&self) -> Option<usize> {
        let k = self.key.load(Relaxed);
        (k != NO_KEY).then_some(k)
    }

    fn set_key(&self, key: Option<usize>) {
        let k = key.unwrap_or(NO_KEY);
        debug_assert!(
            key.is_none() || k != NO_KEY,
            "a list key collides with NO_KEY"
        );
        self.key.store(k, Relaxed);
    }

    /// Queues (or refreshes the waker of) this receive, and records it in the wait registry
    /// (`task::waits`, for task dumps) as waiting on the channel at `object`: forgotten by
    /// the send that serves the node (`WaitList::serve`) or by [`Wait::leave`]. Returns the
    /// replaced waker (drop it after the lock).
    ///
    /// # Safety
    ///
    /// Call under the tail lock (`list` is behind it), with `self` not moving until
    /// [`Wait::leave`] (or its owner's drop) ran.
    pub(super) unsafe fn register(
        &self,
        list: &mut WaitList<Handoff>,
        waker: &Waker,
        object: usize,
    ) -> Option<Waker> {
        // Relaxed: a send stores under the lock we hold.
        if self.key().is_some() && self.served.load(Relaxed) != 0 {
            // Served earlier: that node is gone, and nothing points at our word.
            self.set_key(None);
            self.served.reset();
        }
        let (key, old) = match self.key() {
            Some(k) => (k, list.set_waker(k, waker)),
            None => {
                // SAFETY: `self` stays put until `leave`, which reads the word and, seeing
                // 0, locks and looks again before it removes the node (the caller's
                // contract).
                let handoff = unsafe { Handoff::new(&self.served) };
                let k = list.push_back(handoff, Some(waker.clone()));
                self.set_key(Some(k));
                (k, None)
            }
        };
        // The same task's waker on the same node: its record stands, and a repeated poll
        // does not touch the registry.
        let wait = task::waits::Wait::on(task::waits::WaitKind::BroadcastRecv, object);
        let dump_key = list.dump_key(key);
        // SAFETY: no holder word, no test; the slot is in our node, forgotten under the
        // tail lock by whoever frees it (`WaitList::serve`, `leave`).
        unsafe {
            list.node(key)
                .data
                .rec
                .record(dump_key, waker, wait, None, None)
        };
        old
    }

    /// Leaves the list: nothing to do when a send served (freed) our node; otherwise
    /// remove it under the lock.
    pub(super) fn leave(&self, tail: &Mutex<Tail>) {
        let k = self.key.swap(NO_KEY, Relaxed);
        let Some(k) = (k != NO_KEY).then_some(k) else {
            return;
        };
        // Acquire: the send that served us freed our node before its Release store.
        if self.served.load(Acquire) != 0 {
            return;
        }
        let node = {
            let mut tail = tail.lock();
            // Relaxed: a send stores under the lock we hold.
            (self.served.load(Relaxed) == 0).then(|| {
                let mut node = tail.waiters.remove(k);
                node.data.rec.forget();
                node
            })
        };
        drop(node);
    }
}

/// A waiting receive: owns a node on the tail's waiter list while queued.
pub(super) struct Recv<'a, T> {
    pub(super) rx: &'a mut Receiver<T>,
    pub(super) wait: Wait,
}

impl<T: Clone> Recv<'_, T> {
    pub(super) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Result<T, RecvError>> {
        std::task::ready!(poll_budget(cx));
        let out = match self.rx.recv_ref(Some((&mut *cx, &self.wait))) {
            Ok(v) => Ok(v),
            Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
            Err(TryRecvError::Closed) => Err(RecvError::Closed),
            Err(TryRecvError::Empty) => return Poll::Pending,
        };
        self.wait.leave(&self.rx.shared.tail);
        spend_budget(cx);
        Poll::Ready(out)
    }
}

impl<T> Drop for Recv<'_, T> {
    fn drop(&mut self) {
        self.wait.leave(&self.rx.shared.tail);
        self.wait.served.release();
    }
}
