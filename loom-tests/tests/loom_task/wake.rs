//! Wakes racing a running poll and each other. A wake from another thread (by value, or
//! by reference then a drop) lands while the task is queued or being polled, on either of
//! two threads running the queue: the task is polled again until it sees the condition the
//! waker set, and never twice at once. A by-value and a by-reference wake of one idle task:
//! exactly one of them schedules it (one more poll). The future is dropped exactly once.

use std::future::poll_fn;
use std::task::Poll;

use loom::thread;
use shim::sync::atomic::{AtomicBool, Ordering::*};
use shim::sync::Arc;

use super::{counter, join_now, model, slot, take, Flag, InPoll, Sched, Track};

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
