//! The waiter lists of the channels: a slab of waiter nodes threaded by a FIFO doubly-linked
//! list of indices, always used behind the owner's lock; and [`WakeList`], where wakers
//! taken under that lock wait to be woken after it is released.
//!
//! A waiting future owns one node, named by its key (its slab index). The node stays
//! allocated until the future removes it (when it completes or is dropped), so a key is never
//! reused while a future holds it; the side that notifies only *unlinks* nodes and takes
//! their wakers. Slots are recycled through a free list, so after warm-up a wait allocates
//! nothing.
//!
//! Invariants: `linked` is true exactly for the nodes on the list; `head`/`tail` are `NIL`
//! together; wakers leave the list only by value (`set_waker`'s old waker, `take_waker`,
//! `remove`), so callers can drop and wake them once they released the lock.
//!
//! Also here: the two cooperative-budget helpers every channel wait uses
//! ([`poll_budget`], [`spend_budget`]).

use std::task::{Context, Poll, Waker};

use shim::sync::Mutex;

use crate::coop;

const NIL: usize = usize::MAX;

pub(crate) struct Node<D> {
    waker: Option<Waker>,
    prev: usize,
    next: usize,
    linked: bool,
    /// What the owner of the list keeps per waiter.
    pub(crate) data: D,
}

enum Slot<D> {
    Used(Node<D>),
    Free(usize),
}

pub(crate) struct WaitList<D> {
    slots: Vec<Slot<D>>,
    free: usize,
    head: usize,
    tail: usize,
}

impl<D> WaitList<D> {
    pub(crate) const fn new() -> WaitList<D> {
        WaitList {
            slots: Vec::new(),
            free: NIL,
            head: NIL,
            tail: NIL,
        }
    }

    /// True when no node is linked.
    pub(crate) fn is_empty(&self) -> bool {
        self.head == NIL
    }

    /// The first linked node's key.
    pub(crate) fn front(&self) -> Option<usize> {
        (self.head != NIL).then_some(self.head)
    }

    /// Allocates a node and links it at the back. Returns its key.
    pub(crate) fn push_back(&mut self, waker: Waker, data: D) -> usize {
        let node = Node {
            waker: Some(waker),
            prev: NIL,
            next: NIL,
            linked: false,
            data,
        };
        let key = if self.free != NIL {
            let key = self.free;
            match std::mem::replace(&mut self.slots[key], Slot::Used(node)) {
                Slot::Free(next) => self.free = next,
                Slot::Used(_) => unreachable!("free list points at a used slot"),
            }
            key
        } else {
            self.slots.push(Slot::Used(node));
            self.slots.len() - 1
        };
        self.link_back(key);
        key
    }

    pub(crate) fn node(&mut self, key: usize) -> &mut Node<D> {
        match &mut self.slots[key] {
            Slot::Used(n) => n,
            Slot::Free(_) => panic!("wait list key {key} is not in use"),
        }
    }

    /// Links an unlinked node at the back (a waiter that waits again).
    pub(crate) fn link_back(&mut self, key: usize) {
        let tail = self.tail;
        let n = self.node(key);
        debug_assert!(!n.linked);
        n.linked = true;
        n.prev = tail;
        n.next = NIL;
        if tail == NIL {
            self.head = key;
        } else {
            self.node(tail).next = key;
        }
        self.tail = key;
    }

    /// Unlinks a node (if linked); it stays allocated.
    pub(crate) fn unlink(&mut self, key: usize) {
        let n = self.node(key);
        if !n.linked {
            return;
        }
        n.linked = false;
        let (prev, next) = (n.prev, n.next);
        if prev == NIL {
            self.head = next;
        } else {
            self.node(prev).next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.node(next).prev = prev;
        }
    }

    /// Unlinks and frees a node, returning it (drop its waker after releasing the lock).
    pub(crate) fn remove(&mut self, key: usize) -> Node<D> {
        self.unlink(key);
        match std::mem::replace(&mut self.slots[key], Slot::Free(self.free)) {
            Slot::Used(n) => {
                self.free = key;
                n
            }
            Slot::Free(_) => panic!("wait list key {key} removed twice"),
        }
    }

    pub(crate) fn is_linked(&mut self, key: usize) -> bool {
        self.node(key).linked
    }

