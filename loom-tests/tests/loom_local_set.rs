//! loom models for a `LocalSet`'s remote-wake queue (`runtime::task::RemoteQueue`, the
//! shipping code through the shim): other threads push woken tasks and wake the set's
//! driver, racing the driver registering its waker and draining the queue. Each model
//! asserts that every pushed item is drained exactly once and that the driver is woken
//! for it (a lost wake-up leaves `block_on` parked forever, which loom reports as a
//! deadlock), and that pushes after `close` are refused, never lost in the queue.
//!
//! The first three drive the queue with a loop of their own (`drive`). The last two drive
//! the shipping `LocalSet` itself (`run_until`, and awaiting the set): a local task waits
//! on a oneshot whose sender runs on another model thread, so the task's wake takes the
//! remote path (`LocalSet`'s thread-local is loom's under `--cfg loom`, one per model
//! thread) and must reach the waker of the `block_on` that drives the set. They fail when
//! the set registers that waker after its tick drained the remote queue: a wake between
//! the two finds no waker (or a stale one) and `block_on` parks forever (loom: deadlock).
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 3 when unset.

#![cfg(loom)]

use std::future::poll_fn;
use std::task::Poll;

use loom::future::block_on;
use loom::thread;
use loom_tests::Item;
use runtime::sync::oneshot;
use runtime::task::{spawn_local, LocalSet, RemoteQueue};
use shim::sync::Arc;

fn model(f: impl Fn() + Sync + Send + 'static) {
    loom_tests::model(f, 3);
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

/// `LocalSet::run_until` whose future awaits a local task, which waits on a oneshot sent
/// from another thread: the task's wake is pushed onto the remote queue while the set may
/// be anywhere in its poll (registering, polling the future, ticking), and must wake the
/// `block_on` driving it.
#[test]
fn run_until_sees_a_remote_wake_of_a_local_task() {
    model(|| {
        let local = LocalSet::new();
        let (tx, rx) = oneshot::channel::<u32>();
        let sender = thread::spawn(move || tx.send(7).expect("the receiver is alive"));
        let out = block_on(local.run_until(async move {
            spawn_local(async move { rx.await.expect("sent") })
                .await
                .expect("the local task completes")
        }));
        assert_eq!(out, 7);
        sender.join().unwrap();
    });
}

/// The same wake while the set itself is awaited (`impl Future for LocalSet`): the set
/// completes once its task ran, which only the remote wake can bring about.
#[test]
fn awaited_set_sees_a_remote_wake_of_a_local_task() {
    model(|| {
        let local = LocalSet::new();
        let (tx, rx) = oneshot::channel::<u32>();
        let got = Arc::new(shim::sync::atomic::AtomicUsize::new(0));
        let got2 = got.clone();
        drop(local.spawn_local(async move {
            let v = rx.await.expect("sent");
            got2.store(v as usize, shim::sync::atomic::Ordering::Relaxed);
        }));
        let sender = thread::spawn(move || tx.send(7).expect("the receiver is alive"));
        block_on(local);
        assert_eq!(got.load(shim::sync::atomic::Ordering::Relaxed), 7);
        sender.join().unwrap();
    });
}
