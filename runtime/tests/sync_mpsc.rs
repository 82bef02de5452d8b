//! `runtime::sync::mpsc`: delivery (order, exactly once, under heavy contention), capacity
//! and backpressure, closing, drops, reservation and its cancellation, weak senders,
//! blocking use from plain threads, and the cooperative budget; on both flavors.

#[macro_use]
mod support;

use support::*;

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use runtime::sync::mpsc::{
    self, error::SendTimeoutError, error::TryRecvError, error::TrySendError,
};
use runtime::Builder;

rt_test! {
    #[test]
    fn bounded_delivers_in_order() {
        watchdog("the bounded channel's messages", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::channel(4);
                drop(runtime::spawn(async move {
                    for i in 0..1000u32 {
                        tx.send(i).await.unwrap();
                    }
                }));
                for i in 0..1000u32 {
                    assert_eq!(rx.recv().await, Some(i));
                }
                assert_eq!(rx.recv().await, None);
            });
        })
    }

    #[test]
    fn thousand_producers_into_bounded_8_each_message_once() {
        watchdog("the messages of 1000 producers (bounded)", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::channel::<(usize, usize)>(8);
                for p in 0..1000 {
                    let tx = tx.clone();
                    drop(runtime::spawn(async move {
                        for m in 0..3 {
                            tx.send((p, m)).await.unwrap();
                        }
                    }));
                }
                drop(tx);
                let mut seen = vec![[false; 3]; 1000];
                let mut last = vec![None; 1000];
                let mut n = 0;
                while let Some((p, m)) = rx.recv().await {
                    assert!(!seen[p][m], "message ({p}, {m}) received twice");
                    seen[p][m] = true;
                    // One producer's messages arrive in the order it sent them.
                    assert!(last[p] < Some(m), "producer {p} out of order");
                    last[p] = Some(m);
                    n += 1;
                }
                assert_eq!(n, 3000);
                assert!(seen.iter().all(|s| s.iter().all(|&b| b)));
            });
        })
    }

    #[test]
    fn thousand_producers_into_unbounded_each_message_once() {
        watchdog("the messages of 1000 producers (unbounded)", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::unbounded_channel::<usize>();
                for p in 0..1000 {
                    let tx = tx.clone();
                    drop(runtime::spawn(async move { tx.send(p).unwrap() }));
                }
                drop(tx);
                let mut seen = vec![false; 1000];
                while let Some(p) = rx.recv().await {
                    assert!(!seen[p], "message {p} received twice");
                    seen[p] = true;
                }
                assert!(seen.iter().all(|&b| b));
            });
        })
    }

    #[test]
    fn messages_sent_before_close_are_delivered() {
        watchdog("the messages sent before close", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::channel(8);
                tx.send(1).await.unwrap();
                let permit = tx.clone().reserve_owned().await.unwrap();
                rx.close();
                assert!(rx.is_closed());
                assert!(tx.is_closed());
                assert_eq!(tx.send(9).await.unwrap_err().0, 9);
                assert_eq!(rx.recv().await, Some(1));
                // A permit reserved before the close still sends, and the receiver waits for it.
                let h = runtime::spawn(async move {
                    runtime::task::yield_now().await;
                    drop(permit.send(2));
                });
                drop(tx);
                assert_eq!(rx.recv().await, Some(2));
                assert_eq!(rx.recv().await, None);
                h.await.unwrap();
            });
        })
    }

    #[test]
    fn unbounded_close_keeps_what_was_sent_and_refuses_the_rest() {
        watchdog("the unbounded messages sent before close", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::unbounded_channel();
                for i in 0..40 {
                    tx.send(i).unwrap();
                }
                assert_eq!(rx.recv().await, Some(0));
                rx.close();
                assert!(rx.is_closed());
                assert!(tx.is_closed());
                // Refused sends (their claims are void) count nowhere and are never waited for.
                for i in 100..140 {
                    assert_eq!(tx.send(i).unwrap_err().0, i);
                }
                assert_eq!(rx.len(), 39);
                for i in 1..40 {
                    assert_eq!(rx.recv().await, Some(i));
                }
                // Drained and closed: done, though a sender is still alive.
                assert_eq!(rx.len(), 0);
                assert_eq!(rx.recv().await, None);
                assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
                // Closing again changes nothing.
                rx.close();
                assert_eq!(rx.recv().await, None);
                assert!(tx.send(7).is_err());
            });
        })
    }

    #[test]
    fn close_with_an_unused_permit_ends_when_it_is_dropped() {
        watchdog("recv's end after the permit's drop", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::channel::<u8>(2);
                let permit = tx.clone().try_reserve_owned().unwrap();
                rx.close();
                assert_eq!(
                    rx.try_recv(),
                    Err(TryRecvError::Empty),
                    "a permit is outstanding"
                );
                drop(runtime::spawn(async move {
                    runtime::task::yield_now().await;
                    drop(permit);
                }));
                assert_eq!(rx.recv().await, None);
                drop(tx);
            });
        })
    }

    #[test]
    fn owned_permit_sends_and_releases() {
        watchdog("the owned permit's send", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::channel(1);
                let permit = tx.clone().reserve_owned().await.unwrap();
                assert_eq!(tx.capacity(), 0);
                assert!(permit.same_channel_as_sender(&tx));
                let tx2 = runtime::spawn(async move { permit.send(5) }).await.unwrap();
                assert!(tx2.same_channel(&tx));
                assert_eq!(rx.recv().await, Some(5));
                let permit = tx.clone().try_reserve_owned().unwrap();
                assert!(tx.clone().try_reserve_owned().is_err());
                let back = permit.release();
                assert_eq!(back.capacity(), 1);
            });
        })
    }

    #[test]
    fn closed_resolves_when_the_receiver_goes() {
        watchdog("closed() after the receiver's drop", || {
            on(&rt(), || async {
                let (tx, rx) = mpsc::channel::<u8>(1);
                let (utx, urx) = mpsc::unbounded_channel::<u8>();
                let h = runtime::spawn(async move {
                    runtime::task::yield_now().await;
                    drop(rx);
                    drop(urx);
                });
                tx.closed().await;
                utx.closed().await;
                assert!(tx.is_closed() && utx.is_closed());
                h.await.unwrap();
            });
        })
    }

    #[test]
    fn recv_many_and_len() {
        watchdog("recv_many", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::unbounded_channel();
                for i in 0..10 {
                    tx.send(i).unwrap();
                }
                assert_eq!(rx.len(), 10);
                let mut buf = Vec::new();
                assert_eq!(rx.recv_many(&mut buf, 0).await, 0);
                assert_eq!(rx.recv_many(&mut buf, 4).await, 4);
                assert_eq!(rx.recv_many(&mut buf, 100).await, 6);
                assert_eq!(buf, (0..10).collect::<Vec<_>>());
                drop(tx);
                assert_eq!(rx.recv_many(&mut buf, 4).await, 0);

                let (tx, mut rx) = mpsc::channel(4);
                tx.send(1).await.unwrap();
                tx.send(2).await.unwrap();
                let mut buf = Vec::new();
                assert_eq!(rx.recv_many(&mut buf, 8).await, 2);
                assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
            });
        })
    }

    #[test]
    fn send_timeout_times_out_or_sends() {
        watchdog("send_timeout", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::channel(1);
                tx.send_timeout(1, Duration::from_millis(5)).await.unwrap();
                let err = tx
                    .send_timeout(2, Duration::from_millis(5))
                    .await
                    .unwrap_err();
                assert_eq!(err, SendTimeoutError::Timeout(2));
                assert_eq!(rx.recv().await, Some(1));
                assert_eq!(tx.capacity(), 1, "the timed-out wait gave nothing away");
                drop(rx);
                let err = tx
                    .send_timeout(3, Duration::from_millis(5))
                    .await
                    .unwrap_err();
                assert_eq!(err, SendTimeoutError::Closed(3));
            });
        })
    }

    #[test]
    fn blocking_inside_a_runtime_panics_with_advice() {
        watchdog("the refused blocking_recv", || {
            let rt = rt();
            let (tx, mut rx) = mpsc::channel::<u8>(1);
            let err = rt
                .block_on(async move { runtime::spawn(async move { rx.blocking_recv() }).await })
                .unwrap_err();
            let msg = err.into_panic();
            let msg = msg
                .downcast_ref::<String>()
                .map(String::as_str)
                .unwrap_or_else(|| msg.downcast_ref::<&str>().copied().unwrap_or(""));
            assert!(msg.contains("`.await`"), "unexpected panic message: {msg}");
            let err = rt
                .block_on(async move { runtime::spawn(async move { tx.blocking_send(1) }).await })
                .unwrap_err();
            assert!(err.is_panic());
        })
    }

    #[test]
    fn poll_recv_registers_and_is_woken() {
        watchdog("poll_recv's wake-up", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::channel(1);
                drop(runtime::spawn(async move {
                    runtime::task::yield_now().await;
                    tx.send(3).await.unwrap();
                }));
                let got = std::future::poll_fn(|cx| rx.poll_recv(cx)).await;
                assert_eq!(got, Some(3));
            });
        })
    }

    #[test]
    fn granted_reserve_dropped_after_close_ends_recv() {
        watchdog("recv's end after the granted reserve's drop", || {
            on(&rt(), || async {
                let (tx, mut rx) = mpsc::channel::<u8>(1);
                tx.try_send(1).unwrap();
                let mut reserve = Box::pin(tx.clone().reserve_owned());
                assert!(poll_once(&mut reserve).is_pending(), "the channel is full");
                // The room goes to `reserve`, which is never polled again.
                assert_eq!(rx.recv().await, Some(1));
                rx.close();
                // The receive waits in a task of its own: only a wake-up addressed to it
                // (not the timeout's re-poll of the join) completes it.
                let recv = runtime::spawn(async move { rx.recv().await });
                for _ in 0..4 {
                    runtime::task::yield_now().await; // let it register
                }
                drop(reserve);
                // `tx` is alive: only the returned room can end the receiver.
                let got = within("the waiting recv's None", recv).await.unwrap();
                assert_eq!(got, None);
                drop(tx);
            });
        })
    }
}

