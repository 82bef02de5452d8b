//! Task memory recycled per thread: a freed task's block waits in its thread's cache for
//! the next spawn of a task of the same size class, instead of going back to the global
//! allocator at once.
//!
//! **Why.** A task is one allocation (core.rs), made at spawn and freed when its last
//! reference goes; with the system allocator that pair costs more instructions than the
//! task's whole spawn, poll and completion put together (glibc: about 130 of a chained
//! spawn's 520, about 200 of a remote spawn's 730 when one thread spawns and others free).
//! Most tasks are freed on a worker thread, and a worker spawns the next: a free list per
//! thread serves that spawn with a few loads and stores and no atomic; and where one
//! thread spawns what others free (remote spawns, an accept loop's connections), freed
//! blocks travel back to it in batches, one lock per batch.
//!
//! **Size classes.** Blocks are grouped into classes `GRANULE` bytes apart, each the
//! largest request that fits one of the system allocator's chunk sizes (glibc's chunks are
//! 16-byte multiples with an 8-byte head: requests of 24, 40, ..., 120, 136 bytes), so
//! rounding a task up to its class costs no memory the allocator would not have spent,
//! and never moves a task out of the allocator's fast bins (requests up to 120 bytes); up
//! to `MAX_SIZE`. Smaller, larger or over-aligned tasks bypass the cache. Every block of
//! class `k` is allocated from the global allocator with one layout (`class_layout(k)`:
//! its size, and `GRANULE` alignment), so any block of the class fits any task of the
//! class, and a block leaves the cache with the layout it was allocated with.
//!
//! **Two levels.** Each thread keeps, per class, an intrusive free list (a free block's
//! first word links the next) in a `thread_local!`: `free` pushes, `alloc` pops. A
//! thread's lists hold about `MAX_BYTES` together at most; a free that finds them full
//! moves the `BATCH` most recently freed blocks of its class, as one chain, to the *depot*: per class, a mutex-guarded shelf of up to `SHELF_BATCHES`
//! chains, and at most `DEPOT_MAX` bytes over all classes. An `alloc` that finds its list
//! empty takes a whole chain from the depot. When the depot is full the chain goes back to
//! the global allocator; when it is empty the spawn allocates. So a thread that only
//! frees (a worker running remote spawns) feeds the depot, a thread that only spawns
//! (the remote spawner) draws from it, and each pays one lock per `BATCH` tasks.
//!
//! **Invariants.** Only the owning thread touches its lists (plain `Cell`s, no atomics);
//! a shelf is touched only under its lock, and a chain on a shelf belongs to nobody
//! else. A block is in at most one list or chain, and only while no task lives in it
//! (`free`'s caller gave up the last reference and dropped the cell's contents). Memory
//! held: per thread at most `MAX_BYTES` plus one chain (a refill may overshoot by one),
//! and in the depot at most `DEPOT_MAX`; a thread's lists are returned to the global
//! allocator when it exits (a free after its thread-local is gone goes straight there),
//! the depot's stay for the process's life, bounded.
//!
//! Under loom the cache is off (every allocation goes to the global allocator): models
//! run many executions on one OS thread, and a block carried from one execution into the
//! next would only blur what each explores.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// Size-class spacing, and every cached block's alignment.
const GRANULE: usize = 16;

/// What the allocator's chunk holds besides the request (class `k` is `k * GRANULE +
/// HEAD` bytes: the largest request of the `(k + 1) * GRANULE`-byte chunk).
const HEAD: usize = 8;

const CLASSES: usize = 64;

/// The smallest task the cache serves: class 0 (8 bytes, less than its alignment) is
/// left out; no task is that small (its header alone is 32 bytes).
const MIN_SIZE: usize = 9;

/// The largest task the cache serves.
const MAX_SIZE: usize = (CLASSES - 1) * GRANULE + HEAD;

/// The size class of `layout`, if the cache serves it.
#[inline(always)]
const fn class_of(layout: Layout) -> Option<usize> {
    if layout.size() < MIN_SIZE || layout.size() > MAX_SIZE || layout.align() > GRANULE {
        None
    } else {
        Some((layout.size() + GRANULE - HEAD - 1) / GRANULE)
    }
}

/// The layout every block of class `k` is allocated and freed with.
#[inline(always)]
const fn class_layout(k: usize) -> Layout {
    // A nonzero size, at most `MAX_SIZE`, and a power-of-two alignment.
    match Layout::from_size_align(k * GRANULE + HEAD, GRANULE) {
        Ok(layout) => layout,
        Err(_) => panic!("size classes are valid layouts"),
    }
}

