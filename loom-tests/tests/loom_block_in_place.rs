#![cfg(loom)]
//! loom models of `task::block_in_place`'s core hand-off, through the public `runtime`
//! API (the shipping scheduler, every atomic, lock and thread loom's).
//!
//! A task on a worker queues work behind itself and then blocks in `block_in_place`
//! until that work has run. The only way the queued work runs is the hand-off: the worker
//! gives its core (ring, LIFO slot, parker) to a new thread before the closure blocks.
//! Under loom there is no monitor thread, so nobody else rescues the LIFO slot.
//!
//! What they assert:
//! - progress: the closure's wait ends (remove the hand-off and every thread blocks:
//!   loom reports a deadlock);
//! - each queued task runs exactly once, also when a sibling worker steals from the ring
//!   while the core moves to its new thread (the two-worker model), and when the blocked
//!   thread itself wakes a task (its wake takes the remote path: it holds no core);
//! - the runtime then shuts down: every thread, the handed-off one included, leaves the
//!   scheduler, and loom finds no leaked task or scheduler.
//!
//! Bounds: `LOOM_MAX_PREEMPTIONS` (default 2); the two-worker model is capped at 1, as in
//! loom_scheduler.rs (`LOOM_UNCAPPED=1` lifts the cap).

use runtime::task::block_in_place;
use shim::sync::atomic::{AtomicUsize, Ordering::*};
use shim::sync::{Arc, Condvar, Mutex};

mod sched_model;
use sched_model::{check, multi_thread, TWO_WORKER_CAP};

/// Counts runs of the queued tasks; a blocking thread waits for a count (loom condvar).
struct Ran {
    count: Mutex<usize>,
    cv: Condvar,
}

impl Ran {
    fn new() -> Arc<Ran> {
        Arc::new(Ran {
            count: Mutex::new(0),
            cv: Condvar::new(),
        })
    }

    fn bump(&self) {
        *self.count.lock() += 1;
        self.cv.notify_all();
    }

    /// Blocks until at least `n` runs were counted; returns the count.
    fn wait_for(&self, n: usize) -> usize {
        let mut count = self.count.lock();
        while *count < n {
            self.cv.wait(&mut count);
        }
        *count
    }
}

/// A task that queues `children` tasks behind itself (the last in the LIFO slot, the
/// others displaced into the ring) and blocks in place until all of them ran.
fn blocking_parent(children: usize, ran: &Arc<Ran>) -> impl std::future::Future<Output = usize> {
    let ran = ran.clone();
    async move {
        for _ in 0..children {
            let ran = ran.clone();
            drop(runtime::spawn(async move { ran.bump() }));
        }
        block_in_place(|| ran.wait_for(children))
    }
}

/// One worker: the child sits in the LIFO slot of the only worker; the hand-off races
/// the worker's park/unpark protocol (the spawn from outside woke it) at the full bound.
#[test]
fn hand_off_runs_the_lifo_child_one_worker() {
    check(None, || {
        let rt = multi_thread(1);
        let ran = Ran::new();
        let join = rt.spawn(blocking_parent(1, &ran));
        assert_eq!(rt.block_on(join).expect("the parent completes"), 1);
        drop(rt);
        assert_eq!(*ran.count.lock(), 1, "the child ran exactly once");
    });
}

/// Two workers: the second child displaces the first into the ring and wakes the sibling,
/// which may steal it while the core (with the second child in its LIFO slot) moves to the
/// new thread. Each child runs exactly once, the parent's wait ends, shutdown completes.
#[test]
fn hand_off_racing_a_steal_two_workers() {
    check(Some(TWO_WORKER_CAP), || {
        let rt = multi_thread(2);
        let ran = Ran::new();
        let join = rt.spawn(blocking_parent(2, &ran));
        assert_eq!(rt.block_on(join).expect("the parent completes"), 2);
        drop(rt);
        assert_eq!(*ran.count.lock(), 2, "each child ran exactly once");
    });
}

/// A wake from inside the closure: the blocked thread holds no core any more, so the wake
/// takes the remote path (global queue plus a notify) and the woken task still runs once,
/// on the core's new thread.
#[test]
fn wake_from_the_blocked_thread_one_worker() {
    check(None, || {
        let rt = multi_thread(1);
        let ran = Ran::new();
        let join = rt.spawn({
            let ran = ran.clone();
            async move {
                let waker = Arc::new(Mutex::new(None::<std::task::Waker>));
                let opened = Arc::new(AtomicUsize::new(0));
                let child = {
                    let (waker, opened, ran) = (waker.clone(), opened.clone(), ran.clone());
                    runtime::spawn(std::future::poll_fn(move |cx| {
                        // The flag is read under the lock the opener takes, so a wake
                        // between the check and the registration cannot be missed.
                        let mut slot = waker.lock();
                        if opened.load(Relaxed) == 1 {
                            ran.bump();
                            return std::task::Poll::Ready(());
                        }
                        *slot = Some(cx.waker().clone());
                        std::task::Poll::Pending
                    }))
                };
                // The child runs on the core's new thread, racing the closure's wake: it
                // finds the flag set, or registers its waker and is woken.
                let count = block_in_place(|| {
                    let w = {
                        let mut slot = waker.lock();
                        opened.store(1, Relaxed);
                        slot.take()
                    };
                    if let Some(w) = w {
                        w.wake();
                    }
                    ran.wait_for(1)
                });
                child.await.expect("the child completes");
                count
            }
        });
        assert_eq!(rt.block_on(join).expect("the parent completes"), 1);
        drop(rt);
        assert_eq!(*ran.count.lock(), 1, "the woken child ran exactly once");
    });
}
