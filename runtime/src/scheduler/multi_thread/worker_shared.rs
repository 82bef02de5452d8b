//! What a worker shows its siblings and the monitor: its LIFO slot and where its poll is.
//!
//! One cache-padded `WorkerShared` per worker, written by that worker on its hot path with
//! plain stores only (and, for the LIFO slot, a swap on this line, which no other thread
//! touches unless the worker is stuck):
//!
//! - `poll_seq`: `(polls << 1) | 1` while a poll runs, `polls << 1` between runs, `IDLE`
//!   before parking. Stored (not RMW'd) by the owner before every poll and when a run (a
//!   task's poll and the LIFO polls after it) ends; between two polls of one run it keeps
//!   the first one's odd value for the few instructions until the next poll's store, so
//!   that gap counts as the earlier poll. Read by the monitor once per tick. The same odd value at two ticks in a row means one poll
//!   has lasted at least a tick: the worker is *stuck*.
//! - `stuck_seq`: the odd `poll_seq` the monitor found stuck (written by the monitor only).
//!   While `poll_seq == stuck_seq` the worker is still inside that poll, and siblings may
//!   take the task in its LIFO slot ([`WorkerShared::steal_lifo`]). Nobody clears it: the
//!   owner's next store to `poll_seq` ends the permission by itself.
//! - `lifo`: the LIFO slot (`queue::LifoSlot`): the owner pushes and takes; a thief takes
//!   only under the permission above, so the slot is contended only when the owner is stuck
//!   (and while a task dump claims the worker's queued tasks: claim.rs, whose take is the
//!   same swap).
//!
//! Granted permission may be stale by the time a thief acts (the owner finished the poll
//! and took the slot itself): harmless, the slot's swap gives the item to exactly one
//! taker, and a thief that gets it just runs it a little early on another worker.
//!
//! `Published` holds what the monitor learned about the worker's polls (for metrics):
//! when it first saw the current poll, polls longer than `LONG_POLL`, the longest seen;
//! and the kernel id of the thread running the worker now (stored by that thread when it
//! takes the core: at start and after a `block_in_place` hand-off), which stall reports
//! and shutdown reports signal (`stack_capture.rs`). These are std atomics (also under
//! loom): they carry no synchronization.
//!
//! Why every access here is `Relaxed` (each checked by the weakening sweep, loom-tests/README.md):
//! no access publishes or reads memory on the strength of these words. The task in the
//! LIFO slot travels through the slot's own atomic (the owner's Release store or swap, a
//! taker's Acquire swap), and exactly one swap wins it; `poll_seq` and `stuck_seq` only
//! decide whether a sibling *tries* the slot, and a stale answer either way is harmless
//! (a stale "stuck" runs the task a little early elsewhere, a stale "not stuck" leaves it
//! to the owner or to the monitor's next tick). The `Published` words are metrics (each
//! read on its own; a torn pair is at worst a poll reported as starting now). The loom
//! suite `loom_lifo` drives `WorkerShared` (exported to loom builds, generic over the item
//! so a model can use test items) to pin the permission's *logic*: not stuck, nothing to
//! take; stuck, the thief gets the task; the owner's next poll ends the permission.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use queue::{LifoSlot, Link};

#[cfg(loom)]
mod loom_stand_ins;

/// `poll_seq` of a parked (or parking) worker.
pub(super) const IDLE: u64 = 0;

/// Polls at least this long count in `WorkerMetrics::long_polls`.
pub(crate) const LONG_POLL: Duration = Duration::from_millis(10);

/// One worker's shared line (see the module docs). Generic over the slot's item only so
/// that the loom suite can drive it with test items; the scheduler's holds `RunTask`s.
pub struct WorkerShared<T: Link> {
    poll_seq: AtomicU64,
    stuck_seq: AtomicU64,
    /// The worker's LIFO slot.
    pub lifo: LifoSlot<T>,
    /// Loom only: a LIFO task the driver stand-in holds until the worker parks
    /// ([`WorkerShared::loom_driver_holds_current_lifo`]). A std mutex: only the owner's
    /// thread touches it, so it adds nothing for loom to explore.
    #[cfg(loom)]
    loom_held: std::sync::Mutex<Option<T>>,
}

impl<T: Link> Default for WorkerShared<T> {
    fn default() -> Self {
        WorkerShared::new()
    }
}

impl<T: Link> WorkerShared<T> {
    /// A worker that is not polling (`IDLE`), with an empty slot, never found stuck.
    pub fn new() -> WorkerShared<T> {
        WorkerShared {
            poll_seq: AtomicU64::new(IDLE),
            stuck_seq: AtomicU64::new(IDLE),
            lifo: LifoSlot::new(),
            #[cfg(loom)]
            loom_held: std::sync::Mutex::new(None),
        }
    }

