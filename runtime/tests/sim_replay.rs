//! The deterministic mode replays: the same seed gives the same run (trace hash and
//! output), different seeds give different interleavings, and a fixed strategy gives one.
//!
//! Each run is bounded by the watchdog: a stepper that loses a wake-up fails with a
//! message instead of hanging.
#![cfg(all(feature = "deterministic", not(loom)))]

#[macro_use]
mod support;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use runtime::sim::{Options, Strategy};
use runtime::Builder;
use support::*;

/// Racing tasks: eight writers append to a shared log after a yield or a short sleep; the
/// output is the log and the trace hash.
fn race(seed: u64, options: Options, workers: usize) -> (Vec<u32>, u64) {
    let rt = Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .deterministic_options(seed, options)
        .build()
        .unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    rt.block_on({
        let log = log.clone();
        async move {
            let mut handles = Vec::new();
            for i in 0..8u32 {
                let log = log.clone();
                handles.push(runtime::spawn(async move {
                    if i % 3 == 0 {
                        runtime::time::sleep(Duration::from_millis(1)).await;
                    }
                    runtime::task::yield_now().await;
                    log.lock().unwrap().push(i);
                    runtime::task::yield_now().await;
                    log.lock().unwrap().push(100 + i);
                }));
            }
            for h in handles {
                h.await.unwrap();
            }
        }
    });
    let hash = rt.trace_hash();
    drop(rt);
    let log = log.lock().unwrap().clone();
    (log, hash)
}

#[test]
fn same_seed_same_run() {
    watchdog("two runs of one seed", || {
        for seed in [0, 1, 42, u64::MAX] {
            let a = race(seed, Options::default(), 4);
            let b = race(seed, Options::default(), 4);
            assert_eq!(a, b, "seed {seed} ran two ways");
        }
    });
}

#[test]
fn seeds_explore_interleavings() {
    watchdog("200 seeds of a race", || {
        let mut hashes = HashSet::new();
        let mut orders = HashSet::new();
        for seed in 0..200 {
            let (log, hash) = race(seed, Options::default(), 4);
            assert_eq!(log.len(), 16, "seed {seed} lost a write: {log:?}");
            hashes.insert(hash);
            orders.insert(log);
        }
        assert!(
            hashes.len() >= 100,
            "only {} distinct traces in 200 seeds",
            hashes.len()
        );
        assert!(
            orders.len() >= 50,
            "only {} distinct outputs in 200 seeds",
            orders.len()
        );
    });
}

#[test]
fn pct_explores_too() {
    watchdog("100 seeds under PCT", || {
        let options = Options {
            strategy: Strategy::Pct {
                depth: 3,
                steps: 200,
            },
            ..Options::default()
        };
        let mut hashes = HashSet::new();
        for seed in 0..100 {
            let a = race(seed, options, 4);
            if seed < 5 {
                assert_eq!(a, race(seed, options, 4), "PCT seed {seed} ran two ways");
            }
            hashes.insert(a.1);
        }
        assert!(
            hashes.len() >= 20,
            "only {} distinct PCT traces in 100 seeds",
            hashes.len()
        );
    });
}

#[test]
fn fixed_strategy_is_one_run() {
    watchdog("the fixed strategy under many seeds", || {
        let first = race(0, Options::fixed(), 4);
        for seed in 1..50 {
            assert_eq!(
                race(seed, Options::fixed(), 4),
                first,
                "fixed order varied at seed {seed}"
            );
        }
    });
}

#[test]
fn current_thread_builder_is_deterministic() {
    watchdog("a one-worker deterministic runtime", || {
        let run = |seed| {
            let rt = Builder::new_current_thread()
                .enable_all()
                .deterministic(seed)
                .build()
                .unwrap();
            let v = rt.block_on(async {
                let a = runtime::spawn(async { 1 });
                let b = runtime::spawn(async { 2 });
                a.await.unwrap() + b.await.unwrap()
            });
            (v, rt.trace_hash())
        };
        assert_eq!(run(3), run(3));
        assert_eq!(run(3).0, 3);
    });
}

#[test]
fn many_logical_workers() {
    watchdog("64 logical workers", || {
        let a = race(9, Options::default(), 64);
        assert_eq!(a, race(9, Options::default(), 64));
        assert_eq!(a.0.len(), 16);
    });
}

/// Two tasks append 50 entries each under an uncontended `Mutex`: each poll runs a task's
/// whole loop (every lock is ready), unless the stepper cuts a poll's budget.
fn blocks(seed: u64, yield_per_mille: u32) -> Vec<u8> {
    let options = Options {
        yield_per_mille,
        ..Options::default()
    };
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .deterministic_options(seed, options)
        .build()
        .unwrap();
    rt.block_on(async {
        let log = Arc::new(runtime::sync::Mutex::new(Vec::new()));
        let hs: Vec<_> = [b'a', b'b']
            .into_iter()
            .map(|who| {
                let log = log.clone();
                runtime::spawn(async move {
                    for _ in 0..50 {
                        log.lock().await.push(who);
                    }
                })
            })
            .collect();
        for h in hs {
            h.await.unwrap();
        }
        let v = log.lock().await.clone();
        v
    })
}

/// Runs of one writer in the log.
fn runs(log: &[u8]) -> usize {
    1 + log.windows(2).filter(|w| w[0] != w[1]).count()
}

#[test]
fn inserted_yields_interleave_ready_awaits() {
    watchdog("inserted yields", || {
        for seed in 0..30 {
            let log = blocks(seed, 0);
            assert_eq!(
                runs(&log),
                2,
                "seed {seed}: a poll gave way with no yield inserted"
            );
        }
        let interleaved = (0..30).filter(|&s| runs(&blocks(s, 1000)) > 2).count();
        assert!(
            interleaved > 0,
            "no seed interleaved the writers with every poll's budget cut"
        );
        assert_eq!(blocks(4, 1000), blocks(4, 1000));
    });
}

/// `select!` over two ready branches, 64 times: the choices follow the seed.
fn select_draws(seed: u64) -> Vec<u8> {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .deterministic(seed)
        .build()
        .unwrap();
    rt.block_on(async {
        runtime::spawn(async {
            let mut picks = Vec::new();
            for _ in 0..64 {
                let pick = runtime::select! {
                    _ = std::future::ready(()) => 0u8,
                    _ = std::future::ready(()) => 1u8,
                };
                picks.push(pick);
            }
            picks
        })
        .await
        .unwrap()
    })
}

#[test]
fn select_branch_order_follows_the_seed() {
    watchdog("select! draws", || {
        let a = select_draws(1);
        assert_eq!(a, select_draws(1), "one seed, two draw sequences");
        assert!(a.contains(&0) && a.contains(&1), "{a:?}");
        let distinct: HashSet<Vec<u8>> = (0..8).map(select_draws).collect();
        assert!(distinct.len() > 1, "select!'s draws ignore the seed");
    });
}
