//! A broadcast receive's wait: its node on the tail's waiter list (`Wait`) and the
//! future-side owner that polls and leaves it (`Recv`).
//!
//! A waiting receive queues a node under the tail lock, pointing at its own handoff word
//! (wait_list.rs's `Handoff`). A send or the close that serves the node frees it and then
//! stores `SERVED` into the word (Release): the receive, reading the word (Acquire),
//! knows its node is gone and leaves without the lock; reading 0, it takes the lock and
//! looks again before removing the node itself.
//!
//! The wait registry (`task::waits`, for task dumps) is kept out of the tail lock: the
//! receive records itself after releasing it, keyed by its handoff word's address, with
//! that word as the record's `Active` test (waiting while it reads 0), and forgets the
//! record itself when the receive completes or is dropped. A send therefore serves its
//! waiters without touching the registry, and a receive that waits again in the same
//! `recv` (a wake-up that found nothing) keeps its record (same key, same task).

use std::task::{Context, Poll, Waker};

use shim::sync::atomic::AtomicUsize;
use shim::sync::atomic::Ordering::{Acquire, Relaxed};
use shim::sync::Mutex;
use task::waits::WaitSlot;

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

    /// Queues (or refreshes the waker of) this receive. Returns the replaced waker (drop
    /// it after the lock).
    ///
    /// # Safety
    ///
    /// Call under the tail lock (`list` is behind it), with `self` not moving until
    /// [`Wait::leave`] (or its owner's drop) ran.
    pub(super) unsafe fn register(
        &self,
        list: &mut WaitList<Handoff>,
        waker: &Waker,
    ) -> Option<Waker> {
        // Relaxed: a send stores under the lock we hold.
        if self.key().is_some() && self.served.load(Relaxed) != 0 {
            // Served earlier: that node is gone, and nothing points at our word.
            self.set_key(None);
            self.served.reset();
        }
        match self.key() {
            Some(k) => list.set_waker(k, waker),
            None => {
                // SAFETY: `self` stays put until `leave`, which reads the word and, seeing
                // 0, locks and looks again before it removes the node (the caller's
                // contract).
                let handoff = unsafe { Handoff::new(&self.served) };
                let k = list.push_back(handoff, Some(waker.clone()));
                self.set_key(Some(k));
                None
            }
        }
    }

    /// Leaves the list: nothing to do when a send served (freed) our node; otherwise
    /// remove it under the lock.
    #[inline]
    pub(super) fn leave(&self, tail: &Mutex<Tail>) {
        // Most receives never queue: one load, inline.
        if let Some(k) = self.key() {
            self.leave_queued(k, tail);
        }
    }

    /// [`Wait::leave`] with a node `k`, out of line.
    #[inline(never)]
    fn leave_queued(&self, k: usize, tail: &Mutex<Tail>) {
        // The key is ours alone (see the struct): a store, no read-modify-write.
        self.set_key(None);
        // Acquire: the send that served us freed our node before its Release store.
        if self.served.load(Acquire) != 0 {
            return;
        }
        let node = {
            let mut tail = tail.lock();
            // Relaxed: a send stores under the lock we hold.
            (self.served.load(Relaxed) == 0).then(|| tail.waiters.remove(k))
        };
        drop(node);
    }
}

/// A waiting receive: owns a node on the tail's waiter list while queued.
pub(super) struct Recv<'a, T> {
    pub(super) rx: &'a mut Receiver<T>,
    pub(super) wait: Wait,
    /// Our wait record (module doc), keyed by `wait.served`'s address.
    pub(super) rec: WaitSlot,
}

/// The second word of a receive's wait-registry key (the first is the address of its
/// handoff word): no other leaf keys a record by an address with this tag.
const WAIT_KEY_TAG: usize = usize::MAX - 2;

impl<T> Recv<'_, T> {
    /// Records this queued receive for task dumps, after the tail lock is released (module
    /// doc). A repeated poll by the same task leaves the record as it is.
    fn record(&mut self, waker: &Waker) {
        // Relaxed: a hint. Served meanwhile, the record would never show (its test reads
        // the word), and our next poll reads the value.
        if self.wait.served.load(Relaxed) != 0 {
            return;
        }
        let object = &*self.rx.shared as *const _ as usize;
        let wait = task::waits::Wait::on(task::waits::WaitKind::BroadcastRecv, object);
        let active = task::waits::Active::of(&self.wait.served);
        let key = (
            &self.wait.served as *const HandoffWord as usize,
            WAIT_KEY_TAG,
        );
        // SAFETY: no holder word; `served` stays where it is (`Wait`'s contract) until our
        // drop, which forgets the record before it releases the word.
        unsafe { self.rec.record(key, waker, wait, None, Some(active)) };
    }
}

impl<T: Clone> Recv<'_, T> {
    pub(super) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Result<T, RecvError>> {
        std::task::ready!(poll_budget(cx));
        let out = match self.rx.recv_ref(Some((&mut *cx, &self.wait))) {
            Ok(v) => Ok(v),
            Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
            Err(TryRecvError::Closed) => Err(RecvError::Closed),
            Err(TryRecvError::Empty) => {
                self.record(cx.waker());
                return Poll::Pending;
            }
        };
        // The record, if any, is forgotten by the drop that follows.
        self.wait.leave(&self.rx.shared.tail);
        spend_budget(cx);
        Poll::Ready(out)
    }
}

impl<T> Drop for Recv<'_, T> {
    fn drop(&mut self) {
        self.rec.forget();
        self.wait.leave(&self.rx.shared.tail);
        self.wait.served.release();
    }
}
