//! `SpinMutex`: the lock for critical sections of a few cache lines that threads on
//! different CPUs take back to back (a `Notify`'s waiter queue, where a notifier serves
//! the waiter a worker has just queued).
//!
//! Algorithm: one `AtomicBool`. `lock` takes it with one CAS (false -> true). A thread
//! that finds it taken waits by reading it (the line stays shared until the holder's
//! release) with a spin hint per look, and after a number of looks gives its CPU away
//! (`yield_now`) between looks: a holder that was preempted, maybe on this very CPU, then
//! gets to run. It tries the CAS again once it reads the lock free. The release is one
//! Release store. [`SpinMutex::lock`] looks 128 times before it yields;
//! [`SpinMutex::lock_briefly`] 4 times, for a thread whose CPU the holder may share (a
//! worker, when the workers fill the machine).
//!
//! Why not `parking_lot::Mutex`: on contention it spins 14 hints, then calls
//! `sched_yield`, then parks, so the notifier's unlock must wake a parked waiter, and a
//! thread that only had to wait out a half-microsecond serve sleeps. The look counts
//! trade tokio's two `Notify` benches against each other (`sync/notify_one`,
//! `sync/notify_waiters`, 16 tasks on 2 workers, on 2 CPUs): a waiter that looks longer
//! before yielding helps the `notify_waiters` fan-out (it waits out the notifier's serve
//! instead of handing its CPU to the other worker) and hurts `notify_one`. 4 looks is the
//! count that keeps `notify_one` ahead of tokio's `Notify` (16 falls behind it) and still
//! takes a tenth off `notify_waiters` against `parking_lot::Mutex`. The measurements are
//! in `benches/RESULTS.md`.
//!
//! Invariants and limits: mutual exclusion (the CAS is the only way in, Acquire, and
//! pairs with the holder's Release store); no fairness (a releasing thread can take the
//! lock again before a waiter does); a waiter never sleeps, so nobody ever needs waking
//! and the release is a plain store. Hence it is only for short critical sections that
//! never block or call user code: a waiter spins (or yields) for as long as the holder
//! holds the lock.
//!
//! Under loom the same acquisition runs (the looks, the CAS and its retry: one
//! `lock_contended` for both builds); only the wait between two looks differs
//! (`wait_a_look`): there a waiter sleeps on a loom condvar that every release notifies,
//! until the word changes. A spin hint or CPU yield cannot stand in for it: loom switches
//! away from a yielding thread without counting a preemption, so with two waiters at once
//! it explores the schedules in which the two spinners alternate and the holder never
//! runs, without end. The suites that take the lock (`loom_spin_mutex`, `loom_sync_locks`,
//! `loom_notify`, `loom_barrier`) model it.

use crate::cell::UnsafeCell;
use crate::sync::atomic::{AtomicBool, Ordering};

/// Looks with a spin hint before a waiter in [`SpinMutex::lock`] starts yielding its CPU
/// between looks: a few microseconds of hints, several times the longest serve measured
/// on the bench box.
const SPINS: u32 = 128;
/// The same for [`SpinMutex::lock_briefly`].
const BRIEF_SPINS: u32 = 4;

/// A spin lock (see the module doc). `lock` returns a guard that unlocks on drop.
///
/// ```
/// let m = shim::sync::SpinMutex::new(1);
/// *m.lock() += 1;
/// assert_eq!(*m.lock(), 2);
/// ```
pub struct SpinMutex<T> {
    locked: AtomicBool,
    value: UnsafeCell<T>,
    /// Under loom a waiter sleeps here between its looks (see `wait_a_look`).
    #[cfg(loom)]
    released: (loom::sync::Mutex<()>, loom::sync::Condvar),
}

// SAFETY: the value is reached only through a guard, and at most one guard exists at a
// time (the lock), so sharing the lock shares `T` only by handing it from thread to
// thread: `T: Send` suffices, as for `std::sync::Mutex`.
unsafe impl<T: Send> Sync for SpinMutex<T> {}
// SAFETY: the lock owns its `T`.
unsafe impl<T: Send> Send for SpinMutex<T> {}

/// The holder's access to a [`SpinMutex`]'s value; unlocks when dropped.
pub struct SpinMutexGuard<'a, T> {
    lock: &'a SpinMutex<T>,
    value: *mut T,
}

