//! `runtime::sync::Semaphore`: the permit count is never exceeded under contention, waiters
//! are served FIFO (a big `acquire_many` is not starved), a cancelled waiter passes its
//! permits on, close fails waiters, the permit API (forget/merge/split), budget, and use
//! outside a runtime.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Poll;

use runtime::sync::{AcquireError, Semaphore, TryAcquireError};
use support::*;

rt_test! {
    #[test]
    fn never_exceeds_its_permits_under_100_contending_tasks() {
        watchdog("the 100 contending tasks", || {
            on(&rt(), || async {
                let sem = Arc::new(Semaphore::new(5));
                let inside = Arc::new(AtomicUsize::new(0));
                let max = Arc::new(AtomicUsize::new(0));
                let mut tasks = Vec::new();
                for i in 0..100 {
                    let (sem, inside, max) = (sem.clone(), inside.clone(), max.clone());
                    tasks.push(runtime::spawn(async move {
                        let _p = if i % 2 == 0 {
                            sem.acquire().await.unwrap().num_permits()
                        } else {
                            sem.clone().acquire_owned().await.unwrap().num_permits()
                        };
                        let _permit = sem.acquire().await.unwrap();
                        let now = inside.fetch_add(1, SeqCst) + 1;
                        max.fetch_max(now, SeqCst);
                        for _ in 0..3 {
                            runtime::task::yield_now().await;
                        }
                        inside.fetch_sub(1, SeqCst);
                    }));
                }
                for t in tasks {
                    t.await.unwrap();
                }
                let max = max.load(SeqCst);
                assert!((1..=5).contains(&max), "{max} tasks held a permit at once");
                assert_eq!(sem.available_permits(), 5);
            });
        })
    }

    #[test]
    fn waiters_are_served_in_order() {
        watchdog("the waiters in order", || {
            on(&rt(), || async {
                let sem = Arc::new(Semaphore::new(0));
                let order = Arc::new(std::sync::Mutex::new(Vec::new()));
                let mut tasks = Vec::new();
                for i in 0..10 {
                    let (s, o) = (sem.clone(), order.clone());
                    let (queued_tx, queued_rx) = runtime::sync::oneshot::channel();
                    tasks.push(runtime::spawn(async move {
                        let mut acquire = pin!(s.acquire());
                        // Queue (first poll), then tell the test, then wait.
                        assert!(futures::poll!(acquire.as_mut()).is_pending());
                        queued_tx.send(()).unwrap();
                        acquire.await.unwrap().forget();
                        o.lock().unwrap().push(i);
                    }));
                    queued_rx.await.unwrap();
                }
                for i in 0..10 {
                    sem.add_permits(1);
                    while order.lock().unwrap().len() <= i {
                        runtime::task::yield_now().await;
                    }
                }
                for t in tasks {
                    t.await.unwrap();
                }
                assert_eq!(*order.lock().unwrap(), (0..10).collect::<Vec<_>>());
            });
        })
    }

    #[test]
    fn a_cancelled_task_waiter_does_not_block_the_next() {
        watchdog("the waiter behind a cancelled one", || {
            on(&rt(), || async {
                let sem = Arc::new(Semaphore::new(1));
                let held = sem.clone().acquire_owned().await.unwrap();
                let s = sem.clone();
                let cancelled = runtime::spawn(async move {
                    let _ = s.acquire().await;
                    unreachable!("aborted before a permit came");
                });
                let s = sem.clone();
                let next = runtime::spawn(async move { s.acquire().await.unwrap().num_permits() });
                runtime::task::yield_now().await;
                cancelled.abort();
                let _ = cancelled.await;
                drop(held);
                assert_eq!(next.await.unwrap(), 1);
                assert_eq!(sem.available_permits(), 1);
            });
        })
    }

    #[test]
    fn close_fails_waiters_and_later_acquires_but_keeps_held_permits() {
        watchdog("the waiters failed by close", || {
            on(&rt(), || async {
                let sem = Arc::new(Semaphore::new(1));
                let held = sem.try_acquire().unwrap();
                let s = sem.clone();
                let waiter = runtime::spawn(async move { s.acquire_many(2).await.map(|_| ()) });
                runtime::task::yield_now().await;
                sem.close();
                assert!(waiter.await.unwrap().is_err());
                assert!(sem.is_closed());
                assert_eq!(sem.try_acquire().unwrap_err(), TryAcquireError::Closed);
                assert!(sem.acquire().await.is_err());
                drop(held);
                assert_eq!(sem.available_permits(), 1);
                assert_eq!(closed_err().to_string(), "semaphore closed");
            });
        })
    }
}

