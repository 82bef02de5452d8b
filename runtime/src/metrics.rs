//! Runtime metrics: per-worker counters, written without contention.
//!
//! Each worker counts in plain integers inside its own core (`Stats`) and publishes them
//! to its own cache-padded `WorkerMetrics` slot with relaxed *stores* (never a shared
//! read-modify-write) when it parks and every maintenance tick. `Handle::metrics()` reads
//! the slots into a `RuntimeMetrics` snapshot. These atomics are plain std ones even
//! under loom: they carry no synchronization the model needs to check.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

/// A point-in-time view of a runtime.
#[derive(Debug, Clone, Default)]
pub struct RuntimeMetrics {
    /// Worker threads (1 for the current-thread flavor).
    pub num_workers: usize,
    /// Tasks spawned and not yet complete: the workers' `spawned` plus `remote_spawns`,
    /// less the workers' `completed`, so as of each worker's last publication (when it
    /// parks, and every maintenance tick).
    pub live_tasks: usize,
    /// Tasks spawned from outside the runtime's threads (`Runtime::spawn`,
    /// `Handle::spawn` from a plain thread or a `block_on`), counted by the spawner.
    pub remote_spawns: u64,
    /// Tasks waiting in the global (inject) queue.
    pub global_queue_depth: usize,
    /// One entry per worker.
    pub workers: Vec<WorkerMetrics>,
    /// Blocking-pool threads alive (idle ones included).
    pub blocking_threads: usize,
    /// Blocking-pool threads waiting for work.
    pub idle_blocking_threads: usize,
    /// Blocking tasks queued, not yet picked up by a pool thread.
    pub blocking_queue_depth: usize,
}

/// tokio's metrics methods (`tokio::runtime::RuntimeMetrics`), read from this snapshot.
/// A `worker` index is `0..num_workers()`.
///
/// ```
/// let rt = runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
/// rt.block_on(async { runtime::spawn(async {}).await.unwrap() });
/// let m = rt.metrics();
/// assert_eq!(m.num_workers(), 2);
/// let polls: u64 = (0..m.num_workers()).map(|w| m.worker_poll_count(w)).sum();
/// assert!(polls <= m.spawned_tasks_count() * 2 + 2);
/// ```
impl RuntimeMetrics {
    /// Worker threads (1 for the current-thread flavor).
    pub fn num_workers(&self) -> usize {
        self.num_workers
    }

    /// Tasks spawned and not yet complete (see the `live_tasks` field for when it is
    /// exact).
    pub fn num_alive_tasks(&self) -> usize {
        self.live_tasks
    }

    /// Tasks waiting in the global (inject) queue.
    pub fn global_queue_depth(&self) -> usize {
        self.global_queue_depth
    }

    /// Blocking-pool threads alive (idle ones included).
    pub fn num_blocking_threads(&self) -> usize {
        self.blocking_threads
    }

