//! loom models of the monitor's sleep/wake handshake (`runtime`'s `monitor.rs`,
//! `SleepHandshake`, exported to loom builds only) against the shipping idle word
//! (`Idle`): the monitor thread's clock and ticks have no loom build, so a model plays the
//! monitor by calling the handshake as its loop does once it found every worker parked.
//!
//! - `worker_unpark_racing_the_monitor_sleep`: the one worker is parked; a notifier wakes
//!   it (`Idle::worker_to_notify`, the unparked count's SeqCst RMW) and the woken worker
//!   tells the monitor (`worker_unparked`), while the monitor announces its sleep and reads
//!   the unparked count. Either the monitor sees the worker awake and does not sleep, or
//!   the worker sees it asleep and wakes it: a monitor that sleeps on with a worker running
//!   leaves loom with a thread blocked forever (deadlock).
//! - `close_racing_the_monitor_sleep`: shutdown (`close`) while the monitor goes to sleep
//!   with every worker parked: the monitor's sleep ends, and a sleep attempted after the
//!   close returns at once (loom: deadlock otherwise).
//!
//! loom lets a SeqCst load skip an older store only when both stores were SeqCst, so each
//! model first has the words written by SeqCst accesses, as they are in a running runtime:
//! the monitor's earlier attempt that found a worker awake (`sleeping` stored true, then
//! false) and the worker's park (the idle word's SeqCst RMW).
//!
//! Bound: `LOOM_MAX_PREEMPTIONS` (read by `loom::model::Builder::new`), 2 when unset.

#![cfg(loom)]

use loom::thread;
use runtime::loom_internals::{Idle, SleepHandshake};
use shim::sync::Arc;

fn model(f: impl Fn() + Sync + Send + 'static) {
    loom_tests::model(f, 2);
}

/// One worker, parked; the monitor already tried to sleep once while it ran.
fn parked_runtime() -> (Arc<Idle>, Arc<SleepHandshake>) {
    let idle = Arc::new(Idle::new(1));
    let handshake = Arc::new(SleepHandshake::new());
    assert!(
        !handshake.sleep_if_idle(&idle),
        "the monitor slept while the worker was running"
    );
    // The worker parks (not searching); it is then the one to re-check the queues.
    assert!(idle.transition_worker_to_parked(0, false));
    (idle, handshake)
}

#[test]
fn worker_unpark_racing_the_monitor_sleep() {
    model(|| {
        let (idle, handshake) = parked_runtime();
        let worker = {
            let (idle, handshake) = (idle.clone(), handshake.clone());
            thread::spawn(move || {
                // A push notifies the parked worker (counted unparked by the notifier),
                // which leaves its park and tells the monitor (worker.rs, in this order).
                assert_eq!(idle.worker_to_notify(), Some(0));
                handshake.worker_unparked();
            })
        };
        // The monitor, every worker found parked: sleeps unless one is awake.
        handshake.sleep_if_idle(&idle);
        worker.join().unwrap();
    });
}

#[test]
fn close_racing_the_monitor_sleep() {
    model(|| {
        let (idle, handshake) = parked_runtime();
        let closer = {
            let handshake = handshake.clone();
            thread::spawn(move || handshake.close())
        };
        handshake.sleep_if_idle(&idle);
        // After the close, the monitor's next attempt does not sleep.
        closer.join().unwrap();
        assert!(
            !handshake.sleep_if_idle(&idle),
            "the monitor went to sleep after the close"
        );
    });
}