#[test]
fn a_big_acquire_many_is_not_starved_by_small_ones() {
    let sem = Semaphore::new(1);
    let mut big = pin!(sem.acquire_many(3));
    assert!(poll_noop(big.as_mut()).is_pending());
    // It took the one permit there was; a small acquire now queues behind it.
    assert_eq!(sem.available_permits(), 0);
    assert_eq!(sem.try_acquire().unwrap_err(), TryAcquireError::NoPermits);
    let mut small = pin!(sem.acquire());
    assert!(poll_noop(small.as_mut()).is_pending());
    sem.add_permits(1);
    assert!(
        poll_noop(small.as_mut()).is_pending(),
        "small barged past big"
    );
    sem.add_permits(1);
    let p = match poll_noop(big.as_mut()) {
        Poll::Ready(p) => p.unwrap(),
        Poll::Pending => panic!("big was not served with 3 permits"),
    };
    assert_eq!(p.num_permits(), 3);
    assert!(poll_noop(small.as_mut()).is_pending());
    drop(p);
    // The 3 permits came back: small took 1 (and gave it back when its permit dropped).
    assert_eq!(sem.available_permits(), 2);
    assert!(poll_noop(small.as_mut()).is_ready());
    assert_eq!(sem.available_permits(), 3);
}

#[test]
fn fifo_order_with_manual_polls() {
    let sem = Semaphore::new(0);
    let mut futs: Vec<_> = (0..5).map(|_| Box::pin(sem.acquire())).collect();
    for f in futs.iter_mut() {
        assert!(poll_noop(f.as_mut()).is_pending());
    }
    for i in 0..5 {
        sem.add_permits(1);
        for (j, f) in futs.iter_mut().enumerate().skip(i) {
            let ready = match poll_noop(f.as_mut()) {
                Poll::Ready(p) => {
                    p.unwrap().forget();
                    true
                }
                Poll::Pending => false,
            };
            assert_eq!(ready, j == i, "waiter {j} after {} permits", i + 1);
        }
    }
}

#[test]
fn a_cancelled_waiter_passes_its_permit_to_the_next() {
    let sem = Semaphore::new(0);
    let (ca, wa) = counting_waker();
    let (cb, wb) = counting_waker();
    let mut a = Box::pin(sem.acquire());
    let mut b = Box::pin(sem.acquire());
    assert!(poll(a.as_mut(), &wa).is_pending());
    assert!(poll(b.as_mut(), &wb).is_pending());
    sem.add_permits(1);
    assert_eq!(
        (ca.count(), cb.count()),
        (1, 0),
        "the first waiter is woken"
    );
    drop(a); // granted but never polled: the permit goes on
    assert_eq!(cb.count(), 1, "the next waiter is woken");
    let p = match poll(b.as_mut(), &wb) {
        Poll::Ready(p) => p.unwrap(),
        Poll::Pending => panic!("the permit was lost with the cancelled waiter"),
    };
    drop(p);
    assert_eq!(sem.available_permits(), 1);
}

#[test]
fn a_cancelled_acquire_many_gives_back_its_partial_permits() {
    let sem = Semaphore::new(2);
    let mut big = Box::pin(sem.acquire_many(5));
    assert!(poll_noop(big.as_mut()).is_pending());
    assert_eq!(sem.available_permits(), 0);
    drop(big);
    assert_eq!(sem.available_permits(), 2);
    // And the queue is clean: a try_acquire works again.
    assert!(sem.try_acquire_many(2).is_ok());
}

fn closed_err() -> AcquireError {
    let s = Semaphore::new(0);
    s.close();
    futures::executor::block_on(s.acquire()).unwrap_err()
}

#[test]
fn permit_forget_merge_split() {
    let sem = Semaphore::new(4);
    let mut a = sem.try_acquire_many(2).unwrap();
    let b = sem.try_acquire().unwrap();
    a.merge(b);
    assert_eq!(a.num_permits(), 3);
    let c = a.split(2).unwrap();
    assert!(a.split(2).is_none());
    assert_eq!((a.num_permits(), c.num_permits()), (1, 2));
    c.forget();
    drop(a);
    assert_eq!(sem.available_permits(), 2);
    assert_eq!(sem.forget_permits(5), 2);
    assert_eq!(sem.available_permits(), 0);

    let sem = Arc::new(Semaphore::new(3));
    let mut o = sem.clone().try_acquire_many_owned(2).unwrap();
    o.merge(sem.clone().try_acquire_owned().unwrap());
    let p = o.split(1).unwrap();
    assert!(Arc::ptr_eq(p.semaphore(), &sem));
    drop(o);
    p.forget();
    assert_eq!(sem.available_permits(), 2);
}

#[test]
#[should_panic(expected = "merging permits from different semaphore instances")]
fn merging_permits_of_two_semaphores_panics() {
    let (s1, s2) = (Semaphore::new(1), Semaphore::new(1));
    let mut a = s1.try_acquire().unwrap();
    a.merge(s2.try_acquire().unwrap());
}

#[test]
#[should_panic(expected = "MAX_PERMITS")]
fn too_many_permits_panics() {
    let _ = Semaphore::new(Semaphore::MAX_PERMITS + 1);
}

#[test]
#[should_panic(expected = "MAX_PERMITS")]
fn adding_past_max_permits_panics() {
    let s = Semaphore::new(Semaphore::MAX_PERMITS);
    s.add_permits(1);
}

