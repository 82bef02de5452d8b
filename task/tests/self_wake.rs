//! `task::wake_self_by_ref`: a task waking itself from inside its own poll is re-queued as
//! a yield without an atomic of its own (the harness applies the wake when the poll ends),
//! and every other waker, or a self-wake while another is recorded (a task polled inside
//! another task's poll), is woken the ordinary way.
#![cfg(not(loom))]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Wake, Waker};

use common::{poll_once, Sched};

/// Pending once, waking itself through `wake_self_by_ref` first (a `yield_now`).
async fn yield_recorded() {
    common::yield_once_by(true).await
}

struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn a_recorded_self_wake_requeues_the_task_as_a_yield() {
    let s = Sched::new();
    let mut h = s.spawn(async {
        for _ in 0..3 {
            yield_recorded().await;
        }
        5
    });
    assert_eq!(s.run(), 4, "one poll per yield, and the last");
    assert_eq!(s.0.yields.load(SeqCst), 3);
    // A woken task never goes idle, so it never binds (as with an atomic self-wake).
    assert_eq!(s.0.binds.load(SeqCst), 0);
    assert_eq!(poll_once(&mut h).map(Result::unwrap), Poll::Ready(5));
    assert!(s.0.owned.is_empty());
}

/// A waker that is not the polled task's own (a sub-executor's) is woken, and the task
/// itself is not re-queued by it.
#[test]
fn a_foreign_waker_is_woken_not_recorded() {
    let s = Sched::new();
    let foreign = Arc::new(CountingWaker(AtomicUsize::new(0)));
    let own: Arc<Mutex<Option<Waker>>> = Arc::default();
    let mut h = s.spawn({
        let (foreign, own) = (foreign.clone(), own.clone());
        let mut polls = 0;
        std::future::poll_fn(move |cx| {
            polls += 1;
            if polls == 1 {
                task::wake_self_by_ref(&Waker::from(foreign.clone()));
                *own.lock().unwrap() = Some(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(polls)
            }
        })
    });
    assert_eq!(s.run(), 1, "nobody woke the task itself");
    assert_eq!(foreign.0.load(SeqCst), 1, "the foreign waker was woken");
    assert_eq!(s.0.yields.load(SeqCst), 0);
    own.lock().unwrap().take().unwrap().wake();
    assert_eq!(s.run(), 1);
    assert_eq!(poll_once(&mut h).map(Result::unwrap), Poll::Ready(2));
}

/// Outside any poll (no current task) it is an ordinary `wake_by_ref`.
#[test]
fn outside_a_poll_it_wakes_normally() {
    let s = Sched::new();
    let own: Arc<Mutex<Option<Waker>>> = Arc::default();
    let mut h = s.spawn({
        let own = own.clone();
        let mut polls = 0;
        std::future::poll_fn(move |cx| {
            polls += 1;
            if polls == 1 {
                *own.lock().unwrap() = Some(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(polls)
            }
        })
    });
    assert_eq!(s.run(), 1);
    let w = own.lock().unwrap().take().unwrap();
    task::wake_self_by_ref(&w);
    assert_eq!(
        s.0.queue.lock().unwrap().len(),
        1,
        "the wake queued the task"
    );
    assert_eq!(s.run(), 1);
    assert_eq!(poll_once(&mut h).map(Result::unwrap), Poll::Ready(2));
}

/// A task polled inside another task's poll (as a `LocalSet` driven from a task does):
/// the outer task's recorded self-wake survives the inner poll, and the inner task's
/// self-wake, made while the outer's is recorded, takes the ordinary path. Both are
/// re-polled and finish.
#[test]
fn a_nested_poll_keeps_the_outer_record_and_the_inner_wake() {
    let s = Sched::new();
    let inner_polls = Arc::new(AtomicUsize::new(0));
    let mut inner = s.spawn({
        let polls = inner_polls.clone();
        async move {
            polls.fetch_add(1, SeqCst);
            yield_recorded().await;
            polls.fetch_add(1, SeqCst);
        }
    });
    // The inner task is queued first: pop it so the outer one can poll it by hand.
    let inner_notified = s.0.queue.lock().unwrap().pop_front().unwrap();
    let mut inner_notified = Some(inner_notified);
    let mut h = s.spawn({
        let s = s.clone();
        let mut polls = 0;
        std::future::poll_fn(move |cx| {
            polls += 1;
            if polls == 1 {
                // Record our own wake, then poll the inner task, which yields too.
                task::wake_self_by_ref(cx.waker());
                inner_notified.take().unwrap().run(&s);
                Poll::Pending
            } else {
                Poll::Ready(polls)
            }
        })
    });
    // Outer poll (which polls the inner once), then the inner's and the outer's second
    // polls, in queue order.
    assert_eq!(s.run(), 3, "both tasks were re-queued");
    assert_eq!(inner_polls.load(SeqCst), 2);
    assert_eq!(s.0.yields.load(SeqCst), 2);
    assert_eq!(poll_once(&mut h).map(Result::unwrap), Poll::Ready(2));
    assert!(poll_once(&mut inner).is_ready());
}