impl<T> SpinMutex<T> {
    /// An unlocked lock around `value`.
    #[cfg(not(loom))]
    pub const fn new(value: T) -> SpinMutex<T> {
        SpinMutex {
            locked: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    /// An unlocked lock around `value`.
    #[cfg(loom)]
    pub fn new(value: T) -> SpinMutex<T> {
        SpinMutex {
            locked: AtomicBool::new(false),
            value: UnsafeCell::new(value),
            released: (loom::sync::Mutex::new(()), loom::sync::Condvar::new()),
        }
    }

    /// Takes the lock, waiting while another thread holds it: up to 128 looks with a spin
    /// hint, then a CPU yield between looks.
    #[inline]
    pub fn lock(&self) -> SpinMutexGuard<'_, T> {
        if !self.take() {
            self.lock_contended(SPINS);
        }
        self.guard()
    }

    /// [`lock`](SpinMutex::lock) for a thread whose CPU the holder may be sharing (a
    /// runtime worker, when the workers fill the machine): it starts yielding after 4
    /// looks.
    ///
    /// ```
    /// let m = shim::sync::SpinMutex::new(0);
    /// *m.lock_briefly() += 1;
    /// assert_eq!(*m.lock(), 1);
    /// ```
    #[inline]
    pub fn lock_briefly(&self) -> SpinMutexGuard<'_, T> {
        if !self.take() {
            self.lock_contended(BRIEF_SPINS);
        }
        self.guard()
    }

    /// Takes the lock if it is free.
    ///
    /// ```
    /// let m = shim::sync::SpinMutex::new(());
    /// let held = m.lock();
    /// assert!(m.try_lock().is_none());
    /// drop(held);
    /// assert!(m.try_lock().is_some());
    /// ```
    pub fn try_lock(&self) -> Option<SpinMutexGuard<'_, T>> {
        if self.take() {
            Some(self.guard())
        } else {
            None
        }
    }

    /// One attempt, false -> true. A CAS rather than a swap: a failed attempt writes
    /// nothing, so it cannot land on top of a release. (loom can split a swap around a
    /// concurrent store, tokio-rs/loom#254, and then reports a lock that stays taken; it
    /// models a CAS exactly.)
    #[inline]
    fn take(&self) -> bool {
        // Acquire: pairs with the last holder's Release in the guard's drop.
        self.locked
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// The wait of a thread that found the lock taken (both builds): look until the word
    /// reads free, then try the CAS again; a failed CAS (another waiter got in first)
    /// starts the looks again.
    #[cold]
    fn lock_contended(&self, spins: u32) {
        let mut looks = 0u32;
        loop {
            // Relaxed: only a hint to try the CAS; the CAS's Acquire orders what follows.
            while self.locked.load(Ordering::Relaxed) {
                self.wait_a_look(&mut looks, spins);
            }
            if self.take() {
                return;
            }
        }
    }

    /// Between two looks: a spin hint for the first `spins`, then a CPU yield.
    #[cfg(not(loom))]
    #[inline]
    fn wait_a_look(&self, looks: &mut u32, spins: u32) {
        if *looks < spins {
            *looks += 1;
            crate::hint::spin_loop();
        } else {
            crate::thread::yield_now();
        }
    }

    /// Under loom: asleep on the condvar until a release (see the module doc).
    #[cfg(loom)]
    fn wait_a_look(&self, _looks: &mut u32, _spins: u32) {
        let g = self.released.0.lock().unwrap();
        // Relaxed: as in `lock_contended`. A release stores, then notifies under the
        // condvar's mutex, so a waiter that reads "taken" here is waiting before that
        // notify.
        if self.locked.load(Ordering::Relaxed) {
            drop(self.released.1.wait(g).unwrap());
        }
    }

    fn guard(&self) -> SpinMutexGuard<'_, T> {
        SpinMutexGuard {
            lock: self,
            // Under loom this records the holder's access to the value here; another
            // holder's access not ordered after the last release is reported as a race.
            value: self.value.with_mut(|p| p),
        }
    }
}

impl<T: Default> Default for SpinMutex<T> {
    fn default() -> Self {
        SpinMutex::new(T::default())
    }
}

impl<T> std::ops::Deref for SpinMutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: we hold the lock, so no other guard exists; the pointer is the lock's
        // value, alive as long as the borrowed lock.
        unsafe { &*self.value }
    }
}

impl<T> std::ops::DerefMut for SpinMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` makes this the only borrow.
        unsafe { &mut *self.value }
    }
}

impl<T> Drop for SpinMutexGuard<'_, T> {
    fn drop(&mut self) {
        // Under loom: the holder's last access, ordered before the release below.
        self.lock.value.with_mut(|_| ());
        // Release: the next holder's Acquire CAS sees everything done under the lock.
        self.lock.locked.store(false, Ordering::Release);
        #[cfg(loom)]
        {
            let _g = self.lock.released.0.lock().unwrap();
            self.lock.released.1.notify_all();
        }
    }
}

impl<T> std::fmt::Debug for SpinMutex<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpinMutex")
            .field("locked", &self.locked.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::SpinMutex;
    use std::sync::Arc;

    /// Four threads add 1 under the lock 20,000 times each, half of them with
    /// `lock_briefly`: a broken exclusion loses increments (the read and the write are
    /// separate steps).
    #[test]
    fn no_increment_is_lost() {
        let m = Arc::new(SpinMutex::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|i| {
                let m = m.clone();
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        let mut g = if i % 2 == 0 {
                            m.lock()
                        } else {
                            m.lock_briefly()
                        };
                        let v = *g;
                        std::hint::black_box(&mut *g);
                        *g = v + 1;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*m.lock(), 80_000);
    }
}
