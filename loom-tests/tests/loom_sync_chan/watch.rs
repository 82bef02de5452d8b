//! `watch`. `changed()` racing `send` and the sender's drop (the receiver ends having seen
//! the last value), and woken by a send while the sender stays alive. Happens-after: a
//! receiver told of a new version (`changed()`, `has_changed()`) sees what the sender wrote
//! before the `send`; a sender told every receiver is gone (`closed()`, `is_closed()`)
//! sees what the receiver wrote before its drop; a receiver told every sender is gone
//! (`is_closed`) sees what each wrote before its drop. (`Sender::closed()` racing the
//! receiver's drop is also waited on in `mpsc::senders_closed_racing_receiver_drop`.)

use loom::future::block_on;
use loom::thread;
use runtime::sync::watch;
use shim::sync::Arc;

use super::{model, read_cell, write_cell};

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
