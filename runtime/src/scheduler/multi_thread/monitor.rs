//! The monitor: one thread per multi-thread runtime that rescues work from stuck workers.
//!
//! In the spirit of Go's sysmon. While any worker is awake it wakes every tick and,
//! reading only what workers publish with plain stores (`worker_shared.rs`):
//!
//! 1. **Stuck polls.** A worker whose `poll_seq` reads the same odd value at two ticks in
//!    a row has been inside one poll for at least a tick. The monitor marks it stuck
//!    (its LIFO slot becomes stealable), and when that worker has tasks waiting (LIFO slot
//!    or ring), or the global queues hold work (the `overflow` queue its full ring
//!    spilled into, remote spawns) that the stuck worker will not take, it notifies a
//!    parked worker, which comes as a searcher and steals or takes them.
//!    It also keeps the poll metrics (longest poll, polls over `LONG_POLL`) and calls the
//!    `Builder::on_stall` callback once per poll that passes its threshold, with a report
//!    the stuck thread helped write: the monitor signals it (`stack_capture.rs`), at most
//!    once per stuck poll and within a process-wide rate limit, and its handler records
//!    the task it is polling and its native frames. Only a configured `on_stall` (or
//!    `fail_on_stall`) and a poll past its threshold ever send a signal.
//! 2. **An unattended driver.** Nobody is blocked in the I/O driver (its lock is free) and
//!    nobody polled it since the last tick (its poll counter did not move): the worker that
//!    left it is busy and the others sleep on condvars. The monitor unparks one parked
//!    worker; finding nothing to run it parks again, in the free driver, so readiness
//!    events and timers are dispatched within a tick or two whatever the others run. One
//!    unpark per tick at most.
//!
//! **The tick backs off while nothing needs the monitor.** It starts at `TICK` (1 ms).
//! After `QUIET_TICKS` ticks in a row that found no worker in the same poll as at the
//! tick before and the driver attended, the interval doubles, up to `MAX_TICK` (8 ms),
//! or half the `on_stall` threshold when that is shorter; a tick that finds a poll
//! lasting, or an unattended driver, brings it back to `TICK` at once. So a server
//! whose polls are short pays about 125 monitor wake-ups a second instead of 1,000 (at
//! two connections, 2% of its CPU), and a poll that blocks is noticed within one backed
//! off interval plus a tick: its LIFO task and the driver are rescued then, and the
//! stall report still comes before its threshold is passed by more than half of it.
//!
//! **No periodic wake-ups while idle.** When at `IDLE_TICKS` ticks in a row every worker
//! is parked and the driver is held (or there is none), the monitor sleeps without a
//! timeout. (Not at the first such tick: a server under light load is all-parked at most
//! ticks, and waking the monitor costs the waking worker a futex call on its way to the
//! request; 10 ticks of quiet first, 10 ms or more, keeps that off the request path.)
//! A worker that
//! leaves its park with work to do wakes it (`Monitor::worker_unparked`: one SeqCst load
//! of `sleeping` per unpark, a lock and a notify only when the monitor sleeps).
//! No lost wake-up: the monitor stores `sleeping = true` and then reads the idle count
//! (both SeqCst); a waking worker changed the idle count (SeqCst RMW) before it loads
//! `sleeping`. In the total order one of the two sees the other.
//!
//! The workers' hot path pays two plain stores per poll to their own padded line; the
//! monitor's reads move that line once per tick. The monitor thread is not built under
//! loom (no clock); its sleep/wake handshake is a type of its own, `SleepHandshake`, whose
//! atomics, lock and condvar go through the shim, and which `loom-tests`' `loom_monitor`
//! drives against the shipping idle word (`Idle`) as the monitor and a waking worker use
//! them (exported to loom builds only, `runtime::loom_internals`).
//!
//! Orderings (each argued in the weakening sweep, loom-tests/README.md). Two accesses need
//! SeqCst, the monitor's `sleeping = true` store before it reads the unparked count and
//! `worker_unparked`'s load, the two halves of the store-load pair above (with the idle
//! word's SeqCst increment and load, `idle/word.rs`): with anything weaker both loads may read
//! the old values, and the monitor sleeps without a timeout while a worker runs. (loom
//! orders a SeqCst load only after SeqCst stores, so `loom_monitor` starts from words
//! that SeqCst accesses wrote; from there its model deadlocks when the `sleeping = true`
//! store, `worker_unparked`'s load, the idle word's load or its unparked increment is
//! weakened.) Every other access is made under `lock`, which orders them among
//! themselves and against `wake`'s swap (the only other writer, also under the lock); a
//! stale `true` read by `worker_unparked` costs one lock and a swap that finds `false`.
//! Relaxed would do for those; they stay SeqCst, off the hot path (once per sleep, per
//! wake, at shutdown).

