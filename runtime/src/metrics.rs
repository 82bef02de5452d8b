//! Runtime metrics: per-worker counters, written without contention.
//!
//! Each worker counts in plain integers inside its own core (`Stats`) and publishes them
//! to its own cache-padded slot with relaxed *stores* (never a shared read-modify-write)
//! when it parks and every maintenance tick. `Handle::metrics()` returns a
//! `RuntimeMetrics`, a live view holding the scheduler handle: each of its methods reads
//! the slots (`scheduler::Handle::metrics_now`) at the call. These atomics are plain std ones even under loom: they
//! carry no synchronization the model needs to check.
//!
//! The worker counters are listed once, in the `worker_counters!` invocation below, which
//! generates the `WorkerMetrics` fields and accessors, the published slot, and the
//! store (`Stats::submit`) and load (`Slot::read`) between them. Both public types have
//! private fields (`WorkerMetrics` is `#[non_exhaustive]`), as tokio's: a counter added later is a new
//! method, not a breaking change.
//!
//! Two per-worker histograms sit beside the counters, on by default: poll times and
//! schedule latencies (wake to poll), both sampled from the poll side (`sampler.rs`:
//! which polls are measured and what the counts mean), in the bucket layouts of
//! `histogram.rs`.

mod histogram;
mod sampler;

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use self::histogram::Buckets;
pub use self::histogram::{
    HistogramConfiguration, InvalidHistogramConfiguration, LogHistogram, LogHistogramBuilder,
};
pub(crate) use self::sampler::{address_of, Queued, Sampler, Telemetry};

/// A live view of a runtime's counters, from `Handle::metrics()` / `Runtime::metrics()`.
///
/// As tokio's: every method reads the counters at the call (a value kept by a monitoring
/// loop changes as the runtime runs), and the view keeps the runtime's shared state alive,
/// so it can still be read after the runtime was dropped. Read it through its methods
/// (tokio's names); one worker's counters at once are in
/// [`workers`](RuntimeMetrics::workers). Workers publish their counters when they park
/// and at every maintenance tick, so a busy worker's counts trail by at most that.
#[derive(Clone)]
pub struct RuntimeMetrics {
    handle: crate::scheduler::Handle,
}

// Its methods only read counters: a panic in one (an index out of range) leaves nothing
// half-updated for a caller that catches it.
impl std::panic::UnwindSafe for RuntimeMetrics {}
impl std::panic::RefUnwindSafe for RuntimeMetrics {}

impl std::fmt::Debug for RuntimeMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeMetrics")
            .field("now", &self.read())
            .finish()
    }
}

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

impl RuntimeMetrics {
    pub(crate) fn new(handle: crate::scheduler::Handle) -> RuntimeMetrics {
        RuntimeMetrics { handle }
    }

    fn read(&self) -> Snapshot {
        self.handle.metrics_now()
    }
}

/// tokio's metrics methods (`tokio::runtime::RuntimeMetrics`), each read at the call.
/// A `worker` index is `0..num_workers()`.
///
/// ```
/// let rt = runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
/// let m = rt.metrics();
/// rt.block_on(async { runtime::spawn(async {}).await.unwrap() });
/// assert_eq!(m.num_workers(), 2);
/// // The same view, read after the spawn: it saw it.
/// assert!(m.spawned_tasks_count() >= 1);
/// let polls: u64 = (0..m.num_workers()).map(|w| m.worker_poll_count(w)).sum();
/// assert!(polls <= m.spawned_tasks_count() * 2 + 2);
/// drop(rt);
/// // Still readable once the runtime is gone.
/// assert_eq!(m.num_alive_tasks(), 0);
/// ```
impl RuntimeMetrics {
    /// Worker threads (1 for the current-thread flavor).
    pub fn num_workers(&self) -> usize {
        self.handle.num_workers()
    }

    /// Tasks spawned and not yet complete: the workers' spawned count plus the spawns from
    /// outside (counted at the spawn), less the workers' completed count, as of each
    /// worker's last publication (when it parks, and every maintenance tick).
    pub fn num_alive_tasks(&self) -> usize {
        self.read().live_tasks
    }