#[test]
fn try_send_full_and_capacity() {
    watchdog("the channel's capacity", || {
        let (tx, mut rx) = mpsc::channel(2);
        assert_eq!((tx.capacity(), tx.max_capacity()), (2, 2));
        tx.try_send(1).unwrap();
        tx.try_send(2).unwrap();
        assert_eq!(tx.capacity(), 0);
        assert_eq!(rx.len(), 2);
        assert_eq!(tx.try_send(3), Err(TrySendError::Full(3)));
        assert_eq!(
            tx.try_send(3).unwrap_err().to_string(),
            "no available capacity"
        );
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(tx.capacity(), 1);
        assert_eq!(rx.capacity(), 1);
        assert_eq!(rx.max_capacity(), 2);
        tx.try_send(3).unwrap();
        assert_eq!(rx.try_recv(), Ok(2));
        assert_eq!(rx.try_recv(), Ok(3));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        assert!(rx.is_empty());
        drop(rx);
        assert_eq!(tx.try_send(4), Err(TrySendError::Closed(4)));
    })
}

#[test]
fn send_waits_for_capacity() {
    watchdog("the send waiting for capacity", || {
        let (tx, mut rx) = mpsc::channel(1);
        tx.try_send(1).unwrap();
        let mut send = Box::pin(tx.send(2));
        assert!(poll_once(&mut send).is_pending(), "the channel is full");
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(poll_once(&mut send), Poll::Ready(Ok(())));
        assert_eq!(rx.try_recv(), Ok(2));
    })
}

