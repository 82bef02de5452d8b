//! The per-worker run queue: a fixed-capacity single-producer multi-consumer ring
//! (Go's `runq`, tokio's `queue::Local`).
//!
//! `CAPACITY` slots are indexed by wrapping `u32` positions (`pos & MASK`). Two atomics:
//! - `tail: AtomicU32`, the next position to push; stored only by the owner (`Local`).
//! - `head: AtomicU64` packing two `u32` halves `(steal, real)`. `real` is the next
//!   position to pop; `steal` lags behind it while a thief copies the range `[steal, real)`
//!   it has claimed. When no steal is in flight, `steal == real`.
//!
//! Invariants: `steal <= real <= tail` and `tail - steal <= CAPACITY` (wrapping
//! arithmetic). Slots in `[real, tail)` hold items owned by the queue; `[steal, real)` are
//! being read by exactly one thief; every other slot is free and only the owner writes one
//! (it may write slot `tail` only while `tail - steal < CAPACITY`).
//!
//! - push (owner): write slot `tail`, Release-store `tail + 1`. Full (`tail - steal ==
//!   CAPACITY`): if no steal is in flight, claim the front half with one CAS on `head` and
//!   move it plus the new item to the inject queue in one batch (one lock-free CAS onto its
//!   stack, no lock); if a thief is mid-steal the ring cannot be halved, so the item alone
//!   goes to the inject queue.
//! - pop (owner): CAS `real` one forward (and `steal` with it when they were equal).
//! - last_node (owner): the node address of slot `tail - 1` while `real != tail`: a read
//!   of a slot only the owner writes (a thief copying it out only reads it too), taking
//!   nothing.
//! - steal (thief): one CAS moves `real` forward by half the items (rounded up), keeping
//!   `steal`, which claims `[steal, real)`; copy the claimed items into the thief's own
//!   ring; a second CAS sets `steal = real`, handing the slots back to the owner. Only one
//!   steal per ring at a time: a thief that sees `steal != real` gives up.
//!
//! Progress (the contract `Steal::steal_into` keeps, and the loom suite asserts): a steal
//! returns nothing only if the ring was empty at some point during the call, another steal
//! was in progress on it, or `dst` had no room. So a claim CAS that lost only to the owner's
//! pop is retried, the commit CAS is retried until it lands (only the owner's pops can move
//! `head` under a claim), and no steal leaves the ring mid-steal once it returns: after
//! the thieves are done, a fresh steal of a ring holding `n` items takes `ceil(n / 2)` and
//! the owner can fill every slot again before it overflows.
//!
//! Orderings, in brief (each site says why): slot contents travel owner -> thief through
//! the owner's Release store of `tail` and the thief's Acquire load of it; slot reuse
//! travels thief -> owner through the thief's Release commit CAS and the owner's Acquire
//! load of `head` before it writes a slot. The owner's pop/overflow CASes are Release so a
//! thief that Acquire-loads `head` sees a `tail` no older than that `real`: the thief's
//! first head load and its claim CAS's failure are Relaxed guesses, and only when the pair
//! it read is inconsistent (`tail - real > CAPACITY`: a head newer than the tail, or a tail
//! newer than the head) does it Acquire-reload `head`. The owner reads its own `tail`
//! Relaxed (it is the only writer).
//!
//! No lock and no allocation after construction on the ring itself; only the overflow path
//! touches the inject queue (one CAS onto its lock-free stack, no lock), once per
//! `CAPACITY / 2 + 1` items.
//!
//! Indices wrap at `u32::MAX`; a thief's CAS could only be fooled by ABA after 2^32 pops
//! between its load and its CAS, which we accept (as tokio and Go do).

use core::fmt;
use core::mem::MaybeUninit;
use core::ptr::{self, NonNull};

use crossbeam_utils::CachePadded;
use shim::cell::UnsafeCell;
use shim::sync::atomic::{
    AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};
use shim::sync::Arc;

use crate::{Inject, Link};