/// Allocates uninitialized memory for a `C` (a task's cell).
#[inline(always)]
pub(crate) fn alloc<C>() -> NonNull<C> {
    let layout = Layout::new::<C>();
    let layout = match class_of(layout) {
        Some(k) => {
            #[cfg(not(loom))]
            if let Some(block) = cache::pop(k) {
                return block.cast();
            }
            class_layout(k)
        }
        None => layout,
    };
    // SAFETY: `layout` has a nonzero size (a task cell holds at least its header).
    let ptr = unsafe { alloc::alloc(layout) };
    match NonNull::new(ptr) {
        Some(ptr) => ptr.cast(),
        None => alloc::handle_alloc_error(layout),
    }
}

/// Frees memory that `alloc::<C>` returned.
///
/// # Safety
/// `ptr` came from `alloc::<C>()`, is not freed yet, and nothing reads or writes it any
/// more (its contents were dropped or moved out).
#[inline(always)]
pub(crate) unsafe fn free<C>(ptr: NonNull<C>) {
    let layout = Layout::new::<C>();
    let layout = match class_of(layout) {
        Some(k) => {
            // SAFETY: a block of class `k` (the caller's `alloc::<C>`), no longer used.
            #[cfg(not(loom))]
            if unsafe { cache::push(k, ptr.cast()) } {
                return;
            }
            class_layout(k)
        }
        None => layout,
    };
    // SAFETY: allocated by the global allocator with this very layout (`alloc::<C>`).
    unsafe { alloc::dealloc(ptr.as_ptr().cast(), layout) }
}

#[cfg(not(loom))]
mod cache {
    use std::cell::Cell;
    use std::ptr::{self, NonNull};
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::sync::{Mutex, PoisonError};

    use super::{class_layout, CLASSES};

    /// Blocks that move between a thread's list and the depot at once.
    pub(super) const BATCH: usize = 32;

    /// About the most bytes one thread's lists hold together (see the module doc): a worker's
    /// steady churn of tasks and a batch or two to trade, small beside a thread's stack.
    pub(super) const MAX_BYTES: usize = 256 * 1024;

    /// Chains one class's depot shelf holds (16,384 blocks; the shelf's array is 4 KiB,
    /// one page, touched only for the classes in use).
    pub(super) const SHELF_BATCHES: usize = 512;

    /// The most bytes the depot holds over all classes: a burst of about ten thousand
    /// small tasks between a spawning thread and the workers that free them (an accept
    /// loop's connections, a fan-out). At a quarter of this (4,096 blocks a class), a
    /// spawner of 10,000-task bursts got only 57% of its blocks back from the workers and
    /// paid glibc for the rest: 90 more instructions per remote spawn (of 670).
    pub(super) const DEPOT_MAX: usize = 8 * 1024 * 1024;

    /// A free block's first word: the next free block of its list or chain (null at a
    /// chain's end).
    struct Free {
        next: *mut Free,
    }

    struct Cache {
        /// Per class, the head of this thread's free list.
        lists: [Cell<*mut Free>; CLASSES],
        /// Bytes held in all lists.
        bytes: Cell<usize>,
    }

    impl Drop for Cache {
        fn drop(&mut self) {
            for (k, list) in self.lists.iter().enumerate() {
                // SAFETY: the list's blocks are cached blocks of class `k`, linked.
                unsafe { dealloc_chain(k, list.replace(ptr::null_mut())) };
            }
            self.bytes.set(0);
        }
    }

    thread_local! {
        static CACHE: Cache = const {
            Cache {
                lists: [const { Cell::new(ptr::null_mut()) }; CLASSES],
                bytes: Cell::new(0),
            }
        };
    }

    /// One class's chains in the depot (`BATCH` blocks each, linked by their first word).
    struct Shelf {
        chains: [*mut Free; SHELF_BATCHES],
        len: usize,
    }

    // SAFETY: a shelf's chains are free blocks that belong to no thread; only the holder
    // of the shelf's lock touches them.
    unsafe impl Send for Shelf {}

    static DEPOT: [Mutex<Shelf>; CLASSES] = [const {
        Mutex::new(Shelf {
            chains: [ptr::null_mut(); SHELF_BATCHES],
            len: 0,
        })
    }; CLASSES];

    /// Bytes on all shelves: claimed by a spill before it shelves a chain, released by a
    /// refill after it takes one. A bound, not a synchronization: Relaxed (each shelf's
    /// chains are published by its lock).
    static DEPOT_BYTES: AtomicUsize = AtomicUsize::new(0);

