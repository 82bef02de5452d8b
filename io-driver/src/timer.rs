//! The `Timer` handle: a deadline backed by one entry of one of the driver's timer wheels.
//!
//! A timer touches a wheel lazily: creating one takes no lock, and a first poll that finds
//! the deadline already passed completes without ever inserting. Otherwise the first poll
//! inserts an entry (with the task's waker) and later polls refresh the waker; the poll that
//! completes frees the entry (so dropping a completed timer takes no lock); `reset` moves
//! the entry, `Drop` of a pending timer removes it, each O(1) under the wheel's mutex.
//! Wakers displaced or removed under a mutex are dropped after it is released.
//!
//! Shards: the driver has several wheels, each behind its own mutex. The first insert picks
//! the inserting thread's shard (each thread is given one per driver, round robin, and
//! keeps it in a thread-local), and the timer stays in that wheel until it completes or is
//! dropped; a `reset` moves it within its wheel. So a runtime's workers, each with its own
//! shard, never contend for a wheel with each other; only with the driver firing theirs.
//!
//! Clock: wheel time is whole milliseconds since the handle's `start`; a deadline is rounded
//! UP to the millisecond and the driver advances the wheels to `now` rounded DOWN, so an
//! entry only fires once `Handle::now() >= deadline` (the driver's clock: real time, or
//! the paused clock of `clock.rs`).
//!
//! Re-arming a sleeping driver: an insert or move whose deadline is earlier than the one
//! the parked driver published unparks it (the protocol is `shards.rs`'s).
//!
//! `Timer` is the `Instant` half (the deadline, the clock reading, the driver handle and
//! its unpark); `Entry` is the wheel half in wheel milliseconds: which shard, which key,
//! the state machine of a poll, `reset` and cancel. `loom-tests`' `loom_timer` drives
//! `Entry` against `TimerShards` with a clock of its own.

use std::cell::Cell;
use std::fmt;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::driver::Handle;
use crate::shards::TimerShards;
use crate::wheel::{EntryState, Key};

std::thread_local! {
    /// This thread's shard: (the driver handle's address, the shard it gave this thread).
    static SHARD: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// Error returned by [`Timer::poll_elapsed`] when the driver shut down before the deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimerShutdown;

impl fmt::Display for TimerShutdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("timer driver shut down")
    }
}

impl std::error::Error for TimerShutdown {}

impl Handle {
    /// A timer firing at `deadline`. Takes no lock until first polled.
    pub fn timer(self: &Arc<Self>, deadline: Instant) -> Timer {
        Timer {
            handle: self.clone(),
            deadline,
            entry: Entry::new(self.ms_ceil(deadline)),
        }
    }

    /// Wheel milliseconds of `t`, rounded up (deadlines).
    pub(crate) fn ms_ceil(&self, t: Instant) -> u64 {
        let ms = t
            .saturating_duration_since(self.start)
            .as_nanos()
            .div_ceil(1_000_000);
        u64::try_from(ms).unwrap_or(u64::MAX)
    }

    /// Wheel milliseconds of `t`, rounded down (the present).
    pub(crate) fn ms_floor(&self, t: Instant) -> u64 {
        let ms = t.saturating_duration_since(self.start).as_millis();
        u64::try_from(ms).unwrap_or(u64::MAX)
    }

    /// The instant of wheel millisecond `ms`, if representable.
    pub(crate) fn instant_at(&self, ms: u64) -> Option<Instant> {
        self.start.checked_add(Duration::from_millis(ms))
    }

    /// The shard this thread inserts into (given on its first timer of this driver).
    fn thread_shard(&self) -> usize {
        let me = self as *const Handle as usize;
        let n = self.timers.count();
        SHARD
            .try_with(|cell| match cell.get() {
                // Modulo: a new driver may reuse a dropped one's address.
                (owner, shard) if owner == me => shard % n,
                _ => {
                    let shard = self.timers.pick_shard();
                    cell.set((me, shard));
                    shard
                }
            })
            .unwrap_or_else(|_| self.timers.pick_shard())
    }

    /// Calls `f` with the deadline and waker of every timer waiting in the wheels, one
    /// wheel's mutex at a time (task dumps: nothing changes). `f` runs under that mutex
    /// and must take no lock.
    pub fn for_each_timer_waiter(&self, mut f: impl FnMut(Instant, &Waker)) {
        self.timers.for_each_waiting(|ms, w| {
            if let Some(at) = self.instant_at(ms) {
                f(at, w);
            }
        });
    }

    /// Calls `f` with the descriptor (-1 when the registrant did not say), direction and
    /// waker of every task waiting for readiness, one entry's mutex at a time (task dumps:
    /// nothing changes). `f` runs under that mutex and must take no lock.
    pub fn for_each_io_waiter(&self, mut f: impl FnMut(i32, crate::Direction, &Waker)) {
        self.slab.for_each(|io| io.for_each_waiter(&mut f));
    }

    /// Allocated timer entries in the wheels (test/diagnostic hook).
    #[doc(hidden)]
    pub fn timer_entries(&self) -> usize {
        self.timers.entries()
    }

    /// Timer entries still waiting to fire (test/diagnostic hook).
    #[doc(hidden)]
    pub fn pending_timers(&self) -> usize {
        self.timers.pending()
    }
}

/// A timer in the driver's wheel. See the module docs.
pub struct Timer {
    handle: Arc<Handle>,
    deadline: Instant,
    entry: Entry,
}

impl Timer {
    /// The deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether the timer has elapsed: a poll completed it, or the driver fired it. A timer
    /// whose deadline passed but that nobody polled or fired yet is not elapsed (tokio's
    /// rule: `sleep_until(now)` reports elapsed only once it was polled or fired).
    pub fn is_elapsed(&self) -> bool {
        self.entry.is_elapsed(&self.handle.timers)
    }