#[test]
fn every_message_dropped_once_when_both_sides_go() {
    watchdog("the channel's drop", || {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = mpsc::channel(8);
        for _ in 0..5 {
            tx.try_send(CountDrop(drops.clone())).unwrap();
        }
        drop(rx.try_recv().unwrap());
        assert_eq!(drops.load(SeqCst), 1);
        drop(rx); // drains what is queued
        assert_eq!(drops.load(SeqCst), 5);
        // Sent after the receiver left: handed back, dropped by the caller.
        let err = tx.try_send(CountDrop(drops.clone())).unwrap_err();
        drop(err);
        assert_eq!(drops.load(SeqCst), 6);
        drop(tx);
        assert_eq!(drops.load(SeqCst), 6);

        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::unbounded_channel();
        for _ in 0..5 {
            tx.send(CountDrop(drops.clone())).unwrap();
        }
        drop(tx);
        assert_eq!(drops.load(SeqCst), 0);
        drop(rx);
        assert_eq!(drops.load(SeqCst), 5);

        // A permit used after the receiver is gone: dropped with the channel.
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::channel(1);
        let permit = tx.try_reserve().unwrap();
        drop(rx);
        permit.send(CountDrop(drops.clone()));
        assert_eq!(drops.load(SeqCst), 0);
        drop(tx);
        assert_eq!(drops.load(SeqCst), 1);
    })
}

