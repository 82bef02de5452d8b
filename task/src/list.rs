//! `OwnedTasks`: every live task of one runtime, so shutdown can reach them all.
//!
//! The list is sharded: one intrusive doubly linked list per shard (links in the task
//! trailer), each behind its own cache-padded lock. A runtime gives each worker its own
//! shard, so a spawn and a completion on the same worker take an uncontended, unshared
//! lock; a task that completes elsewhere locks its home shard (`Header::owner` names it).
//!
//! Invariants: a task is in at most one list, its links are touched only under its
//! shard's lock, and an unlinked task has both links `None` (so removing a task that is not
//! in the list is detected, not corrupting). Once a shard is closed nothing is bound to it:
//! a spawn after shutdown is cancelled on the spot.
//!
//! Tasks bind late: at their first park, not at spawn. `spawn` only allocates the task
//! and hands back its `Notified`, with the list's reference riding along (`Header::owner`
//! is 0: unbound; the task holds no scheduler either, see `Core::scheduler`). While unbound a task is always either in a run queue (that one
//! `Notified`) or being polled, never idle, so it is reachable without the list. When a
//! poll returns `Pending` and the task would go idle (reachable only through wakers), its
//! poller first binds it to the current worker's shard (`bind`, via `Schedule::bind`); a
//! task that completes in its first poll never touches the list at all: no shard lock at
//! spawn, none at completion. At shutdown a closed list refuses the bind (the poller
//! cancels the task), and queue drains cancel unbound tasks (`Notified::shutdown`).

use std::future::Future;
use std::marker::PhantomData;
use std::mem;
use std::ptr::NonNull;

use crossbeam_utils::CachePadded;
use shim::sync::atomic::{AtomicBool, Ordering};
use shim::sync::Mutex;

use crate::core::{Cell, Header};
use crate::inspect::TaskView;
use crate::join::JoinHandle;
use crate::meta::SpawnMeta;
use crate::{Notified, Schedule, Task};

/// The live tasks of one runtime.
pub struct OwnedTasks<S: 'static> {
    shards: Box<[CachePadded<Mutex<Shard>>]>,
    id: u64,
    closed: AtomicBool,
    _p: PhantomData<S>,
}

struct Shard {
    head: Option<NonNull<Header>>,
    len: usize,
    closed: bool,
}

// SAFETY: the raw task pointers are only followed under the shard lock, and tasks are Send.
unsafe impl Send for Shard {}

/// `Header::owner` of a task not bound to any list yet (any owner word whose id, the high
/// bits, is 0).
pub(crate) const UNBOUND: u64 = 0;
/// Bits of `Header::owner` holding the shard; the list id takes the other 48.
pub(crate) const SHARD_BITS: u32 = 16;
/// Most shards a list has (more workers share shards, modulo).
const MAX_SHARDS: usize = 1 << SHARD_BITS;

fn next_owner_id() -> u64 {
    // One per runtime (not per spawn). A plain std atomic even under loom: it is a global
    // id source, not part of any protocol the model checks. Relaxed: only uniqueness matters.
    // 48 bits: a process would have to build a runtime every microsecond for nine years
    // to wrap it.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) & ((1 << (64 - SHARD_BITS)) - 1)
}

/// Allocates a task with owner word `owner` and returns its three initial references:
/// the list's, the run queue's and the JoinHandle's.
fn new_task<T, S>(
    future: T,
    scheduler: Option<S>,
    owner: u64,
    meta: SpawnMeta,
) -> (Task<S>, Notified<S>, JoinHandle<T::Output>)
where
    T: Future + Send + 'static,
    T::Output: Send + 'static,
    S: Schedule,
{
    let ptr = Cell::<T, S>::allocate(future, scheduler, owner, meta);
    // SAFETY: a new task holds three references: these three handles.
    unsafe {
        (
            Task::<S>::from_raw(ptr),
            Notified::<S>::from_raw(ptr),
            JoinHandle::<T::Output>::from_raw(ptr),
        )
    }
}

impl<S: Schedule> OwnedTasks<S> {
    /// A list with `shards` shards (at least one, at most 65,536).
    pub fn new(shards: usize) -> Self {
        let shards = (0..shards.clamp(1, MAX_SHARDS))
            .map(|_| {
                CachePadded::new(Mutex::new(Shard {
                    head: None,
                    len: 0,
                    closed: false,
                }))
            })
            .collect();
        OwnedTasks {
            shards,
            id: next_owner_id(),
            closed: AtomicBool::new(false),
            _p: PhantomData,
        }
    }