    /// Blocking-pool threads waiting for work.
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.idle_blocking_threads
    }

    /// Blocking tasks queued, not yet picked up by a pool thread.
    pub fn blocking_queue_depth(&self) -> usize {
        self.blocking_queue_depth
    }

    /// Tasks spawned since the runtime started: by its workers (`WorkerMetrics::spawned`)
    /// and from outside (`remote_spawns`).
    pub fn spawned_tasks_count(&self) -> u64 {
        self.workers.iter().map(|w| w.spawned).sum::<u64>() + self.remote_spawns
    }

    #[track_caller]
    fn worker(&self, worker: usize) -> &WorkerMetrics {
        match self.workers.get(worker) {
            Some(w) => w,
            None => panic!(
                "worker index {worker} out of range: the runtime has {} worker(s); pass an \
                 index in 0..num_workers()",
                self.workers.len()
            ),
        }
    }

    /// Times worker `worker` parked.
    #[track_caller]
    pub fn worker_park_count(&self, worker: usize) -> u64 {
        self.worker(worker).parks
    }

    /// Parks plus unparks of worker `worker`: odd while it is parked.
    #[track_caller]
    pub fn worker_park_unpark_count(&self, worker: usize) -> u64 {
        let w = self.worker(worker);
        w.parks + w.unparks
    }

    /// Unparks of worker `worker` after which it found nothing to do.
    #[track_caller]
    pub fn worker_noop_count(&self, worker: usize) -> u64 {
        self.worker(worker).noop_unparks
    }

    /// Tasks worker `worker` stole from its siblings.
    #[track_caller]
    pub fn worker_steal_count(&self, worker: usize) -> u64 {
        self.worker(worker).stolen_tasks
    }

    /// Steal operations (each takes one or more tasks) of worker `worker`.
    #[track_caller]
    pub fn worker_steal_operations(&self, worker: usize) -> u64 {
        self.worker(worker).steals
    }

    /// Task polls by worker `worker`.
    #[track_caller]
    pub fn worker_poll_count(&self, worker: usize) -> u64 {
        self.worker(worker).polls
    }

    /// Time worker `worker` spent not parked.
    #[track_caller]
    pub fn worker_total_busy_duration(&self, worker: usize) -> Duration {
        self.worker(worker).busy
    }

    /// Tasks worker `worker` scheduled onto its own queue.
    #[track_caller]
    pub fn worker_local_schedule_count(&self, worker: usize) -> u64 {
        self.worker(worker).local_schedules
    }

    /// Times worker `worker`'s local queue overflowed into the global queue.
    #[track_caller]
    pub fn worker_overflow_count(&self, worker: usize) -> u64 {
        self.worker(worker).overflows
    }
}

/// Counters of one worker since the runtime started (as of its last publication).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkerMetrics {
    /// Task polls.
    pub polls: u64,
    /// Polls of a task taken from the LIFO slot.
    pub lifo_hits: u64,
    /// Tasks scheduled onto this worker's own queue from this worker.
    pub local_schedules: u64,
    /// Tasks spawned on this worker (by the tasks it ran).
    pub spawned: u64,
    /// Tasks this worker's polls completed (with output, panic or cancellation).
    pub completed: u64,
    /// Times the local ring overflowed into the global queue.
    pub overflows: u64,
    /// Tasks moved to the global queue by those overflows.
    pub overflowed_tasks: u64,
    /// Successful steal operations from a sibling.
    pub steals: u64,
    /// Tasks taken by those steals.
    pub stolen_tasks: u64,
    /// Times this worker parked.
    pub parks: u64,
    /// Times this worker was unparked.
    pub unparks: u64,
    /// Unparks after which the worker found nothing to run and parked again.
    pub noop_unparks: u64,
    /// Time spent not parked.
    pub busy: Duration,
    /// Polls that lasted 10 ms or more (a task blocking its worker: CPU-heavy work or a
    /// blocking call that belongs in `spawn_blocking`). Polls are timed by the runtime's
    /// monitor, which looks every millisecond: a poll counts once it has been seen running
    /// for 10 ms. Always 0 on the current-thread flavor.
    pub long_polls: u64,
    /// The longest poll seen so far (the one running now included), to the monitor's 1 ms
    /// resolution: polls shorter than that are not timed and leave it at zero.
    pub longest_poll: Duration,
    /// `Some(t)` while the worker is inside a poll right now: the poll has been running
    /// since `t` at the latest (the monitor's first sighting, within 1 ms of its start; a
    /// poll that began after the monitor's last look reads as starting now). `None`
    /// between polls and while parked. A watchdog compares `t` with `Instant::now()`.
    pub current_poll_since: Option<Instant>,
}

/// A poll that has run longer than the `Builder::on_stall` threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stall {
    /// The worker's index (as in `RuntimeMetrics::workers`).
    pub worker: usize,
    /// How long the poll has been running when the callback is called (at least).
    pub elapsed: Duration,
}

/// The `Builder::on_stall` callback.
pub(crate) type StallCallback = std::sync::Arc<dyn Fn(&Stall) + Send + Sync>;

/// The worker-private counters, living in the worker's core.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub(crate) m: WorkerMetrics,
    busy_since: Option<Instant>,
    polls_at_unpark: u64,
}

impl Stats {
    pub(crate) fn new() -> Stats {
        Stats {
            busy_since: Some(Instant::now()),
            ..Stats::default()
        }
    }

