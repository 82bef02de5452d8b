//! loom suites for the locks of `runtime::sync` (the shipping code through the shim): the
//! batch semaphore under `Semaphore` / `Mutex`, `Notify`, and the cells built on them
//! (`OnceCell`, `SetOnce`).
//!
//! Each model asserts progress as well as safety: a waiter that should get a permit or a
//! wake-up is driven with `loom::future::block_on`, so a lost permit or a missed wake
//! leaves it blocked forever, which loom reports as a deadlock; the value behind a `Mutex`
//! lives in a loom-tracked cell, so a missing Acquire/Release is a reported causality
//! violation.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use std::sync::Arc;

use loom::future::block_on;
use loom::thread;
use runtime::sync::{Mutex, Notify, OnceCell, RwLock, Semaphore, SetOnce, TryAcquireError};

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound.get_or_insert(2);
    builder.check(f);
}

/// A permit handed to a queued waiter while that waiter's future is dropped goes on to the
/// next waiter, which then completes; no permit is lost or duplicated.
#[test]
fn permit_handed_to_a_dropped_waiter_goes_to_the_next() {
    model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let mut first = Box::pin(sem.clone().acquire_owned());
        assert!(loom_tests::poll_noop(first.as_mut()).is_pending());
        let mut second = Box::pin(sem.clone().acquire_owned());
        assert!(loom_tests::poll_noop(second.as_mut()).is_pending());
        let s = sem.clone();
        let releaser = thread::spawn(move || s.add_permits(1));
        drop(first);
        let permit = block_on(second).unwrap();
        releaser.join().unwrap();
        assert_eq!(sem.available_permits(), 0);
        drop(permit);
        assert_eq!(sem.available_permits(), 1);
    });
}

/// `acquire` racing `close`: the acquire always ends (never queued after the close drained
/// the queue), and with no permit ever added it fails.
#[test]
fn acquire_racing_close() {
    model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let s = sem.clone();
        let waiter = thread::spawn(move || block_on(s.acquire()).is_err());
        sem.close();
        assert!(
            waiter.join().unwrap(),
            "an acquire succeeded without permits"
        );
        assert!(sem.try_acquire().is_err());
    });
}

/// Mutex hand-over with a cancelled waiter: the holder unlocks while the first queued
/// waiter is dropped; the lock reaches the other thread, whose write the main thread sees.
#[test]
fn mutex_unlock_with_a_cancelled_waiter() {
    model(|| {
        let m = Arc::new(Mutex::new(0usize));
        let guard = m.try_lock().unwrap();
        let mut cancelled = Box::pin(m.clone().lock_owned());
        assert!(loom_tests::poll_noop(cancelled.as_mut()).is_pending());
        let m2 = m.clone();
        let other = thread::spawn(move || *block_on(m2.lock()) += 1);
        drop(guard);
        drop(cancelled);
        other.join().unwrap();
        assert_eq!(*m.try_lock().expect("the lock was left held"), 1);
    });
}

/// `try_lock` concurrently with the holder's unlock (not only after a join): if it gets the
/// lock it sees the holder's write (Acquire pairs with the unlock's Release), and either way
/// the lock is free at the end.
#[test]
fn try_lock_concurrently_with_unlock() {
    model(|| {
        let m = Arc::new(Mutex::new(0usize));
        let mut guard = m.try_lock().unwrap();
        let m2 = m.clone();
        let other = thread::spawn(move || {
            if let Ok(mut g) = m2.try_lock() {
                assert_eq!(*g, 1, "took the lock without seeing the holder's write");
                *g = 2;
            }
        });
        // Written after the spawn, so only the unlock can order it before the other
        // thread's access.
        *guard = 1;
        drop(guard);
        other.join().unwrap();
        let v = *m.try_lock().expect("the lock was left held");
        assert!(v == 1 || v == 2);
    });
}