/// `debug_assert!` that also fires under loom, whose suites run in release mode.
macro_rules! invariant {
    ($($arg:tt)*) => {
        if cfg!(any(debug_assertions, loom)) {
            assert!($($arg)*);
        }
    };
}

/// Slots in each ring: a power of two, small under loom so overflow and wrap are reachable.
pub const CAPACITY: usize = if cfg!(loom) { 4 } else { 256 };

const MASK: u32 = CAPACITY as u32 - 1;
/// Items moved to the inject queue by an overflow (plus the pushed item).
const HALF: u32 = CAPACITY as u32 / 2;

const _: () = assert!(CAPACITY.is_power_of_two() && CAPACITY >= 2 && CAPACITY <= 1 << 31);

/// The shared state of one ring.
struct Inner<T> {
    /// `(steal << 32) | real`, see the module doc.
    head: CachePadded<AtomicU64>,
    /// Next position to push; stored only by the owner.
    tail: CachePadded<AtomicU32>,
    buffer: Box<[UnsafeCell<MaybeUninit<T>>]>,
}

// SAFETY: `Inner` owns the items in `[real, tail)`; handing the ring to another thread
// hands it those items, so `T: Send` is needed and sufficient.
unsafe impl<T: Send> Send for Inner<T> {}
// SAFETY: shared access is the point of the ring. Slot accesses are made exclusive by the
// head/tail protocol (see the module doc and the `SAFETY` notes at each access), and items
// only ever move between threads by value, so `T: Send` suffices (no `&T` is shared).
unsafe impl<T: Send> Sync for Inner<T> {}

impl<T> Drop for Inner<T> {
    /// The last `Arc` frees the buffer. `Local::drop` already moved the items out, so only
    /// memory goes; touching each slot mutably first lets loom check that every thief's
    /// read of a slot happens-before the free (a plain `Box` drop is invisible to it).
    /// Outside loom the closures are empty and the loop compiles to nothing.
    fn drop(&mut self) {
        for slot in self.buffer.iter() {
            slot.with_mut(|_| ());
        }
    }
}

/// The owner's handle: push and pop. `!Clone`; `Send` when `T: Send`.
pub struct Local<T: Link> {
    inner: Arc<Inner<T>>,
}

/// A thief's handle: steal half into your own ring. `Clone + Send + Sync` when `T: Send`.
pub struct Steal<T: Link> {
    inner: Arc<Inner<T>>,
}

/// Creates an empty ring: the stealing handle and the owner's handle.
pub fn local<T: Link>() -> (Steal<T>, Local<T>) {
    local_with_start(0)
}

/// Like [`local`], with `head` and `tail` starting at `start` (tests use a start near
/// `u32::MAX` to cross the index wrap-around).
#[doc(hidden)]
pub fn local_with_start<T: Link>(start: u32) -> (Steal<T>, Local<T>) {
    let buffer = (0..CAPACITY)
        .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
        .collect();
    let inner = Arc::new(Inner {
        head: CachePadded::new(AtomicU64::new(pack(start, start))),
        tail: CachePadded::new(AtomicU32::new(start)),
        buffer,
    });
    (
        Steal {
            inner: inner.clone(),
        },
        Local { inner },
    )
}

#[inline(always)]
fn pack(steal: u32, real: u32) -> u64 {
    (u64::from(steal) << 32) | u64::from(real)
}

#[inline(always)]
fn unpack(head: u64) -> (u32, u32) {
    ((head >> 32) as u32, head as u32)
}

impl<T> Inner<T> {
    /// The slot of position `pos`, without a bounds check.
    #[inline(always)]
    fn slot(&self, pos: u32) -> &UnsafeCell<MaybeUninit<T>> {
        debug_assert_eq!(self.buffer.len(), CAPACITY);
        // SAFETY: the buffer is built with exactly CAPACITY slots and never resized, and
        // `pos & MASK < CAPACITY`.
        unsafe { self.buffer.get_unchecked((pos & MASK) as usize) }
    }

