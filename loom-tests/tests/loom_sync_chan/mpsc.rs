//! `mpsc`, bounded and unbounded. A send racing the receiver's `close` (a message whose
//! send succeeded is received, a refused one comes back, each is dropped once) and racing
//! the receiver's drop; an unbounded send and the last sender's drop racing `recv`;
//! `try_recv` polled while messages are sent; the unbounded list's blocks filled, recycled
//! and reused by one producer, and two producers crossing into the second block; a queued
//! `reserve` cancelled after it may have been granted the capacity (the capacity passes to
//! the next sender, or the receiver of a closed channel is woken); senders waiting for
//! room and contending for it; `Sender::closed()` racing the receiver's drop (watch's
//! `Sender::closed()` in the same model). Happens-after: an unbounded sender told
//! "closed" (`is_closed`, a refused `send`) sees what the receiver wrote before its
//! `close`, and the receiver told every sender is gone (`is_closed`) sees what the last
//! one wrote before its drop. The bounded channel's ring alone: a slot reused a lap later
//! waits for the consumer's read of it and is ordered after that read.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use loom::future::block_on;
use loom::thread;
use runtime::sync::mpsc::{self, error::TryRecvError, Pop, Queue};
use runtime::sync::watch;
use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

use super::{model, model_1, Tracked};

/// Receives one message from an unbounded channel by polling `try_recv` (fewer steps
/// than `recv`'s waker registration, which other models cover); a sender that never
/// sends leaves loom spinning, which it reports.
fn spin_recv<T>(rx: &mut mpsc::UnboundedReceiver<T>) -> Option<T> {
    loop {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => thread::yield_now(),
        }
    }
}

fn poll_once<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
    Pin::new(f).poll(&mut Context::from_waker(Waker::noop()))
}

/// A bounded send racing the receiver's `close`: a message whose send succeeded is
/// received; one refused comes back; each is dropped once; the receiver ends (`None`).
#[test]
fn mpsc_bounded_send_racing_close() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = mpsc::channel(1);
        let d = drops.clone();
        let sender = thread::spawn(move || tx.try_send(Tracked(1, d)).is_ok());
        rx.close();
        let got = block_on(rx.recv());
        let sent = sender.join().unwrap();
        assert_eq!(got.as_ref().map(|t| t.0), sent.then_some(1));
        drop(got);
        assert!(block_on(rx.recv()).is_none());
        assert_eq!(drops.load(SeqCst), 1);
    });
}

/// An unbounded send racing the receiver's `close` (the close is the `fetch_or` on the
/// list's claim word): a message whose send succeeded is received, one refused comes back
/// (its void claim is never waited for), each is dropped once, and the receiver ends.
#[test]
fn mpsc_unbounded_send_racing_close() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let d = drops.clone();
        let sender = thread::spawn(move || {
            let sent = tx.send(Tracked(1, d.clone())).is_ok();
            // A second try after the first: refused for sure if the first was.
            let again = tx.send(Tracked(2, d)).is_ok();
            assert!(sent || !again, "a send accepted after one was refused");
            (sent, again)
        });
        rx.close();
        let mut got = Vec::new();
        while let Some(t) = block_on(rx.recv()) {
            got.push(t.0);
        }
        let (sent, again) = sender.join().unwrap();
        let expected: Vec<u8> = [(sent, 1), (again, 2)]
            .iter()
            .filter(|(ok, _)| *ok)
            .map(|(_, v)| *v)
            .collect();
        assert_eq!(got, expected, "every accepted send is received, in order");
        assert!(block_on(rx.recv()).is_none());
        assert_eq!(drops.load(SeqCst), 2);
    });
}

/// An unbounded send then sender drop racing the receiver: the message is received, then
/// `None` (the last sender's drop wakes the receiver).
#[test]
fn mpsc_unbounded_send_and_drop_racing_recv() {
    model(|| {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let sender = thread::spawn(move || {
            tx.send(1u8).unwrap();
        });
        assert_eq!(block_on(rx.recv()), Some(1));
        assert_eq!(block_on(rx.recv()), None);
        sender.join().unwrap();
    });
}