    /// This list's id: unique in the process (nonzero), fixed for the list's life. A
    /// runtime's id (`runtime::Id`) is its list's.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Allocates a task for `future` without binding it (see the module doc) and returns
    /// its JoinHandle and, unless the list is closed, the `Notified` to schedule, which
    /// carries the list's reference until a poller binds the task. On a closed list the
    /// task is cancelled at once and the JoinHandle reports it.
    /// The task holds no scheduler until then either: its pollers lend theirs
    /// (`Notified::run`), and `bind` gives it its own.
    /// `meta` is the task's identity (its spawn location, and name if any).
    pub fn spawn<T>(
        &self,
        future: T,
        meta: SpawnMeta,
    ) -> (JoinHandle<T::Output>, Option<Notified<S>>)
    where
        T: Future + Send + 'static,
        T::Output: Send + 'static,
    {
        let (task, notified, join) = new_task(future, None, UNBOUND, meta);
        // The list's reference now travels with `notified`, to be claimed by `bind` (or
        // dropped by completion, or by cancelling the unbound `notified`).
        mem::forget(task);
        if self.is_closed() {
            // Dropping an unbound task's `Notified` cancels it (both references go).
            drop(notified);
            return (join, None);
        }
        (join, Some(notified))
    }

    /// As [`spawn`](Self::spawn), for a future that is not `Send` (a `LocalSet`'s task).
    ///
    /// # Safety
    /// The caller confines the task to the thread calling this (its *owner*): the owner
    /// alone polls every `Notified` of it (`Notified::run`), closes the list
    /// (`close_and_shutdown_all`, which drops idle futures in place), and drops any unbound
    /// `Notified` of it (which cancels the future). Other threads may hold, wake, schedule
    /// and drop wakers, `AbortHandle`s and *bound* `Notified`s: those only touch the state
    /// word and queue links, and the last reference, wherever it drops, frees a task whose
    /// future is gone (the list's reference outlives the future: it is given up only at
    /// completion or by the owner's shutdown) and whose output was dropped by the owner
    /// (at completion, with no `JoinHandle`) or is held by the `JoinHandle`, which is
    /// `Send` only when the output is.
    pub unsafe fn spawn_local<T>(
        &self,
        future: T,
        meta: SpawnMeta,
    ) -> (JoinHandle<T::Output>, Option<Notified<S>>)
    where
        T: Future + 'static,
        T::Output: 'static,
    {
        let ptr = Cell::<T, S>::allocate(future, None, UNBOUND, meta);
        // SAFETY: a new task holds three references: the list's (forgotten below: it rides
        // with the `Notified`, as in `spawn`), the run queue's and the JoinHandle's.
        let (task, notified, join) = unsafe {
            (
                Task::<S>::from_raw(ptr),
                Notified::<S>::from_raw(ptr),
                JoinHandle::<T::Output>::from_raw(ptr),
            )
        };
        mem::forget(task);
        if self.is_closed() {
            // On the owner thread (caller): cancelling the unbound task drops its future here.
            drop(notified);
            return (join, None);
        }
        (join, Some(notified))
    }

    /// Allocates a task for `future` and binds it to shard `shard` (modulo the shard count)
    /// at once, holding `scheduler`, for a scheduler that wants every task in the list from
    /// the start (the blocking pool). Otherwise as [`spawn`](Self::spawn).
    pub fn spawn_bound<T>(
        &self,
        future: T,
        scheduler: S,
        shard: usize,
        meta: SpawnMeta,
    ) -> (JoinHandle<T::Output>, Option<Notified<S>>)
    where
        T: Future + Send + 'static,
        T::Output: Send + 'static,
    {
        let shard = self.shard_index(shard);
        let (task, notified, join) =
            new_task(future, Some(scheduler), self.owner_word(shard), meta);
        let mut lock = self.shards[shard].lock();
        if lock.closed {
            drop(lock);
            drop(notified);
            task.shutdown();
            return (join, None);
        }
        // SAFETY: we hold the shard lock, and the new task is in no list.
        unsafe { lock.push_front(task) };
        (join, Some(notified))
    }