    /// Moves the item out of the slot at `pos`.
    ///
    /// # Safety
    ///
    /// The caller has exclusive read access to the slot (it holds `pos` in `[real, tail)`
    /// through a successful CAS, or in a claimed `[steal, real)` range), the slot was
    /// initialised and that write happens-before this read, and the caller treats the slot
    /// as uninitialised afterwards.
    #[inline(always)]
    unsafe fn read(&self, pos: u32) -> T {
        let slot = self.slot(pos);
        // SAFETY: per this function's contract.
        slot.with(|p| unsafe { ptr::read(p).assume_init() })
    }

    /// Moves `item` into the free slot at `pos`.
    ///
    /// # Safety
    ///
    /// Only the ring's owner calls this, on a slot outside `[steal, tail)` whose last reader
    /// (if any) happens-before this write.
    #[inline(always)]
    unsafe fn write(&self, pos: u32, item: T) {
        let slot = self.slot(pos);
        // SAFETY: per this function's contract.
        slot.with_mut(|p| unsafe { ptr::write(p, MaybeUninit::new(item)) });
    }

    /// Items available to a thief, `tail - real`.
    fn len(&self) -> usize {
        // Relaxed: the count is a hint (spin and park re-checks), no slot is read on its
        // strength, and it never reports empty a ring whose push happened-before this call
        // (coherence gives us that tail or a later one, and `real` can only have passed it
        // by taking the item). A head newer than the tail we read makes the difference wrap:
        // the clamp below turns that into "not empty", at worst one spurious wake-up. (Found
        // by the weakening sweep: no model can tell Acquire here from Relaxed.)
        let (_, real) = unpack(self.head.load(Relaxed));
        // Relaxed: only a count is computed; coherence after the Acquire above is enough.
        let tail = self.tail.load(Relaxed);
        // The tail may be newer than the head we read (the owner pushed on after a pop or
        // steal we have not seen), so the difference can exceed the capacity: clamp it.
        (tail.wrapping_sub(real) as usize).min(CAPACITY)
    }
}

impl<T: Link> Local<T> {
    /// Own `tail`: only this handle stores it, so a Relaxed load returns our last store
    /// (coherence). On x86 and ARM this is the plain load an unsynchronised read would be.
    #[inline(always)]
    fn tail(&self) -> u32 {
        self.inner.tail.load(Relaxed)
    }

    /// Number of items the owner can still pop (excludes a range a thief is copying out).
    pub fn len(&self) -> usize {
        // Relaxed: the owner reads head monotonically (coherence); a stale `real` only
        // overstates the count, never past CAPACITY since `tail - steal <= CAPACITY`
        // held at our last push.
        let (_, real) = unpack(self.inner.head.load(Relaxed));
        self.tail().wrapping_sub(real) as usize
    }

    /// True when the owner has nothing to pop.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when at least one slot is free (so a push will not overflow).
    pub fn has_room(&self) -> bool {
        // Relaxed: a stale `steal` is smaller than the real one, which can only make us
        // answer "no room" early, never overwrite anything (this reads no slot).
        let (steal, _) = unpack(self.inner.head.load(Relaxed));
        (self.tail().wrapping_sub(steal) as usize) < CAPACITY
    }

