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
//! runtime): the whole file runs in about a second at bound 2 or 3, and in about 15 s at
//! bound 6. Bugs seeded into a scratch copy of the state machine were each caught by
//! several suites: NOTIFIED lost at the end of a poll, a wake that does not mark a running
//! task, Relaxed transitions, shutdown taking RUNNING from a poller, reference miscounts,
//! the output dropped on both sides.

use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll, Wake, Waker};

use loom::thread;
use shim::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use shim::sync::{Arc, Mutex};
use task::{JoinError, JoinHandle, Notified, OwnedTasks, Schedule, Task};

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
// Wake from another thread while the task runs.

/// The first poll stores a waker and returns Pending; main wakes the task (so it is queued),
/// then thread B sets the flag and wakes it while main and B both run the queue. The second
/// poll races B's wake; whichever way, the task must be re-polled until it sees the flag.
fn wake_while_running(by_val: bool) {
    model(move || {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let flag = Flag::new();
        let slot = slot();

        let fut = {
            let (in_poll, flag, slot) = (in_poll.clone(), flag.clone(), slot.clone());
            let track = Track(drops.clone());
            let mut first = true;
            poll_fn(move |cx| {
                let _track = &track;
                let _g = InPoll::enter(&in_poll);
                if first {
                    first = false;
                    *slot.lock() = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                if flag.check() {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
        };
        let join = sched.spawn(fut);
        assert!(sched.tick(), "first poll");
        let waker = take(&slot);
        waker.wake_by_ref();

        let th = {
            let (sched, flag) = (sched.clone(), flag.clone());
            thread::spawn(move || {
                flag.set();
                if by_val {
                    waker.wake();
                } else {
                    waker.wake_by_ref();
                    drop(waker);
                }
                sched.run_all();
            })
        };
        sched.run_all();
        th.join().unwrap();
        sched.run_all();

        assert!(join.is_finished(), "the wake was lost");
        join_now(join).expect("the task completed normally");
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

#[test]
fn wake_by_val_while_running() {
    wake_while_running(true);
}

#[test]
fn wake_by_ref_while_running() {
    wake_while_running(false);
}

/// Two wakers race on an idle task: one by value, one by reference. Exactly one of them
/// schedules it (the other finds it notified); the task runs once more and completes.
#[test]
fn wake_by_ref_vs_wake_by_val() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let polls = counter();
        let drops = counter();
        let slot = slot();

        let fut = {
            let (in_poll, polls, slot) = (in_poll.clone(), polls.clone(), slot.clone());
            let track = Track(drops.clone());
            poll_fn(move |cx| {
                let _track = &track;
                let _g = InPoll::enter(&in_poll);
                if polls.fetch_add(1, Relaxed) == 0 {
                    *slot.lock() = Some(cx.waker().clone());
                    Poll::Pending
                } else {
                    Poll::Ready(())
                }
            })
        };
        let join = sched.spawn(fut);
        assert!(sched.tick());
        let w1 = take(&slot);
        let w2 = w1.clone();

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                w1.wake();
                sched.run_all();
            })
        };
        w2.wake_by_ref();
        sched.run_all();
        drop(w2);
        th.join().unwrap();
        sched.run_all();

        join_now(join).expect("completed");
        assert_eq!(
            polls.load(Relaxed),
            2,
            "one wake scheduled it, exactly once"
        );
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1);
    });
}

// ---------------------------------------------------------------------------------------
// Abort.

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