    /// Binds an unbound task that its poller is about to let go idle: `task` is the list's
    /// reference, which rode with the task's run until now. Shard `shard` is taken modulo
    /// the shard count (a runtime passes the polling worker's own). On a closed list the
    /// task is handed back: its poller must cancel it (it still holds RUNNING).
    pub fn bind(&self, task: Task<S>, shard: usize) -> Result<(), Task<S>> {
        let shard = self.shard_index(shard);
        let header = task.header();
        debug_assert!(!header.is_bound(), "bind of a bound task");
        let mut lock = self.shards[shard].lock();
        if lock.closed {
            return Err(task);
        }
        // Relaxed: the poller holds RUNNING; whoever later runs, wakes-and-runs or releases
        // the task reaches it through the state word's AcqRel transitions after this.
        header
            .owner
            .store(self.owner_word(shard), Ordering::Relaxed);
        // SAFETY: we hold the shard lock, and an unbound task is in no list.
        unsafe { lock.push_front(task) };
        Ok(())
    }

    /// `shard` modulo the shard count; no division for a worker's own index.
    fn shard_index(&self, shard: usize) -> usize {
        if shard < self.shards.len() {
            shard
        } else {
            shard % self.shards.len()
        }
    }

    fn owner_word(&self, shard: usize) -> u64 {
        (self.id << SHARD_BITS) | shard as u64
    }

    /// Removes a completed task; gives back the list's reference when the list held it.
    pub fn remove(&self, task: &Task<S>) -> Option<Task<S>> {
        // Relaxed: the binder's write reached us through the state transitions that gave us
        // the task (see `Header::owner`); an unbound task was never in a list.
        let owner = task.header().owner.load(Ordering::Relaxed);
        if owner >> SHARD_BITS != self.id {
            return None;
        }
        let shard = (owner & (MAX_SHARDS as u64 - 1)) as usize;
        let mut lock = self.shards[shard].lock();
        // SAFETY: we hold the lock of the task's shard.
        unsafe { lock.remove(task.raw) }
    }

    /// Bound tasks in all shards (an unbound task is in none).
    // Hidden: a test hook (the crate's integration tests check binding with it). It locks
    // every shard in turn, so it is no gauge for a runtime, which counts its live tasks
    // itself; it is public only because integration tests cannot see `#[cfg(test)]` items.
    #[doc(hidden)]
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().len).sum()
    }

    /// Calls `f` with every bound task, one shard at a time under that shard's lock (never
    /// two locks at once), for task dumps. Nothing is polled or changed: each task is seen
    /// through one load of its state word ([`TaskView`]). `f` runs under the shard's lock,
    /// so it must be quick and take no lock a task's wake, completion or bind may take
    /// (copy out what it needs). Tasks completing or binding meanwhile in other shards may
    /// or may not be seen: the walk is no single instant.
    pub fn for_each_task(&self, mut f: impl FnMut(&TaskView<'_>)) {
        for shard in self.shards.iter() {
            let lock = shard.lock();
            let mut next = lock.head;
            while let Some(ptr) = next {
                // SAFETY: `ptr` is in this shard, which we hold locked: the list's reference
                // keeps it live and its links are ours to read.
                let trailer = unsafe { Header::trailer(ptr) };
                let view = TaskView {
                    header: ptr,
                    // SAFETY: as above, the task is live.
                    snapshot: unsafe { ptr.as_ref() }.state.load(),
                    _list: PhantomData,
                };
                f(&view);
                // SAFETY: links are read under the shard lock.
                next = trailer.owned_next.with(|p| unsafe { *p });
            }
            drop(lock);
        }
    }

    /// True when no task is live.
    pub fn is_empty(&self) -> bool {
        self.shards.iter().all(|s| s.lock().len == 0)
    }

    /// True once `close` or `close_and_shutdown_all` started.
    pub fn is_closed(&self) -> bool {
        // Acquire: pairs with `close`'s Release store, so a spawn refused here (cancelled
        // on the spot) happens-after the close began, as a refusal under a shard lock
        // would (loom: `spawn_refused_by_closed_list_happens_after_close`, which fails
        // with either side Relaxed).
        self.closed.load(Ordering::Acquire)
    }

    /// Closes every shard: from now on nothing is spawned into or bound to the list (a
    /// spawn's task is cancelled at once, a bind is refused), while the tasks already in
    /// it stay, to complete or to be cancelled by a later `close_and_shutdown_all`.
    /// Idempotent.
    pub fn close(&self) {
        // Release: pairs with `is_closed`'s Acquire (see there).
        self.closed.store(true, Ordering::Release);
        for shard in self.shards.iter() {
            shard.lock().closed = true;
        }
    }

    /// Closes every shard (no task binds afterwards), then cancels every bound task,
    /// starting at shard `start` so several workers can share the work. Each future is
    /// dropped exactly once: here if idle, or by its poller after the current poll.
    /// Returns how many tasks were cancelled here.
    pub fn close_and_shutdown_all(&self, start: usize) -> usize {
        self.close();
        let n = self.shards.len();
        let mut cancelled = 0;
        for i in 0..n {
            let shard = &self.shards[(start + i) % n];
            loop {
                // The lock must not be held while shutting down: completion re-locks it.
                let task = shard.lock().pop_front::<S>();
                match task {
                    Some(task) => cancelled += usize::from(task.shutdown()),
                    None => break,
                }
            }
        }
        cancelled
    }
}

