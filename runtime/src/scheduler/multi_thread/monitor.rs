//! The monitor: one thread per multi-thread runtime that rescues work from stuck workers.
//!
//! In the spirit of Go's sysmon. While any worker is awake it wakes every `TICK` (1 ms)
//! and, reading only what workers publish with plain stores (`worker_shared.rs`):
//!
//! 1. **Stuck polls.** A worker whose `poll_seq` reads the same odd value at two ticks in
//!    a row has been inside one poll for at least a tick. The monitor marks it stuck
//!    (its LIFO slot becomes stealable), and when that worker has tasks waiting (LIFO slot
//!    or ring), or the global queues hold work (the `overflow` queue its full ring
//!    spilled into, remote spawns) that the stuck worker will not take, it notifies a
//!    parked worker, which comes as a searcher and steals or takes them.
//!    It also keeps the poll metrics (longest poll, polls over `LONG_POLL`) and calls the
//!    `Builder::on_stall` callback once per poll that passes its threshold.
//! 2. **An unattended driver.** Nobody is blocked in the I/O driver (its lock is free) and
//!    nobody polled it since the last tick (its poll counter did not move): the worker that
//!    left it is busy and the others sleep on condvars. The monitor unparks one parked
//!    worker; finding nothing to run it parks again, in the free driver, so readiness
//!    events and timers are dispatched within a tick or two whatever the others run. One
//!    unpark per tick at most.
//!
//! **No periodic wake-ups while idle.** When at `IDLE_TICKS` ticks in a row every worker
//! is parked and the driver is held (or there is none), the monitor sleeps without a
//! timeout. (Not at the first such tick: a server under light load is all-parked at most
//! ticks, and waking the monitor costs the waking worker a futex call on its way to the
//! request; 10 ms of quiet first keeps that off the request path.) A worker that
//! leaves its park with work to do wakes it (`Monitor::worker_unparked`: one SeqCst load
//! of `sleeping` per unpark, a lock and a notify only when the monitor sleeps).
//! No lost wake-up: the monitor stores `sleeping = true` and then reads the idle count
//! (both SeqCst); a waking worker changed the idle count (SeqCst RMW) before it loads
//! `sleeping`. In the total order one of the two sees the other.
//!
//! The workers' hot path pays two plain stores per poll to their own padded line; the
//! monitor's reads move that line once per tick. Not built under loom (no clock).
//!
//! Orderings (each checked by the weakening sweep, loom-tests/README.md; argued, not modelled: the
//! monitor thread has no loom build and these are std atomics). Two accesses need SeqCst,
//! the monitor's `sleeping = true` store before it reads the unparked count and
//! `worker_unparked`'s load, the two halves of the store-load pair above (with the idle
//! word's SeqCst increment and load, `idle.rs`): with anything weaker both loads may read
//! the old values, and the monitor sleeps without a timeout while a worker runs. Every
//! other access is made under `lock`, which orders them among themselves and against
//! `wake`'s swap (the only other writer, also under the lock); a stale `true` read by
//! `worker_unparked` costs one lock and a swap that finds `false`. Relaxed would do for
//! those; they stay SeqCst, off the hot path (once per sleep, per wake, at shutdown).

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use super::worker_shared::{Published, LONG_POLL};
use super::Handle;
use crate::metrics::{Stall, StallCallback};

/// How often the monitor looks while the runtime is awake; also the stuck threshold.
pub(super) const TICK: Duration = Duration::from_millis(1);

/// Idle ticks in a row before the monitor sleeps without a timeout.
const IDLE_TICKS: u32 = 10;

/// The monitor's shared state (in the scheduler handle).
pub(crate) struct Monitor {
    sleeping: AtomicBool,
    closing: AtomicBool,
    lock: Mutex<()>,
    condvar: Condvar,
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
            sleeping: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            lock: Mutex::new(()),
            condvar: Condvar::new(),
            published: (0..num_workers)
                .map(|_| CachePadded::new(Published::default()))
                .collect(),
            base: Instant::now(),
            on_stall,
        }
    }

    /// A worker left its park with work to do: wake the monitor if it sleeps.
    #[inline]
    pub(super) fn worker_unparked(&self) {
        // SeqCst needed: the worker's half of the store-load pair (module docs).
        if self.sleeping.load(SeqCst) {
            self.wake();
        }
    }

    fn wake(&self) {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // Under the lock, as every write but the sleep's: the lock orders it (module docs).
        if self.sleeping.swap(false, SeqCst) {
            self.condvar.notify_one();
        }
    }

    /// Shutdown: the monitor thread exits at once.
    pub(super) fn close(&self) {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.closing.store(true, SeqCst);
        self.sleeping.store(false, SeqCst);
        self.condvar.notify_one();
    }
}

/// The monitor thread's body; returns at shutdown.
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
    let mut guard = mon.lock.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if mon.closing.load(SeqCst) {
            return;
        }
        guard = mon
            .condvar
            .wait_timeout(guard, TICK)
            .unwrap_or_else(|e| e.into_inner())
            .0;
        if mon.closing.load(SeqCst) {
            return;
        }
        drop(guard);
        let idle = tick(handle, &mut seen, &mut last_driver_polls);
        idle_ticks = if idle { idle_ticks + 1 } else { 0 };
        guard = mon.lock.lock().unwrap_or_else(|e| e.into_inner());
        if idle_ticks >= IDLE_TICKS {
            idle_ticks = 0;
            // Everyone parked: sleep until a worker wakes (see the module docs).
            // SeqCst needed: the monitor's half of the store-load pair (module docs): this
            // store, then the SeqCst load of the unparked count.
            mon.sleeping.store(true, SeqCst);
            if handle.shared.idle.num_unparked() > 0 {
                mon.sleeping.store(false, SeqCst);
                continue;
            }
            while mon.sleeping.load(SeqCst) && !mon.closing.load(SeqCst) {
                guard = mon.condvar.wait(guard).unwrap_or_else(|e| e.into_inner());
            }
            // Parked time is nobody's poll: start the stuck detection afresh.
            let now = Instant::now();
            for s in seen.iter_mut() {
                s.first_seen = now;
            }
        }
    }
}

/// One look at every worker and at the driver. True when the runtime is idle (every
/// worker parked, the driver attended): the monitor may sleep without a timeout.
fn tick(handle: &Handle, seen: &mut [Seen], last_driver_polls: &mut u64) -> bool {
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
                let stall = Stall { worker: i, elapsed };
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
        return false;
    }
    shared.idle.num_unparked() == 0 && !rescue
}