/// The unbounded list's blocks (2 slots each under loom): one producer sends 7 messages
/// while the receiver takes them, so blocks fill, `block_tail` moves past them, the
/// receiver recycles them (touching every slot, so loom checks it saw every write) and the
/// producer reuses a recycled one. Every message arrives once, in order; the rest drop once.
#[test]
fn mpsc_unbounded_blocks_recycled() {
    model_1(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let d = drops.clone();
        let sender = thread::spawn(move || {
            for i in 0..7 {
                tx.send(Tracked(i, d.clone())).unwrap();
            }
        });
        for i in 0..6 {
            let got = spin_recv(&mut rx).expect("a message");
            assert_eq!(got.0, i, "in order");
        }
        sender.join().unwrap();
        assert_eq!(drops.load(SeqCst), 6);
        drop(rx);
        assert_eq!(drops.load(SeqCst), 7, "the message left was dropped once");
    });
}

/// Two producers race into the unbounded list's second block (one may grow the chain while
/// the other moves `block_tail`, or still walk the block `block_tail` leaves): every
/// message arrives exactly once, each producer's in order. (Kept to 3 messages: with 5,
/// one preemption already takes minutes.)
#[test]
fn mpsc_unbounded_two_producers_cross_blocks() {
    model(|| {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let tx2 = tx.clone();
        let a = thread::spawn(move || {
            for i in 0..2u8 {
                tx.send((0u8, i)).unwrap();
            }
        });
        let b = thread::spawn(move || {
            for i in 0..1u8 {
                tx2.send((1u8, i)).unwrap();
            }
        });
        let mut next = [0u8; 2];
        for _ in 0..3 {
            let (p, i) = spin_recv(&mut rx).expect("a message");
            assert_eq!(i, next[p as usize], "producer {p}'s messages in order");
            next[p as usize] += 1;
        }
        assert_eq!(spin_recv(&mut rx), None);
        a.join().unwrap();
        b.join().unwrap();
    });
}

/// The receiver dropped while a message is sent: it is dropped exactly once (by the
/// receiver's drain, by the channel, or handed back to the sender).
#[test]
fn mpsc_receiver_drop_racing_send() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::channel(1);
        let d = drops.clone();
        let sender = thread::spawn(move || {
            let _ = tx.try_send(Tracked(1, d));
        });
        drop(rx);
        sender.join().unwrap();
        assert_eq!(drops.load(SeqCst), 1);
    });
}

/// `try_recv` polled while the sender sends two messages (not only after a join): it sees
/// them in order, never a torn one, then `Disconnected`.
#[test]
fn mpsc_try_recv_concurrent_with_send() {
    model(|| {
        let (tx, mut rx) = mpsc::channel(2);
        let sender = thread::spawn(move || {
            tx.try_send(1u8).unwrap();
            tx.try_send(2u8).unwrap();
        });
        let mut got = Vec::new();
        loop {
            match rx.try_recv() {
                Ok(v) => got.push(v),
                Err(TryRecvError::Empty) => thread::yield_now(),
                Err(TryRecvError::Disconnected) => break,
            }
        }
        assert_eq!(got, [1, 2]);
        sender.join().unwrap();
    });
}

/// The same over the unbounded list.
#[test]
fn mpsc_unbounded_try_recv_concurrent_with_send() {
    model(|| {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let sender = thread::spawn(move || {
            tx.send(1u8).unwrap();
            tx.send(2u8).unwrap();
        });
        let mut got = Vec::new();
        loop {
            match rx.try_recv() {
                Ok(v) => got.push(v),
                Err(TryRecvError::Empty) => thread::yield_now(),
                Err(TryRecvError::Disconnected) => break,
            }
        }
        assert_eq!(got, [1, 2]);
        sender.join().unwrap();
    });
}