/// `notify_one` racing `notified().enable()`: the notification is received exactly once
/// (by the enabled future, directly or as the stored permit), never lost.
#[test]
fn notify_one_racing_enable() {
    model(|| {
        let n = Arc::new(Notify::new());
        let n2 = n.clone();
        let notifier = thread::spawn(move || n2.notify_one());
        let mut f = Box::pin(n.notified());
        f.as_mut().enable();
        block_on(f);
        notifier.join().unwrap();
        // Received once: nothing is left stored.
        assert!(loom_tests::poll_noop(Box::pin(n.notified()).as_mut()).is_pending());
    });
}

/// `notify_waiters` racing a new waiter: a future created before the call is woken even if
/// it had not been polled; one created concurrently is either woken or still waits (and
/// then a `notify_one` reaches it); no permit is stored.
#[test]
fn notify_waiters_racing_a_new_waiter() {
    model(|| {
        let n = Arc::new(Notify::new());
        let before = n.notified();
        let n2 = n.clone();
        let notifier = thread::spawn(move || n2.notify_waiters());
        let mut racing = Box::pin(n.notified());
        let raced = loom_tests::poll_noop(racing.as_mut()).is_ready();
        block_on(before);
        notifier.join().unwrap();
        if !raced {
            let ready = loom_tests::poll_noop(racing.as_mut()).is_ready();
            if !ready {
                n.notify_one();
                assert!(loom_tests::poll_noop(racing.as_mut()).is_ready());
            }
        }
        assert!(loom_tests::poll_noop(Box::pin(n.notified()).as_mut()).is_pending());
    });
}

/// A `notify_one` handed to a queued future that is dropped before it returned it goes on
/// to the next queued future.
#[test]
fn notify_one_to_a_dropped_future_goes_to_the_next() {
    model(|| {
        let n = Arc::new(Notify::new());
        let mut first = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(first.as_mut()).is_pending());
        let mut second = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(second.as_mut()).is_pending());
        let n2 = n.clone();
        let notifier = thread::spawn(move || n2.notify_one());
        drop(first);
        block_on(second);
        notifier.join().unwrap();
        assert!(loom_tests::poll_noop(Box::pin(n.notified()).as_mut()).is_pending());
    });
}

/// `notify_waiters` serving two queued futures while one of them is dropped: the served
/// node is freed once (by the notifier, or by the dropped future if it left first: a
/// double free panics in the wait list), the other future completes on its handoff word,
/// and the queue ends empty (a `notify_one` afterwards is stored, so the next future is
/// ready at once).
#[test]
fn notify_waiters_serving_a_dropped_waiter() {
    model(|| {
        let n = Arc::new(Notify::new());
        let mut dropped = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(dropped.as_mut()).is_pending());
        let mut kept = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(kept.as_mut()).is_pending());
        let n2 = n.clone();
        let notifier = thread::spawn(move || n2.notify_waiters());
        drop(dropped);
        block_on(kept);
        notifier.join().unwrap();
        n.notify_one();
        assert!(loom_tests::poll_noop(Box::pin(n.notified()).as_mut()).is_ready());
    });
}

/// A queued future re-polled while `notify_one` serves it: it completes exactly once,
/// either on its handoff word (without the lock) or on a later poll after the wake-up, and
/// the notification is not also stored.
#[test]
fn notify_one_racing_a_queued_repoll() {
    model(|| {
        let n = Arc::new(Notify::new());
        let mut f = Box::pin(n.notified());
        assert!(loom_tests::poll_noop(f.as_mut()).is_pending());
        let n2 = n.clone();
        let notifier = thread::spawn(move || n2.notify_one());
        let early = loom_tests::poll_noop(f.as_mut()).is_ready();
        if !early {
            block_on(f);
        }
        notifier.join().unwrap();
        assert!(loom_tests::poll_noop(Box::pin(n.notified()).as_mut()).is_pending());
    });
}

