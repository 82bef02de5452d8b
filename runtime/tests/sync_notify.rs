//! `runtime::sync::Notify`: the single stored permit, FIFO (`notify_one`) and LIFO
//! (`notify_last`) hand-out, `notify_waiters` reaching exactly the futures created before
//! it, `enable`, a cancelled notified future passing its wake-up on, budget, and use across
//! tasks and threads.
#![cfg(not(loom))]

#[macro_use]
mod support;

use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;

use runtime::sync::Notify;
use support::*;

#[test]
fn notify_one_stores_a_single_permit() {
    let n = Notify::new();
    n.notify_one();
    n.notify_one();
    assert!(poll_noop(pin!(n.notified())).is_ready());
    assert!(poll_noop(pin!(n.notified())).is_pending());
}

#[test]
fn notify_one_wakes_the_oldest_waiter_and_notify_last_the_newest() {
    let n = Notify::new();
    let wakers: Vec<_> = (0..3).map(|_| counting_waker()).collect();
    let mut futs: Vec<_> = (0..3).map(|_| Box::pin(n.notified())).collect();
    for (f, (_, w)) in futs.iter_mut().zip(&wakers) {
        assert!(poll(f.as_mut(), w).is_pending());
    }
    n.notify_one();
    let counts: Vec<_> = wakers.iter().map(|(c, _)| c.count()).collect();
    assert_eq!(counts, [1, 0, 0]);
    n.notify_last();
    let counts: Vec<_> = wakers.iter().map(|(c, _)| c.count()).collect();
    assert_eq!(counts, [1, 0, 1]);
    assert!(poll(futs[0].as_mut(), &wakers[0].1).is_ready());
    assert!(poll(futs[1].as_mut(), &wakers[1].1).is_pending());
    assert!(poll(futs[2].as_mut(), &wakers[2].1).is_ready());
    // No permit was stored while someone waited.
    drop(futs);
    assert!(poll_noop(pin!(n.notified())).is_pending());
}

#[test]
fn notify_waiters_reaches_exactly_the_futures_created_before_it() {
    let n = Notify::new();
    let mut polled = Box::pin(n.notified());
    assert!(poll_noop(polled.as_mut()).is_pending());
    let mut unpolled = Box::pin(n.notified());
    n.notify_waiters();
    let mut later = Box::pin(n.notified());
    assert!(poll_noop(polled.as_mut()).is_ready());
    assert!(poll_noop(unpolled.as_mut()).is_ready());
    assert!(
        poll_noop(later.as_mut()).is_pending(),
        "notify_waiters stored a permit"
    );
    // A stored permit is kept through notify_waiters.
    drop(later);
    n.notify_one();
    n.notify_waiters();
    assert!(poll_noop(pin!(n.notified())).is_ready());
}

#[test]
fn enable_registers_for_notify_one_without_polling() {
    let n = Notify::new();
    let mut a = pin!(n.notified());
    assert!(!a.as_mut().enable());
    n.notify_one(); // goes to `a`, not into the permit
    assert!(poll_noop(pin!(n.notified())).is_pending());
    assert!(poll_noop(a.as_mut()).is_ready());

    n.notify_one();
    let mut b = pin!(n.notified());
    assert!(b.as_mut().enable(), "enable consumes a stored permit");
    assert!(poll_noop(b).is_ready());
}

#[test]
fn a_dropped_future_passes_its_notify_one_on() {
    let n = Notify::new();
    let (ca, wa) = counting_waker();
    let (cb, wb) = counting_waker();
    let mut a = Box::pin(n.notified());
    let mut b = Box::pin(n.notified());
    assert!(poll(a.as_mut(), &wa).is_pending());
    assert!(poll(b.as_mut(), &wb).is_pending());
    n.notify_one();
    assert_eq!((ca.count(), cb.count()), (1, 0));
    drop(a);
    assert_eq!(
        cb.count(),
        1,
        "the wake-up was lost with the dropped future"
    );
    assert!(poll(b.as_mut(), &wb).is_ready());

    // With nobody else waiting, it becomes the stored permit.
    let mut c = Box::pin(n.notified());
    assert!(poll_noop(c.as_mut()).is_pending());
    n.notify_one();
    drop(c);
    assert!(poll_noop(pin!(n.notified())).is_ready());
}

