//! loom models of the timer driver's protocol (`io_driver`'s `shards.rs`, `TimerShards`,
//! and `timer.rs`'s `Entry`, exported to loom builds only as `LoomTimerShards` and
//! `LoomTimerEntry`): the wheels' mutexes and the published sleep deadline are loom's, and
//! a model plays the driver (`arm`, `fire`, `shutdown`, as `Driver::park` and
//! `Driver::shutdown` call them) and a `Timer` (an `Entry`'s polls, resets, cancel) in
//! wheel milliseconds, with a clock of its own (a loom atomic the driver advances before it
//! fires; a poll's `reached` is that clock against the entry's deadline). Wall time and
//! epoll stay outside (`driver.rs`).
//!
//! - `insert_racing_the_driver_arming`: a first poll inserts a timer while the driver
//!   publishes its limit and reads the shards' bounds without their mutexes: either the
//!   driver sleeps no later than the timer, or the insert asks for an unpark. Fails when
//!   either side's `SeqCst` fence is removed, or when the driver publishes its limit after
//!   reading the bounds ("sleeps until ... past a timer").
//! - `inserts_into_one_shard_racing_the_driver_arming`: two first polls into one shard
//!   race the arming; the second may find the bound already lowered and store nothing,
//!   and is still covered (by the first inserter's fence, which its mutex hold follows).
//! - `inserts_behind_a_cascade_racing_the_driver_arming`: the same with deadlines in the
//!   wheel's second level, where the bound (the slot's cascade time) is earlier than the
//!   deadline: fails when an insert compares its deadline instead of the new bound with
//!   the driver's limit.
//! - `reset_racing_a_fire`: a timer due at 5 is reset to 8 while the driver's turn to 5
//!   fires. Either the fire came first (the old waker is woken, the reset re-arms the fired
//!   entry) or the reset did (the turn finds nothing due); in both, no poll completes it
//!   before 8, and the turn to 8 fires it exactly once.
//! - `reset_racing_a_cascade`: a timer due at 70 (the wheel's second level) is reset to 66
//!   while the driver's turn to 70 cascades and fires in batches of one entry, releasing
//!   the mutex in between: the timer completes once, never before its deadline, and the
//!   turn to 70 does not lose it.
//! - `reset_earlier_racing_a_turn`: a timer due at 20 is reset to 5 while the driver's turn
//!   to 10 runs: that turn fires it, or (when it passed the shard before the reset) the
//!   next turn to 10 does. The shard's next-expiration hint must follow the reset, or
//!   every turn before 20 skips the shard.
//! - `reset_of_a_fired_timer_racing_the_driver_parking`: a timer due at 5 is reset to 8,
//!   with no poll in between, while the driver's turn to 5 fires it and the driver parks
//!   (`arm`): the reset moves the pending entry or re-arms the fired one, and either way
//!   the driver sleeps no later than 8 or the reset asks for an unpark; the turn to 8 then
//!   fires it once. Fails when a reset that re-arms a fired entry does not ask for the
//!   unpark (the parked driver read the shard's bound after the turn, `u64::MAX`, and
//!   sleeps on past the new deadline).
//! - `first_poll_racing_shutdown`: a timer's first poll races the driver's shutdown: it
//!   fails with the shutdown error, or it waits and the shutdown wakes it.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use std::sync::Arc as StdArc;
use std::task::{Poll, Wake, Waker};

use io_driver::loom_internals::{TimerEntry as Entry, TimerShards as Shards};
use io_driver::TimerShutdown;
use loom::thread;
use shim::sync::atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst};
use shim::sync::Arc;

fn model(f: impl Fn() + Sync + Send + 'static) {
    loom_tests::model(f, 2);
}

/// A waker that counts its wake-ups.
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: StdArc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

impl Count {
    fn get(&self) -> usize {
        self.0.load(SeqCst)
    }
}

fn counting_waker() -> (StdArc<Count>, Waker) {
    let count = StdArc::new(Count(AtomicUsize::new(0)));
    (count.clone(), Waker::from(count))
}

fn wake_list(list: &mut Vec<Waker>) {
    list.drain(..).for_each(Waker::wake);
}

/// The driver's turn to `now`: the clock moves, then every wheel fires what is due.
fn turn(timers: &Shards, clock: &AtomicU64, now: u64) {
    clock.store(now, SeqCst);
    timers.fire(|| now, &mut Vec::new(), wake_list);
}

