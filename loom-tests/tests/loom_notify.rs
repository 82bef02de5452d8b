//! loom suite for `runtime::sync::Notify`'s less-used paths (the shipping code through the
//! shim, its waiter list behind the shim's `SpinMutex`): a `notify_last` handed to a queued
//! future that is then dropped, the last queued future leaving unserved while a
//! notification comes, and `notify_waiters`' walk of the queue racing a drop.
//!
//! The contract (tokio's): a single notification (`notify_one`, `notify_last`) given to a
//! future that is dropped before it returned it is not lost: it goes on to another queued
//! future, or is stored as the permit when none is queued. And the state word agrees with
//! the queue: WAITING exactly while a future is queued, so a notification sent once the
//! queue is empty is stored (a WAITING word over an empty queue makes `notify_one` look
//! for a waiter that is not there, a panic in the shipping code).
//!
//! Progress: the waits are `block_on`s, so a lost notification is a reported deadlock; a
//! stored permit is checked by polling a fresh future once after the threads are joined.
//! The FIFO cases (`notify_one` to a dropped future, `notify_waiters` serving one) are in
//! `loom_sync_locks`.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use loom::future::block_on;
use loom::thread;
use runtime::sync::Notify;
use shim::sync::Arc;

/// Runs `f` under loom at `LOOM_MAX_PREEMPTIONS` (2 when unset) and prints how many
/// executions it explored (run with `--nocapture` to see it).
fn model(f: impl Fn() + Sync + Send + 'static) {
    loom_tests::model(f, 2);
}

/// True when a fresh future is ready at once: a permit was stored (and is consumed now).
fn permit_stored(n: &Notify) -> bool {
    loom_tests::poll_noop(Box::pin(n.notified()).as_mut()).is_ready()
}

/// Two queued futures; `notify_last` (on another thread) goes to the newer one, which is
/// dropped meanwhile: the notification passes on to the older one, which completes, and
/// nothing is left stored.
#[test]
fn notify_last_to_a_dropped_future_goes_to_the_other() {
    model(|| {
        let n = Arc::new(Notify::new());
        let mut older = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(older.as_mut()).is_pending());
        let mut newer = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(newer.as_mut()).is_pending());
        let n2 = n.clone();
        let notifier = thread::spawn(move || n2.notify_last());
        drop(newer);
        block_on(older);
        notifier.join().unwrap();
        assert!(!permit_stored(&n), "one notification, received twice");
    });
}

/// One queued future; `notify_last` (on another thread) races its drop: the notification
/// is stored (the future had left) or handed to the future and, never returned, stored by
/// its drop. Either way the next future is ready at once, and only one is.
#[test]
fn notify_last_to_a_dropped_last_future_is_stored() {
    model(|| {
        let n = Arc::new(Notify::new());
        let mut only = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(only.as_mut()).is_pending());
        let n2 = n.clone();
        let notifier = thread::spawn(move || n2.notify_last());
        drop(only);
        notifier.join().unwrap();
        assert!(
            permit_stored(&n),
            "the notification was lost with the dropped future"
        );
        assert!(!permit_stored(&n), "one notification, stored twice");
    });
}

/// The one queued future leaves unserved (dropped) while `notify_one` comes from another
/// thread: whichever is first, the word ends agreeing with the queue. The notification is
/// stored (the queue was empty, or the future got it and passed it on); a second
/// `notify_one` afterwards finds no waiter and stores nothing more.
#[test]
fn last_waiter_leaving_unserved_empties_the_state() {
    model(|| {
        let n = Arc::new(Notify::new());
        let mut only = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(only.as_mut()).is_pending());
        let n2 = n.clone();
        let notifier = thread::spawn(move || n2.notify_one());
        drop(only);
        notifier.join().unwrap();
        n.notify_one();
        assert!(permit_stored(&n), "the notification was lost");
        assert!(!permit_stored(&n), "more than one permit stored");
    });
}

/// `notify_waiters` walks three queued futures (one walk down the links, each node freed
/// as it is served) while the middle one is dropped: the dropped one leaves its node
/// itself or finds it served (a double free panics in the wait list), the other two
/// complete on their handoff words, and the queue is whole afterwards: two new futures
/// queue and `notify_one` serves the older (a stale tail or head left by the walk loses
/// it: a reported deadlock, or a panic on a freed key), the younger staying queued.
#[test]
fn notify_waiters_walk_leaves_the_queue_whole() {
    model(|| {
        let n = Arc::new(Notify::new());
        let mut first = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(first.as_mut()).is_pending());
        let mut middle = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(middle.as_mut()).is_pending());
        let mut last = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(last.as_mut()).is_pending());
        let n2 = n.clone();
        let notifier = thread::spawn(move || n2.notify_waiters());
        drop(middle);
        block_on(first);
        block_on(last);
        notifier.join().unwrap();
        let mut older = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(older.as_mut()).is_pending());
        let mut younger = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(younger.as_mut()).is_pending());
        n.notify_one();
        block_on(older);
        assert!(loom_tests::poll_noop(younger.as_mut()).is_pending());
        drop(younger);
        assert!(
            !permit_stored(&n),
            "a permit was stored with a waiter queued"
        );
    });
}
