//! Runtime metrics: per-worker counters, written without contention.
//!
//! Each worker counts in plain integers inside its own core (`Stats`) and publishes them
//! to its own cache-padded slot with relaxed *stores* (never a shared read-modify-write)
//! when it parks and every maintenance tick. The scheduler reads them into a `Snapshot`
//! (`scheduler::Handle::metrics_now`); `RuntimeMetrics` (runtime_metrics.rs), the public
//! view, holds the scheduler handle and reads through it; this file never reaches into
//! the handle. These atomics are plain std ones even under loom: they carry no
//! synchronization the model needs to check.
//!
//! The worker counters are listed once, in the `worker_counters!` invocation below, which
//! generates the `WorkerMetrics` fields and accessors, the published slot, and the
//! store (`Stats::submit`) and load (`Slot::read`) between them. `WorkerMetrics` has
//! private fields and is `#[non_exhaustive]`, as tokio's: a counter added later is a new
//! method, not a breaking change.
//!
//! Two per-worker histograms sit beside the counters, on by default: poll times and
//! schedule latencies (wake to poll), both sampled from the poll side (`sampler.rs`:
//! which polls are measured and what the counts mean), in the bucket layouts of
//! `histogram.rs`.

mod histogram;
mod sampler;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use self::histogram::Buckets;
pub use self::histogram::{
    HistogramConfiguration, InvalidHistogramConfiguration, LogHistogram, LogHistogramBuilder,
};
pub(crate) use self::sampler::{address_of, Queued, Sampler, Telemetry};

/// What the counters read at one instant (`scheduler::Handle::metrics_now`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    /// Tasks spawned and not yet complete (see `num_alive_tasks`).
    pub(crate) live_tasks: usize,
    /// Tasks spawned from outside the runtime's threads (see
    /// `remote_spawned_tasks_count`).
    pub(crate) remote_spawns: u64,
    /// Tasks waiting in the global (inject) queue.
    pub(crate) global_queue_depth: usize,
    /// One entry per worker.
    pub(crate) workers: Vec<WorkerMetrics>,
    /// Blocking-pool threads alive (idle ones included).
    pub(crate) blocking_threads: usize,
    /// Blocking-pool threads waiting for work.
    pub(crate) idle_blocking_threads: usize,
    /// Blocking tasks queued, not yet picked up by a pool thread.
    pub(crate) blocking_queue_depth: usize,
}

