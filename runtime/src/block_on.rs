//! Waiting on a thread that does not run the scheduler: `block_on` on the multi-thread
//! flavor (the workers run the tasks; this thread only polls its own future), and a
//! thread waiting for the current-thread core.
//!
//! Such a thread owns a plain thread parker (`Parker::new_thread`: no driver behind it)
//! and a `Waker` that unparks it. Between polls it first spins a little, because a
//! thread awaiting a stream of results (the join handles of a burst of tasks) is often
//! woken within a microsecond or two, and a futex sleep plus its wake-up costs both sides
//! a syscall and a context switch; then it parks. The spin yields the CPU now and then
//! (`yield_every`): on every round when the runtime's workers fill the CPUs, since a
//! spinning thread would take a CPU from the very workers running what it awaits; on
//! every `BLOCK_ON_YIELD_EVERY`th round when a CPU is left over. And it spins the full
//! `BLOCK_ON_SPINS` only while a CPU is free (`cpu_free`: on the multi-thread flavor, fewer
//! workers unparked than the machine has CPUs). When every CPU runs a worker it yields once
//! (`BLOCK_ON_SPINS_BUSY`: the workers, who run what it awaits, get the CPU first) and then
//! parks: a longer spin takes CPU time from workers with tasks, and it keeps this thread
//! re-registering its waker for every single event where a parked thread, woken once,
//! finds a batch. The rule: with every CPU busy, give the workers the CPU once before
//! parking (parking at once makes a thread awaiting a burst of join handles pay a futex
//! wake per handle; spinning longer slows the workers it waits on). The measurements
//! behind it: benches/RESULTS.md, "Moved from the idle policy's comments".
//!
//! Invariant: no wake-up is lost. The waker's unpark is remembered by the parker's state
//! word (park.rs) until the next `park` or `try_take_notification` consumes it, and the
//! future is polled again after every consumed notification.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

use crate::coop;
use crate::park::{Parker, Unparker};

/// Spin rounds (each a spin hint, or a yield every `yield_every`th) before parking.
/// None under loom: nothing to gain, and every spin would be a scheduling point.
const BLOCK_ON_SPINS: u32 = if cfg!(loom) { 0 } else { 64 };

/// Spin rounds (each a `sched_yield`) when every CPU runs a worker (see the module doc).
const BLOCK_ON_SPINS_BUSY: u32 = if cfg!(loom) { 0 } else { 1 };

/// The spin's yield cadence when the runtime's workers leave a CPU free.
pub(crate) const BLOCK_ON_YIELD_EVERY: u32 = 16;

/// The yield cadence for a runtime with `workers` worker threads on `cpus` CPUs.
pub(crate) fn yield_every(workers: usize, cpus: usize) -> u32 {
    if workers >= cpus {
        1
    } else {
        BLOCK_ON_YIELD_EVERY
    }
}

/// What `block_on` asks of the runtime it waits on.
pub(crate) trait BlockOnPool {
    /// Whether a CPU is free, so this thread may spin without taking one from a worker.
    fn cpu_free(&self) -> bool;
    /// This thread starts (`true`) or ends (`false`) a poll of its future: while it polls
    /// it may be feeding the pool (`Polling`).
    fn set_polling(&self, polling: bool);
}

/// Counts the calling thread as a `block_on` caller polling its future while it lives
/// (a guard, so a panicking poll is uncounted too).
struct Polling<'a, P: BlockOnPool>(&'a P);

impl<'a, P: BlockOnPool> Polling<'a, P> {
    fn new(pool: &'a P) -> Self {
        pool.set_polling(true);
        Polling(pool)
    }
}

impl<P: BlockOnPool> Drop for Polling<'_, P> {
    fn drop(&mut self) {
        self.0.set_polling(false);
    }
}

/// Unparks the thread that owns the parker.
struct ThreadWaker(Unparker);

impl Wake for ThreadWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.0.unpark();
    }
}

/// A parked-thread waiter: the parker and the waker that unparks it.
pub(crate) struct ThreadWaiter {
    park: Parker,
    waker: Waker,
}

impl ThreadWaiter {
    pub(crate) fn new() -> ThreadWaiter {
        let park = Parker::new_thread();
        let waker = Waker::from(std::sync::Arc::new(ThreadWaker(park.unparker())));
        ThreadWaiter { park, waker }
    }

    pub(crate) fn waker(&self) -> &Waker {
        &self.waker
    }

    pub(crate) fn unparker(&self) -> Unparker {
        self.park.unparker()
    }

    /// Sleeps until unparked (returns at once if an unpark came first).
    pub(crate) fn park(&mut self) {
        self.park.park();
    }

    /// Waits for a wake-up: spins `BLOCK_ON_SPINS` rounds, yielding every `yield_every`th,
    /// if `cpu_free` says a CPU is free (else `BLOCK_ON_SPINS_BUSY` rounds); then parks.
    fn wait(&mut self, yield_every: u32, pool: &impl BlockOnPool) {
        let rounds = if pool.cpu_free() {
            BLOCK_ON_SPINS
        } else {
            BLOCK_ON_SPINS_BUSY
        };
        for spin in 0..rounds {
            if self.park.try_take_notification() {
                return;
            }
            if spin % yield_every == yield_every - 1 {
                shim::thread::yield_now();
            } else {
                shim::hint::spin_loop();
            }
        }
        self.park.park();
    }
}

/// Polls `future` on this thread until it completes, waiting between polls for its waker
/// (spinning first while `pool.cpu_free()`, see the module doc).
pub(crate) fn block_on<F: Future>(
    future: F,
    yield_every: u32,
    pool: &impl BlockOnPool,
) -> F::Output {
    let yield_every = yield_every.max(1);
    let mut waiter = ThreadWaiter::new();
    let mut future = pin!(future);
    loop {
        let mut cx = Context::from_waker(&waiter.waker);
        let polling = Polling::new(pool);
        if let Poll::Ready(v) = coop::budget(|| future.as_mut().poll(&mut cx)) {
            return v;
        }
        drop(polling);
        waiter.wait(yield_every, pool);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Records `set_polling` calls: how many polls are under way, and the most at once.
    #[derive(Default)]
    struct CountingPool {
        polling: Cell<i32>,
        max: Cell<i32>,
    }

    impl BlockOnPool for CountingPool {
        fn cpu_free(&self) -> bool {
            true
        }

        fn set_polling(&self, polling: bool) {
            self.polling
                .set(self.polling.get() + if polling { 1 } else { -1 });
            self.max.set(self.max.get().max(self.polling.get()));
        }
    }

    #[test]
    fn a_poll_counts_as_polling_until_it_returns_even_by_panicking() {
        let pool = CountingPool::default();
        let mut first = true;
        let v = block_on(
            std::future::poll_fn(|cx| {
                if std::mem::take(&mut first) {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Poll::Ready(7)
            }),
            1,
            &pool,
        );
        assert_eq!(v, 7);
        assert_eq!(pool.polling.get(), 0, "every poll ended uncounted");
        assert_eq!(pool.max.get(), 1, "counted while it polled");
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            block_on(async { panic!("boom") }, 1, &pool)
        }));
        assert!(panicked.is_err());
        assert_eq!(pool.polling.get(), 0, "a panicking poll is uncounted too");
    }
}