#[test]
fn cancelled_reserve_passes_capacity_on() {
    watchdog("the next reserve after a cancelled one", || {
        let (tx, mut rx) = mpsc::channel::<u8>(1);
        let permit = tx.try_reserve().unwrap();
        let mut a = Box::pin(tx.reserve());
        let mut b = Box::pin(tx.reserve());
        assert!(poll_once(&mut a).is_pending());
        assert!(poll_once(&mut b).is_pending());
        drop(permit); // granted to `a`, which is dropped before it sees it
        drop(a);
        match poll_once(&mut b) {
            Poll::Ready(Ok(p)) => p.send(7),
            other => panic!("the capacity did not pass on: {:?}", other.map(|_| ())),
        }
        drop(b);
        assert_eq!(rx.try_recv(), Ok(7));
        assert_eq!(tx.capacity(), 1);
    })
}

#[test]
fn reserve_many_is_fifo_and_bounded() {
    watchdog("the reserve_many waiters", || {
        let (tx, mut rx) = mpsc::channel::<u8>(3);
        assert!(tx.try_reserve_many(4).is_err());
        let permits = tx.try_reserve_many(3).unwrap();
        assert_eq!(permits.len(), 3);
        let mut big = Box::pin(tx.reserve_many(2));
        assert!(poll_once(&mut big).is_pending());
        drop(permits); // 3 back: 2 to the waiter, 1 free
        let mut many = match poll_once(&mut big) {
            Poll::Ready(Ok(p)) => p,
            _ => panic!("reserve_many(2) not granted"),
        };
        drop(big);
        assert_eq!(tx.capacity(), 1);
        many.next().unwrap().send(1);
        many.next().unwrap().send(2);
        assert!(many.next().is_none());
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(rx.try_recv(), Ok(2));
        // A waiting big reservation is not overtaken by a small one.
        let hold = tx.try_reserve_many(3).unwrap();
        let mut big = Box::pin(tx.reserve_many(3));
        assert!(poll_once(&mut big).is_pending());
        drop(hold); // all 3 back, to `big`
        assert!(tx.try_reserve().is_err());
        assert!(matches!(poll_once(&mut big), Poll::Ready(Ok(_))));
    })
}

#[test]
fn reserve_many_larger_than_capacity_fails() {
    watchdog("reserve_many", || {
        futures::executor::block_on(async {
            let (tx, _rx) = mpsc::channel::<u8>(2);
            assert!(tx.reserve_many(3).await.is_err());
            assert!(tx.reserve_many(2).await.is_ok());
        });
    })
}

#[test]
fn weak_sender_does_not_keep_the_channel_open() {
    watchdog("recv's None with only a weak sender", || {
        let (tx, mut rx) = mpsc::channel::<u8>(1);
        let weak = tx.downgrade();
        assert_eq!((tx.strong_count(), tx.weak_count()), (1, 1));
        let tx2 = weak.upgrade().unwrap();
        assert_eq!(weak.strong_count(), 2);
        drop(tx);
        drop(tx2);
        assert!(weak.upgrade().is_none());
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));

        let (tx, _rx) = mpsc::unbounded_channel::<u8>();
        let weak = tx.downgrade();
        assert_eq!(tx.weak_count(), 1);
        drop(tx);
        assert!(weak.upgrade().is_none());
    })
}

