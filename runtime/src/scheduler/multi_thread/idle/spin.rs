//! The pre-park spin: how long an idle searcher keeps looking before it parks, adapted
//! to what idleness has looked like lately on this worker; and `IdlePolicy`, the
//! per-worker state the search (search.rs) reads: spin rounds, park yields, the spin's
//! record and the last remote-wake count seen.
//!
//! A spin pays when work shows up before a park/unpark pair would have completed (two
//! futex syscalls and a wake-up latency); it wastes a CPU when the next work is further
//! away than the spin lasts (a request-response client whose round trip is longer than
//! the spin: every spin is lost, and the parked worker is woken anyway). So each worker keeps an average (EWMA, weight 1/4) of its recent *idle
//! episodes*: from running out of work (nothing local, nothing to steal) to finding work
//! again, by a spin or after a park. It spins only while that average is under
//! `SPIN_WORTH`; one long idle period (the runtime going quiet) lifts the average past it,
//! so a worker idle for long does not spin at all, and a run of short episodes (a busy
//! phase) brings the spin back within a few episodes (episodes measured park-to-unpark
//! count as well, so the average recovers without spinning).
//!
//! Short idle episodes are not enough: the work that ends them must be visible to a
//! spinner. A request on a connection wakes the worker parked in the driver, which runs
//! the handler itself; a searcher spinning meanwhile sees nothing and burns a CPU that,
//! on a machine whose cores are all in use (the load generator, the other worker), was
//! someone else's: the rule is that a spin must find work often enough to pay for the
//! CPU it takes. So a worker also
//! counts its spins that found nothing: after `MAX_MISSES` in a row it stops spinning,
//! except for one probe every `PROBE_EVERY` idle episodes, which re-enables the spin
//! when it succeeds (a producer spawning in a loop, where a spinner does steal).
//!
//! Never while the I/O driver is unattended (`Handle::driver_attended`: nobody sleeps in
//! it or polls it). The worker about to park would be the one to sleep in it; while it
//! spins, readiness events wait undispatched for as long as the spin lasts, and with
//! every other worker busy or parked on its condvar nothing else watches them: the
//! spin adds its length to a request's latency and takes CPU from whoever would serve
//! it.
//!
//! Never more spinners than arriving work can use: besides the searcher limit (at most
//! half the workers), one worker spins at a time (`SpinToken`, one CAS per idle episode,
//! never on the task path). The clock is read twice per idle episode, never per task.
//! Under loom none of this applies: one spin round, no clock, no token (the models would
//! explode, and the clock is not modelled).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// A searcher that found nothing re-checks the queues this many times, `SPIN_PAUSES`
/// spin hints apart (tens of microseconds in all: about as long as a park/unpark pair
/// takes on a virtual machine), before parking: work often arrives within microseconds
/// (a producer spawning in a loop, the next request on a connection), and a park/unpark
/// pair costs two syscalls plus a wake-up latency. The rule: spin about as long as a
/// park/unpark pair would cost, no longer. Only searchers spin (at most half the
/// workers), one at a time, and only while recent idle episodes were short
/// (`SpinPolicy`). No `sched_yield` in the spin: a syscall per idle episode would cost
/// more than the futex pair it tries to save. (The yields of `PARK_YIELDS` come after
/// the spin, and only when a `block_on` caller feeding the pool may share the CPU.)
/// Under loom one round, or the model explodes.
const SPIN_ROUNDS: u32 = if cfg!(loom) { 1 } else { 128 };
/// The spin when there are more workers than CPUs: a spinning searcher would then take
/// a CPU from a thread with work (a producer, a sibling), so it parks almost at once.
const SPIN_ROUNDS_OVERSUBSCRIBED: u32 = if cfg!(loom) { 1 } else { 4 };

/// Pre-park spin rounds for a runtime of `workers` workers on a machine of `cpus` CPUs.
pub(in crate::scheduler::multi_thread) fn spin_rounds(workers: usize, cpus: usize) -> u32 {
    if workers > cpus {
        SPIN_ROUNDS_OVERSUBSCRIBED
    } else if cfg!(loom) {
        SPIN_ROUNDS
    } else {
        let w = workers.max(1) as u32;
        (SPIN_SCANS / w.saturating_mul(w)).clamp(MIN_SPIN_ROUNDS, SPIN_ROUNDS)
    }
}

/// The spin shrinks as the workers grow: 128 rounds up to 2 workers, 64 at 4, 16 at 8,
/// 8 from 12 on. Every round looks at every sibling's queue and LIFO slot
/// (`has_visible_work`), lines their owners keep writing, and a spinner that sees work
/// steals it from under the sibling a notifier woke for it; both grow with the workers,
/// and with them the idle workers taking turns at the spin. The rule: the spin's total
/// scan (rounds times siblings looked at, per spinner in turn) stays about constant, so
/// the rounds fall with the square of the workers; two workers keep the full spin.
/// (The measurements behind it: benches/RESULTS.md, "Moved from the idle policy's
/// comments".)
const SPIN_SCANS: u32 = 1024;
/// The fewest rounds a spin gets, however many workers.
const MIN_SPIN_ROUNDS: u32 = 8;

