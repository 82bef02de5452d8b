//! The task crate against a tiny single-threaded test scheduler: lifecycle, references,
//! join, abort, panics, shutdown.
#![cfg(not(loom))]

mod common;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use common::{poll_once, Sched};
use task::JoinError;

struct Drops(Arc<AtomicUsize>);
impl Drop for Drops {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// Pending until its shared slot holds a waker that was then woken.
struct Parked {
    waker: Arc<Mutex<Option<Waker>>>,
    polls: Arc<AtomicUsize>,
    ready_after: usize,
}
impl Future for Parked {
    type Output = usize;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        let n = self.polls.fetch_add(1, SeqCst) + 1;
        if n > self.ready_after {
            return Poll::Ready(n);
        }
        *self.waker.lock().unwrap() = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[test]
fn output_reaches_the_join_handle() {
    let s = Sched::new();
    let mut h = s.spawn(async { 42 });
    assert!(poll_once(&mut h).is_pending());
    assert_eq!(s.run(), 1);
    assert!(h.is_finished());
    assert_eq!(poll_once(&mut h).map(Result::unwrap), Poll::Ready(42));
    assert!(s.0.owned.is_empty());
}

#[test]
fn wake_reschedules_and_waker_refs_balance() {
    let s = Sched::new();
    let waker = Arc::new(Mutex::new(None));
    let polls = Arc::new(AtomicUsize::new(0));
    let mut h = s.spawn(Parked {
        waker: waker.clone(),
        polls: polls.clone(),
        ready_after: 2,
    });
    assert_eq!(s.run(), 1);
    // Two wakes of an idle task schedule it once.
    let w = waker.lock().unwrap().take().unwrap();
    w.wake_by_ref();
    w.wake_by_ref();
    assert_eq!(s.0.queue.lock().unwrap().len(), 1);
    assert_eq!(s.run(), 1);
    let w2 = waker.lock().unwrap().take().unwrap();
    w2.wake();
    assert_eq!(s.run(), 1);
    assert_eq!(poll_once(&mut h).map(Result::unwrap), Poll::Ready(3));
    // Waking a completed task does nothing.
    w.wake();
    assert_eq!(s.run(), 0);
}

#[test]
fn self_wake_during_poll_is_a_yield() {
    let s = Sched::new();
    let mut h = s.spawn(async {
        let mut yielded = false;
        std::future::poll_fn(|cx| {
            if yielded {
                Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await;
        7
    });
    assert_eq!(s.run(), 2);
    assert_eq!(s.0.yields.load(SeqCst), 1);
    assert_eq!(poll_once(&mut h).map(Result::unwrap), Poll::Ready(7));
}

#[test]
fn panic_becomes_join_error() {
    let s = Sched::new();
    let mut h = s.spawn(async {
        panic!("inside");
    });
    s.run();
    let err: JoinError = match poll_once(&mut h) {
        Poll::Ready(r) => r.unwrap_err(),
        Poll::Pending => panic!("not finished"),
    };
    assert!(err.is_panic());
    assert_eq!(err.into_panic().downcast_ref::<&str>(), Some(&"inside"));
}

#[test]
fn ids_are_unique_and_name_the_task_in_join_errors() {
    let s = Sched::new();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..3000 {
        let h = s.spawn(async {});
        assert!(seen.insert(h.id()), "duplicate task id {:?}", h.id());
        assert_eq!(h.abort_handle().id(), h.id());
    }
    // From another thread (its own block of ids).
    let other = std::thread::spawn(move || {
        let s = Sched::new();
        (0..3000)
            .map(|_| s.spawn(async {}).id())
            .collect::<Vec<_>>()
    })
    .join()
    .unwrap();
    for id in other {
        assert!(seen.insert(id), "duplicate task id {id:?} across threads");
    }
    s.run();

    // The current task's id is visible while it is polled, and only then.
    assert_eq!(task::current_id(), None);
    let mut h = s.spawn(async { task::current_id() });
    let id = h.id();
    s.run();
    match poll_once(&mut h) {
        Poll::Ready(r) => assert_eq!(r.unwrap(), Some(id)),
        Poll::Pending => panic!("not finished"),
    }

    let mut h = s.spawn(async {
        panic!("boom");
    });
    let id = h.id();
    s.run();
    let err: JoinError = match poll_once(&mut h) {
        Poll::Ready(r) => r.unwrap_err(),
        Poll::Pending => panic!("not finished"),
    };
    assert_eq!(err.id(), id);
    assert_eq!(
        err.to_string(),
        format!("task {id} panicked with message \"boom\"")
    );
    assert_eq!(
        format!("{err:?}"),
        format!("JoinError::Panic(Id({}), \"boom\", ...)", id.as_u64())
    );

    let mut h = s.spawn(std::future::pending::<()>());
    let id = h.id();
    s.run();
    h.abort();
    s.run();
    let err: JoinError = match poll_once(&mut h) {
        Poll::Ready(r) => r.unwrap_err(),
        Poll::Pending => panic!("not finished"),
    };
    assert!(err.is_cancelled());
    assert_eq!(err.to_string(), format!("task {id} was cancelled"));
    assert_eq!(format!("{err:?}"), format!("JoinError::Cancelled({id:?})"));
}

#[test]
fn abort_idle_task_drops_future_once() {
    let s = Sched::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let d = Drops(drops.clone());
    let mut h = s.spawn(async move {
        let _d = d;
        std::future::pending::<()>().await
    });
    s.run();
    h.abort();
    h.abort();
    assert_eq!(s.run(), 1);
    assert_eq!(drops.load(SeqCst), 1);
    match poll_once(&mut h) {
        Poll::Ready(Err(e)) => assert!(e.is_cancelled()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn dropped_join_handle_output_is_dropped_by_the_task() {
    let s = Sched::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let d = drops.clone();
    drop(s.spawn(async move { Drops(d) }));
    assert_eq!(drops.load(SeqCst), 0);
    s.run();
    assert_eq!(drops.load(SeqCst), 1);
}

#[test]
fn join_handle_dropped_after_completion_drops_output() {
    let s = Sched::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let d = drops.clone();
    let h = s.spawn(async move { Drops(d) });
    s.run();
    assert_eq!(drops.load(SeqCst), 0);
    drop(h);
    assert_eq!(drops.load(SeqCst), 1);
}

#[test]
fn join_waker_is_woken_on_completion() {
    struct Flag(AtomicUsize);
    impl std::task::Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, SeqCst);
        }
    }
    let s = Sched::new();
    let flag = Arc::new(Flag(AtomicUsize::new(0)));
    let waker = Waker::from(flag.clone());
    let mut h = s.spawn(async { 1 });
    assert!(Pin::new(&mut h)
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    // Re-polling with the same waker keeps it; with another one replaces it.
    assert!(Pin::new(&mut h)
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    s.run();
    assert_eq!(flag.0.load(SeqCst), 1);
    assert!(poll_once(&mut h).is_ready());
}

#[test]
fn shutdown_cancels_idle_and_never_polled_tasks() {
    let s = Sched::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let mut hs = Vec::new();
    for _ in 0..10 {
        let d = Drops(drops.clone());
        hs.push(s.spawn(async move {
            let _d = d;
            std::future::pending::<()>().await
        }));
    }
    s.run(); // all polled once, now idle
    for _ in 0..5 {
        let d = Drops(drops.clone());
        hs.push(s.spawn(async move {
            let _d = d;
        }));
    }
    // 5 never polled, still queued.
    s.shutdown();
    assert_eq!(drops.load(SeqCst), 15);
    for mut h in hs {
        match poll_once(&mut h) {
            Poll::Ready(Err(e)) => assert!(e.is_cancelled()),
            other => panic!("{other:?}"),
        }
    }
    // Spawning after shutdown cancels at once.
    let d = Drops(drops.clone());
    let mut h = s.spawn(async move {
        let _d = d;
    });
    assert_eq!(drops.load(SeqCst), 16);
    assert!(matches!(poll_once(&mut h), Poll::Ready(Err(e)) if e.is_cancelled()));
}

#[test]
fn many_tasks_across_threads_free_exactly_once() {
    let s = Sched::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let wakers = Arc::new(Mutex::new(Vec::new()));
    let mut hs = Vec::new();
    for _ in 0..200 {
        let w = Arc::new(Mutex::new(None));
        wakers.lock().unwrap().push(w.clone());
        let d = Drops(drops.clone());
        hs.push(s.spawn(async move {
            let _d = d;
            Parked {
                waker: w,
                polls: Arc::new(AtomicUsize::new(0)),
                ready_after: 1,
            }
            .await
        }));
    }
    s.run();
    // Wake every task from other threads at once, then run them.
    let ts: Vec<_> = (0..4)
        .map(|i| {
            let wakers = wakers.clone();
            std::thread::spawn(move || {
                for (j, w) in wakers.lock().unwrap().iter().enumerate() {
                    if j % 4 == i {
                        w.lock().unwrap().take().unwrap().wake();
                    }
                }
            })
        })
        .collect();
    for t in ts {
        t.join().unwrap();
    }
    s.run();
    for mut h in hs {
        assert!(matches!(poll_once(&mut h), Poll::Ready(Ok(2))));
    }
    assert_eq!(drops.load(SeqCst), 200);
    assert!(s.0.owned.is_empty());
}

/// Late binding: a spawned task is in no shard until its first park; the poller binds it
/// then (`Schedule::bind`, into the shard the scheduler picks), and completion takes it
/// off the list again.
#[test]
fn task_binds_at_first_park_and_is_released_on_completion() {
    let s = Sched::new();
    let waker = Arc::new(Mutex::new(None::<Waker>));
    let polls = Arc::new(AtomicUsize::new(0));
    let mut join = s.spawn(Parked {
        waker: waker.clone(),
        polls: polls.clone(),
        ready_after: 1,
    });
    assert_eq!(s.0.owned.len(), 0, "queued, never parked: in no shard");
    assert!(!s.0.queue.lock().unwrap()[0].is_bound());
    assert_eq!(s.run(), 1);
    assert_eq!(s.0.binds.load(SeqCst), 1);
    assert_eq!(s.0.owned.len(), 1, "parked: bound");
    waker.lock().unwrap().take().unwrap().wake();
    assert!(s.0.queue.lock().unwrap()[0].is_bound());
    assert_eq!(s.run(), 1);
    assert_eq!(s.0.binds.load(SeqCst), 1, "bound once");
    assert_eq!(s.0.owned.len(), 0, "released on completion");
    assert!(matches!(poll_once(&mut join), Poll::Ready(Ok(2))));
}

/// A task that completes in its first poll never touches the list; neither does one that
/// yields (woken during its poll, it goes back to the queue still unbound).
#[test]
fn tasks_that_never_park_never_bind() {
    let s = Sched::new();
    let mut a = s.spawn(async { 7 });
    let mut b = s.spawn(async {
        yield_once().await;
        8
    });
    assert_eq!(s.run(), 3);
    assert_eq!(s.0.binds.load(SeqCst), 0);
    assert_eq!(s.0.yields.load(SeqCst), 1);
    assert!(matches!(poll_once(&mut a), Poll::Ready(Ok(7))));
    assert!(matches!(poll_once(&mut b), Poll::Ready(Ok(8))));
    assert!(s.0.owned.is_empty());
}

/// Pending once, waking itself first (a `yield_now`).
async fn yield_once() {
    common::yield_once_by(false).await
}

/// At shutdown a never-parked task cannot be reached through the list: the queue drain
/// cancels it (`Notified::shutdown`, or a plain drop): future dropped once, JoinHandle
/// cancelled. A bound task's `Notified` only drops a reference.
#[test]
fn queue_drain_cancels_unbound_tasks() {
    let s = Sched::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let pending_with_drop = |d: Drops| async move {
        let _d = d;
        std::future::pending::<()>().await
    };
    let mut a = s.spawn(pending_with_drop(Drops(drops.clone())));
    let mut b = s.spawn(pending_with_drop(Drops(drops.clone())));
    s.0.owned.close_and_shutdown_all(0);
    assert_eq!(drops.load(SeqCst), 0, "unbound: shutdown cannot see them");
    let mut queued = std::mem::take(&mut *s.0.queue.lock().unwrap());
    assert!(queued.pop_front().unwrap().shutdown(), "cancelled here");
    assert_eq!(drops.load(SeqCst), 1);
    assert!(matches!(poll_once(&mut a), Poll::Ready(Err(e)) if e.is_cancelled()));
    assert!(matches!(poll_once(&mut b), Poll::Pending));
    drop(queued);
    assert_eq!(
        drops.load(SeqCst),
        2,
        "a dropped unbound Notified cancels too"
    );
    assert!(matches!(poll_once(&mut b), Poll::Ready(Err(e)) if e.is_cancelled()));
    assert!(s.0.owned.is_empty());
}

/// A task polled while the list closes: its first park finds the list closed, and its
/// poller cancels it instead of letting it go idle where nothing would reach it.
#[test]
fn first_park_into_closed_list_cancels() {
    let s = Sched::new();
    let drops = Arc::new(AtomicUsize::new(0));
    let d = Drops(drops.clone());
    let mut join = s.spawn(async move {
        let _d = d;
        std::future::pending::<()>().await
    });
    s.0.owned.close_and_shutdown_all(0);
    let task = s.0.queue.lock().unwrap().pop_front().unwrap();
    assert!(task.run(&s), "completed (cancelled) by this run");
    assert_eq!(drops.load(SeqCst), 1);
    assert!(matches!(poll_once(&mut join), Poll::Ready(Err(e)) if e.is_cancelled()));
    assert!(s.0.owned.is_empty());
}

/// `spawn` on a closed list cancels on the spot.
#[test]
fn spawn_after_shutdown_is_cancelled() {
    let s = Sched::new();
    s.shutdown();
    let (mut join, notified) = s.0.owned.spawn(async {}, task::SpawnMeta::NONE);
    assert!(notified.is_none());
    assert!(matches!(poll_once(&mut join), Poll::Ready(Err(e)) if e.is_cancelled()));
}

/// `spawn_bound` (the blocking pool's) puts the task in the list at once.
#[test]
fn spawn_bound_is_in_the_list_before_it_runs() {
    let s = Sched::new();
    let (mut join, notified) =
        s.0.owned
            .spawn_bound(async { 3 }, s.clone(), 0, task::SpawnMeta::NONE);
    assert_eq!(s.0.owned.len(), 1);
    assert!(notified.unwrap().run(&s));
    assert_eq!(s.0.owned.len(), 0);
    assert!(matches!(poll_once(&mut join), Poll::Ready(Ok(3))));
}

/// A task holds no scheduler handle until its first park: spawning and running tasks that
/// complete (or yield) without parking never clones the scheduler; a task that parks
/// holds one clone from its first park until it is freed, and a wake while it is parked
/// schedules it through that clone.
#[test]
fn only_a_parked_task_holds_its_scheduler() {
    let s = Sched::new();
    let base = Arc::strong_count(&s.0);
    let joins: Vec<_> = (0..4).map(|i| s.spawn(async move { i })).collect();
    let yielder = s.spawn(yield_once());
    assert_eq!(
        Arc::strong_count(&s.0),
        base,
        "spawned tasks hold no scheduler"
    );
    assert_eq!(s.run(), 6);
    assert_eq!(
        Arc::strong_count(&s.0),
        base,
        "they completed without parking"
    );
    assert_eq!(s.0.binds.load(SeqCst), 0);

    let slot = Arc::new(Mutex::new(None::<Waker>));
    let polls = Arc::new(AtomicUsize::new(0));
    let mut parked = s.spawn(Parked {
        waker: slot.clone(),
        polls: polls.clone(),
        ready_after: 1,
    });
    assert_eq!(s.run(), 1);
    assert_eq!(s.0.binds.load(SeqCst), 1);
    assert_eq!(
        Arc::strong_count(&s.0),
        base + 1,
        "the parked task holds one clone"
    );
    slot.lock().unwrap().take().unwrap().wake();
    assert_eq!(
        s.0.queue.lock().unwrap().len(),
        1,
        "woken through its own clone"
    );
    assert_eq!(s.run(), 1);
    assert!(matches!(poll_once(&mut parked), Poll::Ready(Ok(2))));
    drop(parked);
    assert_eq!(Arc::strong_count(&s.0), base, "freed with the task");
    for (i, mut j) in joins.into_iter().enumerate() {
        assert!(matches!(poll_once(&mut j), Poll::Ready(Ok(v)) if v == i));
    }
    drop(yielder);
}
