//! Synchronization between tasks.
//!
//! - [`oneshot`]: one value, sent once, from one task (or thread) to another; the receiver
//!   is a future. One allocation and one state word per channel (see the module doc).
//! - [`Semaphore`], [`Mutex`], [`RwLock`]: fair (FIFO) asynchronous locks, all built on one
//!   counting semaphore whose uncontended paths are a single CAS. A lock's value may be
//!   unsized (`Arc<Mutex<dyn Trait>>`), and a guard can be mapped to an unsized part.
//! - [`Notify`]: wake one task or all of them, with tokio's stored-permit semantics.
//! - [`Barrier`], [`OnceCell`] (async initializer), [`SetOnce`] (set once, awaited by
//!   any number of tasks).
//! - [`mpsc`]: many producers, one consumer; bounded (backpressure) and unbounded.
//! - [`watch`]: one value, many readers notified of each change.
//! - [`broadcast`]: many producers, many consumers, each seeing every value (a bounded
//!   ring; a slow consumer is told how many it missed).
//!
//! Every primitive here works outside any runtime (from any executor or a plain thread);
//! the `blocking_*` methods panic inside a runtime, where `.await` is the way. A wait that
//! completes ready spends one unit of the task's cooperative budget, as I/O does.

mod atomic_waker;
mod barrier;
mod batch_semaphore;
pub mod broadcast;
pub mod mpsc;
mod mutex;
mod not_unpin;
mod notify;
mod once_cell;
pub mod oneshot;
mod rwlock;
mod sem_wakes;
mod semaphore;
mod set_once;
mod wait_list;
pub mod watch;

pub use barrier::{Barrier, BarrierWaitResult};
pub use mutex::{
    MappedMutexGuard, Mutex, MutexGuard, OwnedMappedMutexGuard, OwnedMutexGuard, TryLockError,
};
pub use notify::{Notified, Notify, OwnedNotified};
pub use once_cell::{OnceCell, SetError};
pub use rwlock::{
    OwnedRwLockMappedWriteGuard, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock,
    RwLockMappedWriteGuard, RwLockReadGuard, RwLockWriteGuard,
};
pub use semaphore::{
    AcquireError, OwnedSemaphorePermit, Semaphore, SemaphorePermit, TryAcquireError,
};
pub use set_once::{SetOnce, SetOnceError};

/// Named future types (tokio's `sync::futures`).
pub mod futures {
    pub use super::notify::{Notified, OwnedNotified};
}

use std::task::{Context, Poll};

/// Ready when the task has cooperative budget left (spending none); otherwise wakes the
/// task and returns `Pending`, so a wait that would complete yields first. Every wait in
/// this module calls it before completing, then [`spend_budget`].
#[inline]
fn poll_budget(cx: &mut Context<'_>) -> Poll<()> {
    if crate::coop::has_budget_remaining() {
        Poll::Ready(())
    } else {
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Spends one unit of budget for a wait that completed (after `poll_budget` said Ready).
#[inline]
fn spend_budget(cx: &mut Context<'_>) {
    let _ = crate::coop::poll_proceed(cx);
}
