//! Runtime shutdown (`close_and_shutdown_all`) racing the task: a wake (by value, or by
//! reference then a drop), a running poll, a poll and a by-value wake at once (three
//! parties on the state word), a spawn and its run, the first park's bind (late binding:
//! bound before the close, or refused by the closed list and cancelled by its poller), and
//! a wake, run and park that restore the state word between shutdown's load and its CAS
//! (ABA). The future is dropped exactly once, the JoinHandle reports cancellation (or the
//! output of a task that completed first), the owned list ends empty; a spawn refused by
//! the closed list happens-after the close.

use std::future::{poll_fn, Future};
use std::task::Poll;

use loom::thread;
use shim::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use shim::sync::Arc;
use task::{JoinHandle, Schedule};

use super::{counter, join_now, model, slot, take, InPoll, Sched, Slot, Track};

/// A future that stores its waker on the first poll and stays Pending forever.
fn pending_forever(
    in_poll: &Arc<AtomicBool>,
    drops: &Arc<AtomicUsize>,
    slot: &Slot,
    self_wake_once: bool,
) -> impl Future<Output = ()> + Send + 'static {
    let (in_poll, slot) = (in_poll.clone(), slot.clone());
    let track = Track(drops.clone());
    let mut polls = 0;
    poll_fn(move |cx| {
        let _track = &track;
        let _g = InPoll::enter(&in_poll);
        polls += 1;
        if polls == 1 {
            *slot.lock() = Some(cx.waker().clone());
            if self_wake_once {
                cx.waker().wake_by_ref();
            }
        }
        Poll::Pending
    })
}

fn expect_cancelled(join: JoinHandle<()>) {
    match join_now(join) {
        Err(e) => assert!(e.is_cancelled(), "{e:?}"),
        Ok(()) => panic!("a pending-forever task completed"),
    }
}

/// Late binding: B spawns a task (unbound: only queued, not in the list) and runs the
/// queue while main closes the list. The future never completes by itself, so only
/// cancellation ends it: its first park binds it before the close (then shutdown cancels
/// it, after its poll if it is running), or finds the list closed (its poller cancels
/// it), or it is still queued at teardown (dropping its `Notified` cancels it). Either
/// way: dropped exactly once, JoinHandle cancelled, list empty.
/// (Seeding `OwnedTasks::bind` to ignore `closed` fails this test.)
#[test]
fn first_park_racing_shutdown() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let th = {
            let sched = sched.clone();
            let fut = pending_forever(&in_poll, &drops, &slot, false);
            thread::spawn(move || {
                let join = sched.spawn(fut);
                sched.run_all();
                join
            })
        };
        sched.shutdown();
        let join = th.join().unwrap();
        // Main runs what B left queued: its first park finds the list closed. No second
        // `close_and_shutdown_all` before the checks (teardown has one), so a task bound
        // after the close would stay pending here.
        sched.run_all();
        drop(slot.lock().take());
        expect_cancelled(join);
        assert!(
            sched.0.owned.is_empty(),
            "a task bound after the list closed"
        );
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
        sched.teardown();
    });
}

/// Shutdown on main races a wake from B (by value, or by reference then drop): the future
/// is dropped exactly once, the JoinHandle reports cancellation, the queue's reference (if
/// the wake made one) is dropped without a poll or runs into a complete task.
fn shutdown_racing_wake(by_val: bool) {
    model(move || {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let join = sched.spawn(pending_forever(&in_poll, &drops, &slot, false));
        assert!(sched.tick());
        let waker = take(&slot);

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                if by_val {
                    waker.wake();
                } else {
                    waker.wake_by_ref();
                    drop(waker);
                }
                sched.run_all();
            })
        };
        sched.shutdown();
        th.join().unwrap();
        sched.run_all();

        expect_cancelled(join);
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

#[test]
fn shutdown_racing_wake_by_val() {
    shutdown_racing_wake(true);
}

#[test]
fn shutdown_racing_wake_by_ref() {
    shutdown_racing_wake(false);
}

/// Shutdown on main races B running the task (two polls: it yields once): the future is
/// dropped exactly once, by shutdown when idle or by the poller after a poll, and the
/// JoinHandle reports cancellation.
#[test]
fn shutdown_racing_poll() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let join = sched.spawn(pending_forever(&in_poll, &drops, &slot, true));

        let th = {
            let sched = sched.clone();
            thread::spawn(move || sched.run_all())
        };
        sched.shutdown();
        th.join().unwrap();
        sched.run_all();
        drop(slot.lock().take());

        expect_cancelled(join);
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

