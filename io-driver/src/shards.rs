//! The driver's timer wheels ("shards", each behind its own mutex) and the protocol between
//! the threads that insert or move timers and the driver that sleeps until the next one.
//!
//! A thread inserts into, and usually removes from, the shard it was given (round robin,
//! on its first timer of this driver; see `timer.rs`), so the workers' timer operations do
//! not contend with each other, and the driver's firing of one shard holds up only that
//! shard's users.
//!
//! Re-arming a sleeping driver: before it sleeps, the driver takes every shard's mutex,
//! computes its timeout from the wheels' next expiration, publishes the wheel time it will
//! sleep until (`sleep_until`; `NOT_SLEEPING` while it does not sleep), and only then
//! releases the mutexes (`arm`). Whoever inserts or moves an entry reads `sleep_until`
//! under its shard's mutex and, if the new deadline is earlier, unparks the driver so it
//! recomputes its timeout (`must_rearm`). The mutexes make the two exclusive: either the
//! driver computed its timeout after the insert (and saw it), or the inserter sees the
//! published deadline. Publishing after releasing the mutexes would let an insert fall in
//! between, unseen by both.
//!
//! Firing (`fire`): every wheel is advanced to now in batches of at most `fire_batch`
//! entries per hold of its mutex, the shards in turn, and each batch's wakers are woken
//! with the mutex released, so nobody waits for a wheel's mutex behind a whole cascade.
//! A shard whose next-expiration hint (`Shard::earliest`) is later than now is skipped
//! without its mutex.
//!
//! The mutexes and atomics go through the shim (std / parking_lot normally, loom's under
//! `--cfg loom`), so `loom-tests`' `loom_timer` drives this protocol and the timer entries
//! (`timer.rs`'s `Entry`) as the driver and `Timer` use them, in wheel milliseconds with a
//! clock of its own; the wall-clock and epoll parts stay in `driver.rs`.

use std::task::Waker;

use shim::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use shim::sync::{Mutex, MutexGuard};

use crate::wheel::Wheel;

/// Most timer shards a driver has.
pub(crate) const MAX_SHARDS: usize = 32;

/// `sleep_until` while the driver is not blocked in `epoll_wait`: no deadline is earlier.
pub(crate) const NOT_SLEEPING: u64 = 0;

/// One timer wheel and its mutex, on cache lines of its own.
#[repr(align(128))]
pub(crate) struct Shard {
    wheel: Mutex<Wheel>,
    /// A lower bound of the wheel's next expiration (ms; `u64::MAX`: nothing pending): the
    /// earliest time at which advancing the wheel has anything to do (an entry due, or a
    /// coarse slot to cascade), so a driver turn that finds it later than now skips this
    /// shard without its mutex. Written only under the mutex: lowered after every insert
    /// and reset (`TimerShards::lower_earliest`), set to the wheel's next expiration by
    /// `fire` once it advanced the wheel to now.
    /// A stale read (an insert racing the turn) only defers that timer to the next turn,
    /// and a driver about to sleep computes its timeout under every shard's mutex.
    earliest: AtomicU64,
}

/// The timer wheels and the driver's published sleep deadline. See the module docs.
///
/// Not an API: public for `loom-tests`' `loom_timer` (loom builds only).
pub struct TimerShards {
    shards: Box<[Shard]>,
    /// The next shard to give a thread (round robin, modulo the shard count).
    next_shard: AtomicUsize,
    /// Wheel ms the parked driver sleeps until (u64::MAX: no limit); `NOT_SLEEPING` when
    /// not parked.
    sleep_until: AtomicU64,
    /// Entries handled (fired, or moved down a level) per hold of a shard's mutex.
    fire_batch: usize,
}

impl TimerShards {
    /// `count` empty wheels (1 to `MAX_SHARDS`) at time 0, fired `fire_batch` entries at a
    /// time.
    pub fn new(count: usize, fire_batch: usize) -> TimerShards {
        assert!(
            (1..=MAX_SHARDS).contains(&count),
            "io-driver: {count} timer shards, want 1 to {MAX_SHARDS}"
        );
        TimerShards {
            shards: (0..count)
                .map(|_| Shard {
                    wheel: Mutex::new(Wheel::new()),
                    earliest: AtomicU64::new(u64::MAX),
                })
                .collect(),
            next_shard: AtomicUsize::new(0),
            sleep_until: AtomicU64::new(NOT_SLEEPING),
            fire_batch: fire_batch.max(1),
        }
    }

    /// Calls `f` with every pending timer's deadline (wheel ms) and waker, one shard's
    /// mutex at a time (task dumps). `f` must take no lock.
    pub fn for_each_waiting(&self, mut f: impl FnMut(u64, &Waker)) {
        for shard in self.shards.iter() {
            shard.wheel.lock().for_each_waiting(&mut f);
        }
    }

    /// The number of shards.
    pub fn count(&self) -> usize {
        self.shards.len()
    }

