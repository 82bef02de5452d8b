//! loom suites for `runtime::sync::oneshot`, the shipping code through the shim: a send
//! racing the receiver's poll, waker replacement, close and drop; a sender dropped unsent;
//! the sender's `closed()` racing the receiver's drop; `try_recv` racing the send (no
//! join between them). Each asserts that the receiver ends
//! with the right outcome (a lost wake-up leaves `block_on` blocked forever, which loom
//! reports as a deadlock), and that the value is dropped exactly once; loom checks the
//! value and waker cells for data races.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 3 when unset.

#![cfg(loom)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Waker};

use loom::future::block_on;
use loom::thread;
use runtime::sync::oneshot::{self, error::TryRecvError};
use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(3);
    builder.check(f);
}

/// A value that counts its drops.
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn send_racing_recv() {
    model(|| {
        let (tx, rx) = oneshot::channel();
        let sender = thread::spawn(move || tx.send(1u8).unwrap());
        assert_eq!(block_on(rx), Ok(1));
        sender.join().unwrap();
    });
}

#[test]
fn unsent_drop_racing_recv() {
    model(|| {
        let (tx, rx) = oneshot::channel::<u8>();
        let sender = thread::spawn(move || drop(tx));
        assert!(block_on(rx).is_err());
        sender.join().unwrap();
    });
}

/// The receiver polls with one waker, then awaits with another (replacing the first)
/// while the value is sent: the replacement must not race the sender's wake, and the
/// second waker must not be missed.
#[test]
fn waker_replacement_racing_send() {
    model(|| {
        let (tx, mut rx) = oneshot::channel();
        let sender = thread::spawn(move || tx.send(2u8).unwrap());
        let first = Pin::new(&mut rx).poll(&mut Context::from_waker(Waker::noop()));
        if first.is_pending() {
            assert_eq!(block_on(rx), Ok(2));
        } else {
            assert_eq!(first, std::task::Poll::Ready(Ok(2)));
        }
        sender.join().unwrap();
    });
}

/// Close racing send: either the send went first (the value is still received) or it is
/// refused and handed back; either way the value is dropped exactly once.
#[test]
fn close_racing_send() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = oneshot::channel();
        let d = drops.clone();
        let sender = thread::spawn(move || tx.send(Tracked(d)).is_ok());
        rx.close();
        let sent = sender.join().unwrap();
        match rx.try_recv() {
            Ok(v) => {
                assert!(sent);
                drop(v);
            }
            Err(e) => {
                assert!(!sent);
                assert_eq!(e, TryRecvError::Closed);
            }
        }
        assert_eq!(drops.load(SeqCst), 1);
        drop(rx);
        assert_eq!(drops.load(SeqCst), 1);
    });
}

/// The receiver dropped while the value is sent: the value is dropped once, by whichever
/// side ends last (or handed back to the sender).
#[test]
fn receiver_drop_racing_send() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = oneshot::channel();
        let d = drops.clone();
        let sender = thread::spawn(move || {
            let _ = tx.send(Tracked(d));
        });
        drop(rx);
        sender.join().unwrap();
        assert_eq!(drops.load(SeqCst), 1);
    });
}

/// The sender waits for `closed()` while the receiver is dropped on another thread.
#[test]
fn sender_closed_racing_receiver_drop() {
    model(|| {
        let (mut tx, rx) = oneshot::channel::<u8>();
        let receiver = thread::spawn(move || drop(rx));
        block_on(tx.closed());
        assert!(tx.is_closed());
        assert_eq!(tx.send(3), Err(3));
        receiver.join().unwrap();
    });
}

/// `try_recv` racing the send (no join in between to order them): the receiver polls
/// without blocking until the value is there. Each attempt sees either nothing yet
/// (`Empty`) or the whole value; a state load that does not acquire the sender's write of
/// the value is a data race on the value slot, which loom reports. The spin yields, so
/// loom runs the sender; a value that never shows up is a livelock loom reports too.
#[test]
fn try_recv_racing_send() {
    model(|| {
        let (tx, mut rx) = oneshot::channel();
        let sender = thread::spawn(move || tx.send(Box::new(7u8)).unwrap());
        let v = loop {
            match rx.try_recv() {
                Ok(v) => break v,
                Err(TryRecvError::Empty) => thread::yield_now(),
                Err(TryRecvError::Closed) => panic!("closed although the sender sends"),
            }
        };
        assert_eq!(*v, 7);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Closed));
        sender.join().unwrap();
    });
}

/// `try_recv` racing a sender dropped unsent: `Empty` until the drop, then `Closed`,
/// never a value.
#[test]
fn try_recv_racing_unsent_drop() {
    model(|| {
        let (tx, mut rx) = oneshot::channel::<u8>();
        let sender = thread::spawn(move || drop(tx));
        loop {
            match rx.try_recv() {
                Ok(v) => panic!("received {v} from a sender that sent nothing"),
                Err(TryRecvError::Empty) => thread::yield_now(),
                Err(TryRecvError::Closed) => break,
            }
        }
        sender.join().unwrap();
    });
}
