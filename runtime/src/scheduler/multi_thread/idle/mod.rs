//! The idle policy of the multi-thread scheduler: what a worker that ran out of work does
//! before it parks, who is woken for new work, and the hints both read.
//!
//! - `word.rs`: `Idle`, the one atomic word counting searching and unparked workers, and
//!   the list of parked ones: who may search, whom a notifier wakes.
//! - `search.rs`: one worker's side of it (`Core::steal_work`, `spin_for_work`,
//!   `yield_for_work`, the searching and parked transitions).
//! - `spin.rs`: `IdlePolicy` (a worker's spin rounds, park yields and recent idle
//!   episodes), the spin rule with its constants, and the one-spinner token.
//! - this file: the hints (`Hints`: whether a `block_on` caller is polling, the remote-wake
//!   count, and the two facts fixed at construction that decide whether they are worth
//!   reading) and their accessors. They take no scheduler handle: the scheduler's
//!   `Handle::hints` lends them, and the workers reach them through `Shared`.
//!
//! # Why did this worker park?
//!
//! A worker parks (`Context::park`, worker.rs) only when every step below came up empty,
//! in this order:
//!
//! 1. Its own queues: the LIFO slot, the ring, and the deferred list (released behind
//!    everything runnable), then a batch from the global queues (worker/queues.rs).
//! 2. Stealing (`steal_work`): only as a searcher, and `Idle` lets at most half the
//!    workers search; a worker refused the searcher's role does not steal at all. A
//!    searcher tries every sibling from a random one (half of its ring, or the task in a
//!    stuck sibling's LIFO slot), then a global batch.
//! 3. The spin (`spin_for_work`): skipped unless the worker is a searcher, its recent idle
//!    episodes averaged under `SPIN_WORTH` and its spins have been finding work (after
//!    `MAX_MISSES` empty spins in a row only one probe every `PROBE_EVERY` episodes), the
//!    I/O driver is attended (someone sleeps in it or polls it), and no other worker holds
//!    the spin token. The spin lasts `spin_rounds` looks (fewer as the workers grow, a few
//!    when the workers outnumber the CPUs).
//! 4. The park yields (`yield_for_work`): skipped unless the workers fill the machine
//!    (`park_yields`), a task was woken from outside the workers since this worker last
//!    ran out of work (`Hints::remote_wakes` changed), a `block_on` caller is polling
//!    (`Hints::block_on_polling`), and the worker is a searcher holding the spin token.
//! 5. `transition_to_parked`: refused while the core holds tasks. A worker that parks
//!    leaving no searcher behind re-checks every queue (`notify_if_work_pending`) so that
//!    work pushed while it stopped looking wakes someone.
//!
//! It wakes when a notifier picks it (`Idle::worker_to_notify`: new work, nobody
//! searching; it then runs as a searcher), when the driver it sleeps in dispatches tasks
//! to it (it runs them), or at shutdown. A wake-up that finds it still listed as parked
//! (nobody notified it) parks it again.
//!
//! The invariants (argued in word.rs and spin.rs, checked by `loom_idle` and
//! `loom_scheduler`): at most half the workers search; only a searcher spins or yields,
//! one at a time; the last searcher to find work wakes another when work is left; no push
//! is missed between a worker's last look and its park.

mod search;
pub(crate) mod spin;
mod word;

pub use self::word::Idle;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use crossbeam_utils::CachePadded;

/// The hints the idle policy reads: facts that order nothing and may be stale, each on its
/// own line. std atomics: under loom the park yields are off, so nothing reads them there.
/// Two more are fixed at construction: `workers_yield`, whether the workers yield before
/// they park at all (`spin::park_yields` is not 0; only then is `block_on_polling` read,
/// so only then is it written), and the machine's CPU count.
pub(crate) struct Hints {
    /// Whether a `block_on` caller is polling its future now (`Hints::set_block_on_polling`):
    /// plain stores, no RMW, as each poll writes it twice. With two callers at once one
    /// may clear it while the other polls: the hint under-reports (the workers park as
    /// before), never sticks.
    block_on_polling: CachePadded<AtomicBool>,
    /// Changes when a task is woken from outside the workers (`Hints::count_remote_wake`):
    /// a load and a store, no RMW, so concurrent wakers may lose an increment; a worker
    /// only asks whether it changed (`yield_for_work`).
    remote_wakes: CachePadded<AtomicUsize>,
    /// Whether the workers yield before they park (`spin::park_yields` is not 0).
    workers_yield: bool,
    /// The machine's CPUs (`available_parallelism`, read once).
    cpus: usize,
}

impl Hints {
    pub(in crate::scheduler::multi_thread) fn new(workers_yield: bool, cpus: usize) -> Hints {
        Hints {
            block_on_polling: CachePadded::new(AtomicBool::new(false)),
            remote_wakes: CachePadded::new(AtomicUsize::new(0)),
            workers_yield,
            cpus,
        }
    }

    /// Fewer workers unparked (`idle`: the scheduler's idle word) than CPUs: a `block_on`
    /// thread may spin without taking a CPU from a worker (block_on.rs).
    pub(crate) fn block_on_cpu_free(&self, idle: &Idle) -> bool {
        idle.num_unparked() < self.cpus
    }

    /// A `block_on` caller starts or ends a poll of its future: workers it feeds yield
    /// before they park (spin.rs, `PARK_YIELDS`).
    pub(crate) fn set_block_on_polling(&self, polling: bool) {
        // Two stores per `block_on` poll that no worker would read.
        if !self.workers_yield {
            return;
        }
        // Relaxed: a hint for the workers' park; nothing is published through it.
        self.block_on_polling.store(polling, Relaxed);
    }

    /// Notes a task woken from outside the workers (a hint for `yield_for_work`).
    pub(crate) fn count_remote_wake(&self) {
        // Relaxed, and not an RMW: a hint; a lost increment between racing wakers still
        // changes the value, which is all a worker asks.
        let wakes = &self.remote_wakes;
        let n = wakes.load(Relaxed);
        wakes.store(n.wrapping_add(1), Relaxed);
    }

    /// Tasks woken from outside the workers so far (wrapping; a hint).
    pub(crate) fn remote_wakes(&self) -> usize {
        // Relaxed: as above.
        self.remote_wakes.load(Relaxed)
    }

    /// Whether some `block_on` caller is polling its future now (a hint).
    pub(crate) fn block_on_polling(&self) -> bool {
        // Relaxed: as above.
        self.block_on_polling.load(Relaxed)
    }
}
