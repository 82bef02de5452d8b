#![cfg(loom)]
//! loom suites for the schedulers, through the public `runtime` API only.
//!
//! Under `--cfg loom` a runtime has no I/O driver: workers and `block_on` park on loom
//! condvars, every atomic / lock / thread / thread-local in `task`, `queue` and `runtime`
//! is loom's, so these models run the shipping scheduler. Each model is small: at most two
//! workers plus the main thread plus one extra thread (loom allows five threads in all).
//!
//! What they assert:
//! - `multi_spawn`: two tasks each spawn one; both spawned tasks run.
//! - a task spawned from outside while the workers park still runs;
//! - a wake racing a worker going to sleep is not lost;
//! - dropping the runtime while another thread wakes its tasks drops each future exactly
//!   once, with no panic and no leak; dropping it while a task yields (the worker's driver
//!   turns consume unparks) still stops the worker;
//! - a waker that outlives its runtime, woken after shutdown, does nothing harmful (the
//!   JoinHandle reports cancellation; the task and the scheduler are freed by the last
//!   reference, which loom checks for leaks and double frees);
//! - a spawn racing the runtime's shutdown is run or cancelled, its future dropped once;
//! - current_thread: a remote wake while `block_on` parks resumes it (both for a spawned
//!   task and for `block_on`'s own future), and happens-before the poll it causes; two
//!   `block_on` callers hand the core over;
//! - `yield_now` lets the other runnable task run before the yielder resumes;
//! - blocking pool: a blocking closure spawned before shutdown runs once, racing or not.
//! - progress (lost parallelism): a task that spins in its poll until another task ran
//!   gets a second worker through each "someone else will wake one" shortcut: the last
//!   searcher's hand-off, a local spawn (or wake) displacing a task into the ring, and
//!   the re-check of a worker parking with no searcher left, and the backlog check after
//!   a worker releases its deferred list. A missing wake-up leaves
//!   the spinner spinning; loom stops it ("Model exceeded maximum number of branches").
//!
//! "Never lost" is checked by blocking: the main thread waits on a loom condvar for the
//! outcome, so a lost notification leaves every thread blocked and loom reports a deadlock.
//! The synchronization the tests themselves use (latches, signals) is loom's too, so the
//! model sees all of it.
//!
//! Bounds: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`; default
//! `DEFAULT_PREEMPTIONS` = 2). Most scenarios run twice: with one worker at the full bound,
//! and with two workers capped at `TWO_WORKER_CAP` = 1 (set `LOOM_UNCAPPED=1` to lift the
//! cap: at bound 2 the two-worker models take from seconds to far longer than CI affords).
//! At `LOOM_MAX_PREEMPTIONS=2` the models CI runs explore about 2M executions in all; the
//! largest is `local_spawn_wakes_sibling_two_workers` (717k). Four two-worker models, 1M to 3.8M
//! executions each, are `#[ignore]`d: each says which models catch its bugs in CI; run
//! them with `--ignored` when the path they drive changes. benches/RESULTS.md keeps the
//! per-model counts.
//!
//! The models are in modules by the race they drive (files in `loom_scheduler/`): `wake`
//! (spawns and wakes racing workers and `block_on` parking: no lost notification; two
//! `block_on` callers), `parallelism` (a spinning task needs a wake-up to bring a second
//! worker: no lost parallelism), `yields` (`yield_now` lets the other task run first; a
//! released yielder races a remote spawn), `shutdown` (the runtime dropped racing wakes,
//! spawns, yields and first polls; wakers outliving it; the blocking pool's shutdown). This
//! file holds the model runners and the test synchronization they share.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use runtime::task::JoinHandle;
use runtime::{Builder, Runtime};
use shim::sync::atomic::{AtomicUsize, Ordering::*};
use shim::sync::{Arc, Condvar, Mutex};

mod sched_model;
use sched_model::{check, multi_thread, TWO_WORKER_CAP};