use std::time::{Duration, Instant};

use shim::sync::atomic::{AtomicBool, Ordering::SeqCst};
use shim::sync::{Condvar, Mutex};

use crossbeam_utils::CachePadded;

use super::idle::Idle;
use super::worker_shared::{Published, LONG_POLL};
use super::Handle;
use crate::observe::hooks::{Stall, StallCallback};

/// How often the monitor looks while something needs it (a poll seen lasting, an
/// unattended driver); also the shortest stuck threshold.
const TICK: Duration = Duration::from_millis(1);

/// The longest interval the monitor backs off to while nothing needs it.
const MAX_TICK: Duration = Duration::from_millis(8);

/// Quiet ticks in a row after which the interval doubles.
const QUIET_TICKS: u32 = 4;

/// Idle ticks in a row before the monitor sleeps without a timeout.
const IDLE_TICKS: u32 = 10;

/// The monitor's shared state (in the scheduler handle).
pub(crate) struct Monitor {
    handshake: SleepHandshake,
    pub(super) published: Box<[CachePadded<Published>]>,
    /// Origin of the published times.
    pub(super) base: Instant,
    on_stall: Option<(Duration, StallCallback)>,
}

/// What the monitor remembers of one worker between ticks (monitor thread only).
#[derive(Clone, Copy)]
struct Seen {
    seq: u64,
    first_seen: Instant,
    marked: bool,
    counted: bool,
    reported: bool,
}

impl Monitor {
    pub(super) fn new(num_workers: usize, on_stall: Option<(Duration, StallCallback)>) -> Monitor {
        Monitor {
            handshake: SleepHandshake::new(),
            published: (0..num_workers)
                .map(|_| CachePadded::new(Published::default()))
                .collect(),
            base: Instant::now(),
            on_stall,
        }
    }

    /// A worker left its park with work to do (after its idle-count change): wake the
    /// monitor if it sleeps.
    ///
    /// Under loom no monitor thread runs (the handshake is modelled alone,
    /// `loom_monitor`): there is nobody to wake, and the scheduler models get no branch
    /// point they cannot use.
    #[inline]
    pub(super) fn worker_unparked(&self) {
        #[cfg(not(loom))]
        self.handshake.worker_unparked();
    }

    /// Shutdown: the monitor thread exits at once. (Under loom: nothing runs; see
    /// `worker_unparked`.)
    pub(super) fn close(&self) {
        #[cfg(not(loom))]
        self.handshake.close();
    }
}

/// The monitor's sleep without a timeout and the wake-ups that end it: a worker leaving
/// its park (`worker_unparked`) and shutdown (`close`). See the module docs for the
/// store-load pair with the idle word that keeps a wake-up from being lost.
///
/// Not an API: public for `loom-tests`' `loom_monitor` (loom builds only).
pub struct SleepHandshake {
    sleeping: AtomicBool,
    closing: AtomicBool,
    lock: Mutex<()>,
    condvar: Condvar,
}

impl Default for SleepHandshake {
    fn default() -> Self {
        Self::new()
    }
}

impl SleepHandshake {
    /// Awake, not closing.
    pub fn new() -> SleepHandshake {
        SleepHandshake {
            sleeping: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            lock: Mutex::new(()),
            condvar: Condvar::new(),
        }
    }

    /// Worker side, after the idle-count change of its unpark (`Idle`'s SeqCst RMW): wake
    /// the monitor if it sleeps. One SeqCst load when it does not.
    #[inline]
    pub fn worker_unparked(&self) {
        // SeqCst needed: the worker's half of the store-load pair (module docs).
        if self.sleeping.load(SeqCst) {
            self.wake();
        }
    }

