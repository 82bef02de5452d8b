//! The global inject queue: an intrusive singly linked FIFO behind one mutex.
//!
//! Items are threaded through their own [`Link`] field, so pushing and popping never
//! allocate. The list (`head`, `tail`, `len`, `closed`) lives behind a `shim::sync::Mutex`;
//! its length and closed flag are mirrored in atomics so [`Inject::len`],
//! [`Inject::is_empty`] and [`Inject::is_closed`] (what a worker asks before deciding to
//! take the lock, or on every tick) read them without locking.
//!
//! Invariants, all under the lock: `head` is `None` iff `tail` is `None` iff `len == 0`;
//! following `next` from `head` reaches `tail` after exactly `len - 1` steps; the link of a
//! queued item is only touched under the lock. Batches are linked *before* the lock is taken
//! (the items are still private to the pusher) and spliced in with O(1) work; `pop_n`
//! detaches a run under the lock (walking `n` links) and hands it out as a [`Chain`], which
//! is iterated without the lock. Once closed, pushes are refused but pops drain what is left.

use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

use shim::sync::atomic::{
    AtomicBool, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use shim::sync::Mutex;

use crate::Link;

/// The multi-producer multi-consumer global queue. `Send + Sync` when `T: Send`.
pub struct Inject<T: Link> {
    /// Mirror of `List::len`, written only under the lock, read without it.
    len: AtomicUsize,
    /// Mirror of `List::closed`, written only under the lock, read without it.
    closed: AtomicBool,
    list: Mutex<List<T::Node>>,
    _items: PhantomData<T>,
}

/// The locked state of the queue.
struct List<N> {
    head: Option<NonNull<N>>,
    tail: Option<NonNull<N>>,
    len: usize,
    closed: bool,
}

// SAFETY: the queue owns its items (moved in by value, moved out by value), so sending the
// queue sends items: `T: Send` is required. The raw node pointers are only dereferenced
// under the mutex (or with `&mut self` in `drop`), which serialises all access; sharing
// `&Inject` therefore only ever moves whole items between threads, again needing `T: Send`.
unsafe impl<T: Link + Send> Send for Inject<T> {}
// SAFETY: see the `Send` impl above.
unsafe impl<T: Link + Send> Sync for Inject<T> {}

impl<T: Link> Inject<T> {
    /// An empty, open queue.
    pub fn new() -> Self {
        Inject {
            len: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
            list: Mutex::new(List {
                head: None,
                tail: None,
                len: 0,
                closed: false,
            }),
            _items: PhantomData,
        }
    }

    /// Number of queued items, read without the lock (a snapshot that may be stale).
    pub fn len(&self) -> usize {
        // Relaxed: the value is a hint; no item memory is read on the strength of it (items
        // are handed over under the mutex, which carries its own happens-before). A caller
        // whose protocol needs "a push that happened-before this load is seen" gets that
        // from its own synchronisation plus coherence, whatever this ordering.
        self.len.load(Relaxed)
    }

    /// True when no item is queued, read without the lock (a snapshot that may be stale).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `item` at the back; gives it back as `Err(item)` once the queue is closed.
    pub fn push(&self, item: T) -> Result<(), T> {
        let ptr = item.into_raw();
        // SAFETY: we own the item (just converted); nothing else can reach its link yet.
        unsafe { T::set_next(ptr, None) };
        let mut list = self.list.lock();
        if list.closed {
            drop(list);
            // SAFETY: `ptr` came from `into_raw` above and was never queued.
            return Err(unsafe { T::from_raw(ptr) });
        }
        // SAFETY: under the lock; `ptr` is a fresh, owned node with a cleared link.
        unsafe { self.splice(&mut list, ptr, ptr, 1) };
        Ok(())
    }

    /// Links the items into a chain WITHOUT the lock, then appends the chain under one lock.
    ///
    /// Once the queue is closed every item comes back, in order, as `Err(chain)`.
    /// An empty batch returns `Ok(())` without taking the lock.
    pub fn push_batch(&self, items: impl IntoIterator<Item = T>) -> Result<(), Chain<T>> {
        let mut items = items.into_iter();
        let Some(first) = items.next() else {
            return Ok(());
        };
        let first = first.into_raw();
        // The chain built so far, owned by `batch`: if the iterator panics, `batch`'s drop
        // frees what was linked (each node is linked before it is counted).
        let mut batch = Chain::<T> {
            head: Some(first),
            len: 1,
            _items: PhantomData,
        };
        let mut last = first;
        for item in items {
            let ptr = item.into_raw();
            // SAFETY: `last` is a node of our private, not yet published chain.
            unsafe { T::set_next(last, Some(ptr)) };
            batch.len += 1;
            last = ptr;
        }
        // SAFETY: as above; terminates the chain.
        unsafe { T::set_next(last, None) };

        let mut list = self.list.lock();
        if list.closed {
            drop(list);
            return Err(batch);
        }
        let n = batch.len;
        // The queue takes ownership of the nodes: `batch` must not free them.
        batch.head = None;
        batch.len = 0;
        // SAFETY: under the lock; `first..=last` is an owned chain of `n` nodes ending in None.
        unsafe { self.splice(&mut list, first, last, n) };
        Ok(())
    }

    /// Appends the owned chain `first..=last` of `n` nodes (last link `None`) at the back.
    ///
    /// # Safety
    ///
    /// `list` is this queue's locked list; the chain is owned by the caller, well formed,
    /// and ownership of its items passes to the queue.
    unsafe fn splice(
        &self,
        list: &mut List<T::Node>,
        first: NonNull<T::Node>,
        last: NonNull<T::Node>,
        n: usize,
    ) {
        match list.tail {
            // SAFETY: `tail` is a queued node and we hold the lock, so its link is ours.
            Some(tail) => unsafe { T::set_next(tail, Some(first)) },
            None => list.head = Some(first),
        }
        list.tail = Some(last);
        list.len += n;
        // Relaxed: written under the lock (so writes are totally ordered by the lock);
        // readers only use it as a hint, see `len`.
        self.len.store(list.len, Relaxed);
    }

    /// Removes the item at the front.
    pub fn pop(&self) -> Option<T> {
        // A racy emptiness check spares the lock when there is nothing to take; an item
        // pushed concurrently may be missed, as it could have been by a pop a moment earlier.
        if self.is_empty() {
            return None;
        }
        let mut list = self.list.lock();
        let head = list.head?;
        // SAFETY: `head` is a queued node and we hold the lock.
        list.head = unsafe { T::next(head) };
        if list.head.is_none() {
            list.tail = None;
        }
        list.len -= 1;
        // Relaxed: under the lock, see `splice`.
        self.len.store(list.len, Relaxed);
        drop(list);
        // SAFETY: `head` was unlinked under the lock, so we own it; it came from `into_raw`.
        Some(unsafe { T::from_raw(head) })
    }

    /// Detaches up to `n` items from the front under one lock; the returned [`Chain`]
    /// iterates (and drops) them without the lock.
    pub fn pop_n(&self, n: usize) -> Chain<T> {
        // Racy check as in `pop`: skip the lock when there is nothing to take.
        if n == 0 || self.is_empty() {
            return Chain::empty();
        }
        let list = self.list.lock();
        self.detach(list, n)
    }

    fn detach(&self, mut list: shim::sync::MutexGuard<'_, List<T::Node>>, n: usize) -> Chain<T> {
        let mut chain = Chain::empty();
        let take = n.min(list.len);
        let Some(first) = list.head else {
            return chain;
        };
        let mut last = first;
        for _ in 1..take {
            // SAFETY: `last` is one of the first `take <= len` queued nodes; lock held.
            last = unsafe { T::next(last) }.expect("inject list shorter than its length");
        }
        // SAFETY: as above. The chain's own iteration counts by `len`, so `last`'s link
        // needs no clearing.
        list.head = unsafe { T::next(last) };
        if list.head.is_none() {
            list.tail = None;
        }
        list.len -= take;
        // Relaxed: under the lock, see `splice`.
        self.len.store(list.len, Relaxed);
        drop(list);
        chain.head = Some(first);
        chain.len = take;
        chain
    }

    /// Closes the queue: later pushes are refused, pops still drain what is left.
    /// Returns true if this call closed it (false if it already was closed).
    pub fn close(&self) -> bool {
        let mut list = self.list.lock();
        // Release: pairs with `is_closed`'s Acquire.
        self.closed.store(true, Release);
        !core::mem::replace(&mut list.closed, true)
    }

    /// True once [`close`](Inject::close) has been called. Read without the lock: a
    /// caller ordered after the close (e.g. woken by the closer) sees it; pushes are
    /// refused by the locked flag, whatever this returns.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Acquire)
    }
}

