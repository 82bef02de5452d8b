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
//! Re-arming a sleeping driver: `Driver::park` publishes, holding every shard's mutex, the
//! wheel time it will sleep until (`sleep_until`; 0 while not parked). Whoever inserts or
//! moves an entry reads it under its shard's mutex and, if the new deadline is earlier,
//! unparks the driver so it recomputes its timeout. The mutexes make the two checks
//! exclusive: either the driver computed its timeout after the insert (and saw it), or the
//! inserter sees `sleep_until`.

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::driver::Handle;
use crate::wheel::{EntryState, Key, Wheel};

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
            when: self.ms_ceil(deadline),
            shard: 0,
            key: None,
            elapsed: false,
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

    /// Called with the wheel mutex held after inserting/moving an entry due at `when`: does
    /// the parked driver need an unpark to re-arm its timeout?
    fn must_rearm(&self, when: u64) -> bool {
        // Relaxed: every read and every non-zero write of `sleep_until` happens under the
        // wheel mutex we hold, which orders them; the lock-free reset to 0 after polling can
        // only cause a harmless extra unpark.
        when < self.sleep_until.load(Ordering::Relaxed)
    }

    /// The shard this thread inserts into (given on its first timer of this driver).
    fn thread_shard(&self) -> usize {
        let me = self as *const Handle as usize;
        let n = self.shards.len();
        // Relaxed: a round-robin counter; the shard it names is used under its own mutex,
        // so the count orders nothing (two threads given one shard only share a lock).
        let pick = || self.next_shard.fetch_add(1, Ordering::Relaxed) % n;
        SHARD
            .try_with(|cell| match cell.get() {
                // Modulo: a new driver may reuse a dropped one's address.
                (owner, shard) if owner == me => shard % n,
                _ => {
                    let shard = pick();
                    cell.set((me, shard));
                    shard
                }
            })
            .unwrap_or_else(|_| pick())
    }

    fn wheel(&self, shard: usize) -> parking_lot::MutexGuard<'_, Wheel> {
        self.shards[shard].wheel.lock()
    }

    /// Allocated timer entries in the wheels (test/diagnostic hook).
    #[doc(hidden)]
    pub fn timer_entries(&self) -> usize {
        self.shards.iter().map(|s| s.wheel.lock().len()).sum()
    }

    /// Timer entries still waiting to fire (test/diagnostic hook).
    #[doc(hidden)]
    pub fn pending_timers(&self) -> usize {
        self.shards.iter().map(|s| s.wheel.lock().pending()).sum()
    }
}

/// A timer in the driver's wheel. See the module docs.
pub struct Timer {
    handle: Arc<Handle>,
    deadline: Instant,
    /// `deadline` in wheel milliseconds (rounded up).
    when: u64,
    /// The shard of `key` (meaningless while `key` is None).
    shard: usize,
    key: Option<Key>,
    /// Completed with `Ok` (cached so repeated polls need no lock).
    elapsed: bool,
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
        if self.elapsed {
            return true;
        }
        let Some(key) = self.key else { return false };
        self.handle.wheel(self.shard).state(key) == EntryState::Fired
    }

    /// Move the deadline (earlier or later; re-arms a timer that already fired). O(1).
    pub fn reset(&mut self, deadline: Instant) {
        self.deadline = deadline;
        self.when = self.handle.ms_ceil(deadline);
        self.elapsed = false;
        let Some(key) = self.key else { return };
        let mut wheel = self.handle.wheel(self.shard);
        wheel.reset(key, self.when);
        self.handle.shards[self.shard].lower_earliest(&wheel);
        let rearm = wheel.state(key) == EntryState::Pending && self.handle.must_rearm(self.when);
        drop(wheel);
        if rearm {
            self.handle.unpark();
        }
    }

    /// `Ready(Ok(()))` once the deadline passed (never before), `Ready(Err(TimerShutdown))` if
    /// the driver shut down first; otherwise registers `cx`'s waker and returns `Pending`.
    pub fn poll_elapsed(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), TimerShutdown>> {
        if self.elapsed {
            return Poll::Ready(Ok(()));
        }
        let reached = self.handle.now() >= self.deadline;
        if self.key.is_none() && reached && !self.handle.is_shutdown() {
            // Already due: complete without touching the wheel.
            self.elapsed = true;
            return Poll::Ready(Ok(()));
        }
        let mut rearm = false;
        let garbage: Option<Waker>;
        if self.key.is_none() {
            self.shard = self.handle.thread_shard();
        }
        let mut wheel = self.handle.wheel(self.shard);
        let res = match self.key {
            None => {
                if wheel.is_shutdown() {
                    garbage = None;
                    Poll::Ready(Err(TimerShutdown))
                } else {
                    self.key = Some(wheel.insert(self.when, Some(cx.waker().clone())));
                    self.handle.shards[self.shard].lower_earliest(&wheel);
                    rearm = self.handle.must_rearm(self.when);
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
                    garbage = wheel.set_waker(key, cx.waker());
                    Poll::Pending
                }
            },
        };
        drop(wheel);
        drop(garbage);
        if rearm {
            self.handle.unpark();
        }
        if let Poll::Ready(Ok(())) = res {
            self.elapsed = true;
        }
        res
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let waker = self.handle.wheel(self.shard).remove(key);
            drop(waker);
        }
    }
}

impl fmt::Debug for Timer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timer")
            .field("deadline", &self.deadline)
            .field("registered", &self.key.is_some())
            .field("elapsed", &self.elapsed)
            .finish()
    }
}
