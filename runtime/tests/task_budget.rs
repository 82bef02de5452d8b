//! `task::consume_budget` makes a busy loop give its worker back (another task gets to run
//! while it loops), and `task::unconstrained` turns that off; `select!` and
//! `watch::Receiver::wait_for` honour the budget too.
#![cfg(not(loom))]

#[macro_use]
mod support;

use support::*;

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use runtime::task;
use runtime::{Builder, Runtime};

/// Spins (spending budget) until `flag` is set by a task on the same one-worker runtime:
/// it can only be set if `consume_budget` yields.
async fn spin_until(flag: &AtomicBool) -> u64 {
    let mut n = 0u64;
    while !flag.load(SeqCst) {
        task::consume_budget().await;
        n += 1;
        assert!(n < 100_000_000, "consume_budget never yielded");
    }
    n
}

fn one_worker_rts() -> Vec<Runtime> {
    vec![
        Builder::new_current_thread().enable_all().build().unwrap(),
        Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap(),
    ]
}

#[test]
fn consume_budget_yields_to_other_tasks() {
    watchdog("consume_budget to yield to the other task", || {
        for rt in one_worker_rts() {
            rt.block_on(async {
                let flag = Arc::new(AtomicBool::new(false));
                let f = flag.clone();
                let spinner = runtime::spawn(async move { spin_until(&f).await });
                let f = flag.clone();
                drop(runtime::spawn(async move { f.store(true, SeqCst) }));
                let n = runtime::time::timeout(Duration::from_secs(10), spinner)
                    .await
                    .expect("the spinner never saw the flag")
                    .unwrap();
                assert!(n >= 1);
            });
        }
    })
}

#[test]
fn unconstrained_never_runs_out_of_budget() {
    watchdog("the unconstrained loop", || {
        for rt in one_worker_rts() {
            rt.block_on(async {
                let flag = Arc::new(AtomicBool::new(false));
                let f = flag.clone();
                // 10x the budget, unconstrained: the other task cannot run in between.
                let h = runtime::spawn(task::unconstrained(async move {
                    for _ in 0..1280 {
                        task::consume_budget().await;
                        assert!(!f.load(SeqCst), "an unconstrained loop yielded");
                    }
                }));
                let f = flag.clone();
                drop(runtime::spawn(async move { f.store(true, SeqCst) }));
                runtime::time::timeout(Duration::from_secs(10), h)
                    .await
                    .unwrap()
                    .unwrap();
            });
        }
    })
}

#[test]
fn consume_budget_outside_a_runtime_is_ready() {
    watchdog("consume_budget outside a runtime", || {
        futures::executor::block_on(async {
            for _ in 0..1000 {
                task::consume_budget().await;
            }
        });
    })
}

#[test]
fn has_budget_remaining_tracks_the_budget() {
    watchdog("the budget loop", || {
        for rt in one_worker_rts() {
            rt.block_on(async {
                let h = runtime::spawn(async {
                    assert!(task::coop::has_budget_remaining());
                    // Spend budget until it runs out; the next call yields and refills it.
                    let mut spent = 0u32;
                    while task::coop::has_budget_remaining() {
                        task::coop::consume_budget().await;
                        spent += 1;
                        assert!(spent <= 1000, "the budget never ran out");
                    }
                    task::consume_budget().await;
                    assert!(
                        task::coop::has_budget_remaining(),
                        "a yield did not refill it"
                    );
                    task::unconstrained(async { assert!(task::coop::has_budget_remaining()) })
                        .await;
                    spent
                });
                let spent = runtime::time::timeout(Duration::from_secs(10), h)
                    .await
                    .unwrap()
                    .unwrap();
                assert!(spent > 1);
            });
        }
    })
}

/// `select!` checks the budget before it polls a branch: a loop whose first branch spends
/// the budget (and, spent, wakes the task and returns `Pending`) while a second branch is
/// always ready still gives its worker back.
#[test]
fn select_yields_once_the_budget_is_spent() {
    watchdog("a select! loop to yield to the other task", || {
        for rt in one_worker_rts() {
            rt.block_on(async {
                let flag = Arc::new(AtomicBool::new(false));
                let f = flag.clone();
                let looper = runtime::spawn(async move {
                    let mut n = 0u64;
                    while !f.load(SeqCst) {
                        runtime::select! {
                            biased;
                            _ = task::consume_budget() => {}
                            _ = std::future::ready(()) => {}
                        }
                        n += 1;
                        assert!(n < 10_000_000, "the select! loop never yielded");
                    }
                });
                let f = flag.clone();
                drop(runtime::spawn(async move { f.store(true, SeqCst) }));
                runtime::time::timeout(Duration::from_secs(10), looper)
                    .await
                    .expect("the select! loop never saw the flag")
                    .unwrap();
            });
        }
    })
}

/// `watch::Receiver::wait_for` spends budget even when the value already matches, so a
/// loop around it yields.
#[test]
fn watch_wait_for_spends_budget() {
    watchdog("a wait_for loop to yield to the other task", || {
        for rt in one_worker_rts() {
            rt.block_on(async {
                let flag = Arc::new(AtomicBool::new(false));
                let f = flag.clone();
                let (_tx, mut rx) = runtime::sync::watch::channel(1);
                let looper = runtime::spawn(async move {
                    let mut n = 0u64;
                    while !f.load(SeqCst) {
                        drop(rx.wait_for(|v| *v == 1).await.unwrap());
                        n += 1;
                        assert!(n < 10_000_000, "the wait_for loop never yielded");
                    }
                });
                let f = flag.clone();
                drop(runtime::spawn(async move { f.store(true, SeqCst) }));
                runtime::time::timeout(Duration::from_secs(10), looper)
                    .await
                    .expect("the wait_for loop never saw the flag")
                    .unwrap();
            });
        }
    })
}