#[test]
fn blocking_send_and_recv_from_plain_threads() {
    watchdog("blocking_send and blocking_recv on plain threads", || {
        let (tx, mut rx) = mpsc::channel(2);
        let producer = std::thread::spawn(move || {
            for i in 0..100 {
                tx.blocking_send(i).unwrap();
            }
        });
        for i in 0..100 {
            assert_eq!(rx.blocking_recv(), Some(i));
        }
        assert_eq!(rx.blocking_recv(), None);
        producer.join().unwrap();

        let (tx, mut rx) = mpsc::unbounded_channel();
        std::thread::spawn(move || tx.send(1).unwrap())
            .join()
            .unwrap();
        assert_eq!(rx.blocking_recv(), Some(1));
        assert_eq!(rx.blocking_recv(), None);
    })
}

#[test]
fn works_outside_a_runtime() {
    watchdog("the channel outside a runtime", || {
        futures::executor::block_on(async {
            let (tx, mut rx) = mpsc::channel(1);
            let t = std::thread::spawn(move || {
                futures::executor::block_on(async {
                    for i in 0..50 {
                        tx.send(i).await.unwrap();
                    }
                })
            });
            for i in 0..50 {
                assert_eq!(rx.recv().await, Some(i));
            }
            t.join().unwrap();
        });
    })
}

