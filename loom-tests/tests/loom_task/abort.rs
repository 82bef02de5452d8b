//! `abort()` racing the task. From another thread against the two polls (on two threads)
//! of a task that yields once, unbound (it never parks) or bound at spawn (`spawn_bound`):
//! the JoinHandle gets the output or a cancelled error. On an idle task, against a
//! by-value wake of it: exactly one `Notified` results, and the task is polled or
//! cancelled. The future and any output are dropped exactly once. `loom_self_wake` runs
//! `abort_racing_polls` with the task's yield recorded (`task::wake_self_by_ref`).

use std::future::poll_fn;
use std::task::Poll;

use loom::thread;
use shim::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use shim::sync::Arc;
use task::JoinError;

use super::{counter, join_now, model, slot, take, yield_then_output_by, InPoll, Sched, Track};

/// Checks a JoinHandle result against what the future did: Ok iff an output was made.
pub(crate) fn check_result(res: Result<Track, JoinError>, outputs: &AtomicUsize) {
    match res {
        Ok(out) => {
            assert_eq!(outputs.load(Relaxed), 1);
            drop(out);
        }
        Err(e) => {
            assert!(e.is_cancelled(), "{e:?}");
            assert_eq!(
                outputs.load(Relaxed),
                0,
                "cancelled, yet an output was made"
            );
        }
    }
}

/// `abort()` from B races the task's two polls (run by main and B) of a task that never
/// parks (it yields, so it stays unbound): the JoinHandle gets the output or a cancelled
/// error; the future and any output are dropped exactly once.
#[test]
fn abort_racing_completion() {
    abort_racing_polls(false, false);
}

/// The same with the task bound at spawn (`spawn_bound`): shutdown and completion go
/// through the list.
#[test]
fn bound_abort_racing_completion() {
    abort_racing_polls(true, false);
}

pub(crate) fn abort_racing_polls(bound: bool, recorded: bool) {
    model(move || {
        let sched = Sched::new();
        let (in_poll, fut_drops, out_drops, outputs) = (
            Arc::new(AtomicBool::new(false)),
            counter(),
            counter(),
            counter(),
        );
        let fut = yield_then_output_by(recorded, &in_poll, &fut_drops, &out_drops, &outputs);
        let join = if bound {
            sched.spawn_bound(fut)
        } else {
            sched.spawn(fut)
        };
        let abort = join.abort_handle();

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                abort.abort();
                drop(abort);
                sched.run_all();
            })
        };
        sched.run_all();
        th.join().unwrap();
        sched.run_all();

        check_result(join_now(join), &outputs);
        sched.teardown();
        assert_eq!(fut_drops.load(Relaxed), 1, "future dropped exactly once");
        assert_eq!(
            out_drops.load(Relaxed),
            outputs.load(Relaxed),
            "output dropped once"
        );
    });
}

/// `abort()` on an idle task (it takes a new queue reference) races a by-value wake of the
/// same task (whose reference becomes the queue's): exactly one `Notified` results, the
/// task is polled or cancelled, and nothing leaks.
#[test]
fn abort_idle_racing_wake() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let (fut_drops, outputs) = (counter(), counter());
        let slot = slot();
        let fut = {
            let (in_poll, outputs, slot) = (in_poll.clone(), outputs.clone(), slot.clone());
            let track = Track(fut_drops.clone());
            let mut first = true;
            poll_fn(move |cx| {
                let _track = &track;
                let _g = InPoll::enter(&in_poll);
                if first {
                    first = false;
                    *slot.lock() = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                outputs.fetch_add(1, Relaxed);
                Poll::Ready(())
            })
        };
        let join = sched.spawn(fut);
        assert!(sched.tick());
        let waker = take(&slot);
        let abort = join.abort_handle();

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                abort.abort();
                drop(abort);
                sched.run_all();
            })
        };
        waker.wake();
        sched.run_all();
        th.join().unwrap();
        sched.run_all();

        match join_now(join) {
            Ok(()) => assert_eq!(outputs.load(Relaxed), 1),
            Err(e) => {
                assert!(e.is_cancelled());
                assert_eq!(outputs.load(Relaxed), 0);
            }
        }
        sched.teardown();
        assert_eq!(fut_drops.load(Relaxed), 1);
    });
}