/// The park yields (`PARK_YIELDS`) for `workers` workers on `cpus` CPUs: only when the
/// workers fill the machine, so a `block_on` caller feeding them may share a worker's
/// CPU. With CPUs to spare it runs beside them, and the yields would only keep one more
/// worker hunting for wake-ups that a woken worker came for.
pub(in crate::scheduler::multi_thread) fn park_yields(workers: usize, cpus: usize) -> u32 {
    if workers >= cpus {
        PARK_YIELDS
    } else {
        0
    }
}
// loom-tests: under loom a spin hint is a `loom::thread::yield_now`, a scheduling point;
// back-to-back yields with nothing between them add no behaviour, only executions.
pub(super) const SPIN_PAUSES: u32 = if cfg!(loom) { 1 } else { 8 };

/// After the spin, a worker about to park yields its CPU up to this many times, looking
/// for work after each (`Core::yield_for_work`), when two things hold: tasks were woken
/// from outside the workers since it last ran out of work (spawns do not count), and a
/// `block_on` caller is polling its future (not spinning or parked). That caller, which
/// feeds the pool from outside, may share this worker's CPU: the yields let it run, and
/// the work it sends finds the worker awake. Parked instead, the worker costs the sender
/// a futex wake per unpark, and the woken worker preempts it (the kernel favours a
/// thread that just woke). The yields give the CPU away rather than
/// take it, and the worker is not counted parked meanwhile, so `block_on` does not spin on
/// the CPU it thinks free. Tokio's parker yields three times too, unconditionally; here
/// every other pattern (a pool feeding itself, a server woken by its driver) parks as
/// before. The rule: yield only where the CPU given away goes to the thread sending the
/// work, never where another worker would take the work a woken one came for. So two
/// more conditions: the workers must fill the machine (`park_yields`), and only a
/// searcher holding the spin token yields (one worker at a time, counted as searching so
/// notifiers wake nobody for the work it is about to take). (The measurements behind
/// it: benches/RESULTS.md, "Moved from the idle policy's comments".)
/// Under loom none (each yield is a scheduling point).
const PARK_YIELDS: u32 = if cfg!(loom) { 0 } else { 3 };

/// Spin only while recent idle episodes average less than this (a park/unpark pair costs
/// about this much CPU and latency, so shorter waits are cheaper spun).
const SPIN_WORTH: Duration = Duration::from_micros(25);

/// Spins in a row that found nothing after which a worker stops spinning.
const MAX_MISSES: u32 = 2;

/// While stopped, one idle episode in this many spins anyway (a probe).
const PROBE_EVERY: u32 = 64;

/// How a worker that ran out of work looks for more before it parks: the spin rounds and
/// park yields chosen for this machine's workers and CPUs, whether spinning has paid
/// lately (`SpinPolicy`), and the remote-wake count it saw last (a change means work
/// arrives from outside: worth a yield before parking).
pub(in crate::scheduler::multi_thread) struct IdlePolicy {
    /// Pre-park spin rounds (`spin_rounds`).
    pub(super) spin_rounds: u32,
    /// Pre-park yields (`park_yields`).
    pub(super) park_yields: u32,
    /// Recent idle episodes: whether a spin pays.
    pub(in crate::scheduler::multi_thread) spin: SpinPolicy,
    /// `Hints::remote_wakes` when this worker last ran out of work (`yield_for_work`).
    pub(super) remote_wakes_seen: usize,
}

impl IdlePolicy {
    pub(in crate::scheduler::multi_thread) fn new(
        spin_rounds: u32,
        park_yields: u32,
    ) -> IdlePolicy {
        IdlePolicy {
            spin_rounds,
            park_yields,
            spin: SpinPolicy::default(),
            remote_wakes_seen: 0,
        }
    }
}

/// Per-worker record of recent idle episodes.
#[derive(Debug, Default)]
pub(in crate::scheduler::multi_thread) struct SpinPolicy {
    /// When the current idle episode began (None while the worker has work).
    idle_since: Option<Instant>,
    /// EWMA of recent idle episodes, in ns.
    avg_idle_ns: u64,
    /// Idle episodes so far (wrapping), for the probes.
    episodes: u32,
    /// Spins in a row that found nothing.
    misses: u32,
}

impl SpinPolicy {
    /// The worker ran out of work (it will spin or park now).
    pub(super) fn begin_idle(&mut self) {
        if !cfg!(loom) && self.idle_since.is_none() {
            self.idle_since = Some(Instant::now());
            self.episodes = self.episodes.wrapping_add(1);
        }
    }