    /// Pushes `item` at the back.
    ///
    /// If the ring is full, moves half the ring (`CAPACITY / 2` oldest items) plus `item`
    /// to `inject` in ONE `push_batch` (one CAS, no lock) and returns how many items went to
    /// `inject`; returns 0 on the normal path. If a thief is mid-steal the ring cannot be
    /// halved, and `item` alone goes to `inject` (returns 1). Never grows and never loses
    /// an item: if `inject` is closed the overflowed items are dropped (their `Drop` runs)
    /// and 0 is returned, as nothing went to `inject`.
    pub fn push_back(&mut self, mut item: T, inject: &Inject<T>) -> usize {
        let tail = self.tail();
        loop {
            // Acquire: pairs with a thief's Release commit (directly or through the release
            // sequence of later head RMWs), so its reads of the slots it copied happen-before
            // our write below reuses one of them.
            let (steal, real) = unpack(self.inner.head.load(Acquire));
            if (tail.wrapping_sub(steal) as usize) < CAPACITY {
                // SAFETY: we are the owner and `tail - steal < CAPACITY`, so slot `tail` is
                // outside `[steal, tail)` (a stale `steal` is only smaller, so still safe);
                // its last reader committed before our Acquire above.
                unsafe { self.inner.write(tail, item) };
                // Release: publishes the slot write to thieves, who Acquire-load tail.
                self.inner.tail.store(tail.wrapping_add(1), Release);
                return 0;
            }
            if steal != real {
                // A thief is copying `[steal, real)`; halving would have to wait for it.
                return match inject.push(item) {
                    Ok(()) => 1,
                    Err(item) => {
                        drop(item);
                        0
                    }
                };
            }
            match self.push_overflow(item, real, tail, inject) {
                Ok(moved) => return moved,
                // A thief took items meanwhile: there may be room now, retry.
                Err(back) => item = back,
            }
        }
    }

    /// The full-ring path: claims `[real, real + HALF)` and moves it plus `item` to `inject`.
    /// Gives `item` back if a thief or pop changed `head` first.
    #[cold]
    #[inline(never)]
    fn push_overflow(
        &mut self,
        item: T,
        real: u32,
        tail: u32,
        inject: &Inject<T>,
    ) -> Result<usize, T> {
        invariant!(
            tail.wrapping_sub(real) as usize == CAPACITY,
            "overflow of a ring not full"
        );
        let new_real = real.wrapping_add(HALF);
        // Success Release: a thief that Acquire-loads the new head must then see a tail at
        // least `new_real` (our tail stores precede this CAS). The claimed slots were
        // written by us, so no Acquire is needed. Failure Relaxed: we just retry, and the
        // retry Acquire-loads head again.
        if self
            .inner
            .head
            .compare_exchange(pack(real, real), pack(new_real, new_real), Release, Relaxed)
            .is_err()
        {
            return Err(item);
        }
        let batch = Overflow {
            inner: &self.inner,
            pos: real,
            end: new_real,
            item: Some(item),
        };
        match inject.push_batch(batch) {
            Ok(()) => Ok(HALF as usize + 1),
            Err(refused) => {
                drop(refused);
                Ok(0)
            }
        }
    }

    /// The node of the item pushed last, while it is still queued here; the item stays
    /// where it is. An address to compare, not to dereference: a thief may take the item
    /// (and its task end) right after.
    pub fn last_node(&self) -> Option<NonNull<T::Node>> {
        let tail = self.tail();
        // Relaxed: only the owner writes slots, and `real` only tells whether slot
        // `tail - 1` still holds an item.
        let (_, real) = unpack(self.inner.head.load(Relaxed));
        if real == tail {
            return None;
        }
        let slot = self.inner.slot(tail.wrapping_sub(1));
        // SAFETY: `tail - 1` was in `[real, tail)`, so the slot holds an item this owner
        // wrote (program order). A thief may be copying it out meanwhile: both only read.
        // The copy is handed straight to `into_raw`, which gives its ownership up without
        // dropping anything, so the queued item stays the only owner.
        let copy = slot.with(|p| unsafe { ptr::read(p).assume_init() });
        Some(T::into_raw(copy))
    }

