//! loom models of the I/O driver's wake-ups of a resource's waiters (`io_driver`'s
//! `readiness.rs` and the waiter lists of `waiters.rs`, through `LoomScheduledIo`, exported
//! to loom builds only): the readiness word and the entry's mutex are loom's; a model plays
//! the driver by calling its dispatch and shutdown (epoll has no loom build).
//!
//! - `shutdown_wakes_every_waiter`: three tasks wait (one reader inline, a second reader
//!   on the overflow list, a writer) while the driver shuts down: each poll fails with the
//!   shutdown error or its task is woken by the shutdown.
//! - `compaction_hands_back_the_waiters_it_forgets`: tasks register on one direction
//!   until the overflow list compacts twice (its mark is 2 under loom: `COMPACT_MIN`) while
//!   the driver dispatches an event: every task is woken, by a compaction's hand-back or by
//!   the event. A compaction that forgets a waiter without handing it back to be woken, or
//!   a poll that drops what was handed back, strands that task.
//! - `returning_suspects_stay_through_the_next_compaction`: six readers wait, and after
//!   each new one every task a compaction woke polls again, as a woken task does, while the
//!   driver dispatches an event: the first compaction's suspects return (they go back to
//!   the live list) before the second compaction, whose suspects return too. Every task
//!   still pending after its last poll is woken after it. A return that takes the task off
//!   the suspects without listing it again loses it: no compaction wakes it (it is no
//!   suspect) and the event does not find it.
//! - `returning_writers_stay_through_the_next_compaction`: the same with six writers and
//!   a writable event (the write side has an overflow list of its own, and the entry's
//!   `Waiters::register` hands back its compactions through a match arm of its own).
//! - `poll_io_racing_an_event`: a resource's I/O attempt (`poll_io`, the loop
//!   `Registration::poll_io` runs) meets `WouldBlock` while the data arrives and the driver
//!   dispatches the event: the attempt returns the data, or waits with its waker
//!   registered and is woken. A loop that returns `Pending` after its clear without
//!   polling again (so without registering) strands the task: the kernel's edge will not
//!   come again.
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};

use io_driver::loom_internals::ScheduledIo as LoomScheduledIo;
use io_driver::{Direction, Ready};
use loom::thread;
use shim::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use shim::sync::{Arc, Mutex};

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

fn counting_waker() -> (StdArc<Count>, Waker) {
    let count = StdArc::new(Count(AtomicUsize::new(0)));
    (count.clone(), Waker::from(count))
}

#[test]
fn shutdown_wakes_every_waiter() {
    model(|| {
        let io = Arc::new(LoomScheduledIo::new());
        let shutter = {
            let io = io.clone();
            thread::spawn(move || {
                let mut out = Vec::new();
                io.shutdown(&mut out);
                out.into_iter().for_each(Waker::wake);
            })
        };
        let tasks = [Direction::Read, Direction::Read, Direction::Write].map(|dir| {
            let (count, waker) = counting_waker();
            let res = io.poll_ready(&mut Context::from_waker(&waker), dir);
            (dir, count, res)
        });
        shutter.join().unwrap();
        for (i, (dir, count, res)) in tasks.iter().enumerate() {
            match res {
                Poll::Ready(Err(_)) => {}
                Poll::Pending => assert!(
                    count.0.load(SeqCst) >= 1,
                    "waiter {i} ({dir:?}) was pending at shutdown and never woken"
                ),
                Poll::Ready(Ok(ev)) => panic!("no event was dispatched: {ev:?}"),
            }
        }
    });
}

#[test]
fn compaction_hands_back_the_waiters_it_forgets() {
    model(|| {
        let io = Arc::new(LoomScheduledIo::new());
        let gen = io.generation();
        // Six tasks wait to read: one inline, the rest on the overflow list, which
        // compacts at the fourth and the sixth.
        let (counts, wakers): (Vec<_>, Vec<_>) = (0..6).map(|_| counting_waker()).unzip();
        let driver = {
            let io = io.clone();
            thread::spawn(move || {
                let mut out = Vec::new();
                io.dispatch(gen, 1, Ready::READABLE, &mut out);
                out.into_iter().for_each(Waker::wake);
            })
        };
        let ready: Vec<bool> = wakers
            .iter()
            .map(|w| {
                io.poll_ready(&mut Context::from_waker(w), Direction::Read)
                    .is_ready()
            })
            .collect();
        driver.join().unwrap();
        for (i, count) in counts.iter().enumerate() {
            assert!(
                ready[i] || count.0.load(SeqCst) >= 1,
                "waiter {i} is pending and was never woken (lost by the waiter list)"
            );
        }
    });
}

