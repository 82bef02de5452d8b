//! Sampled poll times and schedule latencies: which polls a worker measures, and why the
//! polls it does not measure pay next to nothing.
//!
//! Reading the clock costs about as much as a small task's whole poll, so neither
//! histogram reads it for every task, and nothing is measured on the schedule (wake,
//! spawn) path at all: that path is the same code with the histograms on or off.
//!
//! Everything hangs off the worker's own poll count (`Stats`' `polls`, which the worker
//! raises once per poll anyway). The `Sampler` keeps `due`, the poll count at which it
//! next has something to do; only the poll that reaches it takes the out-of-line sampled
//! path. The check is not made per poll: the current-thread batch asks
//! [`Sampler::polls_before_due`] how many of its polls come first and runs those with no
//! check, and a multi-thread run (a task and its LIFO streak, a bounded number of polls)
//! that cannot reach `due` runs a copy of the poll loop without the check. With both
//! histograms disabled `due` is `u64::MAX` and is never reached. Two things make a poll
//! due:
//!
//! - **A sample.** About one poll in `n` (`Builder::metrics_histogram_sample_interval`,
//!   default [`DEFAULT_SAMPLE_INTERVAL`]; the gaps are drawn uniformly from `1..=2n-1`, so
//!   that a periodic workload, two tasks ping-ponging, cannot hide one of them). A sampled
//!   poll reads the clock before and after the task runs and counts the difference in
//!   the poll-time histogram. With `n = 1` every poll is timed, as tokio's histogram does.
//! - **A marked task's turn.** When a sampled poll has queued tasks on this worker (it
//!   spawned or woke them), the one it queued last is *marked*: its address, the clock
//!   read that ended the sampled poll, and the poll count at which it should be polled,
//!   read off the queue (current-thread: the back of the FIFO, polled after the tasks
//!   ahead of it; multi-thread: the LIFO slot, polled next out of the slot, else the back
//!   of the ring). When that poll count comes, the sampled path compares the task about
//!   to run with the mark: the same task (the same address, or for the LIFO slot a task
//!   taken from it) counts the time since the mark in the schedule-latency histogram.
//!   A different one (a global-queue batch ran in between, a sibling stole part of the
//!   ring) moves the expected turn one poll on, at most [`MARK_RETRIES`] times, after
//!   which the mark is dropped. One task is marked at a time: a sample taken while a mark
//!   is pending marks nothing, so a long queue is measured to the end.
//!
//! What the schedule latency is, then: for tasks scheduled on a worker's thread by a
//! sampled poll, the wait from the end of that poll (where the task became runnable, up
//! to the poll's own remaining length) to the start of the task's poll on the same
//! worker. Not measured: tasks scheduled from outside the workers (the global queue),
//! by the driver turn, or by yielding (the deferred list), and marked tasks that leave
//! the worker before their turn (stolen, overflowed). A marked task that completes and
//! whose memory holds a new task polled at exactly the expected turn would be taken for
//! it; the recorded wait is then that of a task of the same queue position.
//!
//! Counts go straight into the worker's published buckets (`histogram.rs`): Relaxed
//! adds on the worker's own slot, which only it writes.

use std::time::Instant;

use super::histogram::HistogramConfiguration;
use super::Slot;

/// The sample interval when the builder sets none: about one poll in this many is
/// sampled.
pub(crate) const DEFAULT_SAMPLE_INTERVAL: u32 = 256;

/// How many polls past its expected turn a marked task is still looked for.
pub(crate) const MARK_RETRIES: u8 = 4;

/// The builder's histogram settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Telemetry {
    /// The poll-time layout, None: disabled.
    pub(crate) poll_time: Option<HistogramConfiguration>,
    /// The schedule-latency layout, None: disabled.
    pub(crate) schedule_latency: Option<HistogramConfiguration>,
    /// Mean polls between two samples (at least 1).
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