#[test]
fn zero_permit_acquires_succeed_at_once() {
    watchdog("the zero-permit acquires", || {
        let s = Semaphore::new(0);
        assert!(s.try_acquire_many(0).is_ok());
        assert!(futures::executor::block_on(s.acquire_many(0)).is_ok());
    })
}

/// A task that keeps finding permits ready still yields (each ready acquire spends budget).
#[test]
fn ready_acquires_spend_the_cooperative_budget() {
    watchdog("the acquiring loop to yield", || {
        let rt = runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let flag = Arc::new(AtomicBool::new(false));
            let f = flag.clone();
            drop(runtime::spawn(async move { f.store(true, SeqCst) }));
            let sem = Semaphore::new(1);
            for _ in 0..10_000 {
                drop(sem.acquire().await.unwrap());
                if flag.load(SeqCst) {
                    return;
                }
            }
            panic!("10,000 ready acquires never yielded to the other task");
        });
    })
}

#[test]
fn works_outside_any_runtime() {
    watchdog("the acquires outside a runtime", || {
        let sem = Arc::new(Semaphore::new(1));
        let p = futures::executor::block_on(sem.clone().acquire_owned()).unwrap();
        let s = sem.clone();
        let t = std::thread::spawn(move || futures::executor::block_on(s.acquire()).is_ok());
        drop(p);
        assert!(t.join().unwrap());
    })
}

#[test]
fn const_new_in_a_static() {
    static S: Semaphore = Semaphore::const_new(2);
    assert_eq!(S.try_acquire_many(2).unwrap().num_permits(), 2);
    assert_eq!(
        format!("{:?}", S),
        "Semaphore { permits: 2, closed: false }"
    );
}

/// Many tasks acquire 1 to 3 permits under short timeouts (so many waits are cancelled,
/// some after a partial or full grant): the count never goes over 3 and ends at 3.
#[test]
fn a_storm_of_cancelled_acquires_loses_no_permit() {
    watchdog("the permits after a storm of cancelled acquires", || {
        static CANCELLED: AtomicUsize = AtomicUsize::new(0);
        use std::time::Duration;
        on_both(|| async {
            let sem = Arc::new(Semaphore::new(3));
            let held = Arc::new(AtomicUsize::new(0));
            let mut tasks = Vec::new();
            for i in 0..40u32 {
                let (sem, held) = (sem.clone(), held.clone());
                tasks.push(runtime::spawn(async move {
                    for j in 0..20u32 {
                        let n = 1 + (i + j) % 3;
                        let wait = Duration::from_micros(u64::from((i * 7 + j * 13) % 50));
                        let acquire = sem.clone().acquire_many_owned(n);
                        if let Ok(p) = runtime::time::timeout(wait, acquire).await {
                            let p = p.unwrap();
                            let now = held.fetch_add(n as usize, SeqCst) + n as usize;
                            assert!(now <= 3, "{now} permits held at once");
                            if j % 4 == 0 {
                                // Hold long enough for the timeouts of others to fire.
                                runtime::time::sleep(Duration::from_millis(1)).await;
                            } else {
                                runtime::task::yield_now().await;
                            }
                            held.fetch_sub(n as usize, SeqCst);
                            drop(p);
                        } else {
                            CANCELLED.fetch_add(1, SeqCst);
                        }
                    }
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
            assert_eq!(sem.available_permits(), 3);
            assert_eq!(sem.try_acquire_many(3).unwrap().num_permits(), 3);
        });
        assert!(
            CANCELLED.load(SeqCst) > 0,
            "no acquire was cancelled: the test did not exercise cancellation"
        );
    })
}

/// As tokio's: a waiter the close fails keeps what it was granted in part until its future
/// is done with, and one granted in full before the close, but polled only after it,
/// fails too (a closed semaphore hands nothing out); what they held then comes back.
#[test]
fn close_keeps_partial_grants_with_their_waiters_and_fails_unseen_grants() {
    let sem = Semaphore::new(2);
    let held = sem.try_acquire().unwrap();
    let mut many = Box::pin(sem.acquire_many(2));
    assert!(
        poll_noop(many.as_mut()).is_pending(),
        "one of two permits is out"
    );
    sem.close();
    assert_eq!(
        sem.available_permits(),
        0,
        "the waiter still holds its partial grant"
    );
    assert!(matches!(poll_noop(many.as_mut()), Poll::Ready(Err(_))));
    drop(many);
    assert_eq!(
        sem.available_permits(),
        1,
        "the failed waiter gave its grant back"
    );
    drop(held);
    assert_eq!(sem.available_permits(), 2);

    let sem = Semaphore::new(1);
    let held = sem.try_acquire().unwrap();
    let mut one = Box::pin(sem.acquire());
    assert!(poll_noop(one.as_mut()).is_pending());
    drop(held); // granted to the waiter, which has not looked yet
    sem.close();
    assert!(
        matches!(poll_noop(one.as_mut()), Poll::Ready(Err(_))),
        "a grant the waiter had not seen is void once closed"
    );
    drop(one);
    assert_eq!(sem.available_permits(), 1, "the void grant came back");
}
