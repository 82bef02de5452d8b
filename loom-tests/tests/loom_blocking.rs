//! loom models of the blocking pool (`runtime`'s `blocking.rs`, the shipping pool through the
//! public API: its state mutex, condvars and threads are loom's), kept to one pool thread
//! (`max_blocking_threads(1)`) on a current-thread runtime.
//!
//! - `spawn_to_an_idle_thread_runs`: the first closure starts the pool's one thread and is
//!   awaited, so that thread is idle (or on its way to idle) when the second is spawned:
//!   the push must hand the task over (count it for the thread and signal the condvar), and
//!   the woken thread must take it. A hand-over that does not count the notification, or
//!   does not signal, leaves the second `block_on` parked forever (loom: deadlock).
//! - `spawn_then_shutdown_runs_the_task`: the second closure is not awaited; the runtime is
//!   dropped at once, so the pool's shutdown races the hand-over. Every closure spawned
//!   before shutdown runs (`blocking.rs`'s contract): a woken idle thread that looks at the
//!   shutdown flag before its notification leaves with the task queued, and the model's
//!   flag stays unset ("a closure spawned before shutdown never ran").
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use runtime::Builder;
use shim::sync::atomic::{AtomicBool, Ordering::Relaxed};
use shim::sync::Arc;

fn model(f: impl Fn() + Sync + Send + 'static) {
    loom_tests::model(f, 2);
}

fn runtime() -> runtime::Runtime {
    Builder::new_current_thread()
        .max_blocking_threads(1)
        .build()
        .expect("build a current-thread runtime")
}

#[test]
fn spawn_to_an_idle_thread_runs() {
    model(|| {
        let rt = runtime();
        let first = rt.spawn_blocking(|| 1);
        assert_eq!(rt.block_on(first).expect("first closure"), 1);
        let second = rt.spawn_blocking(|| 2);
        assert_eq!(rt.block_on(second).expect("second closure"), 2);
        drop(rt);
    });
}

#[test]
fn spawn_then_shutdown_runs_the_task() {
    model(|| {
        let rt = runtime();
        let first = rt.spawn_blocking(|| 1);
        assert_eq!(rt.block_on(first).expect("first closure"), 1);
        let ran = Arc::new(AtomicBool::new(false));
        let ran2 = ran.clone();
        drop(rt.spawn_blocking(move || ran2.store(true, Relaxed)));
        // The pool's shutdown waits for its thread, which runs what was queued first.
        drop(rt);
        assert!(
            ran.load(Relaxed),
            "a closure spawned before shutdown never ran"
        );
    });
}