/// Generates, from one list of `u64` counters, everything that names each of them: the
/// `WorkerMetrics` fields and accessors, the published `Slot`, `Stats::submit` (worker ->
/// slot) and `Slot::read` (slot -> snapshot). The fields that are not plain counters
/// (`busy`, published in nanoseconds, and the poll-timing fields the multi-thread
/// scheduler's monitor fills in) are written out once here.
macro_rules! worker_counters {
    ($( $(#[$doc:meta])* $name:ident, )*) => {
        /// Counters of one worker since the runtime started (as of its last publication).
        ///
        /// ```
        /// let rt = runtime::Builder::new_current_thread().build().unwrap();
        /// rt.block_on(async { runtime::spawn(async {}).await.unwrap() });
        /// let m = rt.metrics();
        /// let w = m.workers()[0].clone();
        /// assert!(w.polls() >= 1);
        /// assert!(w.completed() <= w.spawned());
        /// ```
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        #[non_exhaustive]
        pub struct WorkerMetrics {
            $( $(#[$doc])* pub(crate) $name: u64, )*
            /// Time spent not parked.
            pub(crate) busy: Duration,
            /// See [`WorkerMetrics::long_polls`].
            pub(crate) long_polls: u64,
            /// See [`WorkerMetrics::longest_poll`].
            pub(crate) longest_poll: Duration,
            /// See [`WorkerMetrics::current_poll_since`].
            pub(crate) current_poll_since: Option<Instant>,
        }

        impl WorkerMetrics {
            $(
                $(#[$doc])*
                pub fn $name(&self) -> u64 {
                    self.$name
                }
            )*
        }

        /// One worker's published counters and histograms; written by that worker only.
        #[derive(Default)]
        pub(crate) struct Slot {
            $( $name: AtomicU64, )*
            busy_ns: AtomicU64,
            /// Sampled poll times (None: disabled).
            pub(crate) poll_time: Option<Buckets>,
            /// Sampled schedule latencies (None: disabled).
            pub(crate) schedule_latency: Option<Buckets>,
        }

        impl Stats {
            /// Publishes the counters to `to`, this worker's slot.
            pub(crate) fn submit(&self, to: &Slot) {
                let m = &self.counts;
                $( to.$name.store(m.$name, Relaxed); )*
                let busy = m.busy + self.busy_since.map_or(Duration::ZERO, |t| t.elapsed());
                to.busy_ns.store(busy.as_nanos() as u64, Relaxed);
            }
        }

        impl Slot {
            /// The snapshot of the counters last published (the poll-timing fields are
            /// left at their defaults for the monitor to fill in).
            pub(crate) fn read(&self) -> WorkerMetrics {
                WorkerMetrics {
                    $( $name: self.$name.load(Relaxed), )*
                    busy: Duration::from_nanos(self.busy_ns.load(Relaxed)),
                    ..WorkerMetrics::default()
                }
            }
        }
    };
}

worker_counters! {
    /// Task polls.
    polls,
    /// Polls of a task taken from the LIFO slot.
    lifo_hits,
    /// Tasks scheduled onto this worker's own queue from this worker.
    local_schedules,
    /// Tasks spawned on this worker (by the tasks it ran; spawns from outside the runtime
    /// are counted in `RuntimeMetrics::remote_spawned_tasks_count`).
    spawned,
    /// Tasks this worker's polls completed (with output, panic or cancellation).
    completed,
    /// Times the local ring overflowed into the global queue.
    overflows,
    /// Tasks moved to the global queue by those overflows.
    overflowed_tasks,
    /// Successful steal operations from a sibling.
    steals,
    /// Tasks taken by those steals.
    stolen_tasks,
    /// Times this worker parked.
    parks,
    /// Times this worker was unparked.
    unparks,
    /// Unparks after which the worker found nothing to run and parked again.
    noop_unparks,
}

impl WorkerMetrics {
    /// Time spent not parked.
    pub fn busy(&self) -> Duration {
        self.busy
    }

    /// Polls that lasted 10 ms or more (a task blocking its worker: CPU-heavy work or a
    /// blocking call that belongs in `spawn_blocking`). Polls are timed by the runtime's
    /// monitor, which looks every millisecond: a poll counts once it has been seen running
    /// for 10 ms. Always 0 on the current-thread flavor.
    pub fn long_polls(&self) -> u64 {
        self.long_polls
    }

    /// The longest poll seen so far (the one running now included), to the monitor's 1 ms
    /// resolution: polls shorter than that are not timed and leave it at zero.
    pub fn longest_poll(&self) -> Duration {
        self.longest_poll
    }

    /// `Some(t)` while the worker is inside a poll right now: the poll has been running
    /// since `t` at the latest (the monitor's first sighting, within 1 ms of its start; a
    /// poll that began after the monitor's last look reads as starting now). `None`
    /// between polls and while parked. A watchdog compares `t` with `Instant::now()`.
    pub fn current_poll_since(&self) -> Option<Instant> {
        self.current_poll_since
    }
}

/// The worker-private counters, living in the worker's core.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    /// This worker's counters, published by `submit`.
    pub(crate) counts: WorkerMetrics,
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
        self.counts.parks += 1;
        if let Some(t) = self.busy_since.take() {
            self.counts.busy += t.elapsed();
        }
    }

    pub(crate) fn unparked(&mut self) {
        self.unparked_at(Instant::now());
    }

    /// `unparked`, with the clock read by the caller (who needs it too).
    pub(crate) fn unparked_at(&mut self, now: Instant) {
        self.counts.unparks += 1;
        self.busy_since = Some(now);
    }

    /// Called when the worker, having been unparked, is about to park again.
    pub(crate) fn check_noop(&mut self) {
        if self.counts.unparks > 0 && self.counts.polls == self.polls_at_unpark {
            self.counts.noop_unparks += 1;
        }
    }

    pub(crate) fn mark_unpark_polls(&mut self) {
        self.polls_at_unpark = self.counts.polls;
    }
}

/// `RuntimeMetrics::num_alive_tasks` from the published slots and the remote-spawn
/// counter: spawned less completed. Each worker publishes on its own schedule, so a task
/// spawned on one worker and completed on another may be counted complete before it is
/// counted spawned: the difference is clamped at 0, and exact once every worker published
/// (all parked, or shut down).
pub(crate) fn live_tasks(slots: &[CachePadded<Slot>], remote_spawns: u64) -> usize {
    let completed: u64 = slots.iter().map(|s| s.completed.load(Relaxed)).sum();
    let spawned: u64 = slots.iter().map(|s| s.spawned.load(Relaxed)).sum::<u64>() + remote_spawns;
    spawned.saturating_sub(completed) as usize
}

/// The published slots of all workers, with the histograms `telemetry` enables.
pub(crate) fn slots(n: usize, telemetry: &Telemetry) -> Box<[CachePadded<Slot>]> {
    let buckets = |c: &Option<HistogramConfiguration>| c.map(|c| Buckets::new(c.num_buckets()));
    (0..n)
        .map(|_| {
            CachePadded::new(Slot {
                poll_time: buckets(&telemetry.poll_time),
                schedule_latency: buckets(&telemetry.schedule_latency),
                ..Slot::default()
            })
        })
        .collect()
}
