//! `task::yield_now` wherever the waker it is polled with comes from: the task's own (the
//! wake is recorded and applied when the poll ends, no atomic), a sub-executor's inside
//! the task (`FuturesUnordered`: that waker must be woken, or the sub-future is never
//! polled again), and a `LocalSet` driven from inside a task (local tasks polled inside
//! the outer task's poll, each yielding while the outer one has a yield recorded).
//! Every wait is bounded: a lost wake-up fails with a message instead of hanging.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use futures::stream::{FuturesUnordered, StreamExt};
use runtime::task::{self, LocalSet};

/// Yields `n` times, counting each resumption.
async fn yield_n(n: usize, resumed: Arc<AtomicUsize>) {
    for _ in 0..n {
        task::yield_now().await;
        resumed.fetch_add(1, SeqCst);
    }
}

#[test]
fn a_task_yielding_in_a_loop_resumes_every_time() {
    on_both_in_task(|| async {
        let resumed = Arc::new(AtomicUsize::new(0));
        yield_n(1_000, resumed.clone()).await;
        assert_eq!(resumed.load(SeqCst), 1_000);
    });
}

#[test]
fn yields_under_a_sub_executor_wake_the_sub_executor() {
    on_both_in_task(|| async {
        let resumed = Arc::new(AtomicUsize::new(0));
        let mut set = FuturesUnordered::new();
        for _ in 0..8 {
            set.push(yield_n(50, resumed.clone()));
        }
        let mut done = 0;
        while set.next().await.is_some() {
            done += 1;
        }
        assert_eq!(done, 8);
        assert_eq!(resumed.load(SeqCst), 8 * 50);
    });
}

/// A local task of one `LocalSet` drives a second `LocalSet`: the inner set's tasks are
/// polled inside the outer local task's poll, and everyone yields.
#[test]
fn yields_inside_a_local_set_driven_by_a_task() {
    watchdog(
        "a LocalSet driven from a local task, everyone yielding",
        || {
            let rt = current_thread();
            let outer_set = LocalSet::new();
            let driver = Arc::new(AtomicUsize::new(0));
            let locals = Arc::new(AtomicUsize::new(0));
            let (d, l) = (driver.clone(), locals.clone());
            outer_set.block_on(&rt, async move {
                let h = task::spawn_local(async move {
                    let inner = LocalSet::new();
                    for _ in 0..4 {
                        inner.spawn_local(yield_n(100, l.clone()));
                    }
                    inner
                        .run_until(async {
                            for _ in 0..100 {
                                task::yield_now().await;
                                d.fetch_add(1, SeqCst);
                            }
                        })
                        .await;
                    inner.await;
                });
                runtime::time::timeout(GENEROUS, h)
                    .await
                    .expect("the nested LocalSet's tasks never finished")
                    .unwrap();
            });
            assert_eq!(driver.load(SeqCst), 100);
            assert_eq!(locals.load(SeqCst), 4 * 100);
        },
    );
}

/// A worker whose only work is its yielded tasks takes a sibling's queued tasks before it
/// polls the yielders again: here a task (X) blocks its worker until two tasks it spawned
/// (one in its worker's ring, one in its LIFO slot) have run, while a yield loop (Z)
/// keeps the other worker busy. Whenever Z and X land on different workers, only the
/// yielding worker can run X's children; were it to poll Z again and again without
/// looking at its sibling, X's wait would never end. Rounds with fresh runtimes make that
/// placement all but certain to come up.
#[test]
fn a_yielding_worker_takes_the_tasks_queued_behind_a_stuck_sibling() {
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};
    watchdog("the children of a task stuck in its poll", || {
        for _ in 0..20 {
            let rt = multi_thread(2);
            rt.block_on(async {
                let done = Arc::new(AtomicBool::new(false));
                let ran = Arc::new(AtomicUsize::new(0));
                let z = {
                    let done = done.clone();
                    task::spawn(async move {
                        while !done.load(SeqCst) {
                            task::yield_now().await;
                        }
                    })
                };
                let x = {
                    let ran = ran.clone();
                    task::spawn(async move {
                        for _ in 0..2 {
                            let ran = ran.clone();
                            task::spawn(async move {
                                ran.fetch_add(1, SeqCst);
                            });
                        }
                        // Blocks this worker (bounded: the watchdog reports first).
                        let give_up = Instant::now() + Duration::from_secs(600);
                        while ran.load(SeqCst) < 2 && Instant::now() < give_up {
                            std::thread::yield_now();
                        }
                    })
                };
                x.await.unwrap();
                done.store(true, SeqCst);
                z.await.unwrap();
                assert_eq!(ran.load(SeqCst), 2);
            });
        }
    });
}
