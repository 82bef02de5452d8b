//! The global inject queue: intrusive, pushed without a lock, popped behind one mutex.
//!
//! Two parts, both threaded through the items' own [`Link`] field (nothing allocates):
//! - `stack`: where pushes land. A Treiber stack (newest first) whose head word also holds
//!   the CLOSED bit. A push is one CAS on the head, so a producer (the thread spawning
//!   10,000 tasks from outside the runtime) never waits for a consumer holding the lock,
//!   nor yields to one that was descheduled holding it.
//! - `list`: a FIFO behind the mutex that serialises consumers. A consumer that needs more
//!   than the list holds takes the whole stack at once (`fetch_and`, so no ABA: nodes are
//!   never popped from the stack one by one), reverses it and appends it: every list item is
//!   older than every stack item, so the queue stays FIFO. Pops detach a run under the lock
//!   (walking `n` links) as a [`Chain`], iterated without it.
//!
//! Invariants: `len` (lock-free) counts the items in both parts, plus pushes in flight: a
//! pusher adds before its CAS and takes back if refused, a consumer subtracts what it took,
//! so `len` never under-counts (an item in the queue was counted before it got there). Under
//! the lock, `list.head` is `None` iff `list.tail` is `None` iff `list.len == 0`, and
//! following `next` from `head` reaches `tail` in `list.len - 1` steps. Once CLOSED is set
//! no push succeeds, and pops drain what is left.

use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

