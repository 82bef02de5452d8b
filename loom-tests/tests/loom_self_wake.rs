//! loom models of a task waking itself from inside its own poll through
//! `task::wake_self_by_ref` (what `yield_now` and a spent coop budget do): no atomic during
//! the poll, the wake applied by the harness's CAS that ends it (`transition_to_idle`). The
//! models race that deferred wake against what could meet it in the state word: a by-value
//! wake from another thread (it must merge into one `Notified`: one more poll, never two,
//! never none) and an abort (the task completes or is cancelled, everything dropped once).
//! They run `loom_task`'s test scheduler and assertions.
//!
//! A harness that drops the record (ends the poll without NOTIFIED) fails the first model
//! ("the recorded yield was lost") and the unbound abort model (the task goes idle unbound,
//! and the abort finds no scheduler to queue it on).

use std::future::poll_fn;
use std::task::Poll;

use loom::thread;
use shim::sync::atomic::{AtomicBool, Ordering::*};
use shim::sync::Arc;

use super::loom_task::{
    abort_racing_polls, counter, join_now, model, slot, take, InPoll, Sched, Track,
};

/// The first poll parks (storing its waker); main wakes it, and while main runs the
/// queue, B wakes it again by value. The second poll yields through the record, the third
/// completes. B's wake lands before the second poll (the task is queued: nothing to do),
/// during it (NOTIFIED merges with the record: one `Notified`), or after it (queued or
/// done: nothing to do): exactly three polls, whatever the order.
#[test]
fn wake_by_val_racing_a_recorded_yield() {
    model(|| {
        let sched = Sched::new();
        let in_poll = Arc::new(AtomicBool::new(false));
        let polls = counter();
        let drops = counter();
        let slot = slot();

        let fut = {
            let (in_poll, polls, slot) = (in_poll.clone(), polls.clone(), slot.clone());
            let track = Track(drops.clone());
            poll_fn(move |cx| {
                let _track = &track;
                let _g = InPoll::enter(&in_poll);
                match polls.fetch_add(1, Relaxed) {
                    0 => {
                        *slot.lock() = Some(cx.waker().clone());
                        Poll::Pending
                    }
                    1 => {
                        task::wake_self_by_ref(cx.waker());
                        Poll::Pending
                    }
                    _ => Poll::Ready(()),
                }
            })
        };
        let join = sched.spawn(fut);
        assert!(sched.tick(), "first poll");
        let waker = take(&slot);
        let again = waker.clone();
        waker.wake();

        let th = {
            let sched = sched.clone();
            thread::spawn(move || {
                again.wake();
                sched.run_all();
            })
        };
        sched.run_all();
        th.join().unwrap();
        sched.run_all();

        assert!(join.is_finished(), "the recorded yield was lost");
        join_now(join).expect("completed");
        assert_eq!(
            polls.load(Relaxed),
            3,
            "one poll per wake that found it idle"
        );
        sched.teardown();
        assert_eq!(drops.load(Relaxed), 1, "future dropped exactly once");
    });
}

/// `loom_task::abort::abort_racing_completion` with the task's yield recorded instead of an
/// atomic wake: the abort's CANCELLED meets the deferred NOTIFIED in the end-of-poll CAS.
#[test]
fn abort_racing_a_recorded_yield() {
    abort_racing_polls(false, true);
}

/// The same for a task bound at spawn.
#[test]
fn bound_abort_racing_a_recorded_yield() {
    abort_racing_polls(true, true);
}