/// Late binding: B spawns a task (unbound: only queued, not in the list) and runs the
/// queue while main closes the list. The future never completes by itself, so only
/// cancellation ends it: its first park binds it before the close (then shutdown cancels
/// it, after its poll if it is running), or finds the list closed (its poller cancels
/// it), or it is still queued at teardown (dropping its `Notified` cancels it). Either
/// way: dropped exactly once, JoinHandle cancelled, list empty.
/// (Seeding `OwnedTasks::bind` to ignore `closed` fails this test.)
#[test]
fn first_park_racing_shutdown() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let th = {
            let sched = sched.clone();
            let fut = pending_forever(&in_poll, &drops, &slot, false);
            thread::spawn(move || {
                let join = sched.spawn(fut);
                sched.run_all();
                join
            })
        };
        sched.shutdown();
        let join = th.join().unwrap();
        // Main runs what B left queued: its first park finds the list closed. No second
        // `close_and_shutdown_all` before the checks (teardown has one), so a task bound
        // after the close would stay pending here.
        sched.run_all();
        drop(slot.lock().take());
        expect_cancelled(join);
        assert!(
            sched.0.owned.is_empty(),
            "a task bound after the list closed"
        );
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
        sched.teardown();
    });
}

/// Checks a JoinHandle result against what the future did: Ok iff an output was made.
pub(crate) fn check_result(res: Result<Track, JoinError>, outputs: &AtomicUsize) {
    match res {
        Ok(out) => {
            assert_eq!(outputs.load(Relaxed), 1);
            drop(out);
        }
        Err(e) => {
            assert!(e.is_cancelled(), "{e:?}");
            assert_eq!(
                outputs.load(Relaxed),
                0,
                "cancelled, yet an output was made"
            );
        }
    }
}

/// `abort()` from B races the task's two polls (run by main and B) of a task that never
/// parks (it yields, so it stays unbound): the JoinHandle gets the output or a cancelled
/// error; the future and any output are dropped exactly once.
#[test]
fn abort_racing_completion() {
    abort_racing_polls(false, false);
}

/// The same with the task bound at spawn (`spawn_bound`): shutdown and completion go
/// through the list.
#[test]
fn bound_abort_racing_completion() {
    abort_racing_polls(true, false);
}

pub(crate) fn abort_racing_polls(bound: bool, recorded: bool) {
    model(move || {
        let sched = Sched::new();
        let (in_poll, fut_drops, out_drops, outputs) = (
            Arc::new(AtomicBool::new(false)),
            counter(),
            counter(),
            counter(),
        );
        let fut = yield_then_output_by(recorded, &in_poll, &fut_drops, &out_drops, &outputs);
        let join = if bound {
            sched.spawn_bound(fut)
        } else {
            sched.spawn(fut)
        };
        let abort = join.abort_handle();

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                abort.abort();
                drop(abort);
                sched.run_all();
            })
        };
        sched.run_all();
        th.join().unwrap();
        sched.run_all();

        check_result(join_now(join), &outputs);
        sched.teardown();
        assert_eq!(fut_drops.load(Relaxed), 1, "future dropped exactly once");
        assert_eq!(
            out_drops.load(Relaxed),
            outputs.load(Relaxed),
            "output dropped once"
        );
    });
}

/// `abort()` on an idle task (it takes a new queue reference) races a by-value wake of the
/// same task (whose reference becomes the queue's): exactly one `Notified` results, the
/// task is polled or cancelled, and nothing leaks.
#[test]
fn abort_idle_racing_wake() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let (fut_drops, outputs) = (counter(), counter());
        let slot = slot();
        let fut = {
            let (in_poll, outputs, slot) = (in_poll.clone(), outputs.clone(), slot.clone());
            let track = Track(fut_drops.clone());
            let mut first = true;
            poll_fn(move |cx| {
                let _track = &track;
                let _g = InPoll::enter(&in_poll);
                if first {
                    first = false;
                    *slot.lock() = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                outputs.fetch_add(1, Relaxed);
                Poll::Ready(())
            })
        };
        let join = sched.spawn(fut);
        assert!(sched.tick());
        let waker = take(&slot);
        let abort = join.abort_handle();

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                abort.abort();
                drop(abort);
                sched.run_all();
            })
        };
        waker.wake();
        sched.run_all();
        th.join().unwrap();
        sched.run_all();

        match join_now(join) {
            Ok(()) => assert_eq!(outputs.load(Relaxed), 1),
            Err(e) => {
                assert!(e.is_cancelled());
                assert_eq!(outputs.load(Relaxed), 0);
            }
        }
        sched.teardown();
        assert_eq!(fut_drops.load(Relaxed), 1);
    });
}

