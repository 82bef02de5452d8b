//! The single allocation behind a task: `#[repr(C)] Cell { Header | Core | Trailer }`.
//!
//! - `Header` (hot, first, one cache line): the state word, the intrusive run-queue link,
//!   the vtable, the owner id and owned-list shard (packed in one word). Everything a
//!   queue or a waker touches.
//! - `Core`: the scheduler handle (set when the task binds, see below) and the stage
//!   (future, then output, then consumed).
//! - `Trailer` (cold): the task's identity word (id, name, spawn location: meta.rs), the
//!   join waker and the owned-list links.
//!
//! Type-erased code holds a `NonNull<Header>`; the vtable (one static per `<T, S>`) knows
//! how to reach `Core<T, S>` and the `Trailer` from it. Access rules:
//! - `Core::stage`: only the holder of RUNNING (or, after COMPLETE, the JoinHandle when it
//!   had join interest; see `state.rs`).
//! - `Core::scheduler`: `None` until the task binds. Written once: by `spawn_bound` at
//!   allocation, or by the poller at the task's first park (holding RUNNING, before the
//!   task can go idle). Read only for a bound task, by whoever acts on it after a state
//!   transition ordered after that write: a waker that found it idle, its next poller or
//!   completer, the list's shutdown, the last reference's dealloc. An unbound task needs no
//!   scheduler of its own: it is never idle, so no waker ever schedules it (see list.rs),
//!   and its poller lends its own (`Notified::run`). So a task that never parks never
//!   touches the scheduler's reference count.
//! - `Header::queue_next`: only the run queue currently holding the task.
//! - `Trailer::owned_*`: only under the owned-list shard lock of `Header::owner`.
//! - `Header::owner`: written by the task's runner only, when it binds the task at its
//!   first park (see `list.rs`).
//! - `Trailer::waker`: per the JOIN_WAKER bit.

use std::future::Future;
use std::ptr::NonNull;
use std::task::Waker;

use shim::cell::UnsafeCell;
use shim::sync::atomic::AtomicU64;

use crate::join::JoinError;
use crate::state::State;
use crate::Schedule;

/// The hot part of a task; first in the allocation.
#[repr(C)]
pub struct Header {
    pub(crate) state: State,
    /// Link for the intrusive inject queue.
    pub(crate) queue_next: UnsafeCell<Option<NonNull<Header>>>,
    pub(crate) vtable: &'static Vtable,
    /// Where the task is bound: the id of its `OwnedTasks` (nonzero, the high 48 bits)
    /// and the shard of that list holding it (the low 16 bits); an id of 0 while the task
    /// is unbound (spawned, queued or running, not yet parked: see `list.rs`). Written
    /// by the holder of the task's run (its one `Notified`, or RUNNING), once, by `bind`;
    /// read by whoever later holds a reference that the
    /// state word's (or a queue's) Release/Acquire hand-off ordered after that write.
    /// One word, so a typical small task stays within malloc's fast-bin sizes.
    pub(crate) owner: AtomicU64,
}

// SAFETY: every field is either atomic, immutable after construction, or accessed only
// under the protocol in the module doc (queue ownership, RUNNING, shard lock, JOIN_WAKER).
unsafe impl Send for Header {}
// SAFETY: as above.
unsafe impl Sync for Header {}

/// The cold part of a task; last in the allocation.
pub(crate) struct Trailer {
    /// The task's identity: id (assigned at its first use), name, spawn location (meta.rs).
    pub(crate) meta: crate::meta::MetaSlot,
    pub(crate) owned_prev: UnsafeCell<Option<NonNull<Header>>>,
    pub(crate) owned_next: UnsafeCell<Option<NonNull<Header>>>,
    pub(crate) waker: UnsafeCell<Option<Waker>>,
}

/// What the task holds: the future until it finishes, then its output until taken.
pub(crate) enum Stage<T: Future> {
    Running(T),
    Finished(Result<T::Output, JoinError>),
    Consumed,
}

pub(crate) struct Core<T: Future, S> {
    pub(crate) scheduler: UnsafeCell<Option<S>>,
    pub(crate) stage: UnsafeCell<Stage<T>>,
}

#[repr(C)]
pub(crate) struct Cell<T: Future, S> {
    pub(crate) header: Header,
    pub(crate) core: Core<T, S>,
    pub(crate) trailer: Trailer,
}

