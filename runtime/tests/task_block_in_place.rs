//! `task::block_in_place`: the worker's queued tasks keep running while the closure
//! blocks; results, panics and nested `block_on` behave; the runtime still shuts down
//! (every thread counted out) after hand-offs; current-thread refuses with a message.
//!
//! Every wait here is bounded (`WAIT`): a lost hand-off fails the test with a message
//! instead of hanging it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use runtime::task::block_in_place;
use runtime::{Builder, Handle};

/// Generous: only a lost hand-off waits this long.
const WAIT: Duration = Duration::from_secs(30);

fn one_worker() -> runtime::Runtime {
    Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap()
}

fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// The only worker blocks until its child has run: the child sits in that worker's LIFO
/// slot (no sibling could steal it), so only the hand-off of the core lets it run.
#[test]
fn child_in_the_lifo_slot_runs_while_its_parent_blocks() {
    let rt = one_worker();
    let out = rt.block_on(async {
        runtime::spawn(async {
            let (tx, rx) = mpsc::channel();
            let child = runtime::spawn(async move { tx.send(7).unwrap() });
            let got = block_in_place(|| rx.recv_timeout(WAIT));
            child.await.unwrap();
            got
        })
        .await
        .unwrap()
    });
    assert_eq!(
        out,
        Ok(7),
        "the child queued behind a block_in_place never ran: the core was not handed off"
    );
}

/// Tasks in the worker's ring (not only its LIFO slot) move with the core.
#[test]
fn queued_ring_tasks_run_while_the_worker_blocks() {
    let rt = one_worker();
    let ran = rt.block_on(async {
        runtime::spawn(async {
            let (tx, rx) = mpsc::channel();
            for i in 0..10 {
                let tx = tx.clone();
                runtime::spawn(async move { tx.send(i).unwrap() });
            }
            drop(tx);
            block_in_place(|| {
                let mut got: Vec<i32> = (0..10).map_while(|_| rx.recv_timeout(WAIT).ok()).collect();
                got.sort_unstable();
                got
            })
        })
        .await
        .unwrap()
    });
    assert_eq!(
        ran,
        (0..10).collect::<Vec<_>>(),
        "some queued tasks never ran"
    );
}

/// The closure's value comes back; the task goes on awaiting afterwards (without a core
/// on its old thread: its wakes take the remote path) and completes.
#[test]
fn the_task_awaits_after_block_in_place_and_completes() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let out = rt.block_on(async {
        runtime::spawn(async {
            let a = block_in_place(|| 20);
            let (tx, rx) = runtime::sync::oneshot::channel();
            runtime::spawn(async move { tx.send(1).unwrap() });
            let b = rx.await.unwrap();
            runtime::time::sleep(Duration::from_millis(1)).await;
            let c = block_in_place(|| 21);
            a + b + c
        })
        .await
        .unwrap()
    });
    assert_eq!(out, 42);
}

/// Two calls in one poll: the second finds the core already handed off and just runs.
#[test]
fn two_calls_in_one_poll() {
    let rt = one_worker();
    let out = rt.block_on(async {
        runtime::spawn(async { block_in_place(|| 1) + block_in_place(|| 2) })
            .await
            .unwrap()
    });
    assert_eq!(out, 3);
}

/// A panic in the closure is the task's panic (a `JoinError`); the runtime keeps serving.
#[test]
fn a_panic_in_the_closure_is_a_join_error() {
    let rt = one_worker();
    rt.block_on(async {
        let err = runtime::spawn(async { block_in_place(|| panic!("boom in place")) })
            .await
            .unwrap_err();
        assert!(err.is_panic(), "{err:?}");
        assert_eq!(panic_message(&*err.into_panic()), "boom in place");
        assert_eq!(runtime::spawn(async { 5 }).await.unwrap(), 5);
    });
}

/// Inside the closure blocking is allowed, so a nested `Handle::block_on` works.
#[test]
fn block_on_inside_block_in_place() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let out = rt.block_on(async {
        runtime::spawn(async {
            let handle = Handle::current();
            block_in_place(move || handle.block_on(async { runtime::spawn(async { 9 }).await }))
        })
        .await
        .unwrap()
        .unwrap()
    });
    assert_eq!(out, 9);
}

/// Outside any runtime, and in a multi-thread `block_on` (not a worker), it just runs.
#[test]
fn outside_a_worker_it_just_runs() {
    assert_eq!(block_in_place(|| 4), 4);
    let rt = one_worker();
    assert_eq!(rt.block_on(async { block_in_place(|| 6) }), 6);
}

