//! loom models for a `LocalSet`'s remote-wake queue (`runtime::task::RemoteQueue`, the
//! shipping code through the shim): other threads push woken tasks and wake the set's
//! driver, racing the driver registering its waker and draining the queue. Each model
//! asserts that every pushed item is drained exactly once and that the driver is woken
//! for it (a lost wake-up leaves `block_on` parked forever, which loom reports as a
//! deadlock), and that pushes after `close` are refused, never lost in the queue.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 3 when unset.

#![cfg(loom)]

use std::future::poll_fn;
use std::task::Poll;

use loom::future::block_on;
use loom::thread;
use loom_tests::Item;
use runtime::task::RemoteQueue;
use shim::sync::Arc;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(3);
    builder.check(f);
}

/// The driver's loop, as `LocalSet::poll_run_until` does it: register, then drain;
/// pending only when the drain found nothing. Returns the ids drained.
fn drive(q: &RemoteQueue<Item>, n: usize) -> Vec<usize> {
    let mut seen = Vec::new();
    block_on(poll_fn(|cx| {
        q.register(cx.waker());
        while let Some(item) = q.pop() {
            assert!(
                !seen.contains(&item.id()),
                "item {} drained twice",
                item.id()
            );
            seen.push(item.id());
        }
        if seen.len() == n {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }));
    seen
}

#[test]
fn a_remote_push_wakes_the_driver() {
    model(|| {
        let q = Arc::new(RemoteQueue::<Item>::new());
        let q2 = q.clone();
        let pusher = thread::spawn(move || {
            q2.push(Item::new(0))
                .unwrap_or_else(|_| panic!("open queue refused"));
        });
        assert_eq!(drive(&q, 1), [0]);
        pusher.join().unwrap();
        assert!(q.is_empty());
    });
}

#[test]
fn two_pushers_are_both_seen() {
    model(|| {
        let q = Arc::new(RemoteQueue::<Item>::new());
        let pushers: Vec<_> = (0..2)
            .map(|i| {
                let q = q.clone();
                thread::spawn(move || {
                    q.push(Item::new(i))
                        .unwrap_or_else(|_| panic!("open queue refused"));
                })
            })
            .collect();
        let mut got = drive(&q, 2);
        got.sort_unstable();
        assert_eq!(got, [0, 1]);
        for p in pushers {
            p.join().unwrap();
        }
    });
}

#[test]
fn a_push_racing_close_is_drained_or_refused() {
    model(|| {
        let q = Arc::new(RemoteQueue::<Item>::new());
        let q2 = q.clone();
        let pusher = thread::spawn(move || q2.push(Item::new(0)).is_ok());
        // The owner's shutdown: close, then drain.
        q.close();
        let drained = std::iter::from_fn(|| q.pop()).count();
        let accepted = pusher.join().unwrap();
        assert_eq!(
            usize::from(accepted),
            drained,
            "accepted items are drained, refused ones not"
        );
        assert!(q.pop().is_none(), "nothing lands after the close-and-drain");
    });
}