#[test]
fn draining_a_full_channel_yields_to_other_tasks() {
    watchdog("the draining receiver to yield", || {
        // One worker each, so "the other task ran" can only mean "the drainer yielded" (with
        // two workers the other task may simply run in parallel, or late).
        let rts = [
            Builder::new_current_thread().build().unwrap(),
            Builder::new_multi_thread()
                .worker_threads(1)
                .build()
                .unwrap(),
        ];
        for rt in rts {
            rt.block_on(async {
                let (tx, mut rx) = mpsc::unbounded_channel();
                for i in 0..1000 {
                    tx.send(i).unwrap();
                }
                let h = runtime::spawn(async move {
                    // Spawned from the one worker, which is busy with us: it can only run once
                    // we yield. It records how far we got.
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
                    "the other task ran at progress {at}: the drainer never yielded"
                );
            });
        }
    })
}

#[test]
#[should_panic(expected = "buffer > 0")]
fn zero_capacity_panics() {
    let _ = mpsc::channel::<u8>(0);
}

#[test]
fn errors_display() {
    assert_eq!(mpsc::error::SendError(1).to_string(), "channel closed");
    assert_eq!(
        TryRecvError::Empty.to_string(),
        "receiving on an empty channel"
    );
    assert_eq!(
        SendTimeoutError::Timeout(1).to_string(),
        "timed out waiting on send operation"
    );
    assert_eq!(TrySendError::Closed(1).into_inner(), 1);
}

#[test]
fn reserve_many_zero_is_immediate() {
    watchdog("reserve_many(0)", || {
        futures::executor::block_on(async {
            let (tx, _rx) = mpsc::channel::<u8>(1);
            let _hold = tx.try_reserve().unwrap();
            let mut waiting = Box::pin(tx.reserve());
            assert!(poll_once(&mut waiting).is_pending());
            // Someone waits and the channel is full: zero permits still need no wait.
            assert_eq!(tx.reserve_many(0).await.unwrap().len(), 0);
            assert_eq!(tx.try_reserve_many(0).unwrap().len(), 0);
        });
    })
}

#[test]
fn cancelled_recv_and_send_leave_the_channel_consistent() {
    watchdog("the channel after cancelled recvs and sends", || {
        let (tx, mut rx) = mpsc::channel(1);
        {
            let mut recv = Box::pin(rx.recv());
            assert!(poll_once(&mut recv).is_pending());
        } // dropped while waiting: takes nothing
        tx.try_send(1).unwrap();
        {
            // A send waiting for room, dropped: its value goes with it, nothing else changes.
            let mut send = Box::pin(tx.send(2));
            assert!(poll_once(&mut send).is_pending());
        }
        assert_eq!(rx.try_recv(), Ok(1));
        assert_eq!(tx.capacity(), 1);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        tx.try_send(3).unwrap();
        let mut recv = Box::pin(rx.recv());
        assert_eq!(poll_once(&mut recv), Poll::Ready(Some(3)));
    })
}

/// `waiting` (a `reserve` or `send` on a full channel of capacity 1 holding the message 1)
/// is granted the room the receive frees, the receiver closes the channel and waits, then
/// `waiting` is dropped unpolled: the room comes back, and the receiver, with a sender
/// still alive, is woken and ends.
fn granted_then_dropped_after_close<F: Future>(rx: &mut mpsc::Receiver<u8>, waiting: F) {
    let mut waiting = Box::pin(waiting);
    assert!(
        poll_noop(waiting.as_mut()).is_pending(),
        "the channel is full"
    );
    assert_eq!(rx.try_recv(), Ok(1), "its room goes to `waiting`, unseen");
    rx.close();
    let (wakes, waker) = counting_waker();
    let mut recv = Box::pin(rx.recv());
    assert!(
        poll(recv.as_mut(), &waker).is_pending(),
        "a reservation is outstanding"
    );
    drop(waiting);
    assert!(wakes.count() > 0, "the returned room woke the receiver");
    assert_eq!(poll(recv.as_mut(), &waker), Poll::Ready(None));
}

#[test]
fn granted_reservation_dropped_after_close_wakes_the_receiver() {
    watchdog("the receiver's end", || {
        let (tx, mut rx) = mpsc::channel::<u8>(1);
        tx.try_send(1).unwrap();
        granted_then_dropped_after_close(&mut rx, tx.reserve());

        let (tx, mut rx) = mpsc::channel::<u8>(1);
        tx.try_send(1).unwrap();
        granted_then_dropped_after_close(&mut rx, tx.send(2));

        let (tx, mut rx) = mpsc::channel::<u8>(1);
        tx.try_send(1).unwrap();
        granted_then_dropped_after_close(&mut rx, tx.reserve_many(1));

        let (tx, mut rx) = mpsc::channel::<u8>(1);
        tx.try_send(1).unwrap();
        granted_then_dropped_after_close(&mut rx, tx.clone().reserve_owned());
        assert_eq!(tx.capacity(), 1, "every permit came back");
    })
}

#[test]
fn dropping_the_receiver_drops_its_waker() {
    watchdog("the receivers' drops", || {
        let (tx, mut rx) = mpsc::channel::<u8>(1);
        let (wakes, waker) = counting_waker();
        assert!(poll(std::pin::pin!(rx.recv()), &waker).is_pending());
        drop(waker);
        assert_eq!(Arc::strong_count(&wakes), 2, "the channel holds the waker");
        drop(rx);
        assert_eq!(
            Arc::strong_count(&wakes),
            1,
            "the waker went with the receiver, though a sender lives"
        );
        assert_eq!(wakes.count(), 0);
        drop(tx);

        let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
        let (wakes, waker) = counting_waker();
        assert!(poll(std::pin::pin!(rx.recv()), &waker).is_pending());
        drop(waker);
        assert_eq!(Arc::strong_count(&wakes), 2, "the channel holds the waker");
        drop(rx);
        assert_eq!(
            Arc::strong_count(&wakes),
            1,
            "the waker went with the receiver, though a sender lives"
        );
        drop(tx);
    })
}

/// Counts its drops; the one marked `panics` panics in its drop (after counting).
struct PanicOnDrop {
    panics: bool,
    drops: Arc<AtomicUsize>,
}

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        self.drops.fetch_add(1, SeqCst);
        if self.panics {
            panic!("a message's drop panics");
        }
    }
}