    fn shelf(k: usize) -> std::sync::MutexGuard<'static, Shelf> {
        // Nothing panics while a shelf is locked; a poisoned one is still consistent.
        DEPOT[k].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Frees every block of a chain (null-terminated) of class `k`.
    ///
    /// # Safety
    /// The chain's blocks are free blocks of class `k` that belong to the caller.
    unsafe fn dealloc_chain(k: usize, mut block: *mut Free) {
        while !block.is_null() {
            // SAFETY: a free block of class `k` (caller): its first word links the next,
            // and it was allocated with `class_layout(k)`.
            unsafe {
                let next = (*block).next;
                std::alloc::dealloc(block.cast(), class_layout(k));
                block = next;
            }
        }
    }

    /// A cached block of class `k`, if this thread (or the depot) has one.
    #[inline(always)]
    pub(super) fn pop(k: usize) -> Option<NonNull<u8>> {
        CACHE
            .try_with(|cache| {
                let list = &cache.lists[k];
                let mut block = list.get();
                if block.is_null() {
                    block = refill(cache, k)?;
                }
                // SAFETY: a cached block's first word links the next (`push`, or a chain
                // taken from the depot).
                list.set(unsafe { (*block).next });
                cache.bytes.set(cache.bytes.get() - class_layout(k).size());
                NonNull::new(block.cast())
            })
            .ok()
            .flatten()
    }

    /// An empty list of class `k` takes a chain from the depot: its first block.
    #[cold]
    fn refill(cache: &Cache, k: usize) -> Option<*mut Free> {
        let bytes = BATCH * class_layout(k).size();
        let chain = {
            let mut shelf = shelf(k);
            if shelf.len == 0 {
                return None;
            }
            shelf.len -= 1;
            DEPOT_BYTES.fetch_sub(bytes, Relaxed);
            shelf.chains[shelf.len]
        };
        cache.lists[k].set(chain);
        cache.bytes.set(cache.bytes.get() + bytes);
        Some(chain)
    }

    /// Keeps `block` for a later `pop(k)`; false when this thread cannot keep it (at its
    /// byte cap with less than a batch of this class to move, or its thread-local gone),
    /// and the caller frees it.
    ///
    /// # Safety
    /// `block` was allocated with `class_layout(k)` and is no longer used by anyone.
    #[inline(always)]
    pub(super) unsafe fn push(k: usize, block: NonNull<u8>) -> bool {
        CACHE
            .try_with(|cache| {
                let size = class_layout(k).size();
                if cache.bytes.get() + size > MAX_BYTES && !spill(cache, k) {
                    return false;
                }
                cache.bytes.set(cache.bytes.get() + size);
                let list = &cache.lists[k];
                let block = block.cast::<Free>().as_ptr();
                // SAFETY: the block is ours (caller), at least `MIN_SIZE` bytes and
                // `GRANULE`-aligned: room and alignment for the link.
                unsafe { block.write(Free { next: list.get() }) };
                list.set(block);
                true
            })
            .unwrap_or(false)
    }

    /// A thread at its byte cap hands the `BATCH` most recently freed blocks of class `k`,
    /// as one chain, to the depot, or back to the global allocator when the depot is full.
    /// False when the list holds less than a batch (the cap was reached by other classes).
    #[cold]
    fn spill(cache: &Cache, k: usize) -> bool {
        let list = &cache.lists[k];
        let chain = list.get();
        if chain.is_null() {
            return false;
        }
        let mut last = chain;
        for _ in 1..BATCH {
            // SAFETY: a list block: its first word links the next (null at the end).
            last = unsafe { (*last).next };
            if last.is_null() {
                return false;
            }
        }
        // SAFETY: `last` is the batch's last block, a list block.
        unsafe {
            list.set((*last).next);
            (*last).next = ptr::null_mut();
        }
        let bytes = BATCH * class_layout(k).size();
        cache.bytes.set(cache.bytes.get() - bytes);
        let mut shelf = shelf(k);
        if shelf.len < SHELF_BATCHES {
            // Claimed before it is checked, so racing spills of other classes never
            // overshoot the cap together.
            if DEPOT_BYTES.fetch_add(bytes, Relaxed) + bytes <= DEPOT_MAX {
                let at = shelf.len;
                shelf.chains[at] = chain;
                shelf.len += 1;
                return true;
            }
            DEPOT_BYTES.fetch_sub(bytes, Relaxed);
        }
        drop(shelf);
        // SAFETY: the chain was detached from this thread's list above: ours.
        unsafe { dealloc_chain(k, chain) };
        true
    }

    /// Chains of class `k` on the depot's shelf (tests).
    #[cfg(test)]
    pub(super) fn shelved(k: usize) -> usize {
        shelf(k).len
    }