// ---------------------------------------------------------------------------------------
// JoinHandle vs completion.

/// B drops the JoinHandle (fast path if the task never started, slow path otherwise) while
/// the task runs to completion on main or B: the output is dropped exactly once, by the
/// task when the handle was gone first, else by the handle.
#[test]
fn join_handle_drop_racing_completion() {
    model(|| {
        let sched = Sched::new();
        let (in_poll, fut_drops, out_drops, outputs) = (
            Arc::new(AtomicBool::new(false)),
            counter(),
            counter(),
            counter(),
        );
        let join = sched.spawn(yield_then_output(
            &in_poll, &fut_drops, &out_drops, &outputs,
        ));

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                drop(join);
                sched.run_all();
            })
        };
        sched.run_all();
        th.join().unwrap();
        sched.run_all();

        assert_eq!(outputs.load(Relaxed), 1, "the task completed");
        sched.teardown();
        assert_eq!(fut_drops.load(Relaxed), 1);
        assert_eq!(out_drops.load(Relaxed), 1, "output dropped exactly once");
    });
}

/// B awaits the JoinHandle (first with one waker, then with a parking one, so the handle
/// also swaps its stored waker) while main runs the task to completion. B parks between
/// polls: if the join waker were never woken, loom would report a deadlock.
#[test]
fn join_handle_poll_racing_completion() {
    model(|| {
        let sched = Sched::new();
        let (in_poll, fut_drops, out_drops, outputs) = (
            Arc::new(AtomicBool::new(false)),
            counter(),
            counter(),
            counter(),
        );
        let mut join = sched.spawn(yield_then_output(
            &in_poll, &fut_drops, &out_drops, &outputs,
        ));

        let th = thread::spawn(move || {
            let first = Waker::from(std::sync::Arc::new(CountWaker(counter())));
            if let Poll::Ready(r) = Pin::new(&mut join).poll(&mut Context::from_waker(&first)) {
                return r;
            }
            let parker = Waker::from(std::sync::Arc::new(ThreadWaker(thread::current())));
            loop {
                match Pin::new(&mut join).poll(&mut Context::from_waker(&parker)) {
                    Poll::Ready(r) => return r,
                    Poll::Pending => thread::park(),
                }
            }
        });
        sched.run_all();
        let res = th.join().unwrap();
        let out = res.expect("completed");
        drop(out);
        sched.teardown();
        assert_eq!(fut_drops.load(Relaxed), 1);
        assert_eq!(out_drops.load(Relaxed), 1);
    });
}

// ---------------------------------------------------------------------------------------
// The last reference.

/// Five references go away on three threads: the owned list's and the run's (main, at
/// completion), a by-value waker (B), a waker clone and the JoinHandle (C). Whoever drops
/// the last frees the cell, exactly once (loom: the scheduler `Arc` inside the cell is
/// neither leaked nor dropped twice; the counters: future and output dropped once).
#[test]
fn last_reference_frees_once() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let (fut_drops, out_drops) = (counter(), counter());
        let slot = slot();
        let fut = {
            let (in_poll, out_drops, slot) = (in_poll.clone(), out_drops.clone(), slot.clone());
            let track = Track(fut_drops.clone());
            let mut first = true;
            poll_fn(move |cx| {
                let _track = &track;
                let _g = InPoll::enter(&in_poll);
                if first {
                    first = false;
                    *slot.lock() = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                Poll::Ready(Track(out_drops.clone()))
            })
        };
        let join = sched.spawn(fut);
        assert!(sched.tick());
        let w1 = take(&slot);
        let w2 = w1.clone();

        let b = thread::spawn(move || w1.wake());
        let c = thread::spawn(move || {
            drop(w2);
            drop(join);
        });
        sched.run_all();
        b.join().unwrap();
        c.join().unwrap();
        sched.run_all();

        sched.teardown();
        assert_eq!(fut_drops.load(Relaxed), 1);
        assert_eq!(out_drops.load(Relaxed), 1);
    });
}