/// Type-erased operations of one `<T, S>` task type.
pub(crate) struct Vtable {
    /// The second argument is the poller's `&S`, erased.
    pub(crate) poll: unsafe fn(NonNull<Header>, NonNull<()>) -> bool,
    pub(crate) schedule: unsafe fn(NonNull<Header>),
    pub(crate) dealloc: unsafe fn(NonNull<Header>),
    pub(crate) try_read_output: unsafe fn(NonNull<Header>, *mut (), &Waker),
    pub(crate) drop_join_handle_slow: unsafe fn(NonNull<Header>),
    pub(crate) shutdown: unsafe fn(NonNull<Header>) -> bool,
    pub(crate) trailer_offset: usize,
}

impl<T: Future, S: Schedule> Cell<T, S> {
    pub(crate) const VTABLE: Vtable = Vtable {
        poll: crate::harness::poll::<T, S>,
        schedule: crate::harness::schedule::<T, S>,
        dealloc: crate::harness::dealloc::<T, S>,
        try_read_output: crate::harness::try_read_output::<T, S>,
        drop_join_handle_slow: crate::harness::drop_join_handle_slow::<T, S>,
        shutdown: crate::harness::shutdown::<T, S>,
        trailer_offset: std::mem::offset_of!(Cell<T, S>, trailer),
    };

    /// Allocates the task: the one allocation of its life (from this thread's cache of
    /// freed task blocks when it has one of the size: cell_cache.rs).
    /// `scheduler` is `Some` only for a task bound at spawn (`OwnedTasks::spawn_bound`).
    pub(crate) fn allocate(
        future: T,
        scheduler: Option<S>,
        owner: u64,
        meta: crate::meta::SpawnMeta,
    ) -> NonNull<Header> {
        let ptr = crate::cell_cache::alloc::<Cell<T, S>>();
        let cell = Cell {
            header: Header {
                state: State::new(),
                queue_next: UnsafeCell::new(None),
                vtable: &Self::VTABLE,
                owner: AtomicU64::new(owner),
            },
            core: Core {
                scheduler: UnsafeCell::new(scheduler),
                stage: UnsafeCell::new(Stage::Running(future)),
            },
            trailer: Trailer {
                meta: crate::meta::MetaSlot::new(meta),
                owned_prev: UnsafeCell::new(None),
                owned_next: UnsafeCell::new(None),
                waker: UnsafeCell::new(None),
            },
        };
        // SAFETY: fresh memory with room and alignment for a `Cell<T, S>` (cell_cache.rs).
        unsafe { ptr.as_ptr().write(cell) };
        ptr.cast()
    }
}

impl Header {
    /// True once the task is in its owned list (or was, until completion or shutdown).
    pub(crate) fn is_bound(&self) -> bool {
        // Relaxed: see `owner`.
        self.owner.load(shim::sync::atomic::Ordering::Relaxed) >> crate::list::SHARD_BITS != 0
    }

    /// The trailer of the task whose header `this` points to.
    ///
    /// # Safety
    /// `this` must point to the header of a live task.
    pub(crate) unsafe fn trailer<'a>(this: NonNull<Header>) -> &'a Trailer {
        // SAFETY: the header is live (caller), and `trailer_offset` was computed with
        // `offset_of!` on the very `Cell<T, S>` this header starts.
        unsafe {
            let offset = this.as_ref().vtable.trailer_offset;
            &*this.as_ptr().cast::<u8>().add(offset).cast::<Trailer>()
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn header_fits_one_cache_line() {
        assert!(std::mem::size_of::<Header>() <= 64);
        // Four words: state, queue link, vtable, owner.
        assert_eq!(std::mem::size_of::<Header>(), 32);
        // The header is first in the allocation, so a task pointer is a header pointer.
        type C = Cell<std::future::Ready<()>, ()>;
        assert_eq!(std::mem::offset_of!(C, header), 0);
    }

    /// With a one-word scheduler handle, a task whose future takes 32 bytes is a 120-byte
    /// allocation: within glibc's fast bins (requests up to 120 bytes), which a thread
    /// frees into without the allocator's lock. A word more and every task spawned on one
    /// thread and freed on another takes that lock.
    #[test]
    fn a_small_task_fits_the_fast_bins() {
        type Fut = std::future::Ready<[u64; 3]>;
        assert_eq!(std::mem::size_of::<Fut>(), 32);
        type C = Cell<Fut, std::sync::Arc<()>>;
        assert!(
            std::mem::size_of::<C>() <= 120,
            "{}",
            std::mem::size_of::<C>()
        );
    }
}