    /// Owner: a poll (the `polls`th) begins.
    #[inline]
    pub fn begin_poll(&self, polls: u64) {
        self.poll_seq.store((polls << 1) | 1, Relaxed);
    }

    /// Owner: the poll ended.
    #[inline]
    pub fn end_poll(&self, polls: u64) {
        self.poll_seq.store(polls << 1, Relaxed);
    }

    /// Owner: about to park.
    pub fn idle(&self) {
        self.poll_seq.store(IDLE, Relaxed);
    }

    /// The current `poll_seq` (monitor, metrics).
    pub fn poll_seq(&self) -> u64 {
        self.poll_seq.load(Relaxed)
    }

    /// Monitor: the poll `seq` has lasted a tick; its LIFO slot may be taken.
    pub fn mark_stuck(&self, seq: u64) {
        self.stuck_seq.store(seq, Relaxed);
    }

    /// True while the worker is inside the poll the monitor found stuck.
    pub fn is_stuck(&self) -> bool {
        let seq = self.poll_seq.load(Relaxed);
        seq & 1 == 1 && self.stuck_seq.load(Relaxed) == seq
    }

    /// Any sibling: takes the stuck worker's LIFO task (None when not stuck, or empty).
    pub fn steal_lifo(&self) -> Option<T> {
        if self.is_stuck() {
            self.lifo.steal()
        } else {
            None
        }
    }

    /// A stuck worker with a task in its LIFO slot (what a searcher should come for).
    /// The permission first, as in `steal_lifo`: a sibling reads the slot only while the
    /// owner is stuck (module docs). Both are plain loads of this one line, so the order
    /// costs nothing here; under loom (no monitor, never stuck) a slot load first would be
    /// a racing access to every push and take of the owner's, multiplying the
    /// interleavings every scheduler model explores for a test that cannot pass.
    pub fn has_stealable_lifo(&self) -> bool {
        self.is_stuck() && !self.lifo.is_empty()
    }
}

/// The monitor's findings about one worker's polls, published for `metrics()`.
#[derive(Default)]
pub(super) struct Published {
    /// The odd `poll_seq` the monitor last saw, and when it first saw it (ns since
    /// `Published::base`).
    seen_seq: AtomicU64,
    seen_at_ns: AtomicU64,
    long_polls: AtomicU64,
    longest_ns: AtomicU64,
    /// The kernel id of the thread running the worker (0 before it starts).
    tid: AtomicI32,
}

impl Published {
    pub(super) fn publish_seen(&self, seq: u64, at_ns: u64) {
        self.seen_at_ns.store(at_ns, Relaxed);
        self.seen_seq.store(seq, Relaxed);
    }

    /// The worker's (new) thread: its kernel id (`stack_capture::current_tid`).
    pub(super) fn set_thread(&self, tid: crate::observe::stack_capture::Tid) {
        self.tid.store(tid, Relaxed);
    }

    /// The kernel id of the thread running the worker (0: not known).
    pub(super) fn thread(&self) -> crate::observe::stack_capture::Tid {
        self.tid.load(Relaxed)
    }

    /// When the poll `seq` began, as the monitor saw it (within a tick of its start);
    /// `None` when the monitor has not seen that poll.
    pub(super) fn poll_seen_at(&self, seq: u64, base: Instant) -> Option<Instant> {
        (self.seen_seq.load(Relaxed) == seq)
            .then(|| base + Duration::from_nanos(self.seen_at_ns.load(Relaxed)))
    }

    pub(super) fn add_long_poll(&self) {
        // Only the monitor writes: a load and a store, no RMW needed.
        self.long_polls
            .store(self.long_polls.load(Relaxed) + 1, Relaxed);
    }

    pub(super) fn raise_longest(&self, d: Duration) {
        let ns = d.as_nanos().min(u128::from(u64::MAX)) as u64;
        if ns > self.longest_ns.load(Relaxed) {
            self.longest_ns.store(ns, Relaxed);
        }
    }

    /// Fills the poll fields of `m` for a worker whose `poll_seq` reads `seq` now.
    pub(super) fn fill(
        &self,
        seq: u64,
        base: Instant,
        m: &mut crate::observe::metrics::WorkerMetrics,
    ) {
        m.long_polls = self.long_polls.load(Relaxed);
        m.longest_poll = Duration::from_nanos(self.longest_ns.load(Relaxed));
        m.current_poll_since = if seq & 1 == 1 {
            if self.seen_seq.load(Relaxed) == seq {
                Some(base + Duration::from_nanos(self.seen_at_ns.load(Relaxed)))
            } else {
                // Began after the monitor's last look (less than a tick ago).
                Some(Instant::now())
            }
        } else {
            None
        };
    }
}