#[test]
fn a_panicking_message_drop_does_not_skip_the_others() {
    watchdog("the drops", || {
        let msg = |drops: &Arc<AtomicUsize>, i: usize| PanicOnDrop {
            panics: i == 1,
            drops: drops.clone(),
        };

        // The receiver's drain (bounded): every message dropped, the panic goes on.
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::channel(8);
        for i in 0..5 {
            assert!(tx.try_send(msg(&drops, i)).is_ok(), "room");
        }
        assert!(catch_unwind(AssertUnwindSafe(|| drop(rx))).is_err());
        assert_eq!(drops.load(SeqCst), 5, "with a sender alive");
        drop(tx);
        assert_eq!(drops.load(SeqCst), 5);

        // The receiver's drain (unbounded).
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::unbounded_channel();
        for i in 0..5 {
            assert!(tx.send(msg(&drops, i)).is_ok(), "open");
        }
        assert!(catch_unwind(AssertUnwindSafe(|| drop(rx))).is_err());
        assert_eq!(drops.load(SeqCst), 5, "with a sender alive");
        drop(tx);
        assert_eq!(drops.load(SeqCst), 5);

        // The channel's own drop: messages sent through permits after the receiver left.
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::channel(4);
        let permits = tx.try_reserve_many(3).unwrap();
        drop(rx);
        for (i, permit) in permits.enumerate() {
            permit.send(msg(&drops, i));
        }
        assert_eq!(drops.load(SeqCst), 0);
        assert!(catch_unwind(AssertUnwindSafe(|| drop(tx))).is_err());
        assert_eq!(drops.load(SeqCst), 3);
    })
}

#[test]
fn recv_many_reserves_for_what_arrived_not_for_the_limit() {
    watchdog("recv_many", || {
        let (tx, mut rx) = mpsc::channel(128);
        tx.try_send(1u32).unwrap();
        let mut buf = Vec::new();
        assert_eq!(
            poll_noop(std::pin::pin!(rx.recv_many(&mut buf, 64))),
            Poll::Ready(1)
        );
        assert!(buf.capacity() < 64, "capacity {}", buf.capacity());
        for i in 0..3 {
            tx.try_send(i).unwrap();
        }
        assert_eq!(
            poll_noop(std::pin::pin!(rx.recv_many(&mut buf, 64))),
            Poll::Ready(3)
        );
        assert_eq!(buf, [1, 0, 1, 2]);
        assert!(buf.capacity() < 64, "capacity {}", buf.capacity());

        let (tx, mut rx) = mpsc::unbounded_channel();
        tx.send(1u32).unwrap();
        let mut buf = Vec::new();
        assert_eq!(
            poll_noop(std::pin::pin!(rx.recv_many(&mut buf, 64))),
            Poll::Ready(1)
        );
        assert!(buf.capacity() < 64, "capacity {}", buf.capacity());
    })
}

// ---- a reservation that fails or is cancelled on a closed channel (tokio's suite) ----
//
// A closed receiver's `recv` ends once the channel is idle (no message queued, no permit
// out). A reservation holding some of the permits keeps it busy; when it fails or is
// dropped, the permits come back and the receiver must be woken then, and not before.

/// A pinned future and the counter of its waker's wake-ups.
struct Polled<F: Future> {
    fut: std::pin::Pin<Box<F>>,
    woken: Arc<Counter>,
    waker: std::task::Waker,
}

impl<F: Future> Polled<F> {
    fn new(fut: F) -> Self {
        let (woken, waker) = counting_waker();
        Polled {
            fut: Box::pin(fut),
            woken,
            waker,
        }
    }
    fn poll(&mut self) -> Poll<F::Output> {
        poll(self.fut.as_mut(), &self.waker)
    }
    fn is_woken(&self) -> bool {
        self.woken.count() > 0
    }
}

