//! `runtime::worker_index()`: the worker a call runs on, numbered as `RuntimeMetrics`
//! numbers them, and `None` off the workers (tokio's `tests/rt_worker_index.rs` cases).

use std::sync::Arc;
use std::thread;

use ::runtime::runtime::{self as rtm, worker_index};

#[test]
fn current_thread_block_on_is_worker_zero() {
    let rt = rtm::Builder::new_current_thread().build().unwrap();
    assert_eq!(rt.block_on(async { worker_index() }), Some(0));
}

#[test]
fn handle_block_on_does_not_hold_the_core() {
    let rt = rtm::Builder::new_current_thread().build().unwrap();
    assert_eq!(rt.handle().block_on(async { worker_index() }), None);
}

#[test]
fn a_second_block_on_without_the_core_is_no_worker() {
    let rt = Arc::new(rtm::Builder::new_current_thread().build().unwrap());
    let (entered_tx, entered_rx) = std::sync::mpsc::sync_channel(1);
    let (release_tx, release_rx) = ::runtime::sync::oneshot::channel::<()>();
    let owner_rt = rt.clone();
    let owner = thread::spawn(move || {
        owner_rt.block_on(async {
            entered_tx.send(()).unwrap();
            release_rx.await.unwrap();
            worker_index()
        })
    });
    entered_rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the owner entered block_on");
    let other_rt = rt.clone();
    let other = thread::spawn(move || other_rt.block_on(async { worker_index() }));
    assert_eq!(other.join().unwrap(), None);
    release_tx.send(()).unwrap();
    assert_eq!(owner.join().unwrap(), Some(0));
}

#[test]
fn local_runtime_is_worker_zero() {
    let rt = rtm::LocalRuntime::new().unwrap();
    assert_eq!(rt.block_on(async { worker_index() }), Some(0));
}

#[test]
fn outside_a_runtime_and_on_the_blocking_pool_is_none() {
    assert_eq!(worker_index(), None);
    let rt = rtm::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let on_pool = rt.block_on(rt.spawn_blocking(worker_index)).unwrap();
    assert_eq!(on_pool, None);
    // The thread in a multi-thread runtime's `block_on` is not one of its workers.
    assert_eq!(rt.block_on(async { worker_index() }), None);
}

#[test]
fn spawned_tasks_see_their_worker_among_the_metrics_workers() {
    let rt = rtm::Builder::new_multi_thread()
        .worker_threads(3)
        .build()
        .unwrap();
    let n = rt.metrics().num_workers();
    for _ in 0..20 {
        let index = rt.block_on(rt.spawn(async { worker_index() })).unwrap();
        let index = index.expect("a spawned task runs on a worker");
        assert!(index < n, "worker index {index} of {n} workers");
    }
}
