//! `runtime::sync::Mutex`: mutual exclusion under contention on both flavors, FIFO hand-over,
//! a cancelled lock waiter does not block the next, guards (map/try_map/owned), blocking
//! use from plain threads, and the panic inside a runtime.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use runtime::sync::{MappedMutexGuard, Mutex, MutexGuard, OwnedMutexGuard};
use support::*;

rt_test! {
    #[test]
    fn contended_increments_are_exclusive() {
        watchdog("the contending lockers", || {
            on(&rt(), || async {
                let m = Arc::new(Mutex::new((0u64, 0u64)));
                let mut tasks = Vec::new();
                for i in 0..50 {
                    let m = m.clone();
                    tasks.push(runtime::spawn(async move {
                        for _ in 0..20 {
                            let mut g = if i % 2 == 0 {
                                m.lock().await
                            } else {
                                // Both kinds of guard exclude each other.
                                let mut o = m.clone().lock_owned().await;
                                o.0 += 1;
                                runtime::task::yield_now().await;
                                o.1 += 1;
                                continue;
                            };
                            g.0 += 1;
                            runtime::task::yield_now().await; // held across an await
                            g.1 += 1;
                        }
                    }));
                }
                for t in tasks {
                    t.await.unwrap();
                }
                assert_eq!(*m.lock().await, (1000, 1000));
            });
        })
    }

    #[test]
    fn a_cancelled_lock_waiter_does_not_block_the_next() {
        watchdog("the waiter behind a cancelled one", || {
            on(&rt(), || async {
                let m = Arc::new(Mutex::new(0));
                let guard = m.lock().await;
                let m1 = m.clone();
                let cancelled = runtime::spawn(async move {
                    let _g = m1.lock().await;
                    unreachable!("aborted while waiting");
                });
                let m2 = m.clone();
                let next = runtime::spawn(async move {
                    *m2.lock().await += 1;
                });
                runtime::task::yield_now().await;
                cancelled.abort();
                let _ = cancelled.await;
                drop(guard);
                next.await.unwrap();
                assert_eq!(*m.lock().await, 1);
            });
        })
    }
}

#[test]
fn the_lock_handed_to_a_dropped_waiter_goes_to_the_next() {
    watchdog("the lock handed past a dropped waiter", || {
        let m = Mutex::new(0);
        let g = m.try_lock().unwrap();
        let (ca, wa) = counting_waker();
        let (cb, wb) = counting_waker();
        let mut a = Box::pin(m.lock());
        let mut b = Box::pin(m.lock());
        assert!(poll(a.as_mut(), &wa).is_pending());
        assert!(poll(b.as_mut(), &wb).is_pending());
        drop(g);
        assert_eq!((ca.count(), cb.count()), (1, 0));
        drop(a);
        assert_eq!(cb.count(), 1);
        assert!(poll(b.as_mut(), &wb).is_ready());
    })
}

#[test]
fn waiters_get_the_lock_in_order_and_try_lock_does_not_barge() {
    watchdog("the lock waiters in order", || {
        let m = Mutex::new(Vec::new());
        let g = m.try_lock().unwrap();
        let mut waiters: Vec<_> = (0..4)
            .map(|i| {
                let m = &m;
                Box::pin(async move { m.lock().await.push(i) })
            })
            .collect();
        for w in waiters.iter_mut() {
            assert!(poll_noop(w.as_mut()).is_pending());
        }
        drop(g);
        // The lock went to waiter 0: nobody else, try_lock included, gets it.
        assert!(m.try_lock().is_err());
        // Poll in reverse order, repeatedly: the lock still goes 0, 1, 2, 3.
        let mut done = [false; 4];
        for _ in 0..4 {
            for (i, w) in waiters.iter_mut().enumerate().rev() {
                if !done[i] && poll_noop(w.as_mut()).is_ready() {
                    done[i] = true;
                }
            }
        }
        assert_eq!(done, [true; 4]);
        assert_eq!(*m.try_lock().unwrap(), [0, 1, 2, 3]);
    })
}

#[test]
fn guards_map_and_try_map() {
    watchdog("the uncontended locks", || {
        futures::executor::block_on(async {
            let m = Mutex::new((1, vec![2]));
            {
                let mut g = MutexGuard::map(m.lock().await, |v| &mut v.1);
                g.push(3);
                let mut g = MappedMutexGuard::map(g, |v| &mut v[0]);
                *g = 20;
                assert!(m.try_lock().is_err());
            }
            let g = MutexGuard::try_map(m.lock().await, |v| v.1.get_mut(9)).unwrap_err();
            assert_eq!(*g, (1, vec![20, 3]));
            drop(g);
            let g = MutexGuard::try_map(m.lock().await, |v| v.1.get_mut(1)).unwrap();
            assert!(MappedMutexGuard::try_map(g, |_| None::<&mut u8>).is_err());
            assert!(m.try_lock().is_ok());
        });
    })
}

#[test]
fn owned_guards_and_accessors() {
    let m = Arc::new(Mutex::new(String::from("a")));
    let mut g = m.clone().try_lock_owned().unwrap();
    g.push('b');
    assert!(Arc::ptr_eq(OwnedMutexGuard::mutex(&g), &m));
    assert!(m.clone().try_lock_owned().is_err());
    assert_eq!(format!("{:?}", m), "Mutex { data: <locked> }");
    drop(g);
    assert_eq!(format!("{:?}", m), "Mutex { data: \"ab\" }");
    let mut m = Arc::try_unwrap(m).unwrap();
    m.get_mut().push('c');
    assert_eq!(m.into_inner(), "abc");
}