    pub(crate) fn about_to_park(&mut self) {
        self.m.parks += 1;
        if let Some(t) = self.busy_since.take() {
            self.m.busy += t.elapsed();
        }
    }

    pub(crate) fn unparked(&mut self) {
        self.m.unparks += 1;
        self.busy_since = Some(Instant::now());
    }

    /// Called when the worker, having been unparked, is about to park again.
    pub(crate) fn check_noop(&mut self) {
        if self.m.unparks > 0 && self.m.polls == self.polls_at_unpark {
            self.m.noop_unparks += 1;
        }
    }

    pub(crate) fn mark_unpark_polls(&mut self) {
        self.polls_at_unpark = self.m.polls;
    }

    pub(crate) fn submit(&self, to: &Slot) {
        let m = &self.m;
        to.polls.store(m.polls, Relaxed);
        to.lifo_hits.store(m.lifo_hits, Relaxed);
        to.local_schedules.store(m.local_schedules, Relaxed);
        to.spawned.store(m.spawned, Relaxed);
        to.completed.store(m.completed, Relaxed);
        to.overflows.store(m.overflows, Relaxed);
        to.overflowed_tasks.store(m.overflowed_tasks, Relaxed);
        to.steals.store(m.steals, Relaxed);
        to.stolen_tasks.store(m.stolen_tasks, Relaxed);
        to.parks.store(m.parks, Relaxed);
        to.unparks.store(m.unparks, Relaxed);
        to.noop_unparks.store(m.noop_unparks, Relaxed);
        let busy = m.busy + self.busy_since.map_or(Duration::ZERO, |t| t.elapsed());
        to.busy_ns.store(busy.as_nanos() as u64, Relaxed);
    }
}

/// One worker's published counters; written by that worker only.
#[derive(Default)]
pub(crate) struct Slot {
    polls: AtomicU64,
    lifo_hits: AtomicU64,
    local_schedules: AtomicU64,
    spawned: AtomicU64,
    completed: AtomicU64,
    overflows: AtomicU64,
    overflowed_tasks: AtomicU64,
    steals: AtomicU64,
    stolen_tasks: AtomicU64,
    parks: AtomicU64,
    unparks: AtomicU64,
    noop_unparks: AtomicU64,
    busy_ns: AtomicU64,
}

impl Slot {
    pub(crate) fn read(&self) -> WorkerMetrics {
        WorkerMetrics {
            polls: self.polls.load(Relaxed),
            lifo_hits: self.lifo_hits.load(Relaxed),
            local_schedules: self.local_schedules.load(Relaxed),
            spawned: self.spawned.load(Relaxed),
            completed: self.completed.load(Relaxed),
            overflows: self.overflows.load(Relaxed),
            overflowed_tasks: self.overflowed_tasks.load(Relaxed),
            steals: self.steals.load(Relaxed),
            stolen_tasks: self.stolen_tasks.load(Relaxed),
            parks: self.parks.load(Relaxed),
            unparks: self.unparks.load(Relaxed),
            noop_unparks: self.noop_unparks.load(Relaxed),
            busy: Duration::from_nanos(self.busy_ns.load(Relaxed)),
            ..WorkerMetrics::default()
        }
    }
}

/// `RuntimeMetrics::live_tasks` from the published slots and the remote-spawn counter:
/// spawned less completed. Each worker publishes on its own schedule, so a task spawned
/// on one worker and completed on another may be counted complete before it is counted
/// spawned: the difference is clamped at 0, and exact once every worker published (all
/// parked, or shut down).
pub(crate) fn live_tasks(slots: &[CachePadded<Slot>], remote_spawns: u64) -> usize {
    let completed: u64 = slots.iter().map(|s| s.completed.load(Relaxed)).sum();
    let spawned: u64 = slots.iter().map(|s| s.spawned.load(Relaxed)).sum::<u64>() + remote_spawns;
    spawned.saturating_sub(completed) as usize
}

/// The published slots of all workers.
pub(crate) fn slots(n: usize) -> Box<[CachePadded<Slot>]> {
    (0..n).map(|_| CachePadded::new(Slot::default())).collect()
}