    /// A spin ended, having found work or not.
    pub(super) fn spun(&mut self, found: bool) {
        self.misses = if found {
            0
        } else {
            self.misses.saturating_add(1)
        };
    }

    /// The worker found work again: the idle episode, if one was running, is measured.
    pub(super) fn end_idle(&mut self) {
        if self.idle_since.is_some() {
            self.end_idle_at(Instant::now());
        }
    }

    /// `end_idle`, with the clock read by the caller (who needs it too).
    pub(in crate::scheduler::multi_thread) fn end_idle_at(&mut self, now: Instant) {
        if let Some(t) = self.idle_since.take() {
            let ns = now
                .saturating_duration_since(t)
                .as_nanos()
                .min(u128::from(u64::MAX / 4)) as u64;
            self.avg_idle_ns = (self.avg_idle_ns * 3 + ns) / 4;
        }
    }

    /// Whether a spin is likely to pay now.
    pub(super) fn worth_spinning(&self) -> bool {
        if cfg!(loom) {
            return true;
        }
        self.avg_idle_ns < SPIN_WORTH.as_nanos() as u64
            && (self.misses < MAX_MISSES || self.episodes.is_multiple_of(PROBE_EVERY))
    }
}

/// The right to spin, held by one worker at a time (see the module docs).
///
/// Every access is `Relaxed` (each checked by the weakening sweep, loom-tests/README.md): the
/// token guards no memory, only the right to spin. What a spinner looks at (the queues,
/// the idle word) carries its own synchronization, and nothing is written under the
/// token for the next holder to read, so a Release at `release` and an Acquire at
/// `acquire` would order nothing that needs it. "One at a time" rests on the swap being
/// one read-modify-write: two racing swaps read each other's writes in the flag's
/// modification order, so exactly one reads `false`, whatever their orderings. Not
/// checkable under loom: the token is a std atomic and its loom build is a no-op (one
/// spin round, no token), so this is argued, not modelled.
#[derive(Default)]
pub(in crate::scheduler::multi_thread) struct SpinToken(AtomicBool);

impl SpinToken {
    /// True when the caller may spin (and must `release` after).
    pub(super) fn acquire(&self) -> bool {
        if cfg!(loom) {
            return true;
        }
        // A load first: no RMW, and no line ownership taken, while another spins.
        // Relaxed, both: the token guards no memory (see the type's docs).
        !self.0.load(Relaxed) && !self.0.swap(true, Relaxed)
    }

    pub(super) fn release(&self) {
        if !cfg!(loom) {
            // Relaxed: nothing written under the token is read by its next holder.
            self.0.store(false, Relaxed);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_spin_shrinks_with_the_workers_and_yields_need_a_full_machine() {
        assert_eq!(spin_rounds(1, 2), 128);
        assert_eq!(spin_rounds(2, 2), 128);
        assert_eq!(spin_rounds(4, 16), 64);
        assert_eq!(spin_rounds(8, 16), 16);
        assert_eq!(spin_rounds(16, 16), 8);
        assert_eq!(spin_rounds(64, 64), 8);
        assert_eq!(spin_rounds(3, 2), SPIN_ROUNDS_OVERSUBSCRIBED);
        assert_eq!(park_yields(2, 2), 3);
        assert_eq!(park_yields(16, 16), 3);
        assert_eq!(park_yields(2, 16), 0);
        assert_eq!(park_yields(8, 16), 0);
    }

    #[test]
    fn a_long_idle_stops_the_spin_and_short_ones_bring_it_back() {
        let mut p = SpinPolicy::default();
        assert!(p.worth_spinning());
        p.idle_since = Some(Instant::now() - Duration::from_millis(5));
        p.end_idle();
        assert!(!p.worth_spinning());
        for _ in 0..20 {
            p.idle_since = Some(Instant::now());
            p.end_idle();
        }
        assert!(p.worth_spinning());
    }

    #[test]
    fn spins_that_find_nothing_stop_the_spin_but_for_probes() {
        let mut p = SpinPolicy::default();
        let mut spun = 0;
        for _ in 0..(2 * PROBE_EVERY) {
            p.begin_idle();
            if p.worth_spinning() {
                spun += 1;
                p.spun(false);
            }
            p.idle_since = None;
        }
        // MAX_MISSES spins, then one probe per PROBE_EVERY episodes.
        assert!(spun <= MAX_MISSES + 2, "{spun}");
        // A probe that finds work re-enables the spin.
        p.spun(true);
        assert!(p.worth_spinning());
    }

    #[test]
    fn one_spinner_at_a_time() {
        let t = SpinToken::default();
        assert!(t.acquire());
        assert!(!t.acquire());
        t.release();
        assert!(t.acquire());
    }
}