    /// Bytes in this thread's lists (tests).
    #[cfg(test)]
    pub(super) fn held() -> usize {
        CACHE.with(|cache| cache.bytes.get())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::cache::{BATCH, DEPOT_MAX, MAX_BYTES, SHELF_BATCHES};
    use super::*;

    #[test]
    fn classes_round_up_to_the_allocators_chunks() {
        assert_eq!(class_of(Layout::new::<[u8; 8]>()), None);
        assert_eq!(class_of(Layout::new::<[u8; 9]>()), Some(1));
        assert_eq!(class_of(Layout::new::<[u8; 24]>()), Some(1));
        assert_eq!(class_of(Layout::new::<[u8; 25]>()), Some(2));
        // The largest fast-bin request stays one.
        assert_eq!(
            class_layout(class_of(Layout::new::<[u8; 113]>()).unwrap()).size(),
            120
        );
        assert_eq!(
            class_layout(class_of(Layout::new::<[u8; 121]>()).unwrap()).size(),
            136
        );
        for size in MIN_SIZE..=MAX_SIZE {
            let k = class_of(Layout::from_size_align(size, 1).unwrap()).unwrap();
            let class = class_layout(k).size();
            assert!(class >= size && class < size + GRANULE, "{size} -> {class}");
        }
        assert_eq!(class_of(Layout::new::<[u8; MAX_SIZE + 1]>()), None);
        assert_eq!(class_of(Layout::from_size_align(64, 64).unwrap()), None);
        assert_eq!(class_layout(CLASSES - 1).size(), MAX_SIZE);
    }

    #[test]
    fn a_freed_block_serves_the_next_task_of_its_class() {
        let a = alloc::<[u64; 5]>();
        // SAFETY: just allocated, unused.
        unsafe { free(a) };
        // 40 and 32 bytes share a class: the block comes back for either type.
        let b = alloc::<[u64; 4]>();
        assert_eq!(a.cast::<u8>(), b.cast::<u8>());
        // SAFETY: just allocated, unused.
        unsafe { free(b) };
    }

    /// One thread frees what another allocates (remote spawns): the freeing thread's
    /// list stays within its cap, the rest reaches the depot in batches, and the other
    /// thread's allocations come from there. A class no other test uses (the depot is
    /// shared by the process).
    #[test]
    fn blocks_freed_on_one_thread_serve_another_through_the_depot() {
        type Block = [u8; 1000];
        let k = class_of(Layout::new::<Block>()).unwrap();
        let n = MAX_BYTES / MAX_SIZE + 4 * BATCH;
        let blocks: Vec<usize> = std::thread::spawn(move || {
            let blocks: Vec<NonNull<Block>> = (0..n).map(|_| alloc::<Block>()).collect();
            for &b in &blocks {
                // SAFETY: allocated above, unused.
                unsafe { free(b) };
            }
            assert!(cache::held() <= MAX_BYTES);
            blocks.iter().map(|b| b.as_ptr() as usize).collect()
        })
        .join()
        .unwrap();
        assert!(
            cache::shelved(k) >= 1,
            "a full list moves batches to the depot"
        );
        std::thread::spawn(move || {
            let got: Vec<NonNull<Block>> = (0..BATCH).map(|_| alloc::<Block>()).collect();
            for b in &got {
                assert!(
                    blocks.contains(&(b.as_ptr() as usize)),
                    "a block freed on the other thread"
                );
            }
            for b in got {
                // SAFETY: allocated above, unused.
                unsafe { free(b) };
            }
        })
        .join()
        .unwrap();
    }

    /// The depot stops at its byte cap: freeing more than it holds leaves at most
    /// `DEPOT_MAX` bytes on the shelves (the rest went back to the global allocator),
    /// before the class's shelf is full.
    #[test]
    fn the_depot_stops_at_its_cap() {
        type Block = [u8; 600];
        let k = class_of(Layout::new::<Block>()).unwrap();
        let size = class_layout(k).size();
        // The byte cap binds before the shelf's: the test checks the byte cap.
        assert!(SHELF_BATCHES * BATCH * size > DEPOT_MAX);
        std::thread::spawn(move || {
            let n = (SHELF_BATCHES + 4) * BATCH;
            let blocks: Vec<NonNull<Block>> = (0..n).map(|_| alloc::<Block>()).collect();
            for b in blocks {
                // SAFETY: allocated above, unused.
                unsafe { free(b) };
            }
        })
        .join()
        .unwrap();
        let shelved = cache::shelved(k);
        assert!(
            shelved * BATCH * size <= DEPOT_MAX,
            "{shelved} chains of {size}"
        );
        assert!(shelved > 0);
    }
}