impl Telemetry {
    fn any(&self) -> bool {
        self.poll_time.is_some() || self.schedule_latency.is_some()
    }
}

/// Where the task a sampled poll queued last sits (module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Queued {
    /// In a FIFO at this address, with this many tasks to be polled before it.
    Fifo { addr: usize, ahead: u64 },
    /// In the LIFO slot: the next poll, if it is taken from the slot.
    Lifo,
}

/// A marked task (module docs).
struct Mark {
    /// Its address; 0 for `Queued::Lifo`.
    addr: usize,
    /// The end of the sampled poll that queued it.
    at: Instant,
    /// The poll count at which it is looked for.
    turn: u64,
    /// Polls past `turn` it is still looked for.
    retries: u8,
}

/// One worker's sampling state (module docs); lives in its core.
pub(crate) struct Sampler {
    /// The poll count at which the next sampled path runs: `min(next_sample, mark's
    /// turn)`, always above the current count; `u64::MAX`: never.
    due: u64,
    /// `due - (run - 1)`: a run of up to `run` polls whose first is numbered at least
    /// this may reach `due` (`run_may_reach_due`).
    run_due: u64,
    /// The most polls a run makes (1 where the caller checks every poll).
    run: u64,
    /// The poll count of the next sample.
    next_sample: u64,
    mark: Option<Mark>,
    telemetry: Telemetry,
    rng: u32,
}

/// The address of `task`'s header: what a mark compares.
#[inline(always)]
pub(crate) fn address_of<S: 'static>(task: &task::Notified<S>) -> usize {
    // SAFETY: a bitwise copy of the one reference `task` holds, which `into_raw` consumes
    // without dropping (it only reads the pointer): the copy is never used or dropped, so
    // `task` stays the only owner.
    let copy = unsafe { std::ptr::read(task) };
    queue::Link::into_raw(copy).as_ptr() as usize
}

impl Sampler {
    /// `seed` spreads the workers' sample points apart (any value); `run`: the most polls
    /// the caller makes per `run_may_reach_due` check (at least 1).
    pub(crate) fn new(telemetry: &Telemetry, seed: u32, run: u64) -> Sampler {
        let mut s = Sampler {
            due: u64::MAX,
            run_due: u64::MAX,
            run: run.max(1),
            next_sample: u64::MAX,
            mark: None,
            telemetry: *telemetry,
            // xorshift needs a non-zero state.
            rng: seed.wrapping_mul(0x9E37_79B9) | 1,
        };
        if s.telemetry.any() {
            s.next_sample = u64::from(s.next_gap());
            s.refresh_due();
        }
        s
    }