    /// Tasks waiting in the global (inject) queue.
    pub fn global_queue_depth(&self) -> usize {
        self.read().global_queue_depth
    }

    /// Blocking-pool threads alive (idle ones included).
    pub fn num_blocking_threads(&self) -> usize {
        self.read().blocking_threads
    }

    /// Blocking-pool threads waiting for work.
    pub fn num_idle_blocking_threads(&self) -> usize {
        self.read().idle_blocking_threads
    }

    /// Blocking tasks queued, not yet picked up by a pool thread.
    pub fn blocking_queue_depth(&self) -> usize {
        self.read().blocking_queue_depth
    }

    /// Tasks spawned since the runtime started: by its workers
    /// ([`WorkerMetrics::spawned`]) and from outside
    /// ([`remote_spawned_tasks_count`](Self::remote_spawned_tasks_count)).
    pub fn spawned_tasks_count(&self) -> u64 {
        let now = self.read();
        now.workers.iter().map(|w| w.spawned).sum::<u64>() + now.remote_spawns
    }

    /// Tasks spawned from outside the runtime's threads (`Runtime::spawn`, `Handle::spawn`
    /// from a plain thread or from a multi-thread `block_on`), counted by the spawner.
    pub fn remote_spawned_tasks_count(&self) -> u64 {
        self.read().remote_spawns
    }

    /// Every worker's counters as of now, indexed by worker (`0..num_workers()`): one
    /// consistent read of all of them.
    pub fn workers(&self) -> Vec<WorkerMetrics> {
        self.read().workers
    }

