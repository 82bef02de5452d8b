//! `task::JoinSet` on every flavor: completion order, ids, abort/detach/shutdown, drop
//! aborting, `try_join_next`, `join_all`, iterator adapters, blocking tasks, slot reuse.
//! Every wait is bounded by a 10 s timeout that panics with what it waited for.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use runtime::sync::oneshot;
use runtime::task::{self, JoinSet};
use runtime::Builder;

/// Waits (yielding) until `cond` holds.
async fn until(what: &str, mut cond: impl FnMut() -> bool) {
    within(what, async {
        while !cond() {
            runtime::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await
}

rt_test! {
    flavors {
        current_thread => support::current_thread();
        multi_thread_1 => support::multi_thread(1);
        multi_thread_4 => support::multi_thread(4);
    }

    #[test]
    fn joins_every_task_with_its_id() {
        watchdog("the set's 200 tasks", || {
            rt().block_on(async {
                let mut set = JoinSet::new();
                assert!(set.join_next().await.is_none());
                let mut ids = std::collections::HashMap::new();
                for i in 0..200u32 {
                    let id = set
                        .spawn(async move {
                            if i % 3 == 0 {
                                task::yield_now().await;
                            }
                            (task::id(), i)
                        })
                        .id();
                    ids.insert(id, i);
                }
                assert_eq!(set.len(), 200);
                let mut seen = HashSet::new();
                while let Some(res) = within("join_next", set.join_next_with_id()).await {
                    let (id, (inner_id, i)) = res.unwrap();
                    assert_eq!(id, inner_id, "task::id() inside differs from the join id");
                    assert_eq!(ids[&id], i);
                    assert!(seen.insert(i), "task {i} joined twice");
                    assert_eq!(set.len(), 200 - seen.len());
                }
                assert_eq!(seen.len(), 200);
                assert!(set.is_empty());
            });
        })
    }

    #[test]
    fn joins_in_completion_order() {
        watchdog("the set's tasks in completion order", || {
            rt().block_on(async {
                let mut set = JoinSet::new();
                let mut txs = Vec::new();
                for i in 0..3u32 {
                    let (tx, rx) = oneshot::channel::<()>();
                    txs.push(Some(tx));
                    set.spawn(async move {
                        rx.await.unwrap();
                        i
                    });
                }
                for i in [2usize, 0, 1] {
                    // Nothing is ready until we release one.
                    assert!(set.try_join_next().is_none());
                    txs[i].take().unwrap().send(()).unwrap();
                    let got = within("the released task", set.join_next()).await;
                    assert_eq!(got.unwrap().unwrap(), i as u32);
                }
                assert!(set.join_next().await.is_none());
            });
        })
    }

    #[test]
    fn abort_all_cancels_and_drops_futures() {
        watchdog("the aborted tasks", || {
            rt().block_on(async {
                let drops = Arc::new(AtomicUsize::new(0));
                let mut set = JoinSet::new();
                for _ in 0..10 {
                    let d = CountDrop(drops.clone());
                    set.spawn(async move {
                        let _d = d;
                        std::future::pending::<()>().await
                    });
                }
                task::yield_now().await;
                set.abort_all();
                let mut cancelled = 0;
                while let Some(res) = within("aborted tasks", set.join_next()).await {
                    assert!(res.unwrap_err().is_cancelled());
                    cancelled += 1;
                }
                assert_eq!(cancelled, 10);
                assert_eq!(drops.load(SeqCst), 10);
            });
        })
    }

    #[test]
    fn dropping_the_set_aborts_every_task() {
        watchdog("the tasks of the dropped set", || {
            let rt = rt();
            let drops = Arc::new(AtomicUsize::new(0));
            rt.block_on(async {
                let mut set = JoinSet::new();
                for _ in 0..10 {
                    let d = CountDrop(drops.clone());
                    set.spawn(async move {
                        let _d = d;
                        std::future::pending::<()>().await
                    });
                }
                task::yield_now().await;
                drop(set);
                until("the aborted futures to drop", || drops.load(SeqCst) == 10).await;
            });
        })
    }

    #[test]
    fn detach_all_lets_tasks_run_on() {
        watchdog("the detached tasks", || {
            rt().block_on(async {
                let mut set = JoinSet::new();
                let (tx, rx) = oneshot::channel::<()>();
                let (done_tx, done_rx) = oneshot::channel::<u32>();
                set.spawn(async move {
                    rx.await.unwrap();
                    done_tx.send(7).unwrap();
                });
                set.detach_all();
                assert!(set.is_empty());
                assert!(set.join_next().await.is_none());
                drop(set);
                tx.send(()).unwrap();
                assert_eq!(within("the detached task", done_rx).await.unwrap(), 7);
            });
        })
    }

    #[test]
    fn shutdown_waits_for_every_task() {
        watchdog("the set's shutdown", || {
            rt().block_on(async {
                let drops = Arc::new(AtomicUsize::new(0));
                let mut set = JoinSet::new();
                for _ in 0..5 {
                    let d = CountDrop(drops.clone());
                    set.spawn(async move {
                        let _d = d;
                        std::future::pending::<()>().await
                    });
                }
                within("shutdown", set.shutdown()).await;
                assert!(set.is_empty());
                assert_eq!(drops.load(SeqCst), 5);
            });
        })
    }

    #[test]
    fn try_join_next_takes_only_finished_tasks() {
        watchdog("the finished tasks", || {
            rt().block_on(async {
                let mut set = JoinSet::new();
                assert!(set.try_join_next().is_none());
                let (tx, rx) = oneshot::channel::<()>();
                let slow = set.spawn(async move {
                    rx.await.unwrap();
                    1
                });
                let fast = set.spawn(async { 2 }).id();
                let mut got = None;
                until("the fast task", || {
                    got = set.try_join_next_with_id();
                    got.is_some()
                })
                .await;
                assert_eq!(got.unwrap().unwrap(), (fast, 2));
                assert!(set.try_join_next().is_none());
                tx.send(()).unwrap();
                let mut got = None;
                until("the slow task", || {
                    got = set.try_join_next_with_id();
                    got.is_some()
                })
                .await;
                assert_eq!(got.unwrap().unwrap(), (slow.id(), 1));
                assert!(set.is_empty());
            });
        })
    }

    #[test]
    fn join_all_collects_and_resumes_panics() {
        watchdog("join_all", || {
            let rt = rt();
            rt.block_on(async {
                let set: JoinSet<u32> = (0..50u32).map(|i| async move { i }).collect();
                let mut out = within("join_all", set.join_all()).await;
                out.sort();
                assert_eq!(out, (0..50).collect::<Vec<_>>());
            });
            let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                rt.block_on(async {
                    let mut set = JoinSet::new();
                    set.spawn(async { panic!("inner boom") });
                    set.join_all().await
                })
            }));
            let payload = res.expect_err("join_all must resume the task's panic");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"inner boom"));
        })
    }

    #[test]
    fn panic_is_a_join_error_naming_the_task() {
        watchdog("the panicking task's JoinError", || {
            rt().block_on(async {
                let mut set = JoinSet::new();
                let line = line!() + 1;
                let id = set.spawn(async { panic!("boom") }).id();
                let err = within("the panicking task", set.join_next())
                    .await
                    .unwrap()
                    .unwrap_err();
                assert!(err.is_panic());
                assert_eq!(err.id(), id);
                assert_eq!(
                    err.to_string(),
                    format!(
                        "task {id} (spawned at {}:{line}:30) panicked with message \"boom\"",
                        file!()
                    )
                );
            });
        })
    }

    #[test]
    fn extend_spawn_on_and_blocking() {
        watchdog("the extended set's tasks", || {
            let rt = rt();
            let mut set = JoinSet::new();
            set.spawn_on(async { 1u32 }, rt.handle());
            set.spawn_blocking_on(|| 2u32, rt.handle());
            let total = rt.block_on(async move {
                set.extend((3..=5u32).map(|i| async move { i }));
                set.spawn_blocking(|| 6u32);
                assert_eq!(set.len(), 6);
                let mut total = 0;
                while let Some(res) = within("join_next", set.join_next()).await {
                    total += res.unwrap();
                }
                total
            });
            assert_eq!(total, 21);
        })
    }

    #[test]
    fn slots_are_reused_without_mixing_tasks() {
        watchdog("the reused slots' tasks", || {
            rt().block_on(async {
                let mut set = JoinSet::new();
                let mut expected = 0u64;
                let mut got = 0u64;
                for round in 0..20u64 {
                    for i in 0..50u64 {
                        let v = round * 1000 + i;
                        expected += v;
                        set.spawn(async move {
                            if v % 2 == 0 {
                                task::yield_now().await;
                            }
                            v
                        });
                    }
                    // Join about half, leaving the rest to share slots with the next round.
                    for _ in 0..25 {
                        got += within("join_next", set.join_next()).await.unwrap().unwrap();
                    }
                }
                while let Some(res) = within("join_next", set.join_next()).await {
                    got += res.unwrap();
                }
                assert_eq!(got, expected);
            });
        })
    }

    #[test]
    fn join_next_is_cancel_safe() {
        watchdog("join_next after a cancelled one", || {
            rt().block_on(async {
                let mut set = JoinSet::new();
                let (tx, rx) = oneshot::channel::<()>();
                set.spawn(async move {
                    rx.await.unwrap();
                    9
                });
                // A join_next dropped before it completes loses nothing.
                let timed = runtime::time::timeout(Duration::from_millis(5), set.join_next()).await;
                assert!(timed.is_err());
                tx.send(()).unwrap();
                assert_eq!(
                    within("join_next", set.join_next()).await.unwrap().unwrap(),
                    9
                );
            });
        })
    }
}

