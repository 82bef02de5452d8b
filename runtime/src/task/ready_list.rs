//! `ReadyList`: the completion list behind `JoinSet`, so that a finished task is found in
//! O(1) rather than by scanning the set.
//!
//! Each entry of a set owns a waker (`EntryWaker`: the list and the entry's index). A task
//! wakes its `JoinHandle`'s waker once, when it completes; that wake pushes the entry's
//! index onto the list and takes the set's waker, then wakes it after the lock is released.
//! The set, when polled, installs its waker and takes every pushed index in the same
//! critical section, so a wake either lands in the batch taken or finds the new waker:
//! none is lost. Indices may be stale (the entry was removed meanwhile) or repeated; the
//! set checks each against its slab, so both are harmless.
//!
//! Invariants: no waker is woken or dropped while the lock is held; the list holds only
//! indices pushed since the set last took them.
//!
//! For task dumps, `armed` mirrors "a set's waker is stored" (written under the lock, where
//! the waker is installed or taken) and `tasks` the set's task count (stored by the set,
//! its only writer, at each insert and removal); a set that returns `Pending` records its
//! task's wait in the wait registry (`task::waits`, kind "JoinSet": the list's address,
//! with `tasks` as the record's word, read by a dump at its snapshot), on that slow path
//! only and again only when its waker changed; the record counts while `armed` is set and
//! goes with the set.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc as StdArc;
use std::task::{Wake, Waker};

use shim::sync::{Arc, Mutex};
use task::waits::{Active, StillWaiting, Wait, WaitKind, WaitSlot};

/// The shared half of a `JoinSet`: indices of entries whose task completed, and the
/// waker of whoever polls the set.
#[doc(hidden)]
pub struct ReadyList {
    inner: Mutex<Inner>,
    /// Whether `Inner::waker` holds a waker (for task dumps; written under the lock). A std
    /// atomic even under loom: a label for dumps, it orders nothing.
    armed: AtomicBool,
    /// The set's task count (for task dumps; stored by the set alone). A std atomic, as
    /// `armed`.
    tasks: AtomicU64,
}

struct Inner {
    ready: Vec<usize>,
    waker: Option<Waker>,
}

impl ReadyList {
    /// An empty list.
    pub fn new() -> Arc<ReadyList> {
        Arc::new(ReadyList {
            inner: Mutex::new(Inner {
                ready: Vec::new(),
                waker: None,
            }),
            armed: AtomicBool::new(false),
            tasks: AtomicU64::new(0),
        })
    }

    /// A waker that marks entry `index` ready.
    pub fn entry_waker(this: &Arc<ReadyList>, index: usize) -> Waker {
        Waker::from(StdArc::new(EntryWaker {
            list: this.clone(),
            index,
        }))
    }

    /// Marks `index` ready and wakes the set's waker (taken, so a burst of completions
    /// wakes the set once).
    pub fn push(&self, index: usize) {
        let waker = {
            let mut inner = self.inner.lock();
            inner.ready.push(index);
            // Relaxed: a label (module docs).
            self.armed.store(false, Relaxed);
            inner.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Moves every ready index into `out` (which the caller has drained), installing
    /// `waker` (when given) for the next push in the same critical section.
    pub fn take(&self, out: &mut Vec<usize>, waker: Option<&Waker>) {
        debug_assert!(out.is_empty());
        let old = {
            let mut inner = self.inner.lock();
            std::mem::swap(&mut inner.ready, out);
            let old = match waker {
                Some(w) if !inner.waker.as_ref().is_some_and(|old| old.will_wake(w)) => {
                    inner.waker.replace(w.clone())
                }
                _ => None,
            };
            // Relaxed: a label (module docs).
            self.armed.store(inner.waker.is_some(), Relaxed);
            old
        };
        // The replaced waker is dropped here, outside the lock.
        drop(old);
    }

    /// The set's task count is now `n` (the set's insert and removal; module docs).
    #[inline]
    pub(crate) fn set_tasks(&self, n: usize) {
        // Relaxed: a label (module docs).
        self.tasks.store(n as u64, Relaxed);
    }

    /// Records in `rec`, for task dumps, that the task of `waker` waits on this list's set
    /// (module docs); once per new waker (the slot).
    ///
    /// # Safety
    /// `rec` is forgotten before `this` (the set's `Arc`) goes: the record reads this
    /// list's `armed` and `tasks`.
    #[inline]
    pub(crate) unsafe fn record_wait(this: &Arc<ReadyList>, rec: &mut WaitSlot, waker: &Waker) {
        let wait = Wait::on(WaitKind::JoinSet, Arc::as_ptr(this) as usize);
        let key = (Arc::as_ptr(this) as usize, 0);
        // SAFETY: the test and the word are this list's `armed` and `tasks`, which `this`
        // keeps alive until the set forgets the record (the caller's contract).
        unsafe {
            rec.record(
                key,
                waker,
                wait,
                Some(&this.tasks),
                Some(Active::of(&**this)),
            )
        }
    }

    /// Forgets every ready index (the set was emptied).
    pub fn clear(&self) {
        let ready = std::mem::take(&mut self.inner.lock().ready);
        drop(ready);
    }
}

/// A set recorded with its list as its test waits while its waker is stored.
impl StillWaiting for ReadyList {
    fn still_waiting(&self, _: WaitKind) -> bool {
        // Relaxed: a label (module docs).
        self.armed.load(Relaxed)
    }
}

struct EntryWaker {
    list: Arc<ReadyList>,
    index: usize,
}

impl Wake for EntryWaker {
    fn wake(self: StdArc<Self>) {
        self.list.push(self.index);
    }

    fn wake_by_ref(self: &StdArc<Self>) {
        self.list.push(self.index);
    }
}
