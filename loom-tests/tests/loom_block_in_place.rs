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
//!   while the core moves to its new thread (the two-worker model);
//! - the runtime then shuts down: every thread, the handed-off one included, leaves the
//!   scheduler, and loom finds no leaked task or scheduler.
//!
//! Bounds: `LOOM_MAX_PREEMPTIONS` (default 2); the two-worker model is capped at 1, as in
//! loom_scheduler.rs (`LOOM_UNCAPPED=1` lifts the cap).

use loom::thread;
use runtime::task::block_in_place;
use runtime::{Builder, Runtime};
use shim::sync::atomic::{AtomicUsize, Ordering::*};
use shim::sync::{Arc, Condvar, Mutex};

const DEFAULT_PREEMPTIONS: usize = 2;
const TWO_WORKER_CAP: usize = 1;

fn check(cap: Option<usize>, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    let mut bound = b.preemption_bound.unwrap_or(DEFAULT_PREEMPTIONS);
    if let Some(cap) = cap {
        if std::env::var_os("LOOM_UNCAPPED").is_none() {
            bound = bound.min(cap);
        }
    }
    b.preemption_bound = Some(bound);
    // A std atomic on purpose: it counts executions from outside the model.
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = runs.clone();
    b.check(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f()
    });
    eprintln!(
        "explored {} executions (preemption bound {bound})",
        runs.load(std::sync::atomic::Ordering::Relaxed)
    );
}

fn multi_thread(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .expect("build a multi-thread runtime")
}

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

/// The hand-off while a thread outside wakes a task of the blocked worker: the wake takes
/// the remote path (the blocked thread holds no core) and the task still runs once.
#[test]
fn remote_wake_during_hand_off_one_worker() {
    check(None, || {
        let rt = multi_thread(1);
        let ran = Ran::new();
        let waiter_ran = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new(Mutex::new(None::<std::task::Waker>));
        let opened = Arc::new(AtomicUsize::new(0));
        let waiter = {
            let (gate, opened, waiter_ran) = (gate.clone(), opened.clone(), waiter_ran.clone());
            rt.spawn(std::future::poll_fn(move |cx| {
                if opened.load(Acquire) == 1 {
                    waiter_ran.fetch_add(1, Relaxed);
                    return std::task::Poll::Ready(());
                }
                *gate.lock() = Some(cx.waker().clone());
                if opened.load(Acquire) == 1 {
                    waiter_ran.fetch_add(1, Relaxed);
                    return std::task::Poll::Ready(());
                }
                std::task::Poll::Pending
            }))
        };
        let parent = rt.spawn(blocking_parent(1, &ran));
        let opener = {
            let (gate, opened) = (gate.clone(), opened.clone());
            thread::spawn(move || {
                opened.store(1, Release);
                if let Some(w) = gate.lock().take() {
                    w.wake();
                }
            })
        };
        assert_eq!(rt.block_on(parent).expect("the parent completes"), 1);
        rt.block_on(waiter).expect("the woken task completes");
        opener.join().unwrap();
        drop(rt);
        assert_eq!(waiter_ran.load(Relaxed), 1);
    });
}
