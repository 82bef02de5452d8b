//! `runtime::sync::oneshot`: values arrive once, errors say why nothing arrived, wakers are
//! replaced and woken correctly, the value is dropped exactly once on every path, and the
//! synchronous misuse panics with advice.

#[macro_use]
mod support;

use support::*;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll};

use runtime::sync::oneshot::{self, error::RecvError, error::TryRecvError};
use runtime::{Builder, Runtime};

fn runtimes() -> Vec<Runtime> {
    vec![
        Builder::new_current_thread().build().unwrap(),
        Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap(),
    ]
}

// Without drivers, as `runtimes()`: a oneshot needs neither I/O nor timers.
rt_test! {
    flavors {
        current_thread => Builder::new_current_thread().build().unwrap();
        multi_thread => Builder::new_multi_thread().worker_threads(2).build().unwrap();
    }

    #[test]
    fn value_sent_from_a_task_is_received() {
        watchdog("the value from the task", || {
            let rt = rt();
            let got = rt.block_on(async {
                let (tx, rx) = oneshot::channel();
                drop(runtime::spawn(async move {
                    tx.send(String::from("hi")).unwrap()
                }));
                rx.await
            });
            assert_eq!(got.as_deref(), Ok("hi"));
        })
    }

    #[test]
    fn dropped_sender_gives_recv_error() {
        watchdog("the RecvError", || {
            let rt = rt();
            let got = rt.block_on(async {
                let (tx, rx) = oneshot::channel::<u32>();
                drop(runtime::spawn(async move { drop(tx) }));
                rx.await
            });
            let err: RecvError = got.unwrap_err();
            assert_eq!(
                err.to_string(),
                "channel closed: the sender was dropped without sending"
            );
        })
    }
}

#[test]
fn send_to_a_dropped_receiver_gives_the_value_back() {
    let (tx, rx) = oneshot::channel();
    assert!(!tx.is_closed());
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(tx.send(7), Err(7));
}

#[test]
fn try_recv_reports_empty_value_then_closed() {
    watchdog("the oneshot's value", || {
        let (tx, mut rx) = oneshot::channel();
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        tx.send(5).unwrap();
        assert_eq!(rx.try_recv(), Ok(5));
        // The value was taken: nothing more will come.
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));

        let (tx, mut rx) = oneshot::channel::<u8>();
        drop(tx);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    })
}

#[test]
fn close_refuses_later_sends_but_keeps_an_earlier_value() {
    watchdog("the value sent before close", || {
        let (tx, mut rx) = oneshot::channel();
        rx.close();
        assert!(tx.is_closed());
        assert_eq!(tx.send(1), Err(1));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));

        let (tx, mut rx) = oneshot::channel();
        tx.send(2).unwrap();
        rx.close();
        assert_eq!(rx.try_recv(), Ok(2));

        // Awaiting a closed receiver with nothing sent ends at once.
        let (_tx, mut rx) = oneshot::channel::<u8>();
        rx.close();
        let (_, waker) = counting_waker();
        assert!(matches!(
            poll_once_with(&mut rx, &waker),
            Poll::Ready(Err(RecvError { .. }))
        ));
    })
}

#[test]
fn only_the_last_registered_receiver_waker_is_woken() {
    let (tx, mut rx) = oneshot::channel();
    let (first, w1) = counting_waker();
    let (second, w2) = counting_waker();
    assert!(poll_once_with(&mut rx, &w1).is_pending());
    assert!(poll_once_with(&mut rx, &w1).is_pending()); // same waker: kept
    assert!(poll_once_with(&mut rx, &w2).is_pending()); // replaced
    tx.send(3).unwrap();
    assert_eq!(first.0.load(SeqCst), 0);
    assert_eq!(second.0.load(SeqCst), 1);
    assert_eq!(poll_once_with(&mut rx, &w2), Poll::Ready(Ok(3)));
}

#[test]
fn sender_closed_wakes_when_the_receiver_goes() {
    watchdog("closed() after the receiver's drop", || {
        let (mut tx, rx) = oneshot::channel::<u8>();
        let (woken, waker) = counting_waker();
        let (_, other) = counting_waker();
        let mut cx = Context::from_waker(&other);
        assert!(tx.poll_closed(&mut cx).is_pending());
        let mut cx = Context::from_waker(&waker);
        assert!(tx.poll_closed(&mut cx).is_pending());
        drop(rx);
        assert_eq!(woken.0.load(SeqCst), 1);
        assert!(tx.poll_closed(&mut cx).is_ready());

        for rt in runtimes() {
            rt.block_on(async {
                let (mut tx, rx) = oneshot::channel::<u8>();
                let waiter = runtime::spawn(async move {
                    tx.closed().await;
                    tx.is_closed()
                });
                runtime::task::yield_now().await;
                drop(rx);
                assert!(waiter.await.unwrap());
            });
        }
    })
}