    fn wake(&self) {
        let _g = self.lock.lock();
        // Under the lock, as every write but the sleep's: the lock orders it (module docs).
        if self.sleeping.swap(false, SeqCst) {
            self.condvar.notify_one();
        }
    }

    /// Shutdown: a sleeping monitor wakes, and every later wait returns at once.
    pub fn close(&self) {
        let _g = self.lock.lock();
        self.closing.store(true, SeqCst);
        self.sleeping.store(false, SeqCst);
        self.condvar.notify_one();
    }

    /// Monitor side, every worker found parked: announce the sleep, then sleep until a
    /// worker unparks or shutdown, unless the idle word shows a worker awake after the
    /// announcement. True when it slept (and was woken).
    pub fn sleep_if_idle(&self, idle: &Idle) -> bool {
        let mut guard = self.lock.lock();
        if self.closing.load(SeqCst) {
            return false;
        }
        // SeqCst needed: the monitor's half of the store-load pair (module docs): this
        // store, then the SeqCst load of the unparked count.
        self.sleeping.store(true, SeqCst);
        if idle.num_unparked() > 0 {
            self.sleeping.store(false, SeqCst);
            return false;
        }
        while self.sleeping.load(SeqCst) && !self.closing.load(SeqCst) {
            self.condvar.wait(&mut guard);
        }
        true
    }

    /// Monitor side: wait one tick (or until woken). True when closing.
    #[cfg(not(loom))]
    fn wait_tick(&self, tick: Duration) -> bool {
        let mut guard = self.lock.lock();
        if self.closing.load(SeqCst) {
            return true;
        }
        self.condvar.wait_for(&mut guard, tick);
        self.closing.load(SeqCst)
    }
}

/// The monitor thread's body; returns at shutdown.
#[cfg(not(loom))]
pub(crate) fn run(handle: &Handle) {
    let mon = &handle.monitor;
    let n = handle.num_workers();
    let now = Instant::now();
    let mut seen = vec![
        Seen {
            seq: super::worker_shared::IDLE,
            first_seen: now,
            marked: false,
            counted: false,
            reported: false,
        };
        n
    ];
    let mut last_driver_polls = handle.driver.polls();
    let mut idle_ticks = 0;
    let mut backoff = Backoff::new(mon.on_stall.as_ref().map(|(threshold, _)| *threshold));
    loop {
        if mon.handshake.wait_tick(backoff.interval) {
            return;
        }
        let Look { idle, needed } = tick(handle, &mut seen, &mut last_driver_polls);
        backoff.after_look(needed);
        idle_ticks = if idle { idle_ticks + 1 } else { 0 };
        if idle_ticks >= IDLE_TICKS {
            idle_ticks = 0;
            // Everyone parked: sleep until a worker wakes (see the module docs).
            if mon.handshake.sleep_if_idle(&handle.shared.idle) {
                // Parked time is nobody's poll: start the stuck detection afresh.
                let now = Instant::now();
                for s in seen.iter_mut() {
                    s.first_seen = now;
                }
            }
        }
    }
}

/// The interval between looks (module docs: the tick backs off).
#[derive(Debug)]
struct Backoff {
    interval: Duration,
    max: Duration,
    quiet: u32,
}

impl Backoff {
    /// Starts at `TICK`; backs off to `MAX_TICK`, or half of `stall_threshold` when that
    /// is shorter (never under `TICK`).
    fn new(stall_threshold: Option<Duration>) -> Backoff {
        let max = stall_threshold.map_or(MAX_TICK, |t| (t / 2).clamp(TICK, MAX_TICK));
        Backoff {
            interval: TICK,
            max,
            quiet: 0,
        }
    }

    /// After a look: back to `TICK` if it was `needed`, else one more quiet look.
    fn after_look(&mut self, needed: bool) {
        if needed {
            self.interval = TICK;
            self.quiet = 0;
            return;
        }
        self.quiet += 1;
        if self.quiet >= QUIET_TICKS {
            self.quiet = 0;
            self.interval = (self.interval * 2).min(self.max);
        }
    }
}

/// What one look found.
struct Look {
    /// Every worker parked, the driver attended: the monitor may sleep without a timeout.
    idle: bool,
    /// A worker was in the same poll as at the last look, or the driver was unattended:
    /// the next look comes after the shortest interval.
    needed: bool,
}