use crossbeam_utils::CachePadded;
use shim::sync::atomic::{
    AtomicBool, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use shim::sync::Mutex;

use crate::Link;

/// The CLOSED flag in the stack's head word (nodes are at least 2-aligned).
const CLOSED: usize = 1;

/// The multi-producer multi-consumer global queue. `Send + Sync` when `T: Send`.
pub struct Inject<T: Link> {
    /// The producers' line: the stack head (a node address, or 0, with CLOSED in bit 0) and
    /// the length, which every push writes next to it.
    stack: CachePadded<Stack>,
    /// Mirror of CLOSED, written once by `close`, read without touching the producers' line.
    closed: AtomicBool,
    list: Mutex<List<T::Node>>,
    _items: PhantomData<T>,
}

struct Stack {
    head: AtomicUsize,
    len: AtomicUsize,
}

/// The consumers' FIFO, under the lock.
struct List<N> {
    head: Option<NonNull<N>>,
    tail: Option<NonNull<N>>,
    len: usize,
}

// SAFETY: the queue owns its items (moved in by value, moved out by value), so sending the
// queue sends items: `T: Send` is required. A node's link is written by its pusher before
// the Release CAS that publishes it and read by a consumer after the Acquire `fetch_and`
// that takes it; list nodes are only touched under the mutex (or with `&mut self` in
// `drop`). Sharing `&Inject` therefore only ever moves whole items between threads.
unsafe impl<T: Link + Send> Send for Inject<T> {}
// SAFETY: see the `Send` impl above.
unsafe impl<T: Link + Send> Sync for Inject<T> {}

fn addr<N>(ptr: NonNull<N>) -> usize {
    ptr.as_ptr() as usize
}

fn node<N>(word: usize) -> Option<NonNull<N>> {
    NonNull::new((word & !CLOSED) as *mut N)
}

impl<T: Link> Inject<T> {
    /// An empty, open queue.
    pub fn new() -> Self {
        const { assert!(core::mem::align_of::<T::Node>() >= 2, "CLOSED needs bit 0") };
        Inject {
            stack: CachePadded::new(Stack {
                head: AtomicUsize::new(0),
                len: AtomicUsize::new(0),
            }),
            closed: AtomicBool::new(false),
            list: Mutex::new(List {
                head: None,
                tail: None,
                len: 0,
            }),
            _items: PhantomData,
        }
    }

    /// Number of queued items, read without the lock (a snapshot that may be stale, and
    /// may count a push still in flight).
    pub fn len(&self) -> usize {
        // Relaxed: the value is a hint; no item memory is read on the strength of it (items
        // are handed over by the stack's Release/Acquire or under the mutex). A caller
        // whose protocol needs "a push that happened-before this load is seen" gets that
        // from its own synchronisation plus coherence, whatever this ordering.
        self.stack.len.load(Relaxed)
    }

    /// True when no item is queued, read without the lock (a snapshot that may be stale).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `item` at the back; gives it back as `Err(item)` once the queue is closed.
    pub fn push(&self, item: T) -> Result<(), T> {
        let ptr = item.into_raw();
        // SAFETY: `ptr..=ptr` is a one-node chain we own (just converted).
        match unsafe { self.push_chain(ptr, ptr, 1) } {
            Ok(()) => Ok(()),
            // SAFETY: refused, so `ptr` is still ours; it came from `into_raw`.
            Err(()) => Err(unsafe { T::from_raw(ptr) }),
        }
    }

    /// Links the items into a chain without any shared write, then appends the chain with
    /// one CAS, in order.
    ///
    /// Once the queue is closed every item comes back, in order, as `Err(chain)`.
    /// An empty batch returns `Ok(())` and touches nothing.
    pub fn push_batch(&self, items: impl IntoIterator<Item = T>) -> Result<(), Chain<T>> {
        let mut items = items.into_iter();
        let Some(first) = items.next() else {
            return Ok(());
        };
        let first = first.into_raw();
        // Linked newest first (the stack's order): `top` is the last item, `first` the
        // bottom. Owned by `batch` meanwhile (a `Chain` from `top`), so that if the iterator
        // panics the items linked so far are dropped (each is linked before it is counted).
        // SAFETY: `first` is ours; its link is private until published.
        unsafe { T::set_next(first, None) };
        let mut batch = Chain::<T> {
            head: Some(first),
            len: 1,
            _items: PhantomData,
        };
        for item in items {
            let ptr = item.into_raw();
            // SAFETY: `ptr` is ours and unpublished; it points at the chain built so far.
            unsafe { T::set_next(ptr, batch.head) };
            batch.head = Some(ptr);
            batch.len += 1;
        }
        let (top, n) = (batch.head.take().expect("a non-empty batch"), batch.len);
        batch.len = 0;
        // SAFETY: `top..=first` is our chain of `n` nodes, linked newest first.
        match unsafe { self.push_chain(top, first, n) } {
            Ok(()) => Ok(()),
            Err(()) => {
                // Refused: give the items back oldest first.
                // SAFETY: the chain is still ours, `n` nodes from `top`, ending in `None`.
                let (head, _, _) = unsafe { reverse_all::<T>(top) };
                Err(Chain {
                    head: Some(head),
                    len: n,
                    _items: PhantomData,
                })
            }
        }
    }

    /// Publishes the chain `top..=bottom` of `n` nodes (linked newest first, `bottom`'s
    /// link `None`) on the stack; `Err` (chain untouched) once the queue is closed.
    ///
    /// # Safety
    ///
    /// The caller owns the chain; on `Ok` ownership of its items passes to the queue.
    unsafe fn push_chain(
        &self,
        top: NonNull<T::Node>,
        bottom: NonNull<T::Node>,
        n: usize,
    ) -> Result<(), ()> {
        // Counted before it is visible, so `len` never under-counts (see the module doc).
        // Relaxed: a hint; see `len`.
        self.stack.len.fetch_add(n, Relaxed);
        // Relaxed: only compared, never dereferenced; the CAS below orders the publication.
        let mut cur = self.stack.head.load(Relaxed);
        loop {
            if cur & CLOSED != 0 {
                self.stack.len.fetch_sub(n, Relaxed);
                // SAFETY: `bottom` is ours (never published); a failed CAS may have pointed
                // it into the stack, so end the chain again.
                unsafe { T::set_next(bottom, None) };
                return Err(());
            }
            // SAFETY: `bottom` is ours and not yet published.
            unsafe { T::set_next(bottom, node(cur)) };
            // Release: publishes the chain's links and the items to the consumer that takes
            // the stack with its Acquire `fetch_and` (later pushes' CASes continue this
            // release sequence).
            match self
                .stack
                .head
                .compare_exchange_weak(cur, addr(top), Release, Relaxed)
            {
                Ok(_) => return Ok(()),
                Err(now) => cur = now,
            }
        }
    }

    /// Moves everything on the stack, oldest first, to the back of the locked list.
    fn take_stack(&self, list: &mut List<T::Node>) {
        // Acquire: pairs with the pushes' Release CAS. Leaves only the CLOSED bit.
        let word = self.stack.head.fetch_and(CLOSED, Acquire);
        let Some(top) = node::<T::Node>(word) else {
            return;
        };
        // SAFETY: we took the whole stack, so its nodes are ours; it ends in `None`.
        let (first, last, n) = unsafe { reverse_all::<T>(top) };
        match list.tail {
            // SAFETY: `tail` is a list node and we hold the lock.
            Some(tail) => unsafe { T::set_next(tail, Some(first)) },
            None => list.head = Some(first),
        }
        list.tail = Some(last);
        list.len += n;
    }

    /// Removes the item at the front.
    pub fn pop(&self) -> Option<T> {
        self.pop_n(1).next()
    }

    /// Detaches up to `n` items from the front under one lock; the returned [`Chain`]
    /// iterates (and drops) them without the lock.
    pub fn pop_n(&self, n: usize) -> Chain<T> {
        // A racy emptiness check spares the lock when there is nothing to take; an item
        // pushed concurrently may be missed, as it could have been by a pop a moment earlier.
        if n == 0 || self.is_empty() {
            return Chain::empty();
        }
        let mut list = self.list.lock();
        if list.len < n {
            self.take_stack(&mut list);
        }
        let take = n.min(list.len);
        let Some(first) = list.head else {
            return Chain::empty();
        };
        let mut last = first;
        for _ in 1..take {
            // SAFETY: `last` is one of the first `take <= len` list nodes; lock held.
            last = unsafe { T::next(last) }.expect("inject list shorter than its length");
        }
        // SAFETY: as above. The chain's own iteration counts by `len`, so `last`'s link
        // needs no clearing.
        list.head = unsafe { T::next(last) };
        if list.head.is_none() {
            list.tail = None;
        }
        list.len -= take;
        // Relaxed: a hint; see `len`.
        self.stack.len.fetch_sub(take, Relaxed);
        drop(list);
        Chain {
            head: Some(first),
            len: take,
            _items: PhantomData,
        }
    }

    /// Calls `f` with each queued item's node, oldest first, under the consumers' lock,
    /// after moving the producers' stack into the list as a pop would (so the walk sees
    /// every push that completed before it). For inspection (task dumps): the items stay
    /// queued and owned by the queue, so `f` may only read the nodes, and must not touch
    /// this queue (its lock is held).
    pub fn for_each_node(&self, mut f: impl FnMut(NonNull<T::Node>)) {
        if self.is_empty() {
            return;
        }
        let mut list = self.list.lock();
        self.take_stack(&mut list);
        let mut cur = list.head;
        for _ in 0..list.len {
            let Some(ptr) = cur else { break };
            f(ptr);
            // SAFETY: `ptr` is one of the first `len` list nodes; we hold the lock.
            cur = unsafe { T::next(ptr) };
        }
    }

    /// Closes the queue: later pushes are refused, pops still drain what is left.
    /// Returns true if this call closed it (false if it already was closed).
    pub fn close(&self) -> bool {
        // A push that lost the race to this RMW sees CLOSED and is refused (atomicity,
        // whatever the ordering). Acquire: takes in every push that got in before the
        // close, for `closed`'s readers below (Release only fails loom_inject's
        // `drain_after_is_closed_finds_every_accepted_push`; Relaxed fails
        // loom_scheduler's `current_thread_shutdown_while_waking`, "Arc leaked"). No
        // Release: nobody learns anything from the CLOSED bit. A push refused on it read
        // it Relaxed and reads nothing of the closer's; a pop's `fetch_and` that reads
        // this RMW's value takes the pushes' chain through their own release sequence,
        // which an RMW of any ordering continues; whoever needs what the closer did
        // before the close reads `closed` (the Release store below). The weakening sweep
        // found no model, in the queue suites or loom_scheduler's shutdown models, that
        // tells AcqRel here from Acquire.
        let was = self.stack.head.fetch_or(CLOSED, Acquire);
        // Release: pairs with `is_closed`'s Acquire. A consumer that learns of the close
        // there and then drains (the multi-thread runtime's last worker out) must find
        // every push that got in before the close: this RMW acquired them, and the
        // Release passes them on, so the drain's Relaxed length check cannot read a count
        // from before such a push (loom: `drain_after_is_closed_finds_every_accepted_push`
        // fails with this store or that load Relaxed, or this RMW Release only).
        self.closed.store(true, Release);
        was & CLOSED == 0
    }

    /// True once [`close`](Inject::close) has been called. Read without touching the
    /// producers' line: a caller ordered after the close (e.g. woken by the closer) sees
    /// it; pushes are refused by the CLOSED bit, whatever this returns.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Acquire)
    }
}

/// Reverses the `None`-terminated chain from `top`; returns (new head, new tail, length).
///
/// # Safety
///
/// The caller owns every node of the chain.
unsafe fn reverse_all<T: Link>(
    top: NonNull<T::Node>,
) -> (NonNull<T::Node>, NonNull<T::Node>, usize) {
    let (mut prev, mut cur, mut n) = (None, Some(top), 0);
    while let Some(ptr) = cur {
        // SAFETY: `ptr` is a node of the owned chain (caller).
        unsafe {
            cur = T::next(ptr);
            T::set_next(ptr, prev);
        }
        prev = Some(ptr);
        n += 1;
    }
    (prev.expect("a non-empty chain"), top, n)
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
        self.take_stack(&mut list);
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