#[test]
fn the_value_is_dropped_exactly_once_on_every_path() {
    watchdog("the value's drops", || {
        let drops = Arc::new(AtomicUsize::new(0));
        // Received, then dropped by the receiver's owner.
        let (tx, mut rx) = oneshot::channel();
        tx.send(CountDrop(drops.clone())).ok().unwrap();
        drop(rx.try_recv().ok().unwrap());
        assert_eq!(drops.load(SeqCst), 1);
        // Sent, never received: dropped with the channel.
        let (tx, rx) = oneshot::channel();
        tx.send(CountDrop(drops.clone())).ok().unwrap();
        assert_eq!(drops.load(SeqCst), 1);
        drop(rx);
        assert_eq!(drops.load(SeqCst), 2);
        // Refused: given back to the sender, who drops it.
        let (tx, rx) = oneshot::channel();
        drop(rx);
        drop(tx.send(CountDrop(drops.clone())).err().unwrap());
        assert_eq!(drops.load(SeqCst), 3);
    })
}

#[test]
fn many_channels_across_workers() {
    watchdog("the oneshots across workers", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let sum = rt.block_on(async {
            let mut handles = Vec::new();
            for i in 0..1_000u64 {
                let (tx1, rx1) = oneshot::channel::<u64>();
                let (tx2, rx2) = oneshot::channel::<u64>();
                drop(runtime::spawn(async move {
                    let v = rx1.await.unwrap();
                    tx2.send(v * 2).unwrap();
                }));
                handles.push(runtime::spawn(async move {
                    tx1.send(i).unwrap();
                    rx2.await.unwrap()
                }));
            }
            let mut sum = 0;
            for h in handles {
                sum += h.await.unwrap();
            }
            sum
        });
        assert_eq!(sum, 2 * (0..1_000u64).sum::<u64>());
    })
}

#[test]
fn blocking_recv_outside_a_runtime() {
    watchdog("blocking_recv", || {
        let rt = Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let (tx, rx) = oneshot::channel();
        drop(rt.spawn(async move { tx.send(9u8).unwrap() }));
        assert_eq!(rx.blocking_recv(), Ok(9));
        let (tx, rx) = oneshot::channel::<u8>();
        std::thread::spawn(move || drop(tx));
        assert!(rx.blocking_recv().is_err());
    })
}

#[test]
fn blocking_recv_inside_a_runtime_panics_with_advice() {
    watchdog("the refused blocking_recv", || {
        let rt = Runtime::new().unwrap();
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.block_on(async {
                let (_tx, rx) = oneshot::channel::<u8>();
                let _ = rx.blocking_recv();
            })
        }))
        .unwrap_err();
        let msg = err
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap();
        assert!(msg.contains("`.await` the receiver instead"), "{msg}");
    })
}

#[test]
#[should_panic(expected = "polled after it returned its result")]
fn polling_after_completion_panics() {
    let (tx, mut rx) = oneshot::channel();
    tx.send(1).unwrap();
    let (_, waker) = counting_waker();
    assert_eq!(poll_once_with(&mut rx, &waker), Poll::Ready(Ok(1)));
    let _ = poll_once_with(&mut rx, &waker);
}

#[test]
fn is_empty_and_is_terminated_follow_the_value() {
    watchdog("the oneshot's value", || {
        let (tx, mut rx) = oneshot::channel();
        assert!(rx.is_empty() && !rx.is_terminated());
        tx.send(1).unwrap();
        assert!(!rx.is_empty() && !rx.is_terminated());
        assert_eq!(rx.try_recv(), Ok(1));
        assert!(rx.is_empty() && rx.is_terminated());

        let (tx, mut rx) = oneshot::channel::<u8>();
        drop(tx);
        assert!(
            rx.is_empty(),
            "a sender dropped unsent leaves the receiver empty"
        );
        assert!(!rx.is_terminated());
        assert!(futures::executor::block_on(&mut rx).is_err());
        assert!(rx.is_terminated());
    })
}