    /// Move the deadline (earlier or later; re-arms a timer that already fired). O(1).
    pub fn reset(&mut self, deadline: Instant) {
        self.deadline = deadline;
        let when = self.handle.ms_ceil(deadline);
        if self.entry.reset(&self.handle.timers, when) {
            self.handle.unpark();
        }
    }

    /// `Ready(Ok(()))` once the deadline passed (never before), `Ready(Err(TimerShutdown))` if
    /// the driver shut down first; otherwise registers `cx`'s waker and returns `Pending`.
    pub fn poll_elapsed(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), TimerShutdown>> {
        if self.entry.elapsed {
            return Poll::Ready(Ok(()));
        }
        let handle = &*self.handle;
        let reached = handle.now() >= self.deadline;
        let (res, rearm) = self.entry.poll(
            &handle.timers,
            reached,
            || handle.is_shutdown(),
            || handle.thread_shard(),
            cx.waker(),
        );
        if rearm {
            handle.unpark();
        }
        res
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.entry.cancel(&self.handle.timers);
    }
}

impl fmt::Debug for Timer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timer")
            .field("deadline", &self.deadline)
            .field("registered", &self.entry.key.is_some())
            .field("elapsed", &self.entry.elapsed)
            .finish()
    }
}

/// A timer's wheel half, in wheel milliseconds. See the module docs.
///
/// Not an API: public for `loom-tests`' `loom_timer` (loom builds only).
#[derive(Debug)]
pub struct Entry {
    /// The deadline in wheel milliseconds (rounded up).
    when: u64,
    /// The shard of `key` (meaningless while `key` is None).
    shard: usize,
    key: Option<Key>,
    /// Completed with `Ok` (cached so repeated polls need no lock).
    elapsed: bool,
}

impl Entry {
    /// Due at wheel millisecond `when`; in no wheel until first polled.
    pub fn new(when: u64) -> Entry {
        Entry {
            when,
            shard: 0,
            key: None,
            elapsed: false,
        }
    }

    /// See [`Timer::is_elapsed`].
    pub fn is_elapsed(&self, timers: &TimerShards) -> bool {
        if self.elapsed {
            return true;
        }
        let Some(key) = self.key else { return false };
        timers.wheel(self.shard).state(key) == EntryState::Fired
    }

    /// Moves the deadline to `when` (re-arming an entry that fired). True when the parked
    /// driver must be unparked to re-arm its timeout.
    pub fn reset(&mut self, timers: &TimerShards, when: u64) -> bool {
        self.when = when;
        self.elapsed = false;
        let Some(key) = self.key else { return false };
        let mut wheel = timers.wheel(self.shard);
        wheel.reset(key, when);
        let rearm = timers.note_insert(self.shard, &wheel);
        wheel.state(key) == EntryState::Pending && rearm
    }

    /// A poll: `reached` says whether the deadline passed by the caller's clock,
    /// `is_shutdown` reads the driver's shutdown flag (asked only when a first poll finds
    /// the deadline passed), `pick_shard` names the shard of a first insert. Returns the
    /// outcome (see [`Timer::poll_elapsed`]) and whether the parked driver must be unparked
    /// to re-arm its timeout.
    pub fn poll(
        &mut self,
        timers: &TimerShards,
        reached: bool,
        is_shutdown: impl FnOnce() -> bool,
        pick_shard: impl FnOnce() -> usize,
        waker: &Waker,
    ) -> (Poll<Result<(), TimerShutdown>>, bool) {
        if self.elapsed {
            return (Poll::Ready(Ok(())), false);
        }
        if self.key.is_none() && reached && !is_shutdown() {
            // Already due: complete without touching the wheel.
            self.elapsed = true;
            return (Poll::Ready(Ok(())), false);
        }
        let mut rearm = false;
        let garbage: Option<Waker>;
        if self.key.is_none() {
            self.shard = pick_shard();
        }
        let mut wheel = timers.wheel(self.shard);
        let res = match self.key {
            None => {
                if wheel.is_shutdown() {
                    garbage = None;
                    Poll::Ready(Err(TimerShutdown))
                } else {
                    self.key = Some(wheel.insert(self.when, Some(waker.clone())));
                    rearm = timers.note_insert(self.shard, &wheel);
                    garbage = None;
                    Poll::Pending
                }
            }
            // Done: the entry is freed at once (so `Drop` takes no lock); a `reset` after
            // this inserts a new one.
            Some(key) => match wheel.state(key) {
                EntryState::Fired => {
                    garbage = wheel.remove(key);
                    self.key = None;
                    Poll::Ready(Ok(()))
                }
                EntryState::Shutdown => {
                    garbage = wheel.remove(key);
                    self.key = None;
                    Poll::Ready(Err(TimerShutdown))
                }
                EntryState::Pending if reached => {
                    // Due but the driver has not advanced yet (it may be busy): done here.
                    garbage = wheel.remove(key);
                    self.key = None;
                    Poll::Ready(Ok(()))
                }
                EntryState::Pending => {
                    garbage = wheel.set_waker(key, waker);
                    Poll::Pending
                }
            },
        };
        drop(wheel);
        drop(garbage);
        if let Poll::Ready(Ok(())) = res {
            self.elapsed = true;
        }
        (res, rearm)
    }

    /// Removes the entry from its wheel, if it is in one (a dropped `Timer`).
    pub fn cancel(&mut self, timers: &TimerShards) {
        if let Some(key) = self.key.take() {
            let waker = timers.wheel(self.shard).remove(key);
            drop(waker);
        }
    }
}
