//! The waiter queue shared by the semaphore (and so `Mutex`/`RwLock`) and `Notify`.
//!
//! A FIFO of waiters kept in a slab: a `Vec` of slots, linked into a doubly linked list by
//! `u32` indices, plus a free list threaded through the unused slots. A waiting future
//! holds only its slot's index. The slab grows to the largest number of simultaneous
//! waiters and is reused afterwards, so a wait allocates nothing in the steady state, and
//! there is no `unsafe` here (an intrusive list of pinned nodes would need it for no gain
//! in the uncontended case, which never queues).
//!
//! Invariants (the list lives behind its primitive's mutex, so they hold between locks):
//! - A slot is in exactly one of three places: linked in the queue, allocated but unlinked
//!   (its waiter was served and has not looked yet), or on the free list.
//! - Only the future that allocated a slot frees it ([`WaitList::free`]); a notifier only
//!   unlinks. So an index held by a future always names that future's slot (no ABA).
//! - Wakers taken out of slots are returned to the caller, who wakes or drops them after
//!   releasing the lock ([`WakeList`]).

use std::task::Waker;

/// "No slot".
pub(crate) const NIL: u32 = u32::MAX;

/// One waiter: its waker, the primitive's per-waiter state, and its links.
pub(crate) struct Slot<S> {
    pub(crate) waker: Option<Waker>,
    pub(crate) state: S,
    prev: u32,
    next: u32,
    linked: bool,
}

/// The queue of waiters (see the module doc).
pub(crate) struct WaitList<S> {
    slots: Vec<Slot<S>>,
    head: u32,
    tail: u32,
    free: u32,
}

impl<S> WaitList<S> {
    pub(crate) const fn new() -> Self {
        WaitList {
            slots: Vec::new(),
            head: NIL,
            tail: NIL,
            free: NIL,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.head == NIL
    }

    pub(crate) fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    pub(crate) fn back(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    pub(crate) fn get(&self, idx: u32) -> &Slot<S> {
        &self.slots[idx as usize]
    }

    pub(crate) fn get_mut(&mut self, idx: u32) -> &mut Slot<S> {
        &mut self.slots[idx as usize]
    }

    /// Allocates a slot and links it at the back of the queue; returns its index.
    pub(crate) fn push_back(&mut self, state: S, waker: Option<Waker>) -> u32 {
        let slot = Slot {
            waker,
            state,
            prev: self.tail,
            next: NIL,
            linked: true,
        };
        let idx = if self.free != NIL {
            let idx = self.free;
            self.free = self.slots[idx as usize].next;
            let old = std::mem::replace(&mut self.slots[idx as usize], slot);
            debug_assert!(old.waker.is_none(), "a free slot holds no waker");
            idx
        } else {
            assert!(self.slots.len() < NIL as usize, "too many waiters");
            self.slots.push(slot);
            (self.slots.len() - 1) as u32
        };
        if self.tail == NIL {
            self.head = idx;
        } else {
            self.slots[self.tail as usize].next = idx;
        }
        self.tail = idx;
        idx
    }

    /// Unlinks slot `idx` from the queue (it stays allocated to its waiter).
    pub(crate) fn unlink(&mut self, idx: u32) {
        let (prev, next) = {
            let s = &mut self.slots[idx as usize];
            debug_assert!(s.linked);
            s.linked = false;
            (
                std::mem::replace(&mut s.prev, NIL),
                std::mem::replace(&mut s.next, NIL),
            )
        };
        if prev == NIL {
            self.head = next;
        } else {
            self.slots[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.slots[next as usize].prev = prev;
        }
    }

    /// Frees slot `idx` (unlinking it if it is still queued). Returns its waker, which the
    /// caller drops after releasing the lock.
    pub(crate) fn free(&mut self, idx: u32) -> Option<Waker> {
        if self.slots[idx as usize].linked {
            self.unlink(idx);
        }
        let s = &mut self.slots[idx as usize];
        s.next = self.free;
        self.free = idx;
        s.waker.take()
    }

    /// Sets slot `idx`'s waker to `waker` unless it already wakes the same task; returns
    /// the replaced waker (to be dropped after the lock).
    pub(crate) fn set_waker(&mut self, idx: u32, waker: &Waker) -> Option<Waker> {
        let s = &mut self.slots[idx as usize];
        match &s.waker {
            Some(w) if w.will_wake(waker) => None,
            _ => s.waker.replace(waker.clone()),
        }
    }
}

/// Wakers collected under a lock, woken after it is released. Holds a few inline and
/// spills into a `Vec` only beyond that.
pub(crate) struct WakeList {
    inline: [Option<Waker>; 8],
    len: usize,
    spill: Vec<Waker>,
}

impl WakeList {
    pub(crate) const fn new() -> Self {
        WakeList {
            inline: [None, None, None, None, None, None, None, None],
            len: 0,
            spill: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, waker: Option<Waker>) {
        let Some(waker) = waker else { return };
        if self.len < self.inline.len() {
            self.inline[self.len] = Some(waker);
            self.len += 1;
        } else {
            self.spill.push(waker);
        }
    }

    /// Wakes every waker (call with no lock held).
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