#[test]
fn a_dropped_waiting_future_leaves_no_trace() {
    let n = Notify::new();
    let mut a = Box::pin(n.notified());
    assert!(poll_noop(a.as_mut()).is_pending());
    drop(a);
    n.notify_one(); // nobody waits: stored
    assert!(poll_noop(pin!(n.notified())).is_ready());
}

rt_test! {
    #[test]
    fn ping_pong_between_tasks() {
        watchdog("the ping-pong notifications", || {
            on(&rt(), || async {
                let (a, b) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
                let (a2, b2) = (a.clone(), b.clone());
                let t = runtime::spawn(async move {
                    for _ in 0..1000 {
                        a2.notified().await;
                        b2.notify_one();
                    }
                });
                for _ in 0..1000 {
                    a.notify_one();
                    b.notified().await;
                }
                t.await.unwrap();
            });
        })
    }

    #[test]
    fn notify_waiters_wakes_many_tasks() {
        watchdog("the tasks woken by notify_waiters", || {
            on(&rt(), || async {
                let n = Arc::new(Notify::new());
                let mut tasks = Vec::new();
                let mut queued = Vec::new();
                for _ in 0..50 {
                    let n2 = n.clone();
                    let (tx, rx) = runtime::sync::oneshot::channel();
                    tasks.push(runtime::spawn(async move {
                        let mut f = pin!(n2.notified());
                        f.as_mut().enable();
                        tx.send(()).unwrap();
                        f.await;
                    }));
                    queued.push(rx);
                }
                for rx in queued {
                    rx.await.unwrap();
                }
                n.notify_waiters();
                for t in tasks {
                    t.await.unwrap();
                }
            });
        })
    }
}

#[test]
fn ready_notifications_spend_the_cooperative_budget() {
    watchdog("the notified loop to yield", || {
        let rt = runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let flag = Arc::new(AtomicBool::new(false));
            let f = flag.clone();
            drop(runtime::spawn(async move { f.store(true, SeqCst) }));
            let n = Notify::new();
            for _ in 0..10_000 {
                n.notify_one();
                n.notified().await;
                if flag.load(SeqCst) {
                    return;
                }
            }
            panic!("10,000 ready notifications never yielded");
        });
    })
}

#[test]
fn works_across_plain_threads() {
    watchdog("the notification across plain threads", || {
        let n = Arc::new(Notify::new());
        let n2 = n.clone();
        let t = std::thread::spawn(move || futures::executor::block_on(n2.notified()));
        // Either the thread waits already (woken) or it will find the stored permit.
        n.notify_one();
        t.join().unwrap();
    })
}

#[test]
fn const_new_in_a_static() {
    static N: Notify = Notify::const_new();
    N.notify_one();
    assert!(poll_noop(pin!(N.notified())).is_ready());
}

#[test]
fn owned_notified_moves_into_tasks_and_forwards_on_drop() {
    watchdog("the forwarded notification", || {
        on_both(|| async {
            let n = Arc::new(Notify::new());
            let waiters: Vec<_> = (0..4)
                .map(|_| runtime::spawn(n.clone().notified_owned()))
                .collect();
            n.notify_waiters();
            for w in waiters {
                w.await.unwrap();
            }
        });
        let n = Arc::new(Notify::new());
        let (cb, wb) = counting_waker();
        let mut a = Box::pin(n.clone().notified_owned());
        let mut b = Box::pin(n.clone().notified_owned());
        assert!(poll_noop(a.as_mut()).is_pending());
        assert!(poll(b.as_mut(), &wb).is_pending());
        n.notify_one();
        drop(a);
        assert_eq!(cb.count(), 1);
        assert!(poll(b.as_mut(), &wb).is_ready());
    })
}
