//! Sampled poll times and schedule latencies: what a worker measures, and how little it
//! pays when it measures nothing.
//!
//! Reading the clock costs about as much as a small task's whole poll, so neither
//! histogram reads it for every task. Each worker's `Sampler` counts down two random
//! intervals, each drawn uniformly from `1..=2n-1` (mean `n`, the sample interval,
//! `Builder::metrics_histogram_sample_interval`; random so that a periodic workload, two
//! tasks ping-ponging, cannot hide one of them from the samples):
//!
//! - **Poll time**: when the poll countdown reaches zero, that poll is timed (a clock
//!   read before and after it) and counted in its bucket. The counts are of *sampled*
//!   polls: about one poll in `n`; multiply by `n` to estimate all polls. With `n = 1`
//!   every poll is timed, as tokio's histogram does.
//! - **Schedule latency** (wake to poll): when the schedule countdown reaches zero, the
//!   task being scheduled on this worker's thread (spawned or woken by a task it runs or
//!   by its driver turn, or yielding) is *marked*: its address and the clock are kept,
//!   and when this worker next polls a task at that address, the time since the mark is
//!   counted (that poll is timed too, on the same clock read). One task is marked at a
//!   time; a countdown that expires while one is pending marks nothing. Tasks scheduled
//!   from outside the worker (remote spawns and wakes, through the global queue) are not
//!   marked: the histogram is of local schedules, LIFO slot, ring and deferred list alike.
//!
//! A marked task that leaves this worker's queues before its poll is not measured: the
//! mark is dropped when the ring overflows (its older half moves to the global queue),
//! when the worker runs out of local work (so nothing marked is left in its queues), and
//! a sibling that steals from this worker (its ring, or its LIFO slot while it is stuck)
//! bumps `Slot::stolen_from`: a mark taken before a steal is not counted, so a stolen
//! task that comes back (or a new task at the same address) is never measured from the
//! old mark. Latencies of stolen tasks are thus missing, not wrong.
//!
//! The hot path per task is two countdown decrements (one per poll, one per local
//! schedule) and one address comparison per poll; all else happens on sampled events,
//! and each count is written straight into the worker's published buckets
//! (`histogram.rs`). A disabled histogram's countdown starts at `u32::MAX` and is reset
//! there whenever it runs out.

use std::time::Instant;

use super::histogram::HistogramConfiguration;
use super::Slot;
use crate::scheduler::RunTask;

/// The sample interval when the builder sets none: one poll in about this many is timed,
/// one local schedule in about this many marked.
pub(crate) const DEFAULT_SAMPLE_INTERVAL: u32 = 128;

/// The builder's histogram settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Telemetry {
    /// The poll-time layout, None: disabled.
    pub(crate) poll_time: Option<HistogramConfiguration>,
    /// The schedule-latency layout, None: disabled.
    pub(crate) schedule_latency: Option<HistogramConfiguration>,
    /// Mean events between two samples (at least 1).
    pub(crate) sample_interval: u32,
}

impl Default for Telemetry {
    fn default() -> Telemetry {
        Telemetry {
            poll_time: Some(HistogramConfiguration::default()),
            schedule_latency: Some(HistogramConfiguration::default()),
            sample_interval: DEFAULT_SAMPLE_INTERVAL,
        }
    }
}

/// A disabled countdown: runs out only after `u32::MAX` events, and is reset there.
const NEVER: u32 = u32::MAX;

/// One worker's sampling state (module docs); lives in its core.
pub(crate) struct Sampler {
    /// Polls until the next timed one (always at least 1 between polls).
    poll_in: u32,
    /// Local schedules until the next mark (always at least 1 between schedules).
    mark_in: u32,
    /// The marked task's address; 0: none.
    marked: usize,
    /// When it was marked.
    marked_at: Option<Instant>,
    /// `Slot::stolen_from` when it was marked.
    stolen_at: u64,
    telemetry: Telemetry,
    rng: u32,
}

