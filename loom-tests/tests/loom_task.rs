#![cfg(loom)]
//! loom suites for the task state machine (`task` crate), run on the shipping code.
//!
//! A tiny test scheduler (`Sched`: a loom-mutex `VecDeque` of `Notified` plus the
//! `OwnedTasks` list; `release` = `owned.remove`) drives real tasks from up to three loom
//! threads. The suites race the state word's transitions against each other: a wake from
//! another thread during a poll, wake by reference vs by value, abort vs completion,
//! JoinHandle drop / poll vs completion, the last reference, and runtime shutdown
//! (`close_and_shutdown_all`) vs a wake and vs a running poll, and the late binding of
//! every task at its first park (`Schedule::bind`) vs shutdown, vs a wake and vs abort;
//! shutdown's CAS succeeding on a word a wake, a run and a park restored (ABA), and a
//! spawn refused by the closed list (it must happen-after the close).
//! Tasks are spawned unbound, as the runtime spawns them; `spawn_bound` (the blocking
//! pool's path) is raced against abort too.
//!
//! What every suite asserts, after joining all threads and draining the queue:
//! - polls never overlap (a loom atomic "in poll" flag, Relaxed so it adds no
//!   happens-before edge that could hide a missing one in the task code);
//! - a wake is never lost: a task whose wake condition holds has completed;
//! - the future and the output are each dropped exactly once (counted);
//! - the JoinHandle yields the output or a cancelled `JoinError`, never hangs;
//! - the cell is freed exactly once and nothing leaks: loom checks its own `Arc`s (the
//!   scheduler handle inside every task, the drop counters inside futures and outputs)
//!   for leaks and double drops, and every `UnsafeCell` access for data races.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`); without it the
//! suites use `DEFAULT_PREEMPTIONS` = 2. The models are small (at most three threads, no
//! runtime): the whole suite runs in about a second at bound 2 or 3, and in about 15 s at
//! bound 6. Bugs seeded into a scratch copy of the state machine were each caught by
//! several suites: NOTIFIED lost at the end of a poll, a wake that does not mark a running
//! task, Relaxed transitions, shutdown taking RUNNING from a poller, reference miscounts,
//! the output dropped on both sides.
//!
//! The models are in modules by the race they drive (files in `loom_task/`): `wake` (wakes
//! racing a running poll and each other), `abort` (abort racing the polls, and racing a
//! wake of an idle task), `completion` (the JoinHandle dropped or polled racing completion;
//! the last reference), `shutdown` (shutdown racing a wake, a poll, a spawn, the first
//! park's bind, and a spawn refused by the closed list). This file holds the test scheduler
//! and the instruments they share, which `loom_self_wake` uses too.

use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll, Wake, Waker};

use loom::thread;
use shim::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use shim::sync::{Arc, Mutex};
use task::{JoinError, JoinHandle, Notified, OwnedTasks, Schedule, Task};

#[path = "loom_task/abort.rs"]
mod abort;
#[path = "loom_task/completion.rs"]
mod completion;
#[path = "loom_task/shutdown.rs"]
mod shutdown;
#[path = "loom_task/wake.rs"]
mod wake;

pub(crate) use abort::abort_racing_polls;

/// Preemption bound when `LOOM_MAX_PREEMPTIONS` is not set.
const DEFAULT_PREEMPTIONS: usize = 2;

/// Runs `f` under loom at the bound from `LOOM_MAX_PREEMPTIONS` (else
/// `DEFAULT_PREEMPTIONS`) and prints how many executions were explored.
pub(crate) fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(DEFAULT_PREEMPTIONS);
    }
    // A std atomic on purpose: it counts executions from outside the model.
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = runs.clone();
    b.check(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f()
    });
    eprintln!(
        "explored {} executions (preemption bound {:?})",
        runs.load(std::sync::atomic::Ordering::Relaxed),
        b.preemption_bound
    );
}

// ---------------------------------------------------------------------------------------
// The test scheduler.

struct Inner {
    queue: Mutex<VecDeque<Notified<Sched>>>,
    owned: OwnedTasks<Sched>,
}

#[derive(Clone)]
pub(crate) struct Sched(Arc<Inner>);

impl Schedule for Sched {
    fn schedule(&self, task: Notified<Self>) {
        self.0.queue.lock().push_back(task);
    }

    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.0.owned.remove(task)
    }

    fn bind(&self, task: Task<Self>) -> Result<(), Task<Self>> {
        self.0.owned.bind(task, 0)
    }
}

impl Sched {
    pub(crate) fn new() -> Sched {
        Sched(Arc::new(Inner {
            queue: Mutex::new(VecDeque::new()),
            owned: OwnedTasks::new(1),
        }))
    }

