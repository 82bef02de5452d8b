//! [`LifoSlot`]: a one-item slot written by its owner and, now and then, emptied by a thief.
//!
//! A worker keeps the task it just spawned or woke in a LIFO slot, to run it next (warm
//! cache, short latency for a message passed between two tasks). Normally only the owner
//! touches the slot; but when the owner is stuck inside one long poll, whatever sits there
//! would wait for the whole poll, so a sibling may take it (the runtime decides when:
//! the slot itself is safe under any interleaving).
//!
//! Algorithm: one atomic pointer, null when empty.
//! - Only the owner stores a non-null pointer; a thief only ever swaps in null. So when the
//!   owner reads null the slot stays null until the owner writes it: [`push`](LifoSlot::push)
//!   into an empty slot is a plain `Release` store, no read-modify-write.
//! - Taking (owner's [`take`](LifoSlot::take) or a thief's [`steal`](LifoSlot::steal)) is a
//!   load, and only when that finds an item, a `swap(null)`: of any number of racing takers
//!   exactly one receives the pointer, which carries ownership of the item. An empty slot
//!   costs a taker one load.
//! - No ABA hazard: nobody compares against an expected pointer; a swap takes whatever the
//!   slot holds at that instant, and whatever it holds is an item the owner put there.
//!
//! Orderings: the owner's `Release` (store or swap) publishes the item; every taker's
//! `Acquire` swap reads it. The owner's pre-check loads are `Relaxed`: a stale non-null
//! only costs a swap that finds null; a null cannot be stale for the owner, the only
//! writer of non-null values (coherence: it reads its own latest write or a later null).
//! A thief's pre-check is `Relaxed` too: its swap, not the load, must acquire, because
//! the swap may take a newer item than the one the load saw (the owner pushed over it in
//! between), and only a read of that item's own push orders the owner's writes to it. The
//! displacing swap in `push` needs no `Acquire` half: the slot's non-null values are the
//! owner's own pushes (ordered before by program order) and a thief writes only null,
//! publishing nothing the owner reads. (Each of these was found stronger than needed by
//! the weakening sweep, loom-tests/README.md; `loom_lifo`'s `owner_writes_reach_the_thief`
//! fails on every weaker ordering of the store, the swaps and `swap_out`.)

use core::marker::PhantomData;
use core::ptr::{self, NonNull};

use shim::sync::atomic::AtomicPtr;
use shim::sync::atomic::Ordering::{Acquire, Relaxed, Release};

use crate::Link;

/// A one-item slot: the owner pushes and takes, thieves may take (see the module docs).
pub struct LifoSlot<T: Link> {
    item: AtomicPtr<T::Node>,
    _marker: PhantomData<T>,
}

// SAFETY: the slot hands its item from one thread to another exactly once (one swap wins);
// items are required to be Send.
unsafe impl<T: Link + Send> Send for LifoSlot<T> {}
// SAFETY: as above: all shared access goes through the atomic pointer.
unsafe impl<T: Link + Send> Sync for LifoSlot<T> {}

impl<T: Link> Default for LifoSlot<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Link> LifoSlot<T> {
    /// An empty slot.
    pub fn new() -> Self {
        LifoSlot {
            item: AtomicPtr::new(ptr::null_mut()),
            _marker: PhantomData,
        }
    }

    /// Owner only: puts `item` in the slot and returns the previous occupant, if a thief
    /// did not take it first. Only one thread may ever call `push` on a slot.
    ///
    /// ```
    /// # use queue::{LifoSlot, Link};
    /// # use std::ptr::NonNull;
    /// # struct Item(Box<(u32, Option<NonNull<()>>)>);
    /// # unsafe impl Link for Item {
    /// #     type Node = (u32, Option<NonNull<()>>);
    /// #     fn into_raw(self) -> NonNull<Self::Node> { NonNull::from(Box::leak(self.0)) }
    /// #     unsafe fn from_raw(p: NonNull<Self::Node>) -> Self { Item(unsafe { Box::from_raw(p.as_ptr()) }) }
    /// #     unsafe fn next(_: NonNull<Self::Node>) -> Option<NonNull<Self::Node>> { None }
    /// #     unsafe fn set_next(_: NonNull<Self::Node>, _: Option<NonNull<Self::Node>>) {}
    /// # }
    /// let slot = LifoSlot::new();
    /// assert!(slot.push(Item(Box::new((1, None)))).is_none());
    /// let prev = slot.push(Item(Box::new((2, None)))).unwrap();
    /// assert_eq!(prev.0 .0, 1);
    /// assert_eq!(slot.steal().unwrap().0 .0, 2);
    /// assert!(slot.take().is_none());
    /// ```
    pub fn push(&self, item: T) -> Option<T> {
        let new = item.into_raw().as_ptr();
        if self.item.load(Relaxed).is_null() {
            // Null stays null until we write: thieves only swap null in.
            self.item.store(new, Release);
            return None;
        }
        // Release publishes the new item; no Acquire: what it displaces is our own push
        // (or a thief's null), see the module docs.
        let prev = self.item.swap(new, Release);
        // SAFETY: a non-null pointer in the slot is an item given up with `into_raw`; the
        // swap made us its only taker.
        NonNull::new(prev).map(|p| unsafe { T::from_raw(p) })
    }

    /// Owner only: takes the item, if any (one load when empty).
    pub fn take(&self) -> Option<T> {
        if self.item.load(Relaxed).is_null() {
            return None;
        }
        self.swap_out()
    }

    /// Any thread: takes the item, if any. Exactly one of racing `take`/`steal` calls gets
    /// a given item.
    pub fn steal(&self) -> Option<T> {
        // Relaxed: a hint; `swap_out`'s Acquire reads the item it takes (module docs).
        if self.item.load(Relaxed).is_null() {
            return None;
        }
        self.swap_out()
    }

    /// True when the slot holds an item (a hint: it may change at once).
    pub fn is_empty(&self) -> bool {
        self.item.load(Relaxed).is_null()
    }

    fn swap_out(&self) -> Option<T> {
        let p = self.item.swap(ptr::null_mut(), Acquire);
        // SAFETY: as in `push`: the swap handed us the one reference the slot held.
        NonNull::new(p).map(|p| unsafe { T::from_raw(p) })
    }
}

impl<T: Link> Drop for LifoSlot<T> {
    fn drop(&mut self) {
        // `&mut self`: no thief is left; an item still here is dropped with the slot.
        drop(self.swap_out());
    }
}