    #[track_caller]
    fn worker(&self, worker: usize) -> WorkerMetrics {
        let mut workers = self.read().workers;
        let n = workers.len();
        if worker >= n {
            panic!(
                "worker index {worker} out of range: the runtime has {n} worker(s); pass an \
                 index in 0..num_workers()"
            );
        }
        workers.swap_remove(worker)
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

/// The per-worker histograms (poll time; schedule latency, which tokio lacks), each read
/// at the call. Both are on by default and *sampled*: about one poll in
/// [`histogram_sample_interval`](Self::histogram_sample_interval) is timed, and the task
/// that poll spawned or woke last on its worker (one followed at a time per worker) has
/// its wait measured, from the end of that poll to its own poll; the poll-time counts are
/// of those samples (multiply by the interval to estimate all polls).
/// `Builder::metrics_histogram_sample_interval(1)` times every poll, as tokio does. Not in
/// the latency histogram: tasks scheduled from outside the workers (the global queue), by
/// yielding or by the driver, and tasks a sibling stole before their poll.
///
/// ```
/// use std::time::Duration;
///
/// let rt = runtime::Builder::new_current_thread()
///     .metrics_histogram_sample_interval(1)
///     .build()
///     .unwrap();
/// rt.block_on(async {
///     for _ in 0..10 {
///         runtime::spawn(async {}).await.unwrap();
///     }
/// });
/// let m = rt.metrics();
/// let timed: u64 = (0..m.poll_time_histogram_num_buckets())
///     .map(|b| m.poll_time_histogram_bucket_count(0, b))
///     .sum();
/// assert_eq!(timed, m.worker_poll_count(0));
/// assert_eq!(m.poll_time_histogram_bucket_range(0).start, Duration::ZERO);
/// ```
impl RuntimeMetrics {
    /// Whether poll times are recorded (the default; `Builder::disable_metrics_poll_time_histogram`).
    pub fn poll_time_histogram_enabled(&self) -> bool {
        self.handle.telemetry().poll_time.is_some()
    }

    /// Buckets of the poll-time histogram (0 when disabled).
    pub fn poll_time_histogram_num_buckets(&self) -> usize {
        num_buckets(&self.handle.telemetry().poll_time)
    }

    /// The poll durations bucket `bucket` counts; the last bucket ends at `u64::MAX` ns.
    ///
    /// # Panics
    /// When `bucket` is not below `poll_time_histogram_num_buckets()`.
    #[track_caller]
    pub fn poll_time_histogram_bucket_range(&self, bucket: usize) -> Range<Duration> {
        let layout = checked("poll_time", &self.handle.telemetry().poll_time, bucket);
        layout.range(bucket)
    }

    /// Sampled polls by worker `worker` whose duration fell in bucket `bucket`.
    ///
    /// # Panics
    /// When `worker` is not below `num_workers()` or `bucket` not below
    /// `poll_time_histogram_num_buckets()`.
    #[track_caller]
    pub fn poll_time_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        checked("poll_time", &self.handle.telemetry().poll_time, bucket);
        let slot = self.slot(worker);
        slot.poll_time.as_ref().map_or(0, |b| b.get(bucket))
    }

    /// Whether schedule latencies are recorded (the default;
    /// `Builder::disable_metrics_schedule_latency_histogram`).
    pub fn schedule_latency_histogram_enabled(&self) -> bool {
        self.handle.telemetry().schedule_latency.is_some()
    }

    /// Buckets of the schedule-latency histogram (0 when disabled).
    pub fn schedule_latency_histogram_num_buckets(&self) -> usize {
        num_buckets(&self.handle.telemetry().schedule_latency)
    }

    /// The waits bucket `bucket` counts; the last bucket ends at `u64::MAX` ns.
    ///
    /// # Panics
    /// When `bucket` is not below `schedule_latency_histogram_num_buckets()`.
    #[track_caller]
    pub fn schedule_latency_histogram_bucket_range(&self, bucket: usize) -> Range<Duration> {
        let layout = checked(
            "schedule_latency",
            &self.handle.telemetry().schedule_latency,
            bucket,
        );
        layout.range(bucket)
    }

    /// Followed tasks whose wait on worker `worker`, from the end of the sampled poll
    /// that scheduled them there to their own poll, fell in bucket `bucket`.
    ///
    /// # Panics
    /// When `worker` is not below `num_workers()` or `bucket` not below
    /// `schedule_latency_histogram_num_buckets()`.
    #[track_caller]
    pub fn schedule_latency_histogram_bucket_count(&self, worker: usize, bucket: usize) -> u64 {
        checked(
            "schedule_latency",
            &self.handle.telemetry().schedule_latency,
            bucket,
        );
        let slot = self.slot(worker);
        slot.schedule_latency.as_ref().map_or(0, |b| b.get(bucket))
    }

    /// The mean number of polls per sampled poll
    /// (`Builder::metrics_histogram_sample_interval`; 1: every poll).
    pub fn histogram_sample_interval(&self) -> u32 {
        self.handle.telemetry().sample_interval
    }

    #[track_caller]
    fn slot(&self, worker: usize) -> &Slot {
        let slots = self.handle.metric_slots();
        let n = slots.len();
        if worker >= n {
            panic!(
                "worker index {worker} out of range: the runtime has {n} worker(s); pass an \
                 index in 0..num_workers()"
            );
        }
        &slots[worker]
    }
}

fn num_buckets(layout: &Option<HistogramConfiguration>) -> usize {
    layout
        .as_ref()
        .map_or(0, HistogramConfiguration::num_buckets)
}

/// The layout, when `bucket` is one of its buckets; else a panic saying why.
#[track_caller]
fn checked(
    name: &str,
    layout: &Option<HistogramConfiguration>,
    bucket: usize,
) -> HistogramConfiguration {
    let Some(layout) = layout else {
        panic!(
            "the {name} histogram is disabled: enable it with \
             Builder::enable_metrics_{name}_histogram, or check \
             RuntimeMetrics::{name}_histogram_enabled() first"
        );
    };
    let n = layout.num_buckets();
    if bucket >= n {
        panic!(
            "bucket {bucket} out of range: the {name} histogram has {n} buckets; pass an index \
             in 0..{name}_histogram_num_buckets()"
        );
    }
    *layout
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
