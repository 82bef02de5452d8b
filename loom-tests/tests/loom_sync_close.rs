//! loom suite for closing a `runtime::sync` primitive (or dropping its other side) while a
//! waiter is in flight, and for a waiter dropped right after it was served (the shipping
//! code through the shim).
//!
//! Each model asserts progress and the accounting. Progress: every wait is a `block_on`, so
//! a lost wake-up leaves a thread blocked forever, which loom reports as a deadlock.
//! Accounting: permits come back exactly once (`available_permits()` / `capacity()` at the
//! end, or a lock that can be taken again), and values carry a drop counter, so a value
//! lost or dropped twice fails the count.
//!
//! The models are two threads (main and one other) with a few operations each; the
//! semaphore, channel and lock models that this suite does not repeat are in
//! `loom_sync_locks`, `loom_sync_chan` and `loom_oneshot` (the table in
//! `loom-tests/README.md` says which covers what).
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use loom::future::block_on;
use loom::thread;
use runtime::sync::{mpsc, watch, OnceCell, RwLock, Semaphore};
use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

/// Runs `f` under loom at `LOOM_MAX_PREEMPTIONS` (2 when unset) and prints how many
/// executions it explored (run with `--nocapture` to see it).
fn model(f: impl Fn() + Sync + Send + 'static) {
    loom_tests::model(f, 2);
}

/// A value that counts its drops.
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A semaphore of 1 closed while an `acquire_many(2)` on another thread may be queued
/// holding the one permit as a partial grant: the acquire fails (never hangs), and the
/// partial grant comes back exactly once (the close leaves it with the waiter, as tokio's;
/// the failed waiter gives it back as it leaves).
#[test]
fn semaphore_close_returns_a_partial_grant_once() {
    model(|| {
        let sem = Arc::new(Semaphore::new(1));
        let s = sem.clone();
        let waiter = thread::spawn(move || block_on(s.acquire_many(2)).is_err());
        sem.close();
        assert!(waiter.join().unwrap(), "acquire_many(2) got 2 of 1 permits");
        assert_eq!(
            sem.available_permits(),
            1,
            "the partial grant was lost or given back twice"
        );
    });
}

/// A queued `acquire_many(2)` holding 1 of 2 permits is dropped while another thread adds
/// the missing permit (so it may be dropped queued, or granted and unseen): everything it
/// held goes back, exactly once.
#[test]
fn semaphore_waiter_dropped_as_it_is_served() {
    model(|| {
        let sem = Arc::new(Semaphore::new(1));
        let mut waiter = Box::pin(sem.acquire_many(2));
        assert!(
            loom_tests::poll_noop(waiter.as_mut()).is_pending(),
            "1 of 2 permits"
        );
        let s = sem.clone();
        let releaser = thread::spawn(move || s.add_permits(1));
        drop(waiter);
        releaser.join().unwrap();
        assert_eq!(
            sem.available_permits(),
            2,
            "a dropped waiter's permits were lost or given back twice"
        );
    });
}

/// A writer queued behind one of two readers holds the other read permit as a partial
/// grant; it is dropped while the reader leaves on another thread: both permits come back,
/// so the write lock is free afterwards.
#[test]
fn rwlock_queued_writer_dropped_as_the_reader_leaves() {
    model(|| {
        // std's Arc: the owned guards take `self: std::sync::Arc<Self>`.
        let lock = std::sync::Arc::new(RwLock::with_max_readers(0u8, 2));
        let reader = lock.clone().try_read_owned().unwrap();
        let mut writer = Box::pin(lock.write());
        assert!(
            loom_tests::poll_noop(writer.as_mut()).is_pending(),
            "a reader holds it"
        );
        let leaving = thread::spawn(move || drop(reader));
        drop(writer);
        leaving.join().unwrap();
        assert!(lock.try_write().is_ok(), "a read permit was lost");
    });
}

/// A `OnceCell` initializer cancelled while another thread waits to initialize: the
/// waiter gets the semaphore's permit and runs its own initializer; the cell ends holding
/// that value.
#[test]
fn once_cell_cancelled_initializer_passes_on() {
    model(|| {
        let cell = Arc::new(OnceCell::<u8>::new());
        let mut first = Box::pin(cell.get_or_init(std::future::pending));
        assert!(
            loom_tests::poll_noop(first.as_mut()).is_pending(),
            "initializing"
        );
        let c = cell.clone();
        let other = thread::spawn(move || *block_on(c.get_or_init(|| async { 2 })));
        drop(first);
        assert_eq!(other.join().unwrap(), 2);
        assert_eq!(cell.get(), Some(&2));
    });
}

