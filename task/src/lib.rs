//! The runtime's task: one allocation, a state word, wakers and a `JoinHandle`.
//!
//! A spawned future lives in a single heap block, `Header | Core | Trailer` (core.rs):
//! the header is the hot cache line every queue and waker touches, the trailer holds what
//! is rarely needed. References to the block are counted in the state word (state.rs):
//!
//! - [`Task`]: the owned list's reference ([`OwnedTasks`]), so shutdown reaches every idle
//!   task. A task joins the list only at its first park (list.rs): until then the list's
//!   reference rides with the task's run (its `Notified`, then its poller);
//! - [`Notified`]: a run queue's reference, existing only while NOTIFIED is set; running it
//!   consumes it;
//! - [`JoinHandle`]: the awaiting side; wakers: one reference each.
//!
//! Waking is cheap by design (no reference-count traffic for a wake): `wake_by_ref`
//! on an idle task sets NOTIFIED and takes the queue's reference in one CAS; waking a
//! running task only marks it and its poller re-schedules it after the poll
//! (`Schedule::yield_now`: the scheduler tells a yield from another's wake); waking a complete task does nothing.
//!
//! The scheduler plugs in through [`Schedule`]; this crate knows nothing of workers.
//! Queues hold `Notified` through [`queue::Link`], implemented on the header's link.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod cell_cache;
mod core;
mod harness;
mod id;
mod inspect;
mod join;
mod list;
mod meta;
mod state;
mod wait_block;
pub mod waits;
mod waker;

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

pub use crate::core::Header;
pub use crate::id::{current as current_id, Id};
pub use crate::inspect::{waker_task, waker_task_id, TaskState, TaskView};
pub use crate::join::{AbortHandle, JoinError, JoinHandle};
pub use crate::list::OwnedTasks;
pub use crate::meta::{current_meta, current_raw_meta, meta_of, RawMeta, SpawnMeta, TaskMeta};
pub use crate::waker::wake_self_by_ref;

/// What a scheduler provides to its tasks. A task's poller lends its own to each run
/// (`Notified::run`); a task that parks keeps a clone (`Core::scheduler`) for its wakers.
pub trait Schedule: Clone + Send + Sync + Sized + 'static {
    /// A task was woken: put it on a run queue.
    fn schedule(&self, task: Notified<Self>);

    /// A bound task completed: remove it from the owned list, returning the list's
    /// reference when the list held it. (A task that completes before its first park was
    /// never in the list; this is not called for it.)
    fn release(&self, task: &Task<Self>) -> Option<Task<Self>>;

    /// An unbound task is about to park (its poll returned `Pending`): put the list's
    /// reference `task` into the owned list (`OwnedTasks::bind`), or hand it back when the
    /// list is closed, and the poller cancels the task. Called on the poller's scheduler;
    /// on success the task keeps a clone of it.
    fn bind(&self, task: Task<Self>) -> Result<(), Task<Self>>;

    /// A task woke itself while running (e.g. `yield_now`): re-schedule it behind the
    /// other runnable tasks. Defaults to `schedule`.
    fn yield_now(&self, task: Notified<Self>) {
        self.schedule(task);
    }
}

/// The owned list's reference to a task.
pub struct Task<S: 'static> {
    raw: NonNull<Header>,
    _p: PhantomData<S>,
}

// SAFETY: a task reference only reaches thread-safe state (atomics, or data behind the
// RUNNING/shard-lock protocols); futures are required to be Send at spawn, except those
// of `OwnedTasks::spawn_local`, whose contract keeps every access to the future (poll,
// cancel, dropping an unbound `Notified`) on the owner thread.
unsafe impl<S> Send for Task<S> {}
// SAFETY: as above.
unsafe impl<S> Sync for Task<S> {}

impl<S: 'static> Task<S> {
    /// # Safety
    /// The caller hands over one reference to a task scheduled by `S`.
    pub(crate) unsafe fn from_raw(raw: NonNull<Header>) -> Self {
        Task {
            raw,
            _p: PhantomData,
        }
    }

    pub(crate) fn header(&self) -> &Header {
        // SAFETY: our reference keeps the task live.
        unsafe { self.raw.as_ref() }
    }

    /// Cancels the task at runtime shutdown; consumes the owned list's reference. True
    /// when it was cancelled here (false: complete already, or its poller will cancel it).
    pub(crate) fn shutdown(self) -> bool {
        let me = ManuallyDrop::new(self);
        // SAFETY: we give up the list's reference, and the task was taken off the list.
        unsafe { (me.header().vtable.shutdown)(me.raw) }
    }
}

