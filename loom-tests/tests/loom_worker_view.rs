#![cfg(loom)]
//! loom suite for the multi-thread worker's own view of its work: what it counts as work
//! when it decides to sleep, and what a searcher counts as a sibling's stealable work.
//! Both models run the shipping scheduler through a runtime; the two threads that act on a
//! worker from outside its run loop in production, the I/O driver and the monitor, do not
//! exist under loom, and their part is played by the loom-only stand-ins in
//! `runtime/src/scheduler/multi_thread/worker_shared.rs` (`WorkerShared::loom_*`), which a
//! task calls on the worker that runs it.
//!
//! - `driver_dispatch_to_a_parked_worker_runs`: the driver dispatches a task into the LIFO
//!   slot of the worker parked in it and returns from the park without a notify (the idle
//!   word still lists the worker as parked). The worker must count the LIFO task as its own
//!   work (`Core::has_tasks`, read by `transition_from_parked`) and run it; a worker that
//!   looks only at its ring and deferred list goes back to sleep, the task is never run,
//!   and the main thread waiting for it is loom's deadlock. One worker, at the full bound.
//! - `searcher_takes_a_stuck_siblings_lifo_task_two_workers`: a task spawns a child (into
//!   its worker's LIFO slot: no wake-up) and then stays in its poll until the child ran.
//!   The monitor stand-in finds the poll stuck and wakes the parked sibling; only that
//!   searcher taking the stuck worker's LIFO task (`steal_work`, `steal_lifo`) runs the
//!   child. A searcher that skips the slot finds nothing it can take while the stuck slot
//!   keeps the work visible: it searches, parks, re-checks and wakes itself without end,
//!   which loom stops ("Model exceeded maximum number of branches"). Two workers, capped
//!   at `TWO_WORKER_CAP`.
//!
//! Each fails in its first execution when its bug is planted (every interleaving loses the
//! task), so the plant costs seconds, not the model's whole exploration.

use std::sync::atomic::{AtomicBool, Ordering::*};

use loom::thread;
use loom_tests::Item;
use runtime::loom_internals::WorkerShared;
use shim::sync::{Arc, Condvar, Mutex};

mod sched_model;
use sched_model::{check, multi_thread, TWO_WORKER_CAP};

/// The stand-ins are associated functions of the exported, item-generic `WorkerShared`;
/// they act on the runtime's own workers, whatever the item type named here.
type Stand = WorkerShared<Item>;

/// Set once by a task; the main thread blocks until it is (a lost task is loom's deadlock).
struct Done {
    set: Mutex<bool>,
    cv: Condvar,
}

impl Done {
    fn new() -> Arc<Done> {
        Arc::new(Done {
            set: Mutex::new(false),
            cv: Condvar::new(),
        })
    }

    fn set(&self) {
        *self.set.lock() = true;
        self.cv.notify_all();
    }

    fn wait(&self) {
        let mut g = self.set.lock();
        while !*g {
            self.cv.wait(&mut g);
        }
    }
}

/// One worker. A task spawns a child (into the worker's LIFO slot) and hands it to the
/// driver stand-in, which dispatches it back into the slot once the worker is parked and
/// returns from the park without a notify. The child must run.
#[test]
fn driver_dispatch_to_a_parked_worker_runs() {
    check(None, || {
        let rt = multi_thread(1);
        let done = Done::new();
        let held = Arc::new(AtomicBool::new(false));
        {
            let (done, held) = (done.clone(), held.clone());
            drop(rt.spawn(async move {
                drop(runtime::spawn(async move { done.set() }));
                // A std atomic: read by the main thread after `done`, which orders it.
                held.store(Stand::loom_driver_holds_current_lifo(), Relaxed);
            }));
        }
        done.wait();
        assert!(
            held.load(Relaxed),
            "the child was not in its worker's LIFO slot (the model no longer reaches the park)"
        );
        drop(rt);
    });
}

/// Two workers. A task spawns a child (LIFO slot, no wake-up), is found stuck by the
/// monitor stand-in (which wakes the parked sibling), and spins until the child ran: only
/// the sibling's search, taking the stuck worker's LIFO task, can run it.
#[test]
fn searcher_takes_a_stuck_siblings_lifo_task_two_workers() {
    check(Some(TWO_WORKER_CAP), || {
        let rt = multi_thread(2);
        let ran = Arc::new(shim::sync::atomic::AtomicBool::new(false));
        let done = Done::new();
        {
            let (ran, done) = (ran.clone(), done.clone());
            drop(rt.spawn(async move {
                let flag = ran.clone();
                drop(runtime::spawn(async move { flag.store(true, Release) }));
                assert!(
                    Stand::loom_monitor_finds_current_poll_stuck(),
                    "the task did not run on a worker"
                );
                while !ran.load(Acquire) {
                    thread::yield_now();
                }
                done.set();
            }));
        }
        done.wait();
        drop(rt);
    });
}
