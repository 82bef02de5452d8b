//! `runtime::sync::broadcast`: every receiver gets every value, lagging receivers are told
//! how many they missed and resume at the oldest value kept, closing, `len`, resubscribe,
//! values dropped exactly once, cancellation of a waiting `recv`; on both flavors.

#[macro_use]
mod support;

use support::*;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Poll;

use runtime::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use runtime::Builder;

rt_test! {
    #[test]
    fn every_receiver_gets_every_value() {
        watchdog("every receiver's values", || {
            on(&rt(), || async {
                let (tx, rx) = broadcast::channel::<u32>(1024);
                let mut handles = Vec::new();
                for _ in 0..16 {
                    let mut rx = rx.resubscribe();
                    handles.push(runtime::spawn(async move {
                        let mut got = Vec::new();
                        loop {
                            match rx.recv().await {
                                Ok(v) => got.push(v),
                                Err(RecvError::Closed) => return got,
                                Err(RecvError::Lagged(n)) => {
                                    panic!("lagged by {n} with room for all")
                                }
                            }
                        }
                    }));
                }
                drop(rx);
                for i in 0..1000 {
                    tx.send(i).unwrap();
                    if i % 64 == 0 {
                        runtime::task::yield_now().await;
                    }
                }
                drop(tx);
                for h in handles {
                    assert_eq!(h.await.unwrap(), (0..1000).collect::<Vec<_>>());
                }
            });
        })
    }

    #[test]
    fn lagged_through_recv() {
        watchdog("recv's Lagged", || {
            on(&rt(), || async {
                let (tx, mut rx) = broadcast::channel(2);
                let mut fast = tx.subscribe();
                for i in 0..5 {
                    tx.send(i).unwrap();
                    assert_eq!(fast.recv().await, Ok(i));
                }
                assert_eq!(rx.recv().await, Err(RecvError::Lagged(3)));
                assert_eq!(rx.recv().await, Ok(3));
                assert_eq!(rx.recv().await, Ok(4));
            });
        })
    }

    #[test]
    fn closed_after_everything_is_received() {
        watchdog("recv's Closed", || {
            on(&rt(), || async {
                let (tx, mut rx) = broadcast::channel(4);
                tx.send(1).unwrap();
                let tx2 = tx.clone();
                drop(tx);
                tx2.send(2).unwrap();
                let h = runtime::spawn(async move {
                    runtime::task::yield_now().await;
                    drop(tx2);
                });
                assert_eq!(rx.recv().await, Ok(1));
                assert_eq!(rx.recv().await, Ok(2));
                assert_eq!(rx.recv().await, Err(RecvError::Closed));
                assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
                h.await.unwrap();
            });
        })
    }

    #[test]
    fn blocking_recv_inside_a_runtime_panics_with_advice() {
        watchdog("the refused blocking_recv", || {
            let rt = rt();
            let (tx, mut rx) = broadcast::channel::<u8>(1);
            let err = rt
                .block_on(async move { runtime::spawn(async move { rx.blocking_recv() }).await })
                .unwrap_err();
            let msg = err.into_panic();
            let msg = msg
                .downcast_ref::<String>()
                .map(String::as_str)
                .unwrap_or_else(|| msg.downcast_ref::<&str>().copied().unwrap_or(""));
            assert!(msg.contains("`.await`"), "unexpected panic message: {msg}");
            drop(tx);
        })
    }

    #[test]
    fn sender_closed_waits_for_the_last_receiver() {
        watchdog("closed() after the last receiver", || {
            on(&rt(), || async {
                let (tx, rx) = broadcast::channel::<u8>(2);
                let rx2 = rx.resubscribe();
                assert!(!tx.is_closed());
                assert_eq!(tx.strong_count(), 1);
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
fn slow_receiver_lags_and_resumes_at_the_oldest_kept() {
    watchdog("the lagging receiver", || {
        let (tx, mut rx) = broadcast::channel(4);
        for i in 0..10 {
            tx.send(i).unwrap();
        }
        assert_eq!(rx.len(), 10);
        // 10 sent, 4 kept (6..10): 6 missed.
        assert_eq!(rx.try_recv(), Err(TryRecvError::Lagged(6)));
        for i in 6..10 {
            assert_eq!(rx.try_recv(), Ok(i));
        }
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        tx.send(10).unwrap();
        assert_eq!(rx.try_recv(), Ok(10));
    })
}

#[test]
fn capacity_rounds_up_to_a_power_of_two() {
    let (tx, mut rx) = broadcast::channel(3);
    for i in 0..4 {
        tx.send(i).unwrap();
    }
    assert_eq!(rx.try_recv(), Ok(0), "room for 4");
}

#[test]
fn send_without_receivers_fails_and_counts() {
    let (tx, rx) = broadcast::channel(2);
    assert_eq!(tx.receiver_count(), 1);
    let rx2 = rx.resubscribe();
    assert_eq!(tx.send(1), Ok(2));
    drop(rx);
    drop(rx2);
    assert_eq!(tx.receiver_count(), 0);
    assert_eq!(tx.send(2).unwrap_err().0, 2);
    assert!(tx.same_channel(&tx.clone()));
}

#[test]
fn len_counts_values_some_receiver_has_not_read() {
    let (tx, mut rx1) = broadcast::channel(8);
    let mut rx2 = tx.subscribe();
    assert!(tx.is_empty());
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    assert_eq!(tx.len(), 2);
    rx1.try_recv().unwrap();
    rx1.try_recv().unwrap();
    assert_eq!(tx.len(), 2, "rx2 has not read them");
    rx2.try_recv().unwrap();
    assert_eq!(tx.len(), 1);
    drop(rx2); // its unread value no longer counts it
    assert_eq!(tx.len(), 0);
    assert!(rx1.is_empty());
    // A receiver subscribed later does not count what was sent before it.
    tx.send(3).unwrap();
    let mut rx3 = tx.subscribe();
    assert_eq!(tx.len(), 1, "only rx1 has not read 3");
    rx1.try_recv().unwrap();
    assert_eq!(tx.len(), 0);
    // Kept values only: a lagging receiver counts at most the ring (8 slots).
    for i in 0..20 {
        tx.send(i).unwrap();
    }
    assert_eq!(tx.len(), 8);
    for _ in 0..20 {
        let _ = rx1.try_recv();
    }
    assert_eq!(tx.len(), 8, "rx3 lags");
    assert!(rx3.try_recv().is_err(), "rx3 was told it lagged");
    assert_eq!(tx.len(), 8, "rx3 now sits at the oldest kept value");
    for _ in 0..8 {
        rx3.try_recv().unwrap();
    }
    assert_eq!(tx.len(), 0);
}

#[test]
fn resubscribe_starts_at_the_tail() {
    watchdog("the resubscribed receiver", || {
        let (tx, mut rx) = broadcast::channel(4);
        tx.send(1).unwrap();
        let mut rx2 = rx.resubscribe();
        tx.send(2).unwrap();
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(rx2.try_recv(), Ok(2));
        assert!(rx.same_channel(&rx2));
    })
}

#[test]
fn values_dropped_exactly_once() {
    let drops = Arc::new(AtomicUsize::new(0));
    let (tx, mut rx) = broadcast::channel(2);
    for _ in 0..5 {
        tx.send(CountDrop(drops.clone())).unwrap();
    }
    // 3 overwritten.
    assert_eq!(drops.load(SeqCst), 3);
    assert!(matches!(rx.try_recv(), Err(TryRecvError::Lagged(3))));
    drop(rx.try_recv().unwrap()); // a clone, and the kept value: its one receiver read it
    assert_eq!(drops.load(SeqCst), 5);
    drop(tx);
    drop(rx);
    assert_eq!(
        drops.load(SeqCst),
        6,
        "the 2 kept values dropped with the channel"
    );
}

#[test]
fn cancelled_recv_leaves_the_channel_consistent() {
    watchdog("the receivers after cancelled recvs", || {
        let (tx, mut rx) = broadcast::channel(2);
        {
            let mut fut = Box::pin(rx.recv());
            assert!(poll_once(&mut fut).is_pending());
        }
        tx.send(7).unwrap();
        let mut fut = Box::pin(rx.recv());
        assert_eq!(poll_once(&mut fut), Poll::Ready(Ok(7)));
    })
}

#[test]
fn blocking_recv_from_a_plain_thread() {
    watchdog("blocking_recv on the plain thread", || {
        let (tx, mut rx) = broadcast::channel(4);
        let t = std::thread::spawn(move || {
            tx.send(1).unwrap();
        });
        assert_eq!(rx.blocking_recv(), Ok(1));
        t.join().unwrap();
        assert_eq!(rx.blocking_recv(), Err(RecvError::Closed));
    })
}

#[test]
#[should_panic(expected = "capacity cannot be zero")]
fn zero_capacity_panics() {
    let _ = broadcast::channel::<u8>(0);
}

#[test]
fn draining_receiver_yields_to_other_tasks() {
    watchdog("the draining receiver to yield", || {
        let rts = [
            Builder::new_current_thread().build().unwrap(),
            Builder::new_multi_thread()
                .worker_threads(1)
                .build()
                .unwrap(),
        ];
        for rt in rts {
            rt.block_on(async {
                let (tx, mut rx) = broadcast::channel(1024);
                for i in 0..1000 {
                    tx.send(i).unwrap();
                }
                let h = runtime::spawn(async move {
                    let progress = Arc::new(AtomicUsize::new(0));
                    let at_other = Arc::new(AtomicUsize::new(usize::MAX));
                    let (p, o) = (progress.clone(), at_other.clone());
                    drop(runtime::spawn(
                        async move { o.store(p.load(SeqCst), SeqCst) },
                    ));
                    for _ in 0..1000 {
                        rx.recv().await.unwrap();
                        progress.fetch_add(1, SeqCst);
                    }
                    at_other.load(SeqCst)
                });
                let at = h.await.unwrap();
                assert!(
                    (1..1000).contains(&at),
                    "the other task ran at progress {at}: the receiver never yielded"
                );
            });
        }
    })
}

#[test]
fn weak_sender_does_not_keep_the_channel_open() {
    watchdog("recv's Closed with only a weak sender", || {
        let (tx, mut rx) = broadcast::channel::<u8>(2);
        let weak = tx.downgrade();
        assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
        assert_eq!((rx.sender_strong_count(), rx.sender_weak_count()), (1, 1));
        let tx2 = weak.upgrade().unwrap();
        tx2.send(1).unwrap();
        drop(tx);
        drop(tx2);
        assert!(weak.upgrade().is_none());
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
    })
}

#[test]
fn a_value_is_freed_once_every_receiver_read_it_or_left() {
    watchdog("the values' drops", || {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx1) = broadcast::channel(4);
        let mut rx2 = tx.subscribe();
        tx.send(CountDrop(drops.clone())).unwrap();
        tx.send(CountDrop(drops.clone())).unwrap();
        drop(rx1.try_recv().unwrap());
        assert_eq!(
            drops.load(SeqCst),
            1,
            "rx1's clone only: rx2 has not read it"
        );
        drop(rx2.try_recv().unwrap());
        assert_eq!(
            drops.load(SeqCst),
            3,
            "rx2's clone, and the value: every receiver read it"
        );
        drop(rx1.try_recv().unwrap());
        assert_eq!(drops.load(SeqCst), 4, "rx2 has not read the second");
        drop(rx2);
        assert_eq!(
            drops.load(SeqCst),
            5,
            "its last reader left without reading it"
        );
        assert!(tx.is_empty());
        // A receiver subscribed after a send does not hold that value.
        tx.send(CountDrop(drops.clone())).unwrap();
        let rx3 = tx.subscribe();
        drop(rx1.try_recv().unwrap());
        assert_eq!(drops.load(SeqCst), 7);
        drop((tx, rx1, rx3));
        assert_eq!(drops.load(SeqCst), 7, "each value dropped once");
    })
}

/// Its `clone` panics for the value 1.
#[derive(Debug, PartialEq)]
struct CloneBomb(u32);

impl Clone for CloneBomb {
    fn clone(&self) -> Self {
        if self.0 == 1 {
            panic!("this value's clone panics");
        }
        CloneBomb(self.0)
    }
}

#[test]
fn a_value_whose_clone_panics_is_skipped_not_retried() {
    watchdog("the receives after a panicking clone", || {
        let (tx, mut rx) = broadcast::channel(4);
        let mut rx2 = tx.subscribe();
        tx.send(CloneBomb(1)).unwrap();
        tx.send(CloneBomb(2)).unwrap();
        assert!(catch_unwind(AssertUnwindSafe(|| rx.try_recv())).is_err());
        assert_eq!(rx.try_recv(), Ok(CloneBomb(2)));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        // The same through `recv`.
        assert!(catch_unwind(AssertUnwindSafe(|| poll_noop(std::pin::pin!(rx2.recv())))).is_err());
        assert_eq!(
            poll_noop(std::pin::pin!(rx2.recv())),
            Poll::Ready(Ok(CloneBomb(2)))
        );
        assert_eq!(tx.len(), 0, "the value whose clone panicked counts as read");
    })
}