/// A by-value wake that ends up holding the last reference: the task completes (woken by
/// reference from main) while B still holds a waker it then wakes by value, after the
/// JoinHandle and every other waker are gone. That wake must free the cell (loom reports
/// the scheduler `Arc` inside the cell as leaked otherwise), and the explicit count below
/// says so even without loom's leak check: only the test's own handle is left on the
/// scheduler once every thread is done.
#[test]
fn wake_by_val_holding_last_reference_frees() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let fut_drops = counter();
        let slot = slot();
        let fut = {
            let (in_poll, slot) = (in_poll.clone(), slot.clone());
            let track = Track(fut_drops.clone());
            let mut first = true;
            poll_fn(move |cx| {
                let _track = &track;
                let _g = InPoll::enter(&in_poll);
                if first {
                    first = false;
                    *slot.lock() = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                Poll::Ready(())
            })
        };
        let join = sched.spawn(fut);
        assert!(sched.tick());
        let w1 = take(&slot);
        let w2 = w1.clone();
        drop(join);

        let b = thread::spawn(move || w1.wake());
        w2.wake_by_ref();
        drop(w2);
        sched.run_all();
        b.join().unwrap();
        sched.run_all();

        sched.teardown();
        assert_eq!(fut_drops.load(Relaxed), 1);
        assert_eq!(
            Arc::strong_count(&sched.0),
            1,
            "a task cell still holds the scheduler: it was never freed"
        );
    });
}

// ---------------------------------------------------------------------------------------
// Shutdown.

/// A future that stores its waker on the first poll and stays Pending forever.
fn pending_forever(
    in_poll: &Arc<AtomicBool>,
    drops: &Arc<AtomicUsize>,
    slot: &Slot,
    self_wake_once: bool,
) -> impl Future<Output = ()> + Send + 'static {
    let (in_poll, slot) = (in_poll.clone(), slot.clone());
    let track = Track(drops.clone());
    let mut polls = 0;
    poll_fn(move |cx| {
        let _track = &track;
        let _g = InPoll::enter(&in_poll);
        polls += 1;
        if polls == 1 {
            *slot.lock() = Some(cx.waker().clone());
            if self_wake_once {
                cx.waker().wake_by_ref();
            }
        }
        Poll::Pending
    })
}

fn expect_cancelled(join: JoinHandle<()>) {
    match join_now(join) {
        Err(e) => assert!(e.is_cancelled(), "{e:?}"),
        Ok(()) => panic!("a pending-forever task completed"),
    }
}

/// Shutdown on main races a wake from B (by value, or by reference then drop): the future
/// is dropped exactly once, the JoinHandle reports cancellation, the queue's reference (if
/// the wake made one) is dropped without a poll or runs into a complete task.
fn shutdown_racing_wake(by_val: bool) {
    model(move || {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let join = sched.spawn(pending_forever(&in_poll, &drops, &slot, false));
        assert!(sched.tick());
        let waker = take(&slot);

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                if by_val {
                    waker.wake();
                } else {
                    waker.wake_by_ref();
                    drop(waker);
                }
                sched.run_all();
            })
        };
        sched.shutdown();
        th.join().unwrap();
        sched.run_all();

        expect_cancelled(join);
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

#[test]
fn shutdown_racing_wake_by_val() {
    shutdown_racing_wake(true);
}

#[test]
fn shutdown_racing_wake_by_ref() {
    shutdown_racing_wake(false);
}

/// Shutdown on main races B running the task (two polls: it yields once): the future is
/// dropped exactly once, by shutdown when idle or by the poller after a poll, and the
/// JoinHandle reports cancellation.
#[test]
fn shutdown_racing_poll() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let join = sched.spawn(pending_forever(&in_poll, &drops, &slot, true));

        let th = {
            let sched = sched.clone();
            thread::spawn(move || sched.run_all())
        };
        sched.shutdown();
        th.join().unwrap();
        sched.run_all();
        drop(slot.lock().take());

        expect_cancelled(join);
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

