//! loom suites for `runtime::sync::{mpsc, watch, broadcast}`, the shipping code through the
//! shim: send/recv racing close (bounded and unbounded), `try_recv` running while a send is
//! in flight, a reservation cancelled after it was granted (the capacity must pass on to the
//! next sender, or wake the receiver of a closed channel), a lagging broadcast receiver, a
//! broadcast value freed by its last reader, watch `changed` racing `send`, and the
//! unbounded list's blocks filled, recycled and reused (one and two producers).
//!
//! Each model asserts safety (every message received at most once, in order, dropped
//! exactly once; loom checks the cells for data races) and progress: the waits are
//! `block_on`s, so a lost wake-up or lost capacity leaves a thread blocked forever, which
//! loom reports as a deadlock.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use loom::future::block_on;
use loom::thread;
use runtime::sync::broadcast::{self, error::RecvError};
use runtime::sync::mpsc::{self, error::TryRecvError, Pop, Queue};
use runtime::sync::watch;
use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(2);
    builder.check(f);
}

/// For the long block-list models (dozens of atomic steps per thread): one preemption.
fn model_1(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(1);
    builder.check(f);
}

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

/// A value that counts its drops.
struct Tracked(u8, Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.1.fetch_add(1, SeqCst);
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
/// receive took nothing (its receiver still gets the value: `recv` is cancel safe).
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
            drop(sender.join().unwrap());
        }
        assert_eq!(rx1.try_recv(), Ok(7));
        assert_eq!(block_on(rx1.recv()), Err(RecvError::Closed));
    });
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

/// Watch `changed` racing `send` and the sender's drop: the receiver ends having seen the
/// last value (never stuck, never missing it).
#[test]
fn watch_changed_racing_send() {
    model(|| {
        let (tx, mut rx) = watch::channel(0u8);
        let sender = thread::spawn(move || {
            tx.send(1).unwrap();
            tx.send(2).unwrap();
        });
        let mut last = 0;
        while block_on(rx.changed()).is_ok() {
            let v = *rx.borrow_and_update();
            assert!(v > last);
            last = v;
        }
        assert_eq!(last, 2);
        sender.join().unwrap();
    });
}

/// Watch `changed` racing one send while the sender stays alive: the receiver must be
/// woken by the send itself (not by the close).
#[test]
fn watch_changed_woken_by_send() {
    model(|| {
        let (tx, mut rx) = watch::channel(0u8);
        let tx2 = tx.clone();
        let sender = thread::spawn(move || {
            tx2.send(1).unwrap();
        });
        block_on(rx.changed()).unwrap();
        assert_eq!(*rx.borrow_and_update(), 1);
        sender.join().unwrap();
        drop(tx);
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

/// Writes 1 to `cell` (the thread that does is the writer of a happens-after model).
fn write_cell(cell: &loom::cell::UnsafeCell<u8>) {
    // SAFETY: the models read the cell only once they saw the event this write precedes
    // (loom checks the ordering).
    cell.with_mut(|v| unsafe { *v = 1 });
}

/// Reads `cell`, which must hold the writer's 1.
fn read_cell(cell: &loom::cell::UnsafeCell<u8>) {
    // SAFETY: called only after the event the write precedes (loom checks the ordering).
    assert_eq!(cell.with(|v| unsafe { *v }), 1);
}

/// A watch receiver that sees a new version happens-after the `send` that made it (tokio's
/// contract): the sender writes a cell, then sends; the receiver, told of the change by
/// `changed()` (`await`ed) or by `has_changed()`, reads the cell.
#[test]
fn watch_change_seen_happens_after_send() {
    for via_has_changed in [false, true] {
        model(move || {
            let cell = Arc::new(loom::cell::UnsafeCell::new(0u8));
            let (tx, mut rx) = watch::channel(0u8);
            let c = cell.clone();
            let sender = thread::spawn(move || {
                write_cell(&c);
                tx.send(1).unwrap();
            });
            let changed = if via_has_changed {
                rx.has_changed() == Ok(true)
            } else {
                block_on(rx.changed()).is_ok()
            };
            if changed {
                read_cell(&cell);
            }
            sender.join().unwrap();
        });
    }
}

/// A watch sender told every receiver is gone (`closed()` `await`ed, or `is_closed()`)
/// happens-after the receiver's drop, which follows its write of a cell.
#[test]
fn watch_sender_closed_happens_after_receiver_drop() {
    for via_is_closed in [false, true] {
        model(move || {
            let cell = Arc::new(loom::cell::UnsafeCell::new(0u8));
            let (tx, rx) = watch::channel(0u8);
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

/// A watch receiver told every sender is gone (`is_closed`) happens-after every sender's
/// drop: X writes a cell and drops its sender, Y drops the other; whichever is last sets
/// CLOSED, so the last must have acquired the other's decrement.
#[test]
fn watch_receiver_closed_happens_after_every_sender_left() {
    model(|| {
        let cell = Arc::new(loom::cell::UnsafeCell::new(0u8));
        let (tx, rx) = watch::channel(0u8);
        let tx2 = tx.clone();
        let c = cell.clone();
        let x = thread::spawn(move || {
            write_cell(&c);
            drop(tx);
        });
        let y = thread::spawn(move || drop(tx2));
        if rx.is_closed() {
            read_cell(&cell);
        }
        x.join().unwrap();
        y.join().unwrap();
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