/// An unused `Permit` of a bounded channel dropped while the receiver (on another thread)
/// closes the channel and waits in `recv`, a sender staying alive: the permit's room comes
/// back first, then the receiver is woken (the other order lets the receiver look while
/// the room is still out, and then nothing wakes it), so it ends with `None`.
#[test]
fn mpsc_unused_permit_dropped_on_a_closed_channel_wakes_the_receiver() {
    model(|| {
        let (tx, mut rx) = mpsc::channel::<u8>(1);
        let permit = tx.try_reserve().unwrap();
        let receiver = thread::spawn(move || {
            rx.close();
            assert_eq!(block_on(rx.recv()), None);
        });
        drop(permit);
        receiver.join().unwrap();
        assert_eq!(tx.capacity(), 1, "the permit's room came back once");
    });
}

/// Capacity 2, one message queued: a `reserve_many(2)` on another thread queues holding
/// the one free permit as a partial grant while the receiver closes the channel and
/// drains it (a sender stays alive). The reservation fails and gives its partial grant
/// back, waking the receiver if that left the channel idle, so the receiver ends with
/// `None` after the message (a lost partial grant, or a lost wake-up, leaves the receiver
/// waiting for room that never comes).
#[test]
fn mpsc_close_returns_a_queued_reserve_many_partial_grant() {
    model(|| {
        let (tx, mut rx) = mpsc::channel::<u8>(2);
        tx.try_send(1).unwrap();
        let tx2 = tx.clone();
        let reserver = thread::spawn(move || block_on(tx2.reserve_many(2)).is_err());
        rx.close();
        assert_eq!(block_on(rx.recv()), Some(1));
        assert_eq!(block_on(rx.recv()), None);
        assert!(reserver.join().unwrap(), "reserved 2 on a closed channel");
        assert_eq!(tx.capacity(), 2, "every permit came back once");
    });
}

/// An unbounded send wakes a receiver waiting in `recv` (a sender stays alive, so only the
/// send can end the wait): the message is in the queue before the wake-up, or the woken
/// receiver finds nothing and waits for good.
#[test]
fn mpsc_unbounded_send_wakes_a_waiting_receiver() {
    model(|| {
        let (tx, mut rx) = mpsc::unbounded_channel::<u8>();
        let tx2 = tx.clone();
        let sender = thread::spawn(move || tx2.send(1).unwrap());
        assert_eq!(block_on(rx.recv()), Some(1));
        sender.join().unwrap();
        drop(tx);
    });
}

/// The unbounded receiver dropped while a message is sent: the message is dropped exactly
/// once (drained by the receiver's drop, dropped with the channel, or handed back).
#[test]
fn mpsc_unbounded_receiver_drop_racing_send() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::unbounded_channel();
        let d = drops.clone();
        let sender = thread::spawn(move || {
            let _ = tx.send(Tracked(d));
        });
        drop(rx);
        sender.join().unwrap();
        assert_eq!(
            drops.load(SeqCst),
            1,
            "the message was lost or dropped twice"
        );
    });
}

/// A watch `changed()` future woken by a send and dropped before it returned: the change
/// is not marked seen (`changed` is cancel safe), so the next `changed()` is ready at once
/// with the new value, and the dropped waiter left the list (the sender's drop afterwards
/// finds nobody to serve twice).
#[test]
fn watch_changed_dropped_as_it_is_woken() {
    model(|| {
        let (tx, mut rx) = watch::channel(0u8);
        let tx2 = tx.clone();
        {
            let mut changed = Box::pin(rx.changed());
            let _ = loom_tests::poll_noop(changed.as_mut());
            let sender = thread::spawn(move || tx2.send(1).unwrap());
            drop(changed);
            sender.join().unwrap();
        }
        assert!(
            loom_tests::poll_noop(Box::pin(rx.changed()).as_mut()).is_ready(),
            "the change was lost with the dropped future"
        );
        assert_eq!(*rx.borrow_and_update(), 1);
        drop(tx);
        assert!(block_on(rx.changed()).is_err());
    });
}