/// A queued `acquire_many(2)` gathers permits from two concurrent releases (one may find it
/// queued, the other not yet): it completes, and the count ends right.
#[test]
fn acquire_many_gathers_permits_from_concurrent_releases() {
    model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let releasers: Vec<_> = (0..2)
            .map(|_| {
                let s = sem.clone();
                thread::spawn(move || s.add_permits(1))
            })
            .collect();
        let permit = block_on(sem.acquire_many(2)).unwrap();
        for r in releasers {
            r.join().unwrap();
        }
        assert_eq!(sem.available_permits(), 0);
        drop(permit);
        assert_eq!(sem.available_permits(), 2);
    });
}

/// Permits left over once a release has served the queue go into the count, and carry the
/// releaser's writes to whoever takes them there without the lock: W queues for 2 of a
/// 0-permit semaphore, main writes a cell and adds 3 (W gets 2 through the queue, 1 is
/// left for the count), C acquires 1 (on the lock-free path when it comes after that
/// release) and reads the cell. The leftover's CAS must be Release, or C's read races
/// main's write.
#[test]
fn permits_left_over_after_the_queue_carry_the_releasers_writes() {
    model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let cell = Arc::new(loom::cell::UnsafeCell::new(0usize));
        let waiter = {
            let (sem, cell) = (sem.clone(), cell.clone());
            thread::spawn(move || {
                let _permits = block_on(sem.acquire_many(2)).unwrap();
                // SAFETY: main wrote the cell before the release that granted these
                // permits; nobody writes it after (loom checks the ordering).
                assert_eq!(cell.with(|v| unsafe { *v }), 1);
            })
        };
        let taker = {
            let (sem, cell) = (sem.clone(), cell.clone());
            thread::spawn(move || {
                let _permit = block_on(sem.acquire()).unwrap();
                // SAFETY: as above.
                assert_eq!(cell.with(|v| unsafe { *v }), 1);
            })
        };
        // SAFETY: the other threads read the cell only after taking permits this thread
        // releases below.
        cell.with_mut(|v| unsafe { *v = 1 });
        sem.add_permits(3);
        waiter.join().unwrap();
        taker.join().unwrap();
        assert_eq!(sem.available_permits(), 3);
    });
}

/// A "closed" answer happens-after the `close` that caused it (tokio's contract: its close
/// is a Release RMW, its acquire paths and `is_closed` load with Acquire; `OnceCell` relies
/// on it). `observe` runs on another thread while main writes a cell and then closes; when
/// it answers "closed" that thread reads the cell, which loom checks against the write.
fn closed_seen_happens_after_close(observe: fn(&Semaphore) -> bool) {
    model(move || {
        let sem = Arc::new(Semaphore::new(1));
        let cell = Arc::new(loom::cell::UnsafeCell::new(0usize));
        let observer = {
            let (sem, cell) = (sem.clone(), cell.clone());
            thread::spawn(move || {
                if observe(&sem) {
                    // SAFETY: main wrote the cell before the close we saw; nobody writes it
                    // after (loom checks the ordering).
                    assert_eq!(cell.with(|v| unsafe { *v }), 1);
                }
            })
        };
        // SAFETY: the observer reads the cell only once it saw the close below.
        cell.with_mut(|v| unsafe { *v = 1 });
        sem.close();
        observer.join().unwrap();
    });
}

/// `try_acquire` failing with `Closed` happens-after the `close`. One permit is free, so
/// it gets as far as its CAS, which the close can make fail (the failure's value says
/// CLOSED).
#[test]
fn closed_error_happens_after_close() {
    closed_seen_happens_after_close(|sem| {
        matches!(sem.try_acquire(), Err(TryAcquireError::Closed))
    });
}

/// `is_closed` answering true happens-after the `close`.
#[test]
fn closed_snapshot_happens_after_close() {
    closed_seen_happens_after_close(|sem| sem.is_closed());
}