    /// Polls from one sample to the next: uniform in `1..=2n-1`.
    fn next_gap(&mut self) -> u32 {
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

    /// Whether the poll numbered `polls` (the count including it) takes the sampled
    /// path; a count past `due` (a check that was skipped) counts as due.
    #[inline(always)]
    pub(crate) fn is_due(&self, polls: u64) -> bool {
        polls >= self.due
    }

    /// Whether a run of polls whose first is numbered `polls` (at most `run` of them, as
    /// given to `new`) may reach the due count: then it checks each poll with `is_due`.
    #[inline(always)]
    pub(crate) fn run_may_reach_due(&self, polls: u64) -> bool {
        polls >= self.run_due
    }

    /// How many of the next `up_to` polls come before the due one (`polls`: the count so
    /// far): a loop runs that many with no check, then the due one through `begin`.
    #[inline(always)]
    pub(crate) fn polls_before_due(&self, polls: u64, up_to: u32) -> u32 {
        // `due > polls` (a due count already passed gives 0: the next poll is checked).
        self.due.saturating_sub(polls + 1).min(u64::from(up_to)) as u32
    }

    /// The sampled path, before poll number `polls` of the task at `addr` (`from_lifo`:
    /// it was taken from the LIFO slot). Counts a marked task's wait if this is it. Some(start)
    /// when the poll is a sample: the caller runs it, then calls `end_sample`.
    #[cold]
    #[inline(never)]
    pub(crate) fn begin(
        &mut self,
        polls: u64,
        addr: usize,
        from_lifo: bool,
        slot: &Slot,
    ) -> Option<Instant> {
        let mut now = None;
        if let Some(mark) = self.mark.as_mut() {
            if mark.turn <= polls {
                let found = if mark.addr == 0 {
                    from_lifo
                } else {
                    addr == mark.addr
                };
                if found {
                    let t = *now.get_or_insert_with(Instant::now);
                    if let (Some(layout), Some(buckets)) = (
                        self.telemetry.schedule_latency,
                        slot.schedule_latency.as_ref(),
                    ) {
                        buckets.record(layout.bucket(t.saturating_duration_since(mark.at)));
                    }
                    self.mark = None;
                } else if mark.retries > 0 && mark.addr != 0 {
                    mark.retries -= 1;
                    mark.turn = polls + 1;
                } else {
                    self.mark = None;
                }
            }
        }
        let sample = polls >= self.next_sample;
        if sample {
            self.next_sample = polls + u64::from(self.next_gap());
        }
        self.refresh_due();
        sample.then(|| now.unwrap_or_else(Instant::now))
    }

    /// The sample begun at `start` (poll number `polls`) ended: counts its time, and
    /// marks the task it queued last (`queued`, asked only when a mark can be taken).
    #[cold]
    #[inline(never)]
    pub(crate) fn end_sample(
        &mut self,
        polls: u64,
        start: Instant,
        slot: &Slot,
        queued: impl FnOnce() -> Option<Queued>,
    ) {
        let end = Instant::now();
        if let (Some(layout), Some(buckets)) = (self.telemetry.poll_time, slot.poll_time.as_ref()) {
            buckets.record(layout.bucket(end.saturating_duration_since(start)));
        }
        if self.telemetry.schedule_latency.is_none() || self.mark.is_some() {
            return;
        }
        let (addr, ahead) = match queued() {
            None => return,
            Some(Queued::Fifo { addr, ahead }) => (addr, ahead),
            Some(Queued::Lifo) => (0, 0),
        };
        self.mark = Some(Mark {
            addr,
            at: end,
            turn: polls + ahead + 1,
            retries: MARK_RETRIES,
        });
        self.refresh_due();
    }

    /// The worker runs out of local tasks: a pending mark is of a task that left.
    #[inline]
    pub(crate) fn clear(&mut self) {
        if self.mark.is_some() {
            self.mark = None;
            self.refresh_due();
        }
    }

    fn refresh_due(&mut self) {
        self.due = self
            .mark
            .as_ref()
            .map_or(self.next_sample, |m| m.turn.min(self.next_sample));
        self.run_due = if self.due == u64::MAX {
            u64::MAX
        } else {
            self.due.saturating_sub(self.run - 1)
        };
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn every_poll() -> Telemetry {
        Telemetry {
            sample_interval: 1,
            ..Telemetry::default()
        }
    }

    fn waits(slot: &Slot) -> u64 {
        let b = slot.schedule_latency.as_ref().unwrap();
        (0..HistogramConfiguration::default().num_buckets())
            .map(|i| b.get(i))
            .sum()
    }

    /// Runs the sampled path for poll `polls` of the task at `addr`, queueing `queued`.
    fn poll(s: &mut Sampler, slot: &Slot, polls: u64, addr: usize, queued: Option<Queued>) {
        assert!(s.is_due(polls), "poll {polls} not due");
        if let Some(start) = s.begin(polls, addr, false, slot) {
            s.end_sample(polls, start, slot, || queued);
        }
    }

    #[test]
    fn a_marked_task_is_measured_at_its_turn_and_only_then() {
        let t = every_poll();
        let slot = &crate::observe::metrics::slots(1, &t)[0];
        let mut s = Sampler::new(&t, 7, 1);
        // Poll 1 queues three tasks; the last (at 30) has two ahead: its turn is poll 4.
        poll(
            &mut s,
            slot,
            1,
            5,
            Some(Queued::Fifo { addr: 30, ahead: 2 }),
        );
        // A sample while the mark is pending marks nothing new.
        poll(
            &mut s,
            slot,
            2,
            10,
            Some(Queued::Fifo { addr: 40, ahead: 0 }),
        );
        poll(&mut s, slot, 3, 20, None);
        assert_eq!(waits(slot), 0);
        poll(&mut s, slot, 4, 30, None);
        assert_eq!(waits(slot), 1);
        // The mark is gone: 40 at poll 5 is not measured.
        poll(&mut s, slot, 5, 40, None);
        assert_eq!(waits(slot), 1);
    }

    #[test]
    fn a_late_marked_task_is_looked_for_a_few_polls_more() {
        let t = every_poll();
        let slot = &crate::observe::metrics::slots(1, &t)[0];
        let mut s = Sampler::new(&t, 7, 1);
        poll(
            &mut s,
            slot,
            1,
            5,
            Some(Queued::Fifo { addr: 30, ahead: 0 }),
        );
        // A global batch's task ran first: found one poll late.
        poll(&mut s, slot, 2, 99, None);
        poll(&mut s, slot, 3, 30, None);
        assert_eq!(waits(slot), 1);
        // Past the retries it is dropped, and a later poll of it is not measured.
        poll(
            &mut s,
            slot,
            4,
            5,
            Some(Queued::Fifo { addr: 31, ahead: 0 }),
        );
        for p in 5..=5 + u64::from(MARK_RETRIES) {
            poll(&mut s, slot, p, 99, None);
        }
        poll(&mut s, slot, 6 + u64::from(MARK_RETRIES), 31, None);
        assert_eq!(waits(slot), 1);
    }

    #[test]
    fn a_lifo_mark_counts_only_a_task_taken_from_the_slot() {
        let t = every_poll();
        let slot = &crate::observe::metrics::slots(1, &t)[0];
        let mut s = Sampler::new(&t, 7, 1);
        poll(&mut s, slot, 1, 5, Some(Queued::Lifo));
        let start = s.begin(2, 6, true, slot).unwrap();
        s.end_sample(2, start, slot, || Some(Queued::Lifo));
        assert_eq!(waits(slot), 1);
        // Poll 3 comes from the ring (the streak was cut): the mark is dropped at once.
        poll(&mut s, slot, 3, 7, None);
        let start = s.begin(4, 8, true, slot).unwrap();
        s.end_sample(4, start, slot, || None);
        assert_eq!(waits(slot), 1);
    }

    #[test]
    fn samples_come_about_once_per_interval_and_never_when_disabled() {
        let t = Telemetry {
            sample_interval: 16,
            ..Telemetry::default()
        };
        let slot = &crate::observe::metrics::slots(1, &t)[0];
        let mut s = Sampler::new(&t, 3, 1);
        let (mut sampled, mut polls) = (0u64, 0u64);
        while polls < 16_000 {
            let plain = s.polls_before_due(polls, 61);
            polls += u64::from(plain);
            if plain < 61 {
                polls += 1;
                poll(&mut s, slot, polls, 1, None);
                sampled += 1;
            }
        }
        // Gaps are uniform in 1..=31: mean 16.
        assert!(
            (800..1_200).contains(&sampled),
            "{sampled} samples in {polls} polls"
        );
        let off = Telemetry {
            poll_time: None,
            schedule_latency: None,
            sample_interval: 1,
        };
        let s = Sampler::new(&off, 3, 17);
        assert!(!s.is_due(u64::MAX - 1));
        assert_eq!(s.polls_before_due(1 << 40, 61), 61);
        assert!(!s.run_may_reach_due(u64::MAX - 1));
    }
}
