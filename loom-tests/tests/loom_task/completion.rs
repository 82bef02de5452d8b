//! The end of a task's life. The JoinHandle dropped (fast path before the first poll,
//! slow path after) or polled (swapping its stored waker, its thread parking between
//! polls) while the task runs to completion: the output is dropped exactly once, by the
//! task or by the handle, and the join waker is never lost. Five references (the owned
//! list's, the run's, a by-value waker, a waker clone, the JoinHandle) dropped on three
//! threads, and a by-value wake left holding the last one: the cell is freed exactly once,
//! by whoever drops the last reference, and never leaked.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use loom::thread;
use shim::sync::atomic::{AtomicBool, Ordering::*};
use shim::sync::Arc;

use super::{
    counter, model, slot, take, yield_then_output, CountWaker, InPoll, Sched, ThreadWaker, Track,
};

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