/// Two `get_or_init`s racing on an empty `OnceCell`: exactly one initializer runs and both
/// callers get its value. The loser learns the cell is set from a `get` (the flag's
/// Acquire), or from its semaphore acquire failing with `Closed` (the close happens after
/// the flag is stored, and the `Closed` answer happens after the close); either way it
/// reads the value cell, which loom checks against the winner's write.
#[test]
fn once_cell_get_or_init_racing() {
    model(|| {
        let cell = Arc::new(OnceCell::new());
        let c = cell.clone();
        let other = thread::spawn(move || *block_on(c.get_or_init(|| async { 1u8 })));
        let mine = *block_on(cell.get_or_init(|| async { 2u8 }));
        let theirs = other.join().unwrap();
        assert_eq!(mine, theirs, "both callers get the one value");
        assert_eq!(cell.get(), Some(&mine));
    });
}

/// A writer waiting behind a reader gets the lock when the reader leaves, while a new
/// reader arrives concurrently: the writer completes, and the reader sees either the old
/// value or the writer's (never a torn or racing access).
#[test]
fn rwlock_writer_behind_a_leaving_reader() {
    model(|| {
        let lock = Arc::new(RwLock::with_max_readers(0usize, 2));
        let reader = lock.clone().try_read_owned().unwrap();
        let l2 = lock.clone();
        let writer = thread::spawn(move || *block_on(l2.write()) = 1);
        drop(reader);
        let seen = *block_on(lock.read());
        assert!(seen == 0 || seen == 1);
        writer.join().unwrap();
        assert_eq!(*lock.try_read().expect("the write lock was left held"), 1);
    });
}

/// Three threads contend for a mutex through `lock().await` (queueing, hand-over, wake):
/// every increment lands, none races (the cell is loom-tracked).
#[test]
fn mutex_three_way_contention() {
    model(|| {
        let m = Arc::new(Mutex::new(0usize));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let m = m.clone();
                thread::spawn(move || *block_on(m.lock()) += 1)
            })
            .collect();
        *block_on(m.lock()) += 1;
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*m.try_lock().expect("the lock was left held"), 3);
    });
}

/// A `SetOnce::wait` racing the `set`: the waiter always completes with the value (a set
/// landing between its look and its registration is seen by its second look; one after
/// the registration wakes it), and the value it reads is the one written (the cell is
/// loom-tracked: a missing Release/Acquire is a causality violation).
#[test]
fn set_once_wait_racing_set() {
    model(|| {
        let cell = Arc::new(SetOnce::new());
        let c = cell.clone();
        let setter = thread::spawn(move || c.set(7u32).unwrap());
        assert_eq!(*block_on(cell.wait()), 7);
        setter.join().unwrap();
    });
}

/// Two `set`s racing: exactly one succeeds, and the one that fails already sees the
/// winner's value (a failed `set` returns only once the value is readable).
#[test]
fn set_once_two_sets_racing() {
    model(|| {
        let cell = Arc::new(SetOnce::new());
        let c = cell.clone();
        let other = thread::spawn(move || match c.set(1u32) {
            Ok(()) => true,
            Err(_) => {
                assert_eq!(c.get(), Some(&2), "a failed set sees the winner");
                false
            }
        });
        let mine = match cell.set(2u32) {
            Ok(()) => true,
            Err(_) => {
                assert_eq!(cell.get(), Some(&1), "a failed set sees the winner");
                false
            }
        };
        let theirs = other.join().unwrap();
        assert!(mine != theirs, "exactly one set succeeds");
    });
}

/// One release serves every waiter it has permits for (`add_permits(2)` to two queued
/// one-permit acquires, as a write unlock serves the readers behind it), so the
/// semaphore's wake set holds two wakers, one past its inline slot: both waiters, each in
/// its own thread and queued at any point before or after the release, complete (a waker
/// dropped unwoken leaves its waiter blocked, which loom reports as a deadlock), and the
/// permits all come back.
#[test]
fn one_release_wakes_every_waiter_it_serves() {
    model(|| {
        let sem = Arc::new(Semaphore::new(0));
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let s = sem.clone();
                thread::spawn(move || block_on(s.acquire()).unwrap().forget())
            })
            .collect();
        sem.add_permits(2);
        for w in waiters {
            w.join().unwrap();
        }
        assert_eq!(sem.available_permits(), 0);
    });
}