#[test]
fn try_lock_error_says_it_would_block() {
    let m = Mutex::new(());
    let _g = m.try_lock().unwrap();
    assert_eq!(
        m.try_lock().unwrap_err().to_string(),
        "operation would block"
    );
}

#[test]
fn blocking_lock_from_plain_threads() {
    watchdog("blocking_lock on plain threads", || {
        let m = Arc::new(Mutex::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    for _ in 0..100 {
                        *m.blocking_lock() += 1;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*m.clone().blocking_lock_owned(), 400);
    })
}

#[test]
#[should_panic(expected = "`.lock().await`")]
fn blocking_lock_inside_a_runtime_panics() {
    watchdog("the refused blocking_lock", || {
        let rt = runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let m = Mutex::new(0);
            let _ = m.blocking_lock();
        });
    })
}

/// `lock().await` driven by another executor (futures' `block_on` on plain threads).
#[test]
fn lock_works_on_another_executor() {
    watchdog("the lock on another executor", || {
        let m = Arc::new(Mutex::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    futures::executor::block_on(async {
                        for _ in 0..100 {
                            let mut g = m.lock().await;
                            *g += 1;
                        }
                    })
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*m.blocking_lock(), 400);
    })
}

#[test]
fn const_new_and_static() {
    watchdog("the static mutex", || {
        static M: Mutex<u32> = Mutex::const_new(7);
        let mut f = pin!(M.lock());
        match poll_noop(f.as_mut()) {
            Poll::Ready(g) => assert_eq!(*g, 7),
            Poll::Pending => panic!("an unlocked mutex made lock() wait"),
        }
    })
}

#[test]
fn owned_guards_map_and_unlock_on_drop() {
    watchdog("the owned guards' release", || {
        use runtime::sync::OwnedMappedMutexGuard;
        futures::executor::block_on(async {
            let m = Arc::new(Mutex::new((1, vec![2])));
            let g = OwnedMutexGuard::map(m.clone().lock_owned().await, |v| &mut v.1);
            let mut g = OwnedMappedMutexGuard::map(g, |v| &mut v[0]);
            *g = 9;
            assert!(Arc::ptr_eq(OwnedMappedMutexGuard::mutex(&g), &m));
            assert!(m.try_lock().is_err());
            drop(g);
            let g = OwnedMutexGuard::try_map(m.clone().lock_owned().await, |v| v.1.get_mut(3));
            let g = g.unwrap_err();
            assert_eq!(*g, (1, vec![9]));
            drop(g);
            assert!(m.try_lock().is_ok());
        });
    })
}

/// Lock waits cancelled by short timeouts, while others hold the lock across awaits: the
/// lock always comes free again and every successful increment is counted.
#[test]
fn a_storm_of_cancelled_lock_waits_leaves_the_mutex_usable() {
    watchdog("the lock after a storm of cancelled waits", || {
        use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
        use std::time::Duration;
        on_both(|| async {
            let m = Arc::new(Mutex::new(0u64));
            let done = Arc::new(AtomicU64::new(0));
            let mut tasks = Vec::new();
            for i in 0..30u64 {
                let (m, done) = (m.clone(), done.clone());
                tasks.push(runtime::spawn(async move {
                    for j in 0..20u64 {
                        let wait = Duration::from_micros((i * 11 + j * 5) % 40);
                        if let Ok(mut g) = runtime::time::timeout(wait, m.lock()).await {
                            *g += 1;
                            runtime::task::yield_now().await;
                            done.fetch_add(1, SeqCst);
                        }
                    }
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
            assert_eq!(*m.lock().await, done.load(SeqCst));
        });
    })
}

/// Spends the rest of the current task's coop budget.
fn spend_the_budget() {
    while poll_noop(pin!(runtime::task::consume_budget())).is_ready() {}
}

/// As tokio's: a lock polled with the task's budget spent still takes its place in the
/// queue (a later locker queues behind it), and once granted holds the lock across the
/// yield it must make; dropping it then gives the lock back.
#[test]
fn a_locker_short_of_budget_keeps_its_fifo_place() {
    watchdog("the lockers short of budget", || {
        let rt = current_thread();
        rt.block_on(rt.spawn(async {
            let m = Arc::new(Mutex::new(()));
            let g0 = m.clone().lock_owned().await;
            let (ca, wa) = counting_waker();
            let (cb, wb) = counting_waker();
            let mut a = Box::pin(m.clone().lock_owned());
            spend_the_budget();
            assert!(poll(a.as_mut(), &wa).is_pending());
            assert_eq!(ca.count(), 0, "queued, not told to yield");
            let mut b = Box::pin(m.clone().lock_owned());
            assert!(poll(b.as_mut(), &wb).is_pending());
            drop(g0);
            assert_eq!(ca.count(), 1, "the first locker is woken");
            assert_eq!(cb.count(), 0, "the second waits behind it");
            // Granted with no budget: it yields, holding the lock.
            assert!(poll(a.as_mut(), &wa).is_pending());
            assert!(m.try_lock().is_err());
            runtime::task::yield_now().await;
            let Poll::Ready(ga) = poll(a.as_mut(), &wa) else {
                panic!("a fresh budget hands out the lock")
            };
            drop(ga);
            assert_eq!(cb.count(), 1);
            let Poll::Ready(gb) = poll(b.as_mut(), &wb) else {
                panic!("the second locker's turn")
            };
            drop(gb);
            // Granted with no budget, then dropped: the lock comes back.
            let mut c = Box::pin(m.clone().lock_owned());
            spend_the_budget();
            assert!(poll_noop(c.as_mut()).is_pending());
            assert!(m.try_lock().is_err(), "held by the future that must yield");
            drop(c);
            assert!(m.try_lock().is_ok());
        }))
        .unwrap();
    })
}