    /// Pops from the front (FIFO).
    pub fn pop(&mut self) -> Option<T> {
        let tail = self.tail();
        // Relaxed: a starting guess the CAS validates; we read no slot written by another
        // thread (only the owner writes slots), so we need no Acquire.
        let mut head = self.inner.head.load(Relaxed);
        let real = loop {
            let (steal, real) = unpack(head);
            if real == tail {
                return None;
            }
            let next_real = real.wrapping_add(1);
            let next = if steal == real {
                pack(next_real, next_real)
            } else {
                pack(steal, next_real)
            };
            // Success Release: a thief that Acquire-loads this head must then see a tail at
            // least `next_real` (our tail stores precede it), else its `tail - real` could
            // wrap. Failure Relaxed: retry with the fresh value, as above.
            match self
                .inner
                .head
                .compare_exchange_weak(head, next, Release, Relaxed)
            {
                Ok(_) => break real,
                Err(actual) => head = actual,
            }
        };
        // SAFETY: our CAS moved `real` past `real` with `real < tail`, so the slot is ours
        // alone; we (the owner) wrote it, so the write happens-before by program order.
        Some(unsafe { self.inner.read(real) })
    }
}

/// The items leaving in an overflow: slots `[pos, end)` of the ring, then the pushed item.
/// Drops whatever it did not yield.
struct Overflow<'a, T> {
    inner: &'a Inner<T>,
    pos: u32,
    end: u32,
    item: Option<T>,
}

impl<T> Iterator for Overflow<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.pos == self.end {
            return self.item.take();
        }
        let pos = self.pos;
        self.pos = pos.wrapping_add(1);
        // SAFETY: the owner's overflow CAS claimed `[pos, end)` (no thief can claim it:
        // `real` is past it), the owner wrote these slots, and `pos` advances past each
        // slot read so it is read once.
        Some(unsafe { self.inner.read(pos) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.wrapping_sub(self.pos) as usize + usize::from(self.item.is_some());
        (n, Some(n))
    }
}

impl<T> Drop for Overflow<'_, T> {
    fn drop(&mut self) {
        for item in self.by_ref() {
            drop(item);
        }
    }
}

impl<T: Link> Drop for Local<T> {
    /// Drops the remaining items (a range a thief is copying out belongs to that thief).
    fn drop(&mut self) {
        while let Some(item) = self.pop() {
            drop(item);
        }
    }
}

impl<T: Link> fmt::Debug for Local<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Local").field("len", &self.len()).finish()
    }
}