/// Shutdown on main races B running the task while C wakes it by value: three parties on
/// the state word at once.
#[test]
fn shutdown_racing_poll_and_wake() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let join = sched.spawn(pending_forever(&in_poll, &drops, &slot, false));
        assert!(sched.tick());
        let waker = take(&slot);
        // Queue it again so B has a poll to run.
        waker.wake_by_ref();

        let b = {
            let sched = sched.clone();
            thread::spawn(move || sched.run_all())
        };
        let c = thread::spawn(move || waker.wake());
        sched.shutdown();
        b.join().unwrap();
        c.join().unwrap();
        sched.run_all();
        drop(slot.lock().take());

        expect_cancelled(join);
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

/// B spawns a task and runs it while main closes the list: the spawn is refused by the
/// closed list (cancelled on the spot), or the task completes in its one poll, or it is
/// still queued at teardown (cancelled by the drain). Either way it is dropped exactly once.
#[test]
fn spawn_racing_shutdown() {
    model(|| {
        let sched = Sched::new();
        let drops = counter();
        let th = {
            let (sched, drops) = (sched.clone(), drops.clone());
            thread::spawn(move || {
                let track = Track(drops);
                let join = sched.spawn(async move {
                    drop(track);
                });
                sched.run_all();
                join
            })
        };
        sched.shutdown();
        let join = th.join().unwrap();
        sched.run_all();
        match join_now(join) {
            Ok(()) => {}
            Err(e) => assert!(e.is_cancelled()),
        }
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1);
    });
}

/// Shutdown's CAS succeeds on a word equal to the one it loaded, but restored in between
/// by B (ABA): B's wake by reference adds NOTIFIED and a reference, B's run takes RUNNING
/// and clears NOTIFIED, B's poll changes the future, and B's park drops RUNNING and the
/// reference again. Shutdown then takes RUNNING and drops the future, so its CAS itself
/// must acquire B's park (the state CAS's AcqRel on success; the earlier Acquire load read
/// the word from before B's run): with Release only on success, the future's drop races
/// B's poll. B keeps its waker until after the join, so the word comes back exactly.
#[test]
fn shutdown_racing_wake_and_poll_restoring_the_word() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let drops = counter();
        let slot = slot();
        let join = sched.spawn(pending_forever(&in_poll, &drops, &slot, false));
        assert!(sched.tick());
        let waker = take(&slot);

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                waker.wake_by_ref();
                sched.run_all();
                waker
            })
        };
        sched.shutdown();
        drop(th.join().unwrap());
        sched.run_all();

        expect_cancelled(join);
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

/// A spawn the closed list refuses (`OwnedTasks::spawn` cancels the task on the spot and
/// hands back no `Notified`) happens-after the close, as a spawn refused under a shard
/// lock would (tokio's contract): the spawner sees what the closing thread wrote before
/// it closed the list. `is_closed`'s Acquire pairs with `close`'s Release store; with
/// either Relaxed, the read below races the write.
#[test]
fn spawn_refused_by_closed_list_happens_after_close() {
    model(|| {
        let sched = Sched::new();
        let before_close = Arc::new(loom::cell::UnsafeCell::new(0usize));
        let th = {
            let (sched, before_close) = (sched.clone(), before_close.clone());
            thread::spawn(move || {
                let (join, notified) = sched.0.owned.spawn(async {}, task::SpawnMeta::NONE);
                match notified {
                    Some(task) => sched.schedule(task),
                    None => {
                        // SAFETY: the closer wrote the cell before closing the list and
                        // never touches it again; this read is ordered after that write
                        // exactly when the refusal happens-after the close (loom checks).
                        let seen = before_close.with(|v| unsafe { *v });
                        assert_eq!(seen, 1, "a refused spawn did not see the closer's write");
                    }
                }
                join
            })
        };
        // SAFETY: B reads the cell only after its spawn was refused, i.e. after the close
        // below; nothing else touches it.
        before_close.with_mut(|v| unsafe { *v = 1 });
        sched.shutdown();
        let join = th.join().unwrap();
        sched.run_all();
        match join_now(join) {
            Ok(()) => {}
            Err(e) => assert!(e.is_cancelled(), "{e:?}"),
        }
        sched.teardown();
    });
}