/// The address of `task`'s header: what a mark compares. The task goes back unchanged.
#[inline(always)]
fn address(task: RunTask) -> (RunTask, usize) {
    let raw = queue::Link::into_raw(task);
    // SAFETY: `raw` is the reference `into_raw` took from `task` just above: handing it
    // straight back re-creates that same one reference.
    let task = unsafe { queue::Link::from_raw(raw) };
    (task, raw.as_ptr() as usize)
}

impl Sampler {
    pub(crate) fn new(telemetry: &Telemetry, seed: u32) -> Sampler {
        let mut s = Sampler {
            poll_in: NEVER,
            mark_in: NEVER,
            marked: 0,
            marked_at: None,
            stolen_at: 0,
            telemetry: *telemetry,
            // xorshift needs a non-zero state.
            rng: seed.wrapping_mul(0x9E37_79B9) | 1,
        };
        s.poll_in = s.next_interval(s.telemetry.poll_time.is_some());
        s.mark_in = s.next_interval(s.telemetry.schedule_latency.is_some());
        s
    }

    fn next_interval(&mut self, enabled: bool) -> u32 {
        if !enabled {
            return NEVER;
        }
        let n = self.telemetry.sample_interval.max(1);
        if n == 1 {
            return 1;
        }
        // xorshift32: a cheap, decent spread for picking sample points.
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        1 + x % (2 * n.min(u32::MAX / 2) - 1)
    }

    /// Before a poll: whether it is sampled (timed, or the marked task), in which case
    /// the caller asks `begin_sampled` for the start time.
    #[inline(always)]
    pub(crate) fn poll_due(&mut self, task: RunTask) -> (RunTask, bool) {
        self.poll_in -= 1;
        let (task, addr) = address(task);
        let due = self.poll_in == 0 || addr == self.marked;
        (task, due)
    }

    /// A sampled poll begins: records the marked task's latency if this is it, restarts
    /// the poll countdown if it ran out; Some(start) when the poll is to be timed.
    #[cold]
    #[inline(never)]
    pub(crate) fn begin_sampled(
        &mut self,
        task: RunTask,
        slot: &Slot,
    ) -> (RunTask, Option<Instant>) {
        let (task, addr) = address(task);
        let now = Instant::now();
        if addr == self.marked {
            if let (Some(at), Some(layout), Some(buckets)) = (
                self.marked_at,
                self.telemetry.schedule_latency,
                slot.schedule_latency.as_ref(),
            ) {
                if slot.stolen_from() == self.stolen_at {
                    buckets.record(layout.bucket(now.saturating_duration_since(at)));
                }
            }
            self.clear();
        }
        let timed = self.poll_in == 0;
        if timed {
            self.poll_in = self.next_interval(self.telemetry.poll_time.is_some());
        }
        (
            task,
            (timed && self.telemetry.poll_time.is_some()).then_some(now),
        )
    }

    /// A timed poll that began at `start` ended: counts its duration.
    #[cold]
    #[inline(never)]
    pub(crate) fn end_timed(&self, start: Instant, slot: &Slot) {
        if let (Some(layout), Some(buckets)) = (self.telemetry.poll_time, slot.poll_time.as_ref()) {
            buckets.record(layout.bucket(start.elapsed()));
        }
    }

    /// Before a local schedule: whether to mark the task (then call `mark`).
    #[inline(always)]
    pub(crate) fn schedule_due(&mut self) -> bool {
        self.mark_in -= 1;
        self.mark_in == 0
    }

    /// Marks `task` (module docs), unless a mark is pending that no steal has voided.
    #[cold]
    #[inline(never)]
    pub(crate) fn mark(&mut self, task: RunTask, slot: &Slot) -> RunTask {
        self.mark_in = self.next_interval(self.telemetry.schedule_latency.is_some());
        if self.telemetry.schedule_latency.is_none() {
            return task;
        }
        let stolen = slot.stolen_from();
        if self.marked != 0 && stolen == self.stolen_at {
            return task;
        }
        let (task, addr) = address(task);
        self.marked = addr;
        self.marked_at = Some(Instant::now());
        self.stolen_at = stolen;
        task
    }

    /// Drops the pending mark: the task left, or may leave, this worker's queues
    /// unpolled (module docs).
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.marked = 0;
    }
}