/// Capacity 1, held by a permit. A queued `reserve` (A) is cancelled while the permit is
/// released (so A may have been granted it already), and another sender (B, on its own
/// thread) waits too: B must get the capacity, whoever was first in line.
#[test]
fn mpsc_cancelled_reserve_passes_capacity_on() {
    model(|| {
        let (tx, mut rx) = mpsc::channel(1);
        let permit = tx.try_reserve().unwrap();
        let tx_b = tx.clone();
        let b = thread::spawn(move || {
            let permit = block_on(tx_b.reserve()).unwrap();
            permit.send(2u8);
        });
        let mut a = Box::pin(tx.reserve());
        let _ = poll_once(&mut a);
        drop(permit);
        drop(a);
        assert_eq!(block_on(rx.recv()), Some(2));
        b.join().unwrap();
        assert_eq!(tx.capacity(), 1, "every permit came back");
    });
}

/// Capacity 1, full. A queued `reserve` is granted the room a receive frees, then dropped
/// unpolled on another thread while the receiver closes the channel and waits in `recv`
/// (a sender stays alive, so only the returned room can end it): the room comes back
/// before the receiver is told, so it wakes and ends with `None`, whichever came first.
#[test]
fn mpsc_cancelled_reservation_on_a_closed_channel_wakes_the_receiver() {
    model(|| {
        let (tx, mut rx) = mpsc::channel(1);
        tx.try_send(1u8).unwrap();
        let mut reserve = Box::pin(tx.clone().reserve_owned());
        assert!(poll_once(&mut reserve).is_pending(), "the channel is full");
        assert_eq!(rx.try_recv(), Ok(1), "its room goes to `reserve`, unseen");
        let canceller = thread::spawn(move || drop(reserve));
        rx.close();
        assert_eq!(block_on(rx.recv()), None);
        canceller.join().unwrap();
        assert_eq!(tx.capacity(), 1, "every permit came back");
    });
}

/// Capacity 1: a sender waiting for room is woken by the receive that frees it.
#[test]
fn mpsc_send_waits_for_recv() {
    model(|| {
        let (tx, mut rx) = mpsc::channel(1);
        let sender = thread::spawn(move || {
            block_on(tx.send(1u8)).unwrap();
            block_on(tx.send(2u8)).unwrap();
        });
        assert_eq!(block_on(rx.recv()), Some(1));
        assert_eq!(block_on(rx.recv()), Some(2));
        assert_eq!(block_on(rx.recv()), None);
        sender.join().unwrap();
    });
}

/// Two senders contending for capacity 1 while the receiver takes: the waiter list, the
/// WAITERS bit and the fast path race; every message arrives once and nobody is stuck.
#[test]
fn mpsc_two_senders_contend_for_capacity() {
    model(|| {
        let (tx, mut rx) = mpsc::channel(1);
        let tx2 = tx.clone();
        let a = thread::spawn(move || block_on(tx.send(1u8)).unwrap());
        let b = thread::spawn(move || block_on(tx2.send(2u8)).unwrap());
        let mut got = [block_on(rx.recv()).unwrap(), block_on(rx.recv()).unwrap()];
        got.sort();
        assert_eq!(got, [1, 2]);
        assert_eq!(block_on(rx.recv()), None);
        a.join().unwrap();
        b.join().unwrap();
    });
}

/// `Sender::closed()` racing the receiver's drop (mpsc) and the last receiver's drop
/// (watch): the waiting sender is woken.
#[test]
fn senders_closed_racing_receiver_drop() {
    model(|| {
        let (tx, rx) = mpsc::channel::<u8>(1);
        let (wtx, wrx) = watch::channel(0u8);
        let receiver = thread::spawn(move || {
            drop(rx);
            drop(wrx);
        });
        block_on(tx.closed());
        assert!(tx.is_closed());
        block_on(wtx.closed());
        assert!(wtx.is_closed());
        receiver.join().unwrap();
    });
}

