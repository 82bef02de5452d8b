//! The `join_set` workload: from inside a task, spawn `JOIN_SET_TASKS` (10,000)
//! trivial tasks into a `JoinSet`, then join them all with `join_next`, on our runtime
//! (`runtime::task::JoinSet`) and on tokio's (`tokio::task::JoinSet`). The driving task is
//! itself spawned (as a program would hold a `JoinSet`), so on the multi-thread flavors
//! its spawns take the worker's local path; the bench thread only awaits it.
//!
//! Each iteration checks the sum of the outputs, so a lost or duplicated join fails it.

use crate::Flavor;

/// Tasks spawned into the set per iteration.
pub const JOIN_SET_TASKS: u64 = 10_000;

fn expected() -> u64 {
    JOIN_SET_TASKS * (JOIN_SET_TASKS - 1) / 2
}

/// Our runtime, built as `Ours` builds it (every driver enabled).
pub fn ours_runtime(flavor: Flavor) -> runtime::Runtime {
    let mut b = match flavor {
        Flavor::MultiThread(n) => {
            let mut b = runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
        Flavor::CurrentThread => runtime::Builder::new_current_thread(),
    };
    b.enable_all().build().expect("building our runtime")
}

/// tokio, built the same way.
pub fn tokio_runtime(flavor: Flavor) -> tokio::runtime::Runtime {
    let mut b = match flavor {
        Flavor::MultiThread(n) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
        Flavor::CurrentThread => tokio::runtime::Builder::new_current_thread(),
    };
    b.enable_all().build().expect("building tokio")
}

/// One iteration on our runtime.
pub fn ours_join_set(rt: &runtime::Runtime) {
    let sum = rt
        .block_on(rt.spawn(async {
            let mut set = runtime::task::JoinSet::new();
            for i in 0..JOIN_SET_TASKS {
                set.spawn(async move { i });
            }
            let mut sum = 0;
            while let Some(res) = set.join_next().await {
                sum += res.expect("join_set task failed");
            }
            sum
        }))
        .expect("join_set driver failed");
    assert_eq!(sum, expected());
}

/// One iteration on tokio.
pub fn tokio_join_set(rt: &tokio::runtime::Runtime) {
    let sum = rt
        .block_on(rt.spawn(async {
            let mut set = tokio::task::JoinSet::new();
            for i in 0..JOIN_SET_TASKS {
                set.spawn(async move { i });
            }
            let mut sum = 0;
            while let Some(res) = set.join_next().await {
                sum += res.expect("join_set task failed");
            }
            sum
        }))
        .expect("join_set driver failed");
    assert_eq!(sum, expected());
}
