//! `broadcast`. A receiver lagging behind a ring of two while values are sent: it skips
//! exactly what was overwritten and gets the last value, then `Closed`. A send serving two
//! waiting receives while one of them is dropped: the dropped one's node is freed once and
//! it took nothing. A value dropped exactly once while a receiver reads and drops, and
//! freed by its last reader while the sender lives. Happens-after: a sender told every
//! receiver is gone (`closed()`, `is_closed()`) sees what the receiver wrote before its
//! drop, and a receiver told `Closed` sees what every sender wrote before its drop.

use std::future::Future;
use std::task::{Context, Waker};

use loom::future::block_on;
use loom::thread;
use runtime::sync::broadcast::{self, error::RecvError};
use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

use super::{model, read_cell, write_cell, Tracked};

/// A broadcast receiver reading while three values go into a ring of two: it sees values
/// in order; when it lags it skips exactly what was overwritten and resumes at the oldest
/// kept; it always gets the last value, then `Closed`.
#[test]
fn broadcast_lagging_receiver() {
    model(|| {
        let (tx, mut rx) = broadcast::channel(2);
        let sender = thread::spawn(move || {
            for i in 0..3u8 {
                tx.send(i).unwrap();
            }
        });
        let mut expect = 0u64;
        loop {
            match block_on(rx.recv()) {
                Ok(v) => {
                    assert_eq!(u64::from(v), expect);
                    expect += 1;
                }
                Err(RecvError::Lagged(n)) => {
                    assert!(n > 0);
                    expect += n;
                }
                Err(RecvError::Closed) => break,
            }
        }
        assert_eq!(expect, 3, "the last value is received");
        sender.join().unwrap();
    });
}

/// A send serving two waiting receives while one of them is dropped: the dropped one's
/// node is freed once (by the send, or by the drop if it left first: a double free panics
/// in the wait list), the other receive completes on its handoff word, and the dropped
/// receive took nothing (its receiver still gets the value: `recv` is cancel safe). The
/// send's walk of the list leaves it whole: a receive queued afterwards is served by the
/// next send.
#[test]
fn broadcast_send_serving_a_dropped_recv() {
    model(|| {
        let (tx, mut rx1) = broadcast::channel(2);
        let mut rx2 = tx.subscribe();
        {
            let mut dropped = Box::pin(rx1.recv());
            let mut kept = Box::pin(rx2.recv());
            let noop = &mut Context::from_waker(Waker::noop());
            assert!(dropped.as_mut().poll(noop).is_pending());
            assert!(kept.as_mut().poll(noop).is_pending());
            let sender = thread::spawn(move || {
                tx.send(7u8).unwrap();
                tx
            });
            drop(dropped);
            assert_eq!(block_on(kept), Ok(7));
            let tx = sender.join().unwrap();
            // The send's walk left the list whole: a new receive queues and the next send
            // wakes it (a stale head or tail left by the walk loses it, or panics).
            let mut again = Box::pin(rx2.recv());
            let woken = std::sync::Arc::new(WakeFlag::default());
            let waker = Waker::from(woken.clone());
            assert!(again
                .as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_pending());
            tx.send(8u8).unwrap();
            assert!(woken.0.load(SeqCst), "the queued receive was not woken");
            assert_eq!(block_on(again), Ok(8));
        }
        assert_eq!(rx1.try_recv(), Ok(7));
        assert_eq!(rx1.try_recv(), Ok(8));
        assert_eq!(block_on(rx1.recv()), Err(RecvError::Closed));
    });
}

/// A waker that only records that it was woken (used on one thread: a plain atomic).
#[derive(Default)]
struct WakeFlag(std::sync::atomic::AtomicBool);

impl std::task::Wake for WakeFlag {
    fn wake(self: std::sync::Arc<Self>) {
        self.0.store(true, SeqCst);
    }
}

/// A broadcast value dropped exactly once while a receiver reads and drops.
#[test]
fn broadcast_values_dropped_once() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = broadcast::channel::<Arc<Tracked>>(1);
        let d = drops.clone();
        let sender = thread::spawn(move || {
            tx.send(Arc::new(Tracked(1, d))).unwrap();
        });
        if let Ok(v) = block_on(rx.recv()) {
            assert_eq!(v.0, 1);
        }
        drop(rx);
        sender.join().unwrap();
        assert_eq!(drops.load(SeqCst), 1);
    });
}

/// Two receivers of two values on two threads: one reads both, the other reads the first
/// and leaves without reading the second. Each value is freed by its last reader (or the
/// leaving receiver), after the other's clone (loom checks the slot's cell), exactly once,
/// while the sender still lives.
#[test]
fn broadcast_value_freed_by_its_last_reader() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx1) = broadcast::channel::<Arc<Tracked>>(2);
        let mut rx2 = tx.subscribe();
        for i in 0..2 {
            tx.send(Arc::new(Tracked(i, drops.clone()))).unwrap();
        }
        let other = thread::spawn(move || {
            assert_eq!(rx2.try_recv().unwrap().0, 0);
            drop(rx2);
        });
        assert_eq!(rx1.try_recv().unwrap().0, 0);
        assert_eq!(rx1.try_recv().unwrap().0, 1);
        other.join().unwrap();
        assert_eq!(drops.load(SeqCst), 2, "both freed with the sender alive");
        drop((tx, rx1));
        assert_eq!(drops.load(SeqCst), 2);
    });
}

/// A broadcast sender told every receiver is gone (`closed()` `await`ed, or `is_closed()`)
/// happens-after the receiver's drop, which follows its write of a cell.
#[test]
fn broadcast_sender_closed_happens_after_receiver_drop() {
    for via_is_closed in [false, true] {
        model(move || {
            let cell = Arc::new(loom::cell::UnsafeCell::new(0u8));
            let (tx, rx) = broadcast::channel::<u8>(1);
            let c = cell.clone();
            let receiver = thread::spawn(move || {
                write_cell(&c);
                drop(rx);
            });
            let closed = if via_is_closed {
                tx.is_closed()
            } else {
                block_on(tx.closed());
                true
            };
            if closed {
                read_cell(&cell);
            }
            receiver.join().unwrap();
        });
    }
}

/// A broadcast receiver told `Closed` happens-after every sender's drop: X writes a cell
/// and drops its sender, Y drops the other; the last one closes the channel (under the tail
/// lock), so it must have acquired the other's decrement.
#[test]
fn broadcast_recv_closed_happens_after_every_sender_left() {
    model(|| {
        let cell = Arc::new(loom::cell::UnsafeCell::new(0u8));
        let (tx, mut rx) = broadcast::channel::<u8>(1);
        let tx2 = tx.clone();
        let c = cell.clone();
        let x = thread::spawn(move || {
            write_cell(&c);
            drop(tx);
        });
        let y = thread::spawn(move || drop(tx2));
        assert_eq!(block_on(rx.recv()), Err(RecvError::Closed));
        read_cell(&cell);
        x.join().unwrap();
        y.join().unwrap();
    });
}