/// A poll of a timer due at `deadline` at the model's clock (shard 0, never shut down).
fn poll(
    entry: &mut Entry,
    timers: &Shards,
    clock: &AtomicU64,
    deadline: u64,
    waker: &Waker,
) -> (Poll<Result<(), TimerShutdown>>, bool) {
    let reached = clock.load(SeqCst) >= deadline;
    entry.poll(timers, reached, || false, || 0, waker)
}

/// The driver arms (sleeping until wheel time `limit` at the latest) while the timers due at
/// `deadlines` are first polled on threads of their own, each in the shard `shards` names
/// (of 2). Every timer must be covered: the driver sleeps no later than its deadline, or
/// some insert asked for an unpark (the driver then re-arms and sees them all).
fn inserts_racing_the_driver_arming(
    limit: u64,
    deadlines: &'static [u64],
    shards: &'static [usize],
) {
    model(move || {
        let timers = Arc::new(Shards::new(2, 1));
        let inserters: Vec<_> = deadlines
            .iter()
            .zip(shards)
            .skip(1)
            .map(|(&when, &shard)| {
                let timers = timers.clone();
                thread::spawn(move || {
                    let mut entry = Entry::new(when);
                    let (_count, waker) = counting_waker();
                    let (res, unpark) = entry.poll(&timers, false, || false, || shard, &waker);
                    assert!(res.is_pending());
                    (entry, unpark)
                })
            })
            .collect();
        let driver = {
            let timers = timers.clone();
            thread::spawn(move || timers.arm(limit))
        };
        let mut first = Entry::new(deadlines[0]);
        let (_count, waker) = counting_waker();
        let (res, unpark) = first.poll(&timers, false, || false, || shards[0], &waker);
        assert!(res.is_pending());
        let mut entries = vec![(first, unpark)];
        entries.extend(inserters.into_iter().map(|t| t.join().unwrap()));
        let until = driver.join().unwrap();
        let unparked = entries.iter().any(|(_, unpark)| *unpark);
        for &when in deadlines {
            assert!(
                until <= when || unparked,
                "the driver sleeps until {until}, past a timer due at {when}, and nobody \
                 unparks it"
            );
        }
        for (mut entry, _) in entries {
            entry.cancel(&timers);
        }
    });
}

#[test]
fn insert_racing_the_driver_arming() {
    inserts_racing_the_driver_arming(100, &[5], &[1]);
}

#[test]
fn inserts_into_one_shard_racing_the_driver_arming() {
    // The second insert finds the bound already at 5 or lower and stores nothing: the
    // first inserter's fence covers it.
    inserts_racing_the_driver_arming(100, &[5, 7], &[1, 1]);
}

#[test]
fn inserts_behind_a_cascade_racing_the_driver_arming() {
    // Timers due at 70 and 66 sit in the wheel's second level, whose slot starts at 64:
    // the bound drops to 64. With the driver's limit at 68, the first insert must unpark
    // it for the bound (64), not for its own deadline (70): the second (66) stores
    // nothing and relies on the driver waking by 64.
    inserts_racing_the_driver_arming(68, &[70, 66], &[1, 1]);
}

/// A timer due at `when`, polled once, is reset to `reset_to` while the driver's turn to
/// `now` runs; then polled. Checks: never complete before the deadline, fired at most
/// once, the turn to `now` fires it if due by then (`same_turn`; else that turn or the
/// next one to `now`: a reset after the turn passed the shard waits for the next), else
/// the turn to its deadline does; it completes.
fn reset_racing_a_turn(when: u64, reset_to: u64, now: u64, same_turn: bool) {
    model(move || {
        let timers = Arc::new(Shards::new(1, 1));
        let clock = Arc::new(AtomicU64::new(0));
        let mut entry = Entry::new(when);
        let (old, old_waker) = counting_waker();
        assert!(poll(&mut entry, &timers, &clock, when, &old_waker)
            .0
            .is_pending());
        let driver = {
            let (timers, clock) = (timers.clone(), clock.clone());
            thread::spawn(move || turn(&timers, &clock, now))
        };
        entry.reset(&timers, reset_to);
        let (new, new_waker) = counting_waker();
        let reached = clock.load(SeqCst) >= reset_to;
        let (res, _) = entry.poll(&timers, reached, || false, || 0, &new_waker);
        match res {
            // The clock read after the completion: the driver moves it before it fires.
            Poll::Ready(Ok(())) => assert!(
                clock.load(SeqCst) >= reset_to,
                "a timer reset to {reset_to} completed before it (a stale fire of {when})"
            ),
            Poll::Ready(Err(e)) => panic!("no shutdown happened: {e}"),
            Poll::Pending => {}
        }
        driver.join().unwrap();
        assert!(
            old.get() <= 1,
            "the old waker was woken {} times",
            old.get()
        );
        if res.is_pending() {
            if reset_to <= now {
                if new.get() == 0 && !same_turn {
                    // The turn passed the shard before the reset lowered its hint: the
                    // next turn fires it.
                    turn(&timers, &clock, now);
                }
                assert_eq!(
                    new.get(),
                    1,
                    "the turn to {now} did not fire the timer due at {reset_to} once"
                );
            } else {
                assert_eq!(new.get(), 0, "fired before its deadline {reset_to}");
                turn(&timers, &clock, reset_to);
                assert_eq!(new.get(), 1, "the turn to {reset_to} did not fire it once");
            }
            let (res, _) = poll(&mut entry, &timers, &clock, reset_to, &new_waker);
            assert_eq!(res, Poll::Ready(Ok(())), "a fired timer did not complete");
        }
        turn(&timers, &clock, reset_to.max(now) + 1);
        assert!(new.get() <= 1, "fired twice");
        assert_eq!(timers.entries(), 0, "a completed timer left its entry");
    });
}