/// One look at every worker and at the driver.
fn tick(handle: &Handle, seen: &mut [Seen], last_driver_polls: &mut u64) -> Look {
    let mon = &handle.monitor;
    let shared = &handle.shared;
    let now = Instant::now();
    let mut rescue = false;
    let mut any_stuck = false;
    for (i, s) in seen.iter_mut().enumerate() {
        let worker = &shared.workers[i];
        let published = &mon.published[i];
        let seq = worker.poll_seq();
        if seq & 1 == 0 || seq != s.seq {
            *s = Seen {
                seq,
                first_seen: now,
                marked: false,
                counted: false,
                reported: false,
            };
            if seq & 1 == 1 {
                published.publish_seen(seq, (now - mon.base).as_nanos() as u64);
            }
            continue;
        }
        // The same poll as a tick ago: it has lasted at least `elapsed`.
        any_stuck = true;
        let elapsed = now - s.first_seen;
        if !s.marked {
            worker.mark_stuck(seq);
            s.marked = true;
        }
        published.raise_longest(elapsed);
        if elapsed >= LONG_POLL && !s.counted {
            published.add_long_poll();
            s.counted = true;
        }
        if let Some((threshold, callback)) = &mon.on_stall {
            if elapsed >= *threshold && !s.reported {
                s.reported = true;
                let stall = stall_report(handle, i, seq, elapsed);
                // A panicking callback must not end the monitor (the rescue of stuck
                // workers depends on it); the panic hook has printed its message already.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(&stall)));
            }
        }
        if !worker.lifo.is_empty() || !shared.remotes[i].steal.is_empty() {
            rescue = true;
        }
    }
    // Work in the global queues (what a stuck worker's full ring spilled into `overflow`,
    // remote spawns) waits for a worker that is not stuck.
    if any_stuck && shared.has_global_work() {
        rescue = true;
    }
    if rescue {
        // A searcher steals the stuck worker's tasks (its LIFO slot included) or takes
        // the global queues' work.
        handle.notify_parked();
    }
    let driver = &handle.driver;
    let polls = driver.polls();
    let attended = !driver.exists() || driver.is_held() || polls != *last_driver_polls;
    *last_driver_polls = polls;
    if !attended {
        // One parked worker goes back to sleep in the driver.
        if let Some(i) = shared.idle.any_parked() {
            shared.remotes[i].unpark.unpark();
        }
        return Look {
            idle: false,
            needed: true,
        };
    }
    Look {
        idle: shared.idle.num_unparked() == 0 && !rescue,
        needed: any_stuck,
    }
}

/// The `on_stall` report for worker `i`, found inside its poll `seq` for `elapsed`: the
/// stuck thread is asked for its task and frames (`stack_capture.rs`), and the answer is
/// kept only if the worker is still inside that poll afterwards.
fn stall_report(handle: &Handle, i: usize, seq: u64, elapsed: Duration) -> Stall {
    use crate::observe::stack_capture::{self, NativeBacktrace, NoAnswer};
    let answer = if stack_capture::rate_limit_allows() {
        stack_capture::capture(handle.monitor.published[i].thread())
    } else {
        Err(NoAnswer::RateLimited)
    };
    let answer = answer.and_then(|a| {
        if handle.shared.workers[i].poll_seq() == seq {
            Ok(a)
        } else {
            Err(NoAnswer::PollEnded)
        }
    });
    let (task, backtrace) = match answer {
        Ok(a) => (
            a.meta.map(|m| m.resolve()),
            NativeBacktrace::captured(a.ips),
        ),
        Err(e) => (None, NativeBacktrace::missing_because(e.describe())),
    };
    Stall {
        worker: i,
        elapsed,
        task,
        backtrace,
    }
}

