//! `runtime::sync::watch`: the latest value is seen, changes are waited for and never
//! missed (the last one in particular), closing on both sides, `wait_for`, the seen/unseen
//! marks, cancellation of a waiting `changed`, and blocking-free use outside a runtime; on
//! both flavors.

#[macro_use]
mod support;

use support::*;

use std::task::Poll;

use runtime::sync::watch;

rt_test! {
    #[test]
    fn receiver_sees_every_last_value() {
        watchdog("the receiver's last value", || {
            on(&rt(), || async {
                let (tx, mut rx) = watch::channel(0u32);
                let h = runtime::spawn(async move {
                    for i in 1..=1000 {
                        tx.send(i).unwrap();
                        if i % 7 == 0 {
                            runtime::task::yield_now().await;
                        }
                    }
                });
                let mut last = 0;
                while rx.changed().await.is_ok() {
                    let v = *rx.borrow_and_update();
                    assert!(v > last, "values go forward");
                    last = v;
                }
                assert_eq!(last, 1000, "the last value is never missed");
                h.await.unwrap();
            });
        })
    }

    #[test]
    fn many_receivers_are_all_notified() {
        watchdog("every receiver's change", || {
            on(&rt(), || async {
                let (tx, rx) = watch::channel(0);
                let mut handles = Vec::new();
                for _ in 0..16 {
                    let mut rx = rx.clone();
                    handles.push(runtime::spawn(async move {
                        rx.wait_for(|v| *v == 3).await.map(|v| *v)
                    }));
                }
                for i in 1..=3 {
                    tx.send(i).unwrap();
                    runtime::task::yield_now().await;
                }
                for h in handles {
                    assert_eq!(h.await.unwrap(), Ok(3));
                }
            });
        })
    }

    #[test]
    fn changed_errors_once_senders_are_gone_and_nothing_unseen() {
        watchdog("changed()'s error", || {
            on(&rt(), || async {
                let (tx, mut rx) = watch::channel(0);
                let tx2 = tx.clone();
                tx.send(1).unwrap();
                drop(tx);
                assert!(rx.changed().await.is_ok());
                let h = runtime::spawn(async move {
                    runtime::task::yield_now().await;
                    drop(tx2);
                });
                assert!(rx.changed().await.is_err());
                h.await.unwrap();
                assert!(
                    rx.wait_for(|v| *v == 1).await.is_ok(),
                    "the current value matches"
                );
                assert!(rx.wait_for(|v| *v == 2).await.is_err());
            });
        })
    }

    #[test]
    fn sender_closed_waits_for_the_last_receiver() {
        watchdog("closed() after the last receiver", || {
            on(&rt(), || async {
                let (tx, rx) = watch::channel(());
                let rx2 = rx.clone();
                assert_eq!(tx.receiver_count(), 2);
                let h = runtime::spawn(async move {
                    drop(rx);
                    runtime::task::yield_now().await;
                    drop(rx2);
                });
                tx.closed().await;
                assert!(tx.is_closed());
                h.await.unwrap();
            });
        })
    }
}

#[test]
fn borrow_marks_and_has_changed() {
    let (tx, mut rx) = watch::channel("a");
    assert!(!rx.has_changed().unwrap());
    assert!(!rx.borrow().has_changed());
    tx.send("b").unwrap();
    assert!(rx.has_changed().unwrap());
    assert!(rx.borrow().has_changed());
    assert!(rx.has_changed().unwrap(), "borrow does not mark seen");
    let r = rx.borrow_and_update();
    assert!(r.has_changed());
    assert_eq!(*r, "b");
    drop(r);
    assert!(!rx.has_changed().unwrap());
    rx.mark_changed();
    assert!(rx.has_changed().unwrap());
    rx.mark_unchanged();
    assert!(!rx.has_changed().unwrap());
    assert_eq!(*tx.borrow(), "b");
    assert!(!tx.borrow().has_changed());
    assert!(!rx.is_closed());
    drop(tx);
    assert!(rx.is_closed());
    assert!(rx.has_changed().is_err());
}

#[test]
fn send_variants() {
    let (tx, rx) = watch::channel(1);
    assert_eq!(tx.send_replace(2), 1);
    tx.send_modify(|v| *v += 1);
    assert_eq!(*rx.borrow(), 3);
    assert!(!tx.send_if_modified(|_| false));
    assert!(tx.send_if_modified(|v| {
        *v = 4;
        true
    }));
    assert_eq!(*rx.borrow(), 4);
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(tx.send(5).unwrap_err().0, 5);
    assert_eq!(*tx.borrow(), 4, "a failed send stores nothing");
    tx.send_replace(6); // stores even with no receiver
    let rx = tx.subscribe();
    assert_eq!(*rx.borrow(), 6);
    assert!(
        !rx.has_changed().unwrap(),
        "a subscriber has seen the current value"
    );
    assert_eq!(tx.receiver_count(), 1);
    assert!(tx.same_channel(&tx.clone()));
    assert_eq!(tx.sender_count(), 1);
}

#[test]
fn cancelled_changed_leaves_the_channel_consistent() {
    let (tx, mut rx) = watch::channel(0);
    {
        let mut fut = Box::pin(rx.changed());
        assert!(poll_once(&mut fut).is_pending());
    } // dropped while waiting
    assert!(
        !rx.has_changed().unwrap(),
        "a cancelled changed marks nothing"
    );
    tx.send(1).unwrap();
    let mut fut = Box::pin(rx.changed());
    assert_eq!(poll_once(&mut fut), Poll::Ready(Ok(())));
}

#[test]
fn works_outside_a_runtime() {
    watchdog("the watch outside a runtime", || {
        let (tx, mut rx) = watch::channel(0);
        let t = std::thread::spawn(move || {
            for i in 1..=100 {
                tx.send(i).unwrap();
            }
        });
        futures::executor::block_on(async {
            while rx.changed().await.is_ok() {}
            assert_eq!(*rx.borrow(), 100);
        });
        t.join().unwrap();
    })
}

#[test]
fn receivers_compare_channels() {
    let (_tx, rx) = watch::channel(0);
    let (_tx2, rx2) = watch::channel(0);
    assert!(rx.same_channel(&rx.clone()));
    assert!(!rx.same_channel(&rx2));
}
