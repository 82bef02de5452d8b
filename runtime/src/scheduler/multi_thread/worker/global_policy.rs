//! When a worker looks at the global queues, which one first, and how much it takes.
//!
//! A busy worker runs its own queues and looks at the global ones (`inject`: remote spawns
//! and wakes; `overflow`: what full rings spilled) every `interval` polls, LIFO polls
//! included: a *fairness visit*, which takes a batch before any local task. The interval
//! is tuned so that a visit comes about every `GLOBAL_QUEUE_LATENCY` of polling: once per
//! maintenance the worker divides the time since the last maintenance by the polls in
//! between (a window that restarts whenever the worker runs dry, so time spent searching,
//! spinning or parked is never charged to polls). A user-fixed interval is never tuned.
//!
//! A LIFO streak is cut for the global queues (`streak_cut_due`) when a visit is due, or,
//! on tuned runtimes, when remote work has waited `GLOBAL_QUEUE_LATENCY` since this worker
//! last served it: the poll count alone would let a chain of long polls, each spawning the
//! next, hold remote spawns for as many polls as a window of short ones measured. That
//! check reads the clock, so it runs only while the remote queue has work, and the stamp
//! it compares with is taken only when a batch served remote work: a clock read costs about
//! what a small task's whole spawn and poll does.
//!
//! Fairness visits alternate which queue goes first, so neither starves the other; a
//! worker that merely ran out of local work takes `overflow` first (work under way before
//! work not started). A batch is a fair share (`len / workers + 1`), up to what the ring
//! can take without spilling (`MAX_GLOBAL_BATCH` less its length), and at least one.
//!
//! The policy takes only what it reads: the user's interval and the two queues (`inject`,
//! `overflow`), generic over their task type, so it imports nothing of the scheduler.

use std::time::{Duration, Instant};

use queue::{Inject, Link};

/// How often a busy worker should look at the global queue, in time of work. Short: a
/// visit to an empty queue is one relaxed load, and tasks short enough to make many visits
/// per 10 µs hit `MAX_INTERVAL` first; long polls (a 10 µs stall) get a visit after each.
const GLOBAL_QUEUE_LATENCY: Duration = Duration::from_micros(10);

/// Bounds of the tuned interval, in polls.
const MIN_INTERVAL: u32 = 2;
const MAX_INTERVAL: u32 = 127;

/// The interval before anything was measured.
const DEFAULT_INTERVAL: u32 = 61;

/// The most a global batch may fill of the ring: the rest is slack for the task a LIFO
/// streak displaces and for local spawns, so taking a batch never overflows the ring.
const MAX_GLOBAL_BATCH: usize = queue::CAPACITY * 7 / 8;

/// One worker's global-queue policy (module docs).
pub(super) struct GlobalPolicy {
    /// Polls between fairness visits.
    interval: u32,
    /// The worker's poll count (LIFO polls included) at which the next fairness visit is
    /// due: the count at the last look at the global queues (by any `choose`, fair or not)
    /// plus `interval`. Compared with the count the worker keeps anyway, so a poll costs
    /// this policy nothing.
    next_visit: u64,
    /// When this worker last took a batch while remote work waited (None: never, or
    /// under loom, where the clock is not modelled).
    last_served: Option<Instant>,
    /// Whether `interval` is tuned from measurements (the user did not fix it).
    tuned: bool,
    /// Start and poll count of the current tuning window (None: restarts at the next
    /// maintenance).
    window: Option<(Instant, u64)>,
    /// Which queue goes first on the last fairness visit: remote spawns (true) or
    /// overflowed tasks; flipped on every visit.
    spawns_first: bool,
}

impl GlobalPolicy {
    /// The policy of a worker whose user fixed `global_queue_interval` (None: tuned).
    pub(super) fn new(global_queue_interval: Option<u32>) -> GlobalPolicy {
        let interval = global_queue_interval.unwrap_or(DEFAULT_INTERVAL).max(1);
        GlobalPolicy {
            interval,
            // The poll count starts at 0.
            next_visit: u64::from(interval),
            last_served: None,
            // Not under loom: a clock read would make the models non-deterministic.
            tuned: global_queue_interval.is_none() && !cfg!(loom),
            window: None,
            spawns_first: false,
        }
    }

    /// Whether the next tick starts with a fairness visit, after `polls` polls.
    #[inline]
    pub(super) fn visit_due(&self, polls: u64) -> bool {
        polls >= self.next_visit
    }

    /// Whether a LIFO streak should end for the global queues now, after `polls` polls
    /// (module docs).
    #[inline]
    pub(super) fn streak_cut_due<T: Link>(
        &self,
        inject: &Inject<T>,
        overflow: &Inject<T>,
        polls: u64,
    ) -> bool {
        if self.visit_due(polls) {
            return !overflow.is_empty() || !inject.is_empty();
        }
        self.tuned
            && !inject.is_empty()
            && self
                .last_served
                .is_none_or(|t| t.elapsed() >= GLOBAL_QUEUE_LATENCY)
    }

    /// A look at the global queues after `polls` polls: picks the one to take from (None:
    /// both empty) and sets the next visit `interval` polls away. On a fairness visit
    /// (`fair`) the two take turns at going first; otherwise `overflow` does.
    pub(super) fn choose<'a, T: Link>(
        &mut self,
        inject: &'a Inject<T>,
        overflow: &'a Inject<T>,
        fair: bool,
        polls: u64,
    ) -> Option<&'a Inject<T>> {
        self.next_visit = polls + u64::from(self.interval);
        let spawns_first = fair && {
            self.spawns_first = !self.spawns_first;
            self.spawns_first
        };
        let (first, second) = if spawns_first {
            (inject, overflow)
        } else {
            (overflow, inject)
        };
        let queue = if !first.is_empty() {
            first
        } else if !second.is_empty() {
            second
        } else {
            return None;
        };
        // A batch of overflowed tasks with the remote queue empty serves no remote work,
        // and reads no clock.
        if self.tuned && (std::ptr::eq(queue, inject) || !inject.is_empty()) {
            self.last_served = Some(Instant::now());
        }
        Some(queue)
    }

    /// How many tasks to take from `queue` into a ring holding `ring_len` (module docs).
    pub(super) fn batch_size<T: Link>(queue: &Inject<T>, workers: usize, ring_len: usize) -> usize {
        let room = MAX_GLOBAL_BATCH.saturating_sub(ring_len);
        let share = queue.len() / workers + 1;
        share.min(room).max(1)
    }

    /// At maintenance: sets the interval from the window's time per poll, then starts the
    /// next window. One clock read per maintenance.
    pub(super) fn tune(&mut self, polls: u64) {
        if !self.tuned {
            return;
        }
        let now = Instant::now();
        if let Some((start, polls_then)) = self.window {
            let n = u32::try_from(polls - polls_then).unwrap_or(u32::MAX).max(1);
            let per_poll = now.saturating_duration_since(start) / n;
            let interval = if per_poll.is_zero() {
                MAX_INTERVAL
            } else {
                (GLOBAL_QUEUE_LATENCY.as_nanos() / per_poll.as_nanos())
                    .min(u128::from(MAX_INTERVAL)) as u32
            };
            self.interval = interval.clamp(MIN_INTERVAL, MAX_INTERVAL);
        }
        self.window = Some((now, polls));
    }

    /// The worker ran dry: what comes until it runs tasks again is not poll time.
    #[inline]
    pub(super) fn restart_window(&mut self) {
        self.window = None;
    }
}