impl<T: Link> Steal<T> {
    /// Number of items a thief could see (a snapshot).
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// True when there is nothing to steal (a snapshot).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Steals half (rounded up) of this queue's items into `dst` and returns one of them
    /// (the oldest) to run now; the rest go to the back of `dst` in order.
    ///
    /// Returns `None` without stealing when `dst` is more than half full, when this queue
    /// is empty, when another thief is mid-steal on it, or when `dst` is this very queue.
    ///
    /// Progress: those are the only reasons. A steal returns `None` only if this queue was
    /// empty at some point during the call, another steal was in progress on it, or `dst`
    /// had no room; racing the owner's pops alone never makes it give up (it retries), and
    /// it never returns leaving the queue mid-steal. With no rival thief, a steal of a queue
    /// holding `n` items takes `ceil(n / 2)`: one returned, the rest pushed to `dst`.
    pub fn steal_into(&self, dst: &mut Local<T>) -> Option<T> {
        if Arc::ptr_eq(&self.inner, &dst.inner) {
            return None;
        }
        let dst_tail = dst.tail();
        // Acquire: pairs with the Release commit of any thief of `dst`, so its reads of
        // `dst` slots happen-before our writes into them below.
        let (dst_steal, _) = unpack(dst.inner.head.load(Acquire));
        if dst_tail.wrapping_sub(dst_steal) as usize > CAPACITY / 2 {
            return None;
        }

        // Claim: move `real` forward by n, keeping `steal`.
        // Relaxed: a starting guess. Safety rests on the claim CAS (a stale head fails it)
        // and on the tail Acquire below (slot contents); a head newer than the tail we load
        // next (`tail - real` wraps) sends us to the reload branch, whose Acquire bounds
        // the wait. (The weakening sweep found no model that tells Acquire here from
        // Relaxed: it only saved that one reload.)
        let mut head = self.inner.head.load(Relaxed);
        let (first, n) = loop {
            let (steal, real) = unpack(head);
            if steal != real {
                // Another thief is mid-steal on this ring.
                return None;
            }
            // Acquire: pairs with the owner's Release tail store, so the owner's writes of
            // the slots in `[real, tail)` happen-before our reads of them.
            let tail = self.inner.tail.load(Acquire);
            let avail = tail.wrapping_sub(real);
            if avail as usize > CAPACITY {
                // Our `head` is newer than this tail (or the tail is from after a newer head
                // than ours): the claim CAS would fail or our count be wrong; reload both.
                // Acquire: pairs with the Release of the head update we read (owner pop or
                // overflow, thief commit), which the owner's tail store of at least that
                // `real` precedes, so the tail we load next is at least `real`: this branch
                // is taken once per head. This is the one head load of the claim loop that
                // must acquire: with it Relaxed too, a thief can spin on a stale tail
                // (loom: "Model exceeded maximum number of branches" in push_pop_vs_thief).
                head = self.inner.head.load(Acquire);
                continue;
            }
            let n = avail - avail / 2;
            if n == 0 {
                return None;
            }
            // Success Relaxed: the slots we will read were published by the tail Acquire
            // above, and while `steal` stays at `real` the owner cannot overwrite them; we
            // publish nothing here (other thieves that see this value give up without
            // reading tail). Failure Relaxed: a failed CAS returns the latest head, which
            // we loop on as on the first (Relaxed) load, the reload branch acquiring when
            // it must. (Found by the weakening sweep: no model can tell Acquire here from
            // Relaxed.)
            match self.inner.head.compare_exchange_weak(
                head,
                pack(steal, real.wrapping_add(n)),
                Relaxed,
                Relaxed,
            ) {
                Ok(_) => break (real, n),
                Err(actual) => head = actual,
            }
        };

        // Copy: the oldest item is returned, the other n - 1 go to `dst` in order.
        // SAFETY: our CAS claimed `[first, first + n)`: no pop or other steal can take it,
        // and the owner cannot overwrite it while `steal == first`; its writes
        // happen-before our reads through the tail Acquire in the claim loop.
        let ret = unsafe { self.inner.read(first) };
        for i in 1..n {
            // SAFETY: as above for the source slot.
            let item = unsafe { self.inner.read(first.wrapping_add(i)) };
            // SAFETY: we are `dst`'s owner (`&mut Local`); `dst_tail - dst_steal <=
            // CAPACITY / 2` and `n - 1 < CAPACITY / 2`, so the slot lies outside
            // `[dst_steal, dst_tail)`; its last reader committed before our Acquire of
            // `dst.head` above.
            unsafe { dst.inner.write(dst_tail.wrapping_add(i - 1), item) };
        }

        // Commit: `steal = real`, handing the copied-out slots back to the owner.
        let mut head = pack(first, first.wrapping_add(n));
        loop {
            let (steal, real) = unpack(head);
            invariant!(steal == first, "steal moved under a claim");
            // Success Release: our reads of the claimed slots happen-before the owner's
            // Acquire of this head (or of a later RMW in its release sequence) and so before
            // it overwrites them. Failure Relaxed: the owner popped meanwhile (only it can
            // move `real` while we hold the claim); we only need the new `real`.
            match self
                .inner
                .head
                .compare_exchange_weak(head, pack(real, real), Release, Relaxed)
            {
                Ok(_) => break,
                Err(actual) => head = actual,
            }
        }

        if n > 1 {
            // Release: publishes the slot writes into `dst` to `dst`'s thieves.
            dst.inner.tail.store(dst_tail.wrapping_add(n - 1), Release);
        }
        Some(ret)
    }
}

impl<T: Link> Clone for Steal<T> {
    fn clone(&self) -> Self {
        Steal {
            inner: self.inner.clone(),
        }
    }
}

impl<T: Link> fmt::Debug for Steal<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Steal").field("len", &self.len()).finish()
    }
}