/// Current-thread: no other worker to take the queue: a panic that says what to use.
#[test]
fn current_thread_refuses_with_a_message() {
    let rt = Builder::new_current_thread().build().unwrap();
    let err = rt
        .block_on(async { catch_unwind(AssertUnwindSafe(|| block_in_place(|| 1))) })
        .unwrap_err();
    let msg = panic_message(&*err);
    assert!(
        msg.contains("current-thread") && msg.contains("spawn_blocking"),
        "{msg}"
    );
    // And from a task on it.
    let err = rt
        .block_on(async { runtime::spawn(async { block_in_place(|| 1) }).await })
        .unwrap_err();
    assert!(err.is_panic());
}

/// `Handle::block_on` of a current-thread runtime, on a thread that does not drive it,
/// runs no tasks: `block_in_place` just runs there (tokio allows it).
#[test]
fn current_thread_handle_block_on_elsewhere_allows_it() {
    let rt = Builder::new_current_thread().build().unwrap();
    let handle = rt.handle().clone();
    let out = std::thread::spawn(move || handle.block_on(async { block_in_place(|| 8) }))
        .join()
        .expect("block_in_place in a current-thread Handle::block_on");
    assert_eq!(out, 8);
    drop(rt);
}

/// Inside a `LocalSet` run by a multi-thread runtime's `block_on`, the set's other tasks
/// can only run on this thread: refused with a message, as in tokio (not run while they
/// stall).
#[test]
fn inside_a_local_set_refuses_with_a_message() {
    let rt = one_worker();
    let local = runtime::task::LocalSet::new();
    let out = rt.block_on(
        local.run_until(async { runtime::task::spawn_local(async { block_in_place(|| 1) }).await }),
    );
    let err = out.expect_err("block_in_place inside a LocalSet ran");
    assert!(err.is_panic());
    let msg = panic_message(&*err.into_panic());
    assert!(
        msg.contains("LocalSet") && msg.contains("spawn_blocking"),
        "{msg}"
    );
}

/// After many hand-offs the runtime still shuts down, every worker thread the user's
/// hooks saw start was seen to stop, and the worker count is unchanged.
#[test]
fn shutdown_after_hand_offs_counts_every_thread_out() {
    let started = Arc::new(AtomicUsize::new(0));
    let stopped = Arc::new(AtomicUsize::new(0));
    let (s1, s2) = (started.clone(), stopped.clone());
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .on_thread_start(move || {
            s1.fetch_add(1, SeqCst);
        })
        .on_thread_stop(move || {
            s2.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    let total = rt.block_on(async {
        let mut joins = Vec::new();
        for i in 0..20u64 {
            joins.push(runtime::spawn(async move {
                let v = block_in_place(|| i);
                runtime::task::yield_now().await;
                v
            }));
        }
        let mut total = 0;
        for j in joins {
            total += j.await.unwrap();
        }
        total
    });
    assert_eq!(total, (0..20).sum::<u64>());
    assert_eq!(rt.metrics().num_workers(), 2);
    // Dropped on another thread, so a hang fails the test instead of wedging it.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        drop(rt);
        tx.send(()).unwrap();
    });
    rx.recv_timeout(WAIT)
        .expect("dropping the runtime after block_in_place hand-offs hung");
    let (started, stopped) = (started.load(SeqCst), stopped.load(SeqCst));
    assert!(started >= 2, "{started}");
    assert_eq!(started, stopped, "every worker thread started was stopped");
}

/// Polls `consume_budget` 1,000 times by hand (far past a task's budget of 128) and counts
/// the polls that were not ready: none when the caller runs unconstrained.
fn pending_budget_polls() -> usize {
    use std::future::Future;
    let mut cx = std::task::Context::from_waker(futures::task::noop_waker_ref());
    (0..1000)
        .filter(|_| {
            let fut = std::pin::pin!(runtime::task::consume_budget());
            fut.poll(&mut cx).is_pending()
        })
        .count()
}

/// As tokio's: the closure runs with the coop budget lifted, in a task and in
/// `Runtime::block_on` (a future it drives by hand never finds the budget spent), and
/// the task's own budget applies again after it.
#[test]
fn the_closure_runs_without_a_coop_budget() {
    let rt = one_worker();
    let in_task = rt.spawn(async {
        let inside = block_in_place(pending_budget_polls);
        (inside, pending_budget_polls())
    });
    let (inside, after) = rt.block_on(in_task).unwrap();
    assert_eq!(inside, 0, "budget-limited inside block_in_place in a task");
    assert!(
        after > 0,
        "the task's budget applies again after block_in_place"
    );
    let inside = rt.block_on(async { block_in_place(pending_budget_polls) });
    assert_eq!(
        inside, 0,
        "budget-limited inside block_in_place in block_on"
    );
}
