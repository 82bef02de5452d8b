//! The driver's timer wheels ("shards", each behind its own mutex) and the protocol between
//! the threads that insert or move timers and the driver that sleeps until the next one.
//!
//! A thread inserts into, and usually removes from, the shard it was given (round robin,
//! on its first timer of this driver; see `timer.rs`), so the workers' timer operations do
//! not contend with each other, and the driver's firing of one shard holds up only that
//! shard's users.
//!
//! Re-arming a sleeping driver, without taking the shards' mutexes: each shard keeps a
//! lower bound of its wheel's next expiration (`Shard::earliest`, written under its
//! mutex only). Before it sleeps, the driver publishes the latest wheel time it may sleep
//! until (`sleep_until`: its caller's limit; `NOT_SLEEPING` while it does not sleep),
//! issues a `SeqCst` fence, reads every shard's bound, and sleeps until the earliest of
//! them and its limit (`arm`; the earlier time is published too, to spare inserters
//! unparks). Whoever inserts or moves an entry and so lowers its shard's bound (under the
//! mutex) issues a `SeqCst` fence and reads `sleep_until`: if the new bound is
//! earlier, it unparks the driver so it recomputes its timeout (`note_insert`). The two
//! fences are ordered one way or the other: either the driver's reads come after the
//! inserter's fence (and see the lowered bound, or a lower one), or the inserter's read
//! comes after the driver's fence (and sees the published limit, or a later value of
//! this arm: never an earlier one than the driver sleeps until). An insert that leaves
//! the bound as it was needs neither: the bound is already no later than the entry, and
//! whoever stored it was covered the same way (or is the driver itself). A bound kept
//! low by an
//! entry since removed only wakes the driver early once: its turn fires the shard and
//! sets the bound to the wheel's exact next expiration. `loom_timer` checks the
//! handshake, and fails when either fence is removed.
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

use shim::sync::atomic::{fence, AtomicU64, AtomicUsize, Ordering};
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
    /// coarse slot to cascade). A driver turn that finds it later than now skips this
    /// shard without its mutex, and a driver about to sleep sleeps no later than it.
    /// Written only under the mutex: lowered after every insert and reset
    /// (`TimerShards::note_insert`), set to the wheel's next expiration by `fire` once it
    /// advanced the wheel to now. Never above the wheel's next expiration while the mutex
    /// is free: a removal leaves it low (an early wake-up at worst).
    earliest: AtomicU64,
}

/// The timer wheels and the driver's published sleep deadline. See the module docs.
///
/// Not an API: public for `loom-tests`' `loom_timer` (loom builds only).
pub struct TimerShards {
    shards: Box<[Shard]>,
    /// The next shard to give a thread (round robin, modulo the shard count).
    next_shard: AtomicUsize,
    /// Wheel ms the parked driver sleeps until at the latest (u64::MAX: no limit);
    /// `NOT_SLEEPING` when not parked. Written by the driver only (`arm`, `disarm`).
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

    /// Called with shard `shard`'s mutex held (`wheel` is its guard) after an entry was
    /// inserted or moved: lowers the shard's bound to the wheel's next expiration, then
    /// says whether the sleeping driver needs an unpark to re-arm its timeout (module
    /// docs).
    pub(crate) fn note_insert(&self, shard: usize, wheel: &Wheel) -> bool {
        let next = wheel.next_expiration().unwrap_or(u64::MAX);
        let earliest = &self.shards[shard].earliest;
        // Relaxed: written under the mutex (its other writers hold it too).
        if next >= earliest.load(Ordering::Relaxed) {
            // The bound is already no later than this entry: whoever stored it either was
            // seen by the driver's `arm` or saw the driver's limit and unparked it (module
            // docs), so this entry is covered without a fence or an unpark.
            return false;
        }
        earliest.store(next, Ordering::Relaxed);
        // The inserter's half of the handshake with `arm`'s fence (module docs).
        fence(Ordering::SeqCst);
        // Relaxed: the fences order it against `arm`'s store; the reset to
        // `NOT_SLEEPING` (`disarm`) and the driver's lowering of its own limit can only
        // cause a spurious unpark or none that is needed. The new bound is compared, not
        // `when`: it may be earlier (a coarse slot's cascade), and later inserts rely on
        // the driver waking by the bound (the early return above).
        next < self.sleep_until.load(Ordering::Relaxed)
    }

    /// The driver, before it sleeps until wheel time `limit` at the latest (`u64::MAX`:
    /// no limit): publishes `limit`, then reads every shard's bound of its next expiration
    /// without its mutex (module docs). Returns the wheel time to sleep until: the
    /// earliest of `limit` and the bounds. The driver calls `disarm` if it then does not
    /// sleep after all.
    pub fn arm(&self, limit: u64) -> u64 {
        // Relaxed, with the fence after it: the driver's half of the handshake with
        // `note_insert` (module docs).
        self.sleep_until.store(limit, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        let mut until = limit;
        for shard in self.shards.iter() {
            // Relaxed: the fence above orders the read after the published limit.
            until = until.min(shard.earliest.load(Ordering::Relaxed));
        }
        if until < limit {
            // Relaxed: a later, earlier deadline of this arm; an inserter that reads the
            // first one instead unparks a driver that did not need it, at worst.
            self.sleep_until.store(until, Ordering::Relaxed);
        }
        until
    }

    /// The driver does not sleep (a turn with a zero timeout, or its sleep ended).
    pub fn disarm(&self) {
        // Relaxed: an inserter that reads this (or a stale larger value) at worst unparks
        // a driver that is not asleep (see `note_insert`).
        self.sleep_until.store(NOT_SLEEPING, Ordering::Relaxed);
    }

    /// Advances every wheel to `now()` (wheel ms) in batches (module docs): each batch's
    /// fired wakers are put in `list`, and `wake` is called with the mutex released.
    /// `now` is called once, at the first shard that has anything pending (its bound is
    /// not `u64::MAX`): a turn with no timer anywhere reads no clock.
    pub fn fire(
        &self,
        now: impl Fn() -> u64,
        list: &mut Vec<Waker>,
        mut wake: impl FnMut(&mut Vec<Waker>),
    ) {
        let mut read = None;
        let mut now = || *read.get_or_insert_with(&now);
        let mut busy: u64 = (1u64 << self.shards.len()) - 1;
        while busy != 0 {
            for (i, shard) in self.shards.iter().enumerate() {
                if busy & (1 << i) == 0 {
                    continue;
                }
                // Relaxed: a hint (see `Shard::earliest`); nothing due here before now.
                let earliest = shard.earliest.load(Ordering::Relaxed);
                if earliest == u64::MAX || earliest > now() {
                    busy &= !(1 << i);
                    continue;
                }
                let now = now();
                let mut wheel = shard.wheel.lock();
                let done =
                    wheel.advance_batch(now, self.fire_batch, |_, _, waker| list.extend(waker));
                if done {
                    let next = wheel.next_expiration().unwrap_or(u64::MAX);
                    // Relaxed: under the mutex, by the driver, whose next `arm` reads it
                    // in program order; inserters read it under the mutex.
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

    /// The earliest next expiration of any wheel (wheel ms), each read under its mutex.
    pub fn next_expiration(&self) -> Option<u64> {
        self.shards
            .iter()
            .filter_map(|s| s.wheel.lock().next_expiration())
            .min()
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