#[test]
fn failed_reserve_many_wakes_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(2);
    // One slot held: the reservation takes the other one and queues for the second.
    let permit = tx.try_reserve().unwrap();
    let mut reserve = Polled::new(tx.reserve_many(2));
    assert!(reserve.poll().is_pending());
    rx.close();
    let mut recv = Polled::new(rx.recv());
    assert!(recv.poll().is_pending());
    // The slot goes to the queued reservation: the channel is not idle yet.
    drop(permit);
    assert!(
        !recv.is_woken(),
        "woken while a reservation holds the slots"
    );
    // The reservation fails and hands both slots back: now the channel is idle.
    assert!(matches!(reserve.poll(), Poll::Ready(Err(_))));
    assert!(recv.is_woken(), "the closed receiver was not woken");
    assert!(matches!(recv.poll(), Poll::Ready(None)));
}

#[test]
fn cancelled_reserve_many_wakes_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(2);
    let permit = tx.try_reserve().unwrap();
    let mut reserve = Polled::new(tx.reserve_many(2));
    assert!(reserve.poll().is_pending());
    rx.close();
    let mut recv = Polled::new(rx.recv());
    assert!(recv.poll().is_pending());
    drop(permit);
    assert!(
        !recv.is_woken(),
        "woken while a reservation holds the slots"
    );
    drop(reserve);
    assert!(recv.is_woken(), "the closed receiver was not woken");
    assert!(matches!(recv.poll(), Poll::Ready(None)));
}

#[test]
fn failed_reserve_wakes_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(1);
    let permit = tx.try_reserve().unwrap();
    let mut reserve = Polled::new(tx.reserve());
    assert!(reserve.poll().is_pending());
    // The slot is assigned to the queued reservation, woken but not polled yet.
    drop(permit);
    assert!(reserve.is_woken());
    rx.close();
    let mut recv = Polled::new(rx.recv());
    assert!(recv.poll().is_pending());
    // It fails on the closed channel despite holding the slot, and hands it back.
    match reserve.poll() {
        Poll::Ready(Err(mpsc::error::SendError(()))) => {}
        Poll::Ready(Ok(_)) => panic!("a reserve on a closed channel returned a permit"),
        Poll::Pending => panic!("a reserve on a closed channel is pending"),
    }
    assert!(recv.is_woken(), "the closed receiver was not woken");
    assert!(matches!(recv.poll(), Poll::Ready(None)));
}

#[test]
fn cancelled_reserve_wakes_closed_receiver() {
    let (tx, mut rx) = mpsc::channel::<()>(1);
    let permit = tx.try_reserve().unwrap();
    let mut reserve = Polled::new(tx.reserve());
    assert!(reserve.poll().is_pending());
    drop(permit);
    assert!(reserve.is_woken());
    rx.close();
    let mut recv = Polled::new(rx.recv());
    assert!(recv.poll().is_pending());
    drop(reserve);
    assert!(recv.is_woken(), "the closed receiver was not woken");
    assert!(matches!(recv.poll(), Poll::Ready(None)));
}

#[test]
fn reserve_owned_assigned_then_closed_is_an_error() {
    let (tx, mut rx) = mpsc::channel::<()>(1);
    let permit = tx.try_reserve().unwrap();
    let mut reserve = Polled::new(tx.clone().reserve_owned());
    assert!(reserve.poll().is_pending());
    drop(permit);
    rx.close();
    let mut recv = Polled::new(rx.recv());
    assert!(recv.poll().is_pending());
    assert!(
        matches!(reserve.poll(), Poll::Ready(Err(_))),
        "a reserve_owned on a closed channel must fail"
    );
    assert!(recv.is_woken(), "the closed receiver was not woken");
    assert!(matches!(recv.poll(), Poll::Ready(None)));
}

#[test]
fn reserve_on_a_closed_channel_is_send_error() {
    let (tx, rx) = mpsc::channel::<()>(100);
    drop(rx);
    let mut reserve = Polled::new(tx.reserve());
    assert!(matches!(
        reserve.poll(),
        Poll::Ready(Err(mpsc::error::SendError(())))
    ));
    let mut many = Polled::new(tx.reserve_many(10));
    assert!(matches!(
        many.poll(),
        Poll::Ready(Err(mpsc::error::SendError(())))
    ));
    assert!(matches!(
        tx.try_reserve_many(10),
        Err(TrySendError::Closed(()))
    ));
}