/// Asks every worker inside a poll, all at once, which task it polls (the capture
/// `stall_report` makes: a signal each, answered from the handler, waited for at most
/// `ANSWER_WAIT` in all): per such worker, its index, that poll's `poll_seq`, and the
/// answer, kept only if the poll is still the worker's when it comes (`PollEnded`
/// otherwise).
fn ask_polling_workers(
    handle: &Handle,
) -> Vec<(
    usize,
    u64,
    Result<crate::observe::stack_capture::Answer, crate::observe::stack_capture::NoAnswer>,
)> {
    use crate::observe::stack_capture::{self, NoAnswer};
    let mon = &handle.monitor;
    let asked: Vec<_> = handle
        .shared
        .workers
        .iter()
        .enumerate()
        .filter_map(|(i, w)| {
            let seq = w.poll_seq();
            (seq & 1 == 1).then(|| (i, seq, stack_capture::request(mon.published[i].thread())))
        })
        .collect();
    let deadline = Instant::now() + stack_capture::ANSWER_WAIT;
    asked
        .into_iter()
        .map(|(i, seq, pending)| {
            let answer = pending.and_then(|p| p.wait_until(deadline)).and_then(|a| {
                if handle.shared.workers[i].poll_seq() == seq {
                    Ok(a)
                } else {
                    Err(NoAnswer::PollEnded)
                }
            });
            (i, seq, answer)
        })
        .collect()
}

/// The tasks the workers are polling right now, by their threads' own account
/// (`ask_polling_workers`): for a task dump, which finds a task in its first poll in no
/// list. Empty where stack capture is not built (not Linux).
pub(crate) fn running_tasks(handle: &Handle) -> Vec<task::TaskMeta> {
    ask_polling_workers(handle)
        .into_iter()
        .filter_map(|(_, _, answer)| Some(answer.ok()?.meta?.resolve()))
        .collect()
}

/// Shutdown past its deadline: the workers still inside a poll, each with the task it
/// polls (`ask_polling_workers`) and how long that poll has run (from the monitor's first
/// sighting; `shutdown_began` when it never saw it).
pub(crate) fn stuck_polls(
    handle: &Handle,
    shutdown_began: Instant,
) -> Vec<crate::observe::shutdown_report::StuckPoll> {
    let mon = &handle.monitor;
    ask_polling_workers(handle)
        .into_iter()
        .map(|(i, seq, answer)| {
            let since = mon.published[i]
                .poll_seen_at(seq, mon.base)
                .unwrap_or(shutdown_began);
            let (task, missing) = match answer {
                Ok(a) => (a.meta.map(|m| m.resolve()), None),
                Err(e) => (None, Some(e.describe())),
            };
            crate::observe::shutdown_report::StuckPoll {
                worker: i,
                task,
                in_poll: since.elapsed(),
                missing,
            }
        })
        .collect()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_interval_doubles_after_quiet_looks_up_to_its_cap() {
        let mut b = Backoff::new(None);
        assert_eq!(b.interval, TICK);
        let mut seen = vec![b.interval];
        for _ in 0..8 * QUIET_TICKS {
            b.after_look(false);
            seen.push(b.interval);
        }
        assert_eq!(b.interval, MAX_TICK, "{seen:?}");
        // Doubling, never skipping a step, never above the cap.
        for w in seen.windows(2) {
            assert!(w[1] == w[0] || w[1] == w[0] * 2, "{seen:?}");
            assert!(w[1] <= MAX_TICK, "{seen:?}");
        }
        // The first quiet looks keep the shortest interval.
        assert!(
            seen[..QUIET_TICKS as usize].iter().all(|&i| i == TICK),
            "{seen:?}"
        );
    }

    #[test]
    fn a_needed_look_brings_the_interval_back_at_once() {
        let mut b = Backoff::new(None);
        for _ in 0..8 * QUIET_TICKS {
            b.after_look(false);
        }
        b.after_look(true);
        assert_eq!(b.interval, TICK);
        // And the quiet count starts again: QUIET_TICKS - 1 quiet looks do not back off.
        for _ in 0..QUIET_TICKS - 1 {
            b.after_look(false);
        }
        assert_eq!(b.interval, TICK);
    }

    #[test]
    fn a_stall_threshold_caps_the_interval_at_half_of_it() {
        let mut b = Backoff::new(Some(Duration::from_millis(6)));
        for _ in 0..8 * QUIET_TICKS {
            b.after_look(false);
        }
        assert!(b.interval <= Duration::from_millis(3), "{b:?}");
        // A threshold under two ticks leaves the monitor at its shortest interval.
        let mut b = Backoff::new(Some(Duration::from_micros(500)));
        for _ in 0..8 * QUIET_TICKS {
            b.after_look(false);
        }
        assert_eq!(b.interval, TICK);
    }
}