impl<S: 'static> Drop for Task<S> {
    fn drop(&mut self) {
        // SAFETY: we give up our reference.
        unsafe { harness::drop_reference(self.raw) }
    }
}

impl<S: 'static> fmt::Debug for Task<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Task({:p})", self.raw)
    }
}

/// A run queue's reference to a task that must be polled. Running it consumes it.
/// Dropping it drops the reference, and for a task that never parked (unbound: in no
/// list, so this `Notified` is the only way to reach it) cancels the task first, so a
/// queue drained or refused at shutdown loses no future; [`Notified::shutdown`] does the
/// same and says whether it cancelled. Drop it where a future's destructor may run: not
/// under a lock that waking a task takes.
pub struct Notified<S: 'static>(ManuallyDrop<Task<S>>);

impl<S: 'static> Notified<S> {
    /// # Safety
    /// The caller hands over one notified reference.
    pub(crate) unsafe fn from_raw(raw: NonNull<Header>) -> Self {
        // SAFETY: forwarded from the caller.
        Notified(ManuallyDrop::new(unsafe { Task::from_raw(raw) }))
    }

    /// Polls the task once (or cancels it, if it was aborted), on behalf of `scheduler`:
    /// the scheduler of the calling worker, which the task uses for what its poll decides
    /// (a yield, its first park). True when this run completed the task (with its output,
    /// a panic or a cancellation).
    pub fn run(self, scheduler: &S) -> bool
    where
        S: Schedule,
    {
        let raw = ManuallyDrop::new(self).0.raw;
        // SAFETY: we give up the notified reference to the poll; the vtable is the one of
        // a `Cell<_, S>`, whose poll reads the erased pointer back as `&S`.
        unsafe { (raw.as_ref().vtable.poll)(raw, NonNull::from(scheduler).cast()) }
    }

    /// Disposes of a task taken off a run queue at shutdown, after the owned list was
    /// closed: a plain drop, which cancels an unbound task (see `Drop`); a bound one was
    /// cancelled through the list. True when this call cancelled the task.
    pub fn shutdown(self) -> bool {
        // An unbound task's `Notified` means idle and NOTIFIED, so its cancellation in
        // `drop` always succeeds.
        let cancels = !self.is_bound();
        drop(self);
        cancels
    }

    /// The task's header address: its identity while it lives (as
    /// [`TaskView::header`](crate::TaskView::header) gives it).
    #[inline]
    pub fn addr(&self) -> usize {
        self.0.raw.as_ptr() as usize
    }

    /// True once the task joined its owned list (it parked at least once).
    pub fn is_bound(&self) -> bool {
        self.0.header().is_bound()
    }

    /// The task's identity: id (assigned now if nobody asked for it before), name, spawn
    /// location.
    pub fn meta(&self) -> meta::TaskMeta {
        // SAFETY: this notified reference keeps the task live for the call.
        unsafe { meta::meta_of(self.0.raw) }
    }
}

impl<S: 'static> Drop for Notified<S> {
    fn drop(&mut self) {
        let raw = self.0.raw;
        if self.0.header().is_bound() {
            // SAFETY: we give up our reference (the inner `Task` is never dropped).
            unsafe { harness::drop_reference(raw) }
        } else {
            // SAFETY: an unbound task's `Notified` holds the list's reference as well, and
            // the task is idle and NOTIFIED (only a poller turns an unbound task's run into
            // anything else): `shutdown` takes RUNNING and completes it, dropping both.
            unsafe { (raw.as_ref().vtable.shutdown)(raw) };
        }
    }
}

impl<S: 'static> fmt::Debug for Notified<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Notified({:p})", self.0.raw)
    }
}

// SAFETY: `into_raw`/`from_raw` round-trip the one notified reference, and the
// `queue_next` link is only touched by the queue that currently holds that reference.
unsafe impl<S: 'static> queue::Link for Notified<S> {
    type Node = Header;

    fn into_raw(self) -> NonNull<Header> {
        ManuallyDrop::new(self).0.raw
    }

    unsafe fn from_raw(ptr: NonNull<Header>) -> Self {
        // SAFETY: the queue gives back the reference `into_raw` handed it.
        unsafe { Notified::from_raw(ptr) }
    }

    unsafe fn next(ptr: NonNull<Header>) -> Option<NonNull<Header>> {
        // SAFETY: the task is live while queued; the link belongs to the holding queue.
        unsafe { ptr.as_ref() }.queue_next.with(|p| unsafe { *p })
    }

    unsafe fn set_next(ptr: NonNull<Header>, next: Option<NonNull<Header>>) {
        // SAFETY: as in `next`.
        unsafe { ptr.as_ref() }
            .queue_next
            .with_mut(|p| unsafe { *p = next })
    }
}