#[test]
#[should_panic(expected = "outside of a runtime")]
fn spawn_outside_a_runtime_panics() {
    let mut set = JoinSet::new();
    set.spawn(async {});
}

/// Joining many finished tasks spends the joiner's budget: it yields now and then, so a
/// task queued behind it runs before the loop ends.
#[test]
fn join_next_spends_the_cooperative_budget() {
    watchdog("the join_next loop to yield", || {
        use std::sync::atomic::AtomicBool;
        let rt = Builder::new_current_thread().enable_all().build().unwrap();
        let seen_during_loop = rt.block_on(async {
            let joiner = runtime::spawn(async {
                let mut set = JoinSet::new();
                for i in 0..1000u32 {
                    set.spawn(async move { i });
                }
                // Let them all finish (they were queued before us).
                task::yield_now().await;
                let flag = Arc::new(AtomicBool::new(false));
                let f = flag.clone();
                drop(runtime::spawn(async move { f.store(true, SeqCst) }));
                let mut joined = 0;
                let mut seen = false;
                while let Some(res) = set.join_next().await {
                    res.unwrap();
                    joined += 1;
                    if joined < 1000 && flag.load(SeqCst) {
                        seen = true;
                    }
                }
                assert_eq!(joined, 1000);
                seen
            });
            within("the joiner", joiner).await.unwrap()
        });
        assert!(
            seen_during_loop,
            "join_next never yielded over 1000 finished tasks"
        );
    })
}