#[path = "loom_scheduler/parallelism.rs"]
mod parallelism;
#[path = "loom_scheduler/shutdown.rs"]
mod shutdown;
#[path = "loom_scheduler/wake.rs"]
mod wake;
#[path = "loom_scheduler/yields.rs"]
mod yields;

/// A model with at most one worker: the full bound.
fn model(f: impl Fn() + Sync + Send + 'static) {
    check(None, f)
}

/// A model with two workers: capped at `TWO_WORKER_CAP` (see there).
fn model_two_workers(f: impl Fn() + Sync + Send + 'static) {
    check(Some(TWO_WORKER_CAP), f)
}

/// Runs `scenario(workers)` as a model: capped when it has two workers.
fn model_workers(workers: usize, scenario: fn(usize)) {
    if workers > 1 {
        model_two_workers(move || scenario(workers))
    } else {
        model(move || scenario(workers))
    }
}

fn current_thread() -> Runtime {
    Builder::new_current_thread()
        .build()
        .expect("build a current-thread runtime")
}

// ---------------------------------------------------------------------------------------
// Test synchronization, all of it loom's.

/// A one-shot value a thread can block on (loom mutex + condvar).
struct Oneshot<T> {
    value: Mutex<Option<T>>,
    cv: Condvar,
}

impl<T> Oneshot<T> {
    fn new() -> Arc<Oneshot<T>> {
        Arc::new(Oneshot {
            value: Mutex::new(None),
            cv: Condvar::new(),
        })
    }

    fn send(&self, v: T) {
        let mut g = self.value.lock();
        assert!(g.is_none(), "sent twice");
        *g = Some(v);
        drop(g);
        self.cv.notify_all();
    }

    /// Blocks the calling (non-runtime) thread until a value was sent.
    fn recv(&self) -> T {
        let mut g = self.value.lock();
        loop {
            if let Some(v) = g.take() {
                return v;
            }
            self.cv.wait(&mut g);
        }
    }
}

/// An event a task awaits and any thread sets: an `AtomicWaker` reduced to a mutex.
/// `set` wakes the registered waker (if any) after the flag is visible.
struct Signal {
    state: Mutex<(bool, Option<Waker>)>,
}

impl Signal {
    fn new() -> Arc<Signal> {
        Arc::new(Signal {
            state: Mutex::new((false, None)),
        })
    }

    fn set(&self) {
        let waker = {
            let mut s = self.state.lock();
            s.0 = true;
            s.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    fn poll_wait(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.state.lock();
        if s.0 {
            return Poll::Ready(());
        }
        s.1 = Some(cx.waker().clone());
        Poll::Pending
    }

    async fn wait(&self) {
        poll_fn(|cx| self.poll_wait(cx)).await
    }
}

/// Bumps a counter when dropped.
struct Track(Arc<AtomicUsize>);

impl Drop for Track {
    fn drop(&mut self) {
        // Relaxed: read after the runtime (and every thread) is gone.
        self.0.fetch_add(1, Relaxed);
    }
}

fn counter() -> Arc<AtomicUsize> {
    Arc::new(AtomicUsize::new(0))
}

/// A task that is polled once, hands its waker out through `slot` (announcing it on
/// `polled`), and stays pending forever; its future carries a drop `Track`.
fn park_forever(
    drops: &Arc<AtomicUsize>,
    polled: &Arc<Oneshot<Waker>>,
) -> impl Future<Output = ()> + Send + 'static {
    let track = Track(drops.clone());
    let polled = polled.clone();
    let mut first = true;
    poll_fn(move |cx| {
        let _track = &track;
        if first {
            first = false;
            polled.send(cx.waker().clone());
        }
        Poll::Pending
    })
}

fn poll_once<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
    Pin::new(f).poll(&mut Context::from_waker(Waker::noop()))
}

fn expect_cancelled(mut join: JoinHandle<()>) {
    match poll_once(&mut join) {
        Poll::Ready(Err(e)) => assert!(e.is_cancelled(), "{e:?}"),
        Poll::Ready(Ok(())) => panic!("a pending-forever task completed"),
        Poll::Pending => panic!("JoinHandle still pending after its runtime shut down"),
    }
}
