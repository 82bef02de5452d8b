//! `RuntimeMetrics`: the public, live view of a runtime's counters (`Handle::metrics()`,
//! `Runtime::metrics()`). It holds the scheduler handle and reads at each call: the
//! workers' published slots and the global counters through
//! `scheduler::Handle::metrics_now` / `metric_slots`, the histogram layouts through
//! `scheduler::Handle::telemetry`. What is counted, and how workers publish it, is
//! metrics.rs's; this file only reads. Its private field keeps it tokio's shape: a
//! counter added later is a new method, not a breaking change.

use std::ops::Range;
use std::time::Duration;

use crate::observe::metrics::{HistogramConfiguration, Slot, Snapshot, WorkerMetrics};

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
