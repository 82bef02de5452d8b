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
//!   time; a countdown that expires while one is pending marks nothing.
//! - **Remote schedules** (spawns and wakes from outside the workers, through the global
//!   queue) are marked through the runtime's one `RemoteMark`: a worker whose poll is
//!   sampled asks for a mark (`IDLE` -> `WANTED`); the next remote pusher to see `WANTED`
//!   claims it, stamps the clock and publishes the task's address (Release) before its
//!   push. A worker taking a global batch compares each task with the published address
//!   (Acquire, after the pop: a pop that got the task sees its mark), and the one that
//!   finds it takes the mark over as its own, with the pusher's stamp: the wait then runs
//!   on to the task's poll, global queue and ring included. A worker that runs dry with
//!   both global queues empty drops a published mark nobody found (a task cancelled at a
//!   refused push), so the next request can go out.
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
//! schedule, after the push) and one address comparison per poll; a remote push adds a
//! relaxed load, a task taken in a global batch a load and a compare. All else happens
//! on sampled events,
//! and each count is written straight into the worker's published buckets
//! (`histogram.rs`). A disabled histogram's countdown starts at `u32::MAX` and is reset
//! there whenever it runs out.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use crossbeam_utils::CachePadded;

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

/// The address of `task`'s header: what a mark compares.
#[inline(always)]
pub(crate) fn address_of(task: &RunTask) -> usize {
    // SAFETY: a bitwise copy of the one reference `task` holds, which `into_raw` consumes
    // without dropping (it only reads the pointer): the copy is never used or dropped, so
    // `task` stays the only owner.
    let copy = unsafe { std::ptr::read(task) };
    queue::Link::into_raw(copy).as_ptr() as usize
}

/// The address of `task`'s header; the task goes back unchanged.
#[inline(always)]
fn address(task: RunTask) -> (RunTask, usize) {
    let addr = address_of(&task);
    (task, addr)
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
    pub(crate) fn poll_due(&mut self, task: &RunTask) -> bool {
        self.poll_in -= 1;
        self.poll_in == 0 || address_of(task) == self.marked
    }

    /// A sampled poll begins: records the marked task's latency if this is it, restarts
    /// the poll countdown if it ran out; Some(start) when the poll is to be timed.
    #[cold]
    #[inline(never)]
    pub(crate) fn begin_sampled(
        &mut self,
        task: RunTask,
        slot: &Slot,
        remote: &RemoteMark,
    ) -> (RunTask, Option<Instant>) {
        let (task, addr) = address(task);
        let now = Instant::now();
        if self.telemetry.schedule_latency.is_some() {
            remote.request();
        }
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

    /// Marks the task at `addr`, just queued (module docs), unless a mark is pending that
    /// no steal has voided. Called after the push: with no task in hand, a call that
    /// could unwind needs no clean-up on the schedule path.
    #[cold]
    #[inline(never)]
    pub(crate) fn mark(&mut self, addr: usize, slot: &Slot) {
        self.mark_in = self.next_interval(self.telemetry.schedule_latency.is_some());
        if self.telemetry.schedule_latency.is_none() {
            return;
        }
        let stolen = slot.stolen_from();
        if self.marked != 0 && stolen == self.stolen_at {
            return;
        }
        self.marked = addr;
        self.marked_at = Some(Instant::now());
        self.stolen_at = stolen;
    }

    /// Drops the pending mark: the task left, or may leave, this worker's queues
    /// unpolled (module docs).
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.marked = 0;
    }
}

/// `RemoteMark::state`: no mark wanted.
const IDLE: usize = 0;
/// A worker asked for a mark; the next remote pusher claims it.
const WANTED: usize = 1;
/// A pusher is stamping (any larger value is the marked task's address).
const CLAIMING: usize = 2;

/// The mark of one remotely scheduled task (module docs): shared by the runtime's pushers
/// and workers, on a line of its own. These are std atomics even under loom: they carry
/// no synchronization the models need (a lost or voided mark only loses a sample).
pub(crate) struct RemoteMark {
    /// `IDLE`, `WANTED`, `CLAIMING`, or the marked task's address.
    state: CachePadded<AtomicUsize>,
    /// When the task was marked, in ns since `base`; written before `state` publishes
    /// the address (Release), read after it is seen (Acquire).
    at_ns: AtomicU64,
    base: Instant,
}

impl RemoteMark {
    /// `enabled`: the schedule-latency histogram is on (else no mark is ever wanted).
    pub(crate) fn new(enabled: bool) -> RemoteMark {
        RemoteMark {
            state: CachePadded::new(AtomicUsize::new(if enabled { WANTED } else { IDLE })),
            at_ns: AtomicU64::new(0),
            base: Instant::now(),
        }
    }

    /// A remote pusher, before it pushes `task` onto a global queue: marks it when a
    /// worker asked for a mark. One relaxed load otherwise.
    #[inline]
    pub(crate) fn before_push(&self, task: RunTask) -> RunTask {
        // Relaxed: a hint; the claim below is the CAS.
        if self.state.load(Ordering::Relaxed) != WANTED {
            return task;
        }
        self.claim(task)
    }

    #[cold]
    #[inline(never)]
    fn claim(&self, task: RunTask) -> RunTask {
        // Relaxed: the claim only excludes other pushers; the stamp is published below.
        if self
            .state
            .compare_exchange(WANTED, CLAIMING, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return task;
        }
        let (task, addr) = address(task);
        let ns = self.base.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64;
        self.at_ns.store(ns, Ordering::Relaxed);
        // Release: the stamp above happens-before a worker's Acquire load of the address.
        self.state.store(addr, Ordering::Release);
        task
    }

    /// A worker whose poll is sampled asks for the next remote push to be marked.
    fn request(&self) {
        // Relaxed: only pushers' claims follow, and they re-check with their CAS.
        let _ = self
            .state
            .compare_exchange(IDLE, WANTED, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// A worker ran dry with both global queues empty: a published mark nobody found is of
    /// a task that will not be found (module docs).
    pub(crate) fn drop_unfound(&self) {
        // Relaxed: nothing is read on the strength of these values.
        let s = self.state.load(Ordering::Relaxed);
        if s > CLAIMING {
            let _ = self
                .state
                .compare_exchange(s, IDLE, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

impl Sampler {
    /// A worker took `task` off a global queue: when it is the remotely marked one, this
    /// worker's mark becomes it (replacing a pending local one), with the pusher's stamp.
    #[inline]
    pub(crate) fn took_from_global(
        &mut self,
        task: RunTask,
        remote: &RemoteMark,
        slot: &Slot,
    ) -> RunTask {
        // Acquire: pairs with the pusher's Release store of the address; loaded after the
        // pop, so the pop of a marked task sees its mark (the push followed the store).
        let s = remote.state.load(Ordering::Acquire);
        if s <= CLAIMING {
            return task;
        }
        self.adopt(task, s, remote, slot)
    }

    #[cold]
    #[inline(never)]
    fn adopt(&mut self, task: RunTask, s: usize, remote: &RemoteMark, slot: &Slot) -> RunTask {
        let (task, addr) = address(task);
        if addr != s || self.telemetry.schedule_latency.is_none() {
            return task;
        }
        let ns = remote.at_ns.load(Ordering::Relaxed);
        // Relaxed: one taker wins the mark; the stamp was read after the Acquire above.
        if remote
            .state
            .compare_exchange(s, IDLE, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            self.marked = addr;
            self.marked_at = Some(remote.base + std::time::Duration::from_nanos(ns));
            self.stolen_at = slot.stolen_from();
        }
        task
    }
}