/// A "closed" answer happens-after what made it so (tokio's contract), on the unbounded
/// channel (the bounded channel's answers come from the batch semaphore:
/// `loom_sync_locks::closed_*`). `observe` runs on a sender's thread while the receiver
/// writes a cell and then closes the channel; when it answers "closed", the sender reads
/// the cell, which loom checks against the write.
fn closed_seen_by_a_sender_happens_after_close(
    observe: impl Fn(&mpsc::UnboundedSender<u8>) -> bool + Send + Sync + Copy + 'static,
) {
    model(move || {
        let cell = Arc::new(loom::cell::UnsafeCell::new(0u8));
        let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
        let c = cell.clone();
        let sender = thread::spawn(move || {
            if observe(&tx) {
                // SAFETY: the receiver wrote the cell before the close we saw; nobody
                // writes it after (loom checks the ordering).
                assert_eq!(c.with(|v| unsafe { *v }), 1);
            }
        });
        // SAFETY: the sender reads the cell only once it saw the close below.
        cell.with_mut(|v| unsafe { *v = 1 });
        rx.close();
        sender.join().unwrap();
    });
}

/// `UnboundedSender::is_closed` answering true happens-after the receiver's `close`.
#[test]
fn unbounded_is_closed_happens_after_close() {
    closed_seen_by_a_sender_happens_after_close(|tx| tx.is_closed());
}

/// An unbounded `send` refused because the receiver closed happens-after the `close` (the
/// refusal can come from the count's first load or from its CAS failing on the close).
#[test]
fn unbounded_send_refused_happens_after_close() {
    closed_seen_by_a_sender_happens_after_close(|tx| tx.send(1).is_err());
}

/// The other way: `UnboundedReceiver::is_closed` answering true because the one sender is
/// gone happens-after that sender's drop (which follows its write of a cell).
#[test]
fn receiver_is_closed_happens_after_the_last_sender_left() {
    model(|| {
        let cell = Arc::new(loom::cell::UnsafeCell::new(0u8));
        let (tx, rx) = mpsc::unbounded_channel::<u8>();
        let c = cell.clone();
        let sender = thread::spawn(move || {
            // SAFETY: the receiver reads the cell only once it saw us gone.
            c.with_mut(|v| unsafe { *v = 1 });
            drop(tx);
        });
        if rx.is_closed() {
            // SAFETY: the sender wrote the cell before the drop we saw.
            assert_eq!(cell.with(|v| unsafe { *v }), 1);
        }
        sender.join().unwrap();
    });
}

/// The bounded channel's ring on its own, without the semaphore that in the channel also
/// orders a slot's laps: two slots, a producer pushing three messages, the consumer popping
/// them. The third push reuses slot 0, so it must wait for the consumer's read of the
/// first message and be ordered after it (`pop`'s Release store of the stamp, `push`'s
/// Acquire load of it), or its write races that read. (Two slots, not one: with one slot
/// the stamp "holds position p" and "free for position p + 1" are the same number, so the
/// ring alone does not hold a producer back; the channel's permits do, see `ring.rs`.)
#[test]
fn ring_slot_reused_a_lap_later() {
    model(|| {
        let ring = Arc::new(mpsc::Ring::<u8>::new(2));
        let r = ring.clone();
        let producer = thread::spawn(move || {
            for v in 1..=3 {
                r.push(v);
            }
        });
        let mut got = Vec::new();
        while got.len() < 3 {
            // SAFETY: this thread is the ring's one consumer.
            match unsafe { ring.pop() } {
                Pop::Value(v) => got.push(v),
                Pop::Empty | Pop::Busy => thread::yield_now(),
            }
        }
        assert_eq!(got, [1, 2, 3]);
        producer.join().unwrap();
    });
}