    /// Allocates a task unbound (`OwnedTasks::spawn`, as the runtime does) and queues it;
    /// its poller binds it at its first park.
    pub(crate) fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (join, notified) = self.0.owned.spawn(future, task::SpawnMeta::NONE);
        if let Some(task) = notified {
            self.schedule(task);
        }
        join
    }

    /// Allocates a task bound at once (`OwnedTasks::spawn_bound`, the blocking pool's path).
    pub(crate) fn spawn_bound<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (join, notified) =
            self.0
                .owned
                .spawn_bound(future, self.clone(), 0, task::SpawnMeta::NONE);
        if let Some(task) = notified {
            self.schedule(task);
        }
        join
    }

    /// Runs one queued task; false when the queue was empty.
    pub(crate) fn tick(&self) -> bool {
        // The guard is a temporary of this statement: the lock is released before the run.
        let task = self.0.queue.lock().pop_front();
        match task {
            Some(task) => {
                task.run(self);
                true
            }
            None => false,
        }
    }

    pub(crate) fn run_all(&self) {
        while self.tick() {}
    }

    fn shutdown(&self) {
        self.0.owned.close_and_shutdown_all(0);
    }

    /// End of a model run: cancel what is left, then drop the queue's references (this
    /// breaks the `Inner -> queue -> task -> Sched -> Inner` cycle, so loom's leak check
    /// sees a real leak only).
    pub(crate) fn teardown(&self) {
        self.shutdown();
        loop {
            let task = self.0.queue.lock().pop_front();
            match task {
                // Dropping a never-parked task's `Notified` cancels it (outside the lock).
                Some(task) => drop(task),
                None => break,
            }
        }
        assert!(
            self.0.owned.is_empty(),
            "a task outlived shutdown in the owned list"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Test instruments.

/// Bumps a counter when dropped: put one in a future (or an output) to count its drops.
pub(crate) struct Track(pub(crate) Arc<AtomicUsize>);

impl Drop for Track {
    fn drop(&mut self) {
        // Relaxed: counts are read after every thread is joined.
        self.0.fetch_add(1, Relaxed);
    }
}

pub(crate) fn counter() -> Arc<AtomicUsize> {
    Arc::new(AtomicUsize::new(0))
}

/// Marks a poll in progress; two polls at once fail the test.
pub(crate) struct InPoll(Arc<AtomicBool>);

impl InPoll {
    pub(crate) fn enter(flag: &Arc<AtomicBool>) -> InPoll {
        // Relaxed: a swap (an RMW) always reads the latest value, so an overlap is seen
        // without adding any ordering of our own.
        assert!(!flag.swap(true, Relaxed), "task polled concurrently");
        InPoll(flag.clone())
    }
}

impl Drop for InPoll {
    fn drop(&mut self) {
        self.0.store(false, Relaxed);
    }
}

/// A flag set by one thread and checked by a poll, both with RMWs: of the two, the later
/// one sees the earlier, so either the poll sees the flag or the setter's wake comes after
/// the poll started (the contract a correct channel gives the task layer).
#[derive(Clone)]
struct Flag(Arc<AtomicBool>);

impl Flag {
    fn new() -> Flag {
        Flag(Arc::new(AtomicBool::new(false)))
    }
    fn set(&self) {
        self.0.swap(true, AcqRel);
    }
    fn check(&self) -> bool {
        self.0.fetch_or(false, AcqRel)
    }
}

/// A waker slot the future fills from its poll; the test takes the waker out.
pub(crate) type Slot = Arc<Mutex<Option<Waker>>>;

pub(crate) fn slot() -> Slot {
    Arc::new(Mutex::new(None))
}

pub(crate) fn take(slot: &Slot) -> Waker {
    slot.lock().take().expect("the first poll stored a waker")
}

/// A waker that counts its wakes (loom atomic) and otherwise does nothing.
struct CountWaker(Arc<AtomicUsize>);

impl Wake for CountWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.0.fetch_add(1, Relaxed);
    }
}

/// A waker that unparks one loom thread.
struct ThreadWaker(thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.0.unpark();
    }
}

fn poll_once<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
    Pin::new(f).poll(&mut Context::from_waker(Waker::noop()))
}

/// Reads a JoinHandle of a task known to be complete.
pub(crate) fn join_now<T>(mut join: JoinHandle<T>) -> Result<T, JoinError> {
    match poll_once(&mut join) {
        Poll::Ready(r) => r,
        Poll::Pending => panic!("task not complete after every thread finished"),
    }
}

// ---------------------------------------------------------------------------------------
// Futures the models share.

/// A future that yields once (self-wake) and then returns an output carrying a `Track`.
fn yield_then_output(
    in_poll: &Arc<AtomicBool>,
    fut_drops: &Arc<AtomicUsize>,
    out_drops: &Arc<AtomicUsize>,
    outputs: &Arc<AtomicUsize>,
) -> impl Future<Output = Track> + Send + 'static {
    yield_then_output_by(false, in_poll, fut_drops, out_drops, outputs)
}

/// `yield_then_output`, its self-wake `task::wake_self_by_ref` (`recorded`: applied by the
/// harness's end-of-poll CAS) or the waker's own `wake_by_ref` (an atomic during the poll).
pub(crate) fn yield_then_output_by(
    recorded: bool,
    in_poll: &Arc<AtomicBool>,
    fut_drops: &Arc<AtomicUsize>,
    out_drops: &Arc<AtomicUsize>,
    outputs: &Arc<AtomicUsize>,
) -> impl Future<Output = Track> + Send + 'static {
    let (in_poll, out_drops, outputs) = (in_poll.clone(), out_drops.clone(), outputs.clone());
    let track = Track(fut_drops.clone());
    let mut yielded = false;
    poll_fn(move |cx| {
        let _track = &track;
        let _g = InPoll::enter(&in_poll);
        if !yielded {
            yielded = true;
            if recorded {
                task::wake_self_by_ref(cx.waker());
            } else {
                cx.waker().wake_by_ref();
            }
            return Poll::Pending;
        }
        outputs.fetch_add(1, Relaxed);
        Poll::Ready(Track(out_drops.clone()))
    })
}