    /// Stores `waker` in the node unless it already wakes the same task; returns the
    /// replaced waker (drop it after releasing the lock).
    pub(crate) fn set_waker(&mut self, key: usize, waker: &Waker) -> Option<Waker> {
        let n = self.node(key);
        match &n.waker {
            Some(w) if w.will_wake(waker) => None,
            _ => n.waker.replace(waker.clone()),
        }
    }

    pub(crate) fn take_waker(&mut self, key: usize) -> Option<Waker> {
        self.node(key).waker.take()
    }

    /// Unlinks every node, moving their wakers into `wakers`.
    pub(crate) fn take_all(&mut self, wakers: &mut WakeList) {
        while let Some(key) = self.front() {
            self.unlink(key);
            if let Some(w) = self.take_waker(key) {
                wakers.push(w);
            }
        }
    }
}

impl<D> Default for WaitList<D> {
    fn default() -> Self {
        WaitList::new()
    }
}

/// Wakers collected under a lock, woken (and dropped) once it is released. Up to 32 need
/// no allocation.
pub(crate) struct WakeList {
    inline: [Option<Waker>; 32],
    len: usize,
    spill: Vec<Waker>,
}

impl WakeList {
    pub(crate) fn new() -> WakeList {
        WakeList {
            inline: Default::default(),
            len: 0,
            spill: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, waker: Waker) {
        if self.len < self.inline.len() {
            self.inline[self.len] = Some(waker);
            self.len += 1;
        } else {
            self.spill.push(waker);
        }
    }

    /// Wakes every collected waker. Call with no lock held.
    pub(crate) fn wake_all(mut self) {
        for w in self.inline[..self.len].iter_mut() {
            if let Some(w) = w.take() {
                w.wake();
            }
        }
        for w in self.spill.drain(..) {
            w.wake();
        }
    }
}

/// Ready when the current task may still complete an operation this poll; otherwise wakes
/// it (a yield) and returns `Pending`. Spends nothing: see [`spend_budget`].
#[inline]
pub(crate) fn poll_budget(cx: &mut Context<'_>) -> Poll<()> {
    if coop::has_budget_remaining() {
        Poll::Ready(())
    } else {
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Spends one unit of the task's budget: called when a wait completes ready.
#[inline]
pub(crate) fn spend_budget(cx: &mut Context<'_>) {
    let _ = coop::poll_proceed(cx);
}

/// Wakes (outside the lock) every waiter linked on `list`.
pub(crate) fn notify_all(list: &Mutex<WaitList<()>>) {
    let mut wakers = WakeList::new();
    list.lock().take_all(&mut wakers);
    wakers.wake_all();
}

/// A future's place on a [`WaitList`] of "wake me when something changes" waiters
/// (notified all at once by [`notify_all`]). Dropping it takes the node back.
pub(crate) struct Waiter<'a> {
    list: &'a Mutex<WaitList<()>>,
    key: Option<usize>,
}

impl<'a> Waiter<'a> {
    pub(crate) fn new(list: &'a Mutex<WaitList<()>>) -> Waiter<'a> {
        Waiter { list, key: None }
    }

    /// Ready once `ready()` holds; otherwise (re)links this waiter with the task's waker.
    /// `ready` is checked again under the list's lock, so a notifier that changes the state
    /// and then calls [`notify_all`] cannot slip between the check and the registration.
    pub(crate) fn poll_until(
        &mut self,
        cx: &mut Context<'_>,
        ready: impl Fn() -> bool,
    ) -> Poll<()> {
        if ready() {
            self.forget();
            return Poll::Ready(());
        }
        let mut list = self.list.lock();
        if ready() {
            let node = self.key.take().map(|k| list.remove(k));
            drop(list);
            drop(node);
            return Poll::Ready(());
        }
        let old = match self.key {
            Some(k) => {
                let old = list.set_waker(k, cx.waker());
                if !list.is_linked(k) {
                    list.link_back(k);
                }
                old
            }
            None => {
                self.key = Some(list.push_back(cx.waker().clone(), ()));
                None
            }
        };
        drop(list);
        drop(old);
        Poll::Pending
    }

    fn forget(&mut self) {
        if let Some(k) = self.key.take() {
            let node = self.list.lock().remove(k);
            drop(node);
        }
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        self.forget();
    }
}