impl<T: Link> Default for Inject<T> {
    fn default() -> Self {
        Inject::new()
    }
}

impl<T: Link> Drop for Inject<T> {
    /// Drops every remaining item.
    fn drop(&mut self) {
        let mut list = self.list.lock();
        let chain = Chain::<T> {
            head: list.head.take(),
            len: core::mem::take(&mut list.len),
            _items: PhantomData,
        };
        list.tail = None;
        drop(list);
        drop(chain);
    }
}

impl<T: Link> fmt::Debug for Inject<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inject").field("len", &self.len()).finish()
    }
}

/// A detached, owned chain of items: `Iterator<Item = T>` + `ExactSizeIterator`; drops the
/// items it still holds.
pub struct Chain<T: Link> {
    /// First of `len` nodes linked through `T::next`; `None` iff `len == 0`.
    head: Option<NonNull<T::Node>>,
    len: usize,
    _items: PhantomData<T>,
}

// SAFETY: a chain owns its items exclusively (no queue links into it), so sending it sends
// the items: `T: Send` suffices.
unsafe impl<T: Link + Send> Send for Chain<T> {}
// SAFETY: `&Chain` exposes nothing but its length.
unsafe impl<T: Link + Sync> Sync for Chain<T> {}

impl<T: Link> Iterator for Chain<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let ptr = self.head.expect("chain shorter than its length");
        self.len -= 1;
        self.head = if self.len == 0 {
            None
        } else {
            // SAFETY: the chain owns `ptr` exclusively; its link was written before the
            // chain was detached (happens-before through the queue's lock or construction).
            unsafe { T::next(ptr) }
        };
        // SAFETY: `ptr` came from `into_raw` and is now unlinked from the chain: we own it.
        Some(unsafe { T::from_raw(ptr) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl<T: Link> ExactSizeIterator for Chain<T> {}

impl<T: Link> core::iter::FusedIterator for Chain<T> {}

impl<T: Link> Chain<T> {
    fn empty() -> Self {
        Chain {
            head: None,
            len: 0,
            _items: PhantomData,
        }
    }
}

impl<T: Link> Drop for Chain<T> {
    fn drop(&mut self) {
        for item in self.by_ref() {
            drop(item);
        }
    }
}

impl<T: Link> fmt::Debug for Chain<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chain").field("len", &self.len).finish()
    }
}