#[test]
fn reset_racing_a_fire() {
    reset_racing_a_turn(5, 8, 5, true);
}

#[test]
fn reset_racing_a_cascade() {
    reset_racing_a_turn(70, 66, 70, true);
}

#[test]
fn reset_earlier_racing_a_turn() {
    reset_racing_a_turn(20, 5, 10, false);
}

#[test]
fn first_poll_racing_shutdown() {
    model(|| {
        let timers = Arc::new(Shards::new(1, 1));
        let driver = {
            let timers = timers.clone();
            thread::spawn(move || timers.shutdown(&mut Vec::new(), wake_list))
        };
        let mut entry = Entry::new(5);
        let (count, waker) = counting_waker();
        let (res, _) = entry.poll(&timers, false, || false, || 0, &waker);
        driver.join().unwrap();
        match res {
            Poll::Ready(Err(TimerShutdown)) => {}
            Poll::Pending => {
                assert_eq!(count.get(), 1, "a timer waiting at shutdown was not woken");
                let (res, _) = entry.poll(&timers, false, || false, || 0, &waker);
                assert_eq!(res, Poll::Ready(Err(TimerShutdown)));
            }
            other => panic!("a timer due at 5 polled at 0 before shutdown: {other:?}"),
        }
        assert_eq!(timers.entries(), 0);
    });
}

/// A timer due at 5 is reset to 8 by its task, without a poll in between, while the driver's
/// turn to 5 fires it and the driver then parks (`arm`, no limit of its own): the reset
/// moves a pending entry, or re-arms one the turn already fired. Either the driver sleeps
/// no later than 8, or the reset asks for an unpark (`Timer::reset` then unparks it); and
/// the turn to 8 fires the timer once. A reset that re-arms a fired entry must tell a driver
/// that already read the shard's bound (`u64::MAX` once the turn fired everything).
#[test]
fn reset_of_a_fired_timer_racing_the_driver_parking() {
    model(|| {
        let timers = Arc::new(Shards::new(1, 1));
        let clock = Arc::new(AtomicU64::new(0));
        let mut entry = Entry::new(5);
        let (old, old_waker) = counting_waker();
        assert!(poll(&mut entry, &timers, &clock, 5, &old_waker)
            .0
            .is_pending());
        let driver = {
            let (timers, clock) = (timers.clone(), clock.clone());
            thread::spawn(move || {
                turn(&timers, &clock, 5);
                timers.arm(u64::MAX)
            })
        };
        let unpark = entry.reset(&timers, 8);
        let until = driver.join().unwrap();
        assert!(
            until <= 8 || unpark,
            "the driver sleeps until {until}, past the timer reset to 8, and nobody unparks it"
        );
        timers.disarm();
        assert!(
            old.get() <= 1,
            "the old waker was woken {} times",
            old.get()
        );
        let (new, new_waker) = counting_waker();
        assert!(
            poll(&mut entry, &timers, &clock, 8, &new_waker)
                .0
                .is_pending(),
            "a timer reset to 8 completed at 5"
        );
        turn(&timers, &clock, 8);
        assert_eq!(
            new.get(),
            1,
            "the turn to 8 did not fire the re-armed timer once"
        );
        let (res, _) = poll(&mut entry, &timers, &clock, 8, &new_waker);
        assert_eq!(res, Poll::Ready(Ok(())), "a fired timer did not complete");
        assert_eq!(timers.entries(), 0, "a completed timer left its entry");
    });
}