impl Shard {
    /// # Safety
    /// The caller holds this shard's lock and `task` is in no list.
    unsafe fn push_front(&mut self, task: Task<impl Schedule>) {
        let ptr = task.raw;
        mem::forget(task);
        // SAFETY: the task is live (we hold its list reference) and its links are ours.
        let trailer = unsafe { Header::trailer(ptr) };
        // SAFETY: a task in no list has its links touched by nobody else, and from now on
        // only under this shard's lock, which we hold (caller).
        trailer.owned_prev.with_mut(|p| unsafe { *p = None });
        // SAFETY: as above.
        trailer.owned_next.with_mut(|p| unsafe { *p = self.head });
        if let Some(old) = self.head {
            // SAFETY: `old` is in this list, so live, and its links are under our lock.
            let old_trailer = unsafe { Header::trailer(old) };
            old_trailer
                .owned_prev
                // SAFETY: as above: `old`'s links are under our lock.
                .with_mut(|p| unsafe { *p = Some(ptr) });
        }
        self.head = Some(ptr);
        self.len += 1;
    }

    fn pop_front<S: Schedule>(&mut self) -> Option<Task<S>> {
        let head = self.head?;
        // SAFETY: `head` is in this list, and we hold the lock (callers only call under it).
        unsafe { self.remove(head) }
    }

    /// # Safety
    /// The caller holds this shard's lock and `ptr` is a live task bound to this shard.
    unsafe fn remove<S: Schedule>(&mut self, ptr: NonNull<Header>) -> Option<Task<S>> {
        // SAFETY: live task (caller), links under our lock.
        let trailer = unsafe { Header::trailer(ptr) };
        // SAFETY: links are read under the shard lock.
        let prev = trailer.owned_prev.with(|p| unsafe { *p });
        // SAFETY: as above.
        let next = trailer.owned_next.with(|p| unsafe { *p });
        match prev {
            // SAFETY: a linked neighbour is in this list and live.
            Some(prev) => unsafe { Header::trailer(prev) }
                .owned_next
                .with_mut(|p| unsafe { *p = next }),
            None => {
                if self.head != Some(ptr) {
                    // Not in the list (already removed, or never bound).
                    return None;
                }
                self.head = next;
            }
        }
        if let Some(next) = next {
            // SAFETY: a linked neighbour is in this list and live.
            unsafe { Header::trailer(next) }
                .owned_prev
                .with_mut(|p| unsafe { *p = prev });
        }
        // SAFETY: links under our lock.
        trailer.owned_prev.with_mut(|p| unsafe { *p = None });
        // SAFETY: as above.
        trailer.owned_next.with_mut(|p| unsafe { *p = None });
        self.len -= 1;
        // SAFETY: the list's reference is handed to the caller.
        Some(unsafe { Task::from_raw(ptr) })
    }
}

impl<S: 'static> Drop for OwnedTasks<S> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            for shard in self.shards.iter() {
                debug_assert!(
                    shard.lock().head.is_none(),
                    "OwnedTasks dropped with live tasks; call close_and_shutdown_all first"
                );
            }
        }
    }
}