/// Shutdown on main races B running the task while C wakes it by value: three parties on
/// the state word at once.
#[test]
fn shutdown_racing_poll_and_wake() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let join = sched.spawn(pending_forever(&in_poll, &drops, &slot, false));
        assert!(sched.tick());
        let waker = take(&slot);
        // Queue it again so B has a poll to run.
        waker.wake_by_ref();

        let b = {
            let sched = sched.clone();
            thread::spawn(move || sched.run_all())
        };
        let c = thread::spawn(move || waker.wake());
        sched.shutdown();
        b.join().unwrap();
        c.join().unwrap();
        sched.run_all();
        drop(slot.lock().take());

        expect_cancelled(join);
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

/// B spawns a task and runs it while main closes the list: the spawn is refused by the
/// closed list (cancelled on the spot), or the task completes in its one poll, or it is
/// still queued at teardown (cancelled by the drain). Either way it is dropped exactly once.
#[test]
fn spawn_racing_shutdown() {
    model(|| {
        let sched = Sched::new();
        let drops = counter();
        let th = {
            let (sched, drops) = (sched.clone(), drops.clone());
            thread::spawn(move || {
                let track = Track(drops);
                let join = sched.spawn(async move {
                    drop(track);
                });
                sched.run_all();
                join
            })
        };
        sched.shutdown();
        let join = th.join().unwrap();
        sched.run_all();
        match join_now(join) {
            Ok(()) => {}
            Err(e) => assert!(e.is_cancelled()),
        }
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1);
    });
}

/// Shutdown's CAS succeeds on a word equal to the one it loaded, but restored in between
/// by B (ABA): B's wake by reference adds NOTIFIED and a reference, B's run takes RUNNING
/// and clears NOTIFIED, B's poll changes the future, and B's park drops RUNNING and the
/// reference again. Shutdown then takes RUNNING and drops the future, so its CAS itself
/// must acquire B's park (the state CAS's AcqRel on success; the earlier Acquire load read
/// the word from before B's run): with Release only on success, the future's drop races
/// B's poll. B keeps its waker until after the join, so the word comes back exactly.
#[test]
fn shutdown_racing_wake_and_poll_restoring_the_word() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let join = sched.spawn(pending_forever(&in_poll, &drops, &slot, false));
        assert!(sched.tick());
        let waker = take(&slot);

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                waker.wake_by_ref();
                sched.run_all();
                waker
            })
        };
        sched.shutdown();
        drop(th.join().unwrap());
        sched.run_all();

        expect_cancelled(join);
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

/// A spawn the closed list refuses (`OwnedTasks::spawn` cancels the task on the spot and
/// hands back no `Notified`) happens-after the close, as a spawn refused under a shard
/// lock would (tokio's contract): the spawner sees what the closing thread wrote before
/// it closed the list. `is_closed`'s Acquire pairs with `close`'s Release store; with
/// either Relaxed, the read below races the write.
#[test]
fn spawn_refused_by_closed_list_happens_after_close() {
    model(|| {
        let sched = Sched::new();
        let before_close = Arc::new(loom::cell::UnsafeCell::new(0usize));
        let th = {
            let (sched, before_close) = (sched.clone(), before_close.clone());
            thread::spawn(move || {
                let (join, notified) = sched.0.owned.spawn(async {}, task::SpawnMeta::NONE);
                match notified {
                    Some(task) => sched.schedule(task),
                    None => {
                        // SAFETY: the closer wrote the cell before closing the list and
                        // never touches it again; this read is ordered after that write
                        // exactly when the refusal happens-after the close (loom checks).
                        let seen = before_close.with(|v| unsafe { *v });
                        assert_eq!(seen, 1, "a refused spawn did not see the closer's write");
                    }
                }
                join
            })
        };
        // SAFETY: B reads the cell only after its spawn was refused, i.e. after the close
        // below; nothing else touches it.
        before_close.with_mut(|v| unsafe { *v = 1 });
        sched.shutdown();
        let join = th.join().unwrap();
        sched.run_all();
        match join_now(join) {
            Ok(()) => {}
            Err(e) => assert!(e.is_cancelled(), "{e:?}"),
        }
        sched.teardown();
    });
}