/// One task's polls: its waker, its wake-up count, and that count as it stood when its last
/// poll returned `Pending` (`None`: its last poll was ready, or it never polled).
struct Task {
    count: StdArc<Count>,
    waker: Waker,
    pending_at: Option<usize>,
}

impl Task {
    fn poll(&mut self, io: &LoomScheduledIo, dir: Direction) {
        let before = self.count.0.load(SeqCst);
        let res = io.poll_ready(&mut Context::from_waker(&self.waker), dir);
        self.pending_at = res.is_pending().then_some(before);
    }

    /// Woken since its last pending poll: it runs (polls) again.
    fn woken(&self) -> bool {
        self.pending_at
            .is_some_and(|at| self.count.0.load(SeqCst) > at)
    }
}

/// Six tasks wait on `dir` (an event of `ready` ends the wait); after each new waiter,
/// every task woken since its last poll polls again; all of it races the event. Each task
/// still pending after its last poll is woken after it.
fn returning_suspects(dir: Direction, ready: Ready) {
    model(move || {
        let io = Arc::new(LoomScheduledIo::new());
        let gen = io.generation();
        let driver = {
            let io = io.clone();
            thread::spawn(move || {
                let mut out = Vec::new();
                io.dispatch(gen, 1, ready, &mut out);
                out.into_iter().for_each(Waker::wake);
            })
        };
        let mut tasks: Vec<Task> = (0..6)
            .map(|_| {
                let (count, waker) = counting_waker();
                Task {
                    count,
                    waker,
                    pending_at: None,
                }
            })
            .collect();
        // Task `i` waits, then every earlier task woken since its last poll runs again (a
        // few rounds at most: a woken task that is ready does not wait again).
        for i in 0..tasks.len() {
            tasks[i].poll(&io, dir);
            for _ in 0..3 {
                let woken: Vec<usize> = (0..i).filter(|&j| tasks[j].woken()).collect();
                if woken.is_empty() {
                    break;
                }
                woken.into_iter().for_each(|j| tasks[j].poll(&io, dir));
            }
        }
        driver.join().unwrap();
        for (i, task) in tasks.iter().enumerate() {
            assert!(
                task.pending_at.is_none() || task.woken(),
                "task {i} ({dir:?}) is pending since its last poll and was never woken \
                 after it (lost by the waiter list)"
            );
        }
    });
}

#[test]
fn returning_suspects_stay_through_the_next_compaction() {
    returning_suspects(Direction::Read, Ready::READABLE);
}

#[test]
fn returning_writers_stay_through_the_next_compaction() {
    returning_suspects(Direction::Write, Ready::WRITABLE);
}

#[test]
fn poll_io_racing_an_event() {
    model(|| {
        let io = Arc::new(LoomScheduledIo::new());
        let gen = io.generation();
        // The socket's receive buffer (the kernel orders it; here a lock does).
        let data = Arc::new(Mutex::new(false));
        let mut out = Vec::new();
        // An earlier event (tick 1) whose data was already read: readiness is stale.
        io.dispatch(gen, 1, Ready::READABLE, &mut out);
        let driver = {
            let (io, data) = (io.clone(), data.clone());
            thread::spawn(move || {
                *data.lock() = true;
                let mut out = Vec::new();
                io.dispatch(gen, 2, Ready::READABLE, &mut out);
                out.into_iter().for_each(Waker::wake);
            })
        };
        let (count, waker) = counting_waker();
        let read = || {
            if *data.lock() {
                Ok(1)
            } else {
                Err(std::io::ErrorKind::WouldBlock.into())
            }
        };
        let res = io.poll_io(&mut Context::from_waker(&waker), Direction::Read, read);
        driver.join().unwrap();
        match res {
            Poll::Ready(Ok(n)) => assert_eq!(n, 1),
            Poll::Ready(Err(e)) => panic!("no error happened: {e}"),
            Poll::Pending => assert!(
                count.0.load(SeqCst) >= 1,
                "the event at tick 2 was lost: the I/O attempt is pending and was not woken"
            ),
        }
    });
}