    /// The next shard in round-robin order (for a thread's first timer).
    pub(crate) fn pick_shard(&self) -> usize {
        // Relaxed: a round-robin counter; the shard it names is used under its own mutex,
        // so the count orders nothing (two threads given one shard only share a lock).
        self.next_shard.fetch_add(1, Ordering::Relaxed) % self.shards.len()
    }

    /// Shard `shard`'s wheel, locked.
    pub(crate) fn wheel(&self, shard: usize) -> MutexGuard<'_, Wheel> {
        self.shards[shard].wheel.lock()
    }

    /// Called with shard `shard`'s mutex held (`wheel` is its guard), after an entry was
    /// inserted or moved.
    pub(crate) fn lower_earliest(&self, shard: usize, wheel: &Wheel) {
        let next = wheel.next_expiration().unwrap_or(u64::MAX);
        let earliest = &self.shards[shard].earliest;
        // Relaxed: written under the mutex; readers either hold it or treat the value
        // as a hint (see the field).
        if next < earliest.load(Ordering::Relaxed) {
            earliest.store(next, Ordering::Relaxed);
        }
    }

    /// Called with a shard's mutex held after inserting/moving an entry due at `when`: does
    /// the parked driver need an unpark to re-arm its timeout?
    pub(crate) fn must_rearm(&self, when: u64) -> bool {
        // Relaxed: every read and every non-zero write of `sleep_until` happens under a
        // shard mutex, the writes under all of them (`arm`), which orders them; the
        // lock-free reset to `NOT_SLEEPING` (`disarm`) can only cause a harmless extra
        // unpark.
        when < self.sleep_until.load(Ordering::Relaxed)
    }

    /// The driver, before it sleeps: holding every shard's mutex, computes its wait from
    /// the wheels' earliest next expiration (`decide` returns the wait and the wheel time it
    /// sleeps until: `NOT_SLEEPING` for no sleep, `u64::MAX` for no limit), publishes that
    /// time, then releases the mutexes. Returns the wait.
    pub fn arm<T>(&self, decide: impl FnOnce(Option<u64>) -> (T, u64)) -> T {
        let mut guards: [Option<MutexGuard<'_, Wheel>>; MAX_SHARDS] = [const { None }; MAX_SHARDS];
        let mut next: Option<u64> = None;
        for (guard, shard) in guards.iter_mut().zip(self.shards.iter()) {
            let wheel = guard.insert(shard.wheel.lock());
            next = match (next, wheel.next_expiration()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        let (wait, until) = decide(next);
        // Relaxed: written under every shard mutex, read under one (`must_rearm`). Before
        // the mutexes are released: see the module docs.
        self.sleep_until.store(until, Ordering::Relaxed);
        drop(guards);
        wait
    }

    /// The driver does not sleep (a turn with a zero timeout, or its sleep ended).
    pub fn disarm(&self) {
        // Relaxed: an inserter that reads this (or a stale larger value) at worst unparks
        // a driver that is not asleep (see `must_rearm`).
        self.sleep_until.store(NOT_SLEEPING, Ordering::Relaxed);
    }

    /// Advances every wheel to `now` (wheel ms) in batches (module docs): each batch's
    /// fired wakers are put in `list`, and `wake` is called with the mutex released.
    pub fn fire(&self, now: u64, list: &mut Vec<Waker>, mut wake: impl FnMut(&mut Vec<Waker>)) {
        let mut busy: u64 = (1u64 << self.shards.len()) - 1;
        while busy != 0 {
            for (i, shard) in self.shards.iter().enumerate() {
                if busy & (1 << i) == 0 {
                    continue;
                }
                // Relaxed: a hint (see `Shard::earliest`); nothing due here before now.
                if shard.earliest.load(Ordering::Relaxed) > now {
                    busy &= !(1 << i);
                    continue;
                }
                let mut wheel = shard.wheel.lock();
                let done =
                    wheel.advance_batch(now, self.fire_batch, |_, _, waker| list.extend(waker));
                if done {
                    let next = wheel.next_expiration().unwrap_or(u64::MAX);
                    shard.earliest.store(next, Ordering::Relaxed);
                }
                drop(wheel);
                wake(list);
                if done {
                    busy &= !(1 << i);
                }
            }
        }
    }

    /// Fires every pending entry of every wheel as shut down (later inserts are born shut
    /// down), shard by shard, calling `wake` after each with the mutex released.
    pub fn shutdown(&self, list: &mut Vec<Waker>, mut wake: impl FnMut(&mut Vec<Waker>)) {
        for shard in self.shards.iter() {
            shard.wheel.lock().shutdown(|_, waker| list.extend(waker));
            wake(list);
        }
    }

    /// Allocated timer entries in the wheels (test/diagnostic hook).
    pub fn entries(&self) -> usize {
        self.shards.iter().map(|s| s.wheel.lock().len()).sum()
    }

    /// Timer entries still waiting to fire (test/diagnostic hook).
    pub fn pending(&self) -> usize {
        self.shards.iter().map(|s| s.wheel.lock().pending()).sum()
    }
}
