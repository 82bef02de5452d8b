//! The spread rules of rt_spread.rs at 16 and 64 logical workers, on any machine: the
//! deterministic mode steps the real scheduler's workers one decision at a time, so a
//! 2-core box checks what only a many-core run would show with threads.
//!
//! - A burst made runnable on one worker at once (by its driver turn, with none of the
//!   pushes that wake a sibling one by one) reaches every parked sibling.
//! - No worker stays parked for long while another holds a backlog and nobody searches
//!   (`Spread::max_idle_with_backlog`).
//! - Searchers stay within their cap (half the workers).
//!
//! Planting the burst's collapse onto one worker (the backlog check after a driver turn
//! missing) must fail the first two:
//! `RUSTFLAGS='--cfg runtime_plant="no_backlog_check"' cargo test -p runtime --features
//! deterministic --test sim_spread`.
#![cfg(all(feature = "deterministic", not(loom)))]

#[macro_use]
mod support;

use std::collections::BTreeSet;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use runtime::sim::Spread;
use runtime::task::yield_now;
use runtime::Builder;
use support::*;

/// Burst size: 256 tasks, a server's connections woken at once.
const BURST: usize = 256;

/// Yields of each burst task after the release: work enough for the ramp-up to matter.
const WORK: usize = 32;

/// The longest a worker may sleep beside a sibling's backlog with nobody searching, in
/// steps: the design bounds it by one backlog check of the busy worker (a driver turn at
/// most `event_interval` ticks away), a few steps of each running worker.
fn idle_bound(workers: usize) -> u64 {
    4 * workers as u64 + 64
}

type Workers = Arc<Mutex<BTreeSet<usize>>>;

/// One link of the chain (rt_spread.rs): spawns the next link into this worker's LIFO
/// slot (no wake-up), yields into the deferred list (no wake-up), so the whole chain is
/// released by one driver turn; then works, noting the workers it ran on.
fn link(i: usize, seen: Workers) -> Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    Box::pin(async move {
        if i + 1 < BURST {
            drop(runtime::spawn(link(i + 1, seen.clone())));
        }
        yield_now().await;
        for _ in 0..WORK {
            seen.lock()
                .unwrap()
                .insert(::runtime::runtime::worker_index().expect("on a worker"));
            yield_now().await;
        }
    })
}

fn sim(workers: usize, seed: u64) -> runtime::Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .deterministic(seed)
        .build()
        .unwrap()
}

/// Runs the chain burst; returns the workers that ran burst work and the spread.
fn chain_burst(workers: usize, seed: u64) -> (usize, Spread) {
    let rt = sim(workers, seed);
    let seen = Workers::default();
    rt.block_on({
        let seen = seen.clone();
        async move {
            // Let every worker park first: nobody is searching by chance.
            runtime::time::sleep(Duration::from_millis(1)).await;
            runtime::spawn(link(0, seen)).await.unwrap();
            // Wait for the whole chain: the last link finishes last or close to it.
            runtime::time::sleep(Duration::from_secs(1)).await;
        }
    });
    let n = seen.lock().unwrap().len();
    (n, rt.sim_spread())
}

fn check(what: &str, workers: usize, seed: u64, ran_on: usize, spread: &Spread) {
    eprintln!(
        "{what}, {workers} workers, seed {seed}: reached {ran_on}, longest idle beside a \
         backlog {} steps, max searching {} (cap {}), {} steps",
        spread.max_idle_with_backlog, spread.max_searching, spread.searching_cap, spread.steps
    );
    assert!(
        ran_on == workers,
        "{what}, {workers} workers, seed {seed}: the burst reached {ran_on} of {workers} \
         workers ({spread:?})"
    );
    assert!(
        spread.max_idle_with_backlog <= idle_bound(workers),
        "{what}, {workers} workers, seed {seed}: a worker slept {} steps beside a backlog \
         with nobody searching (bound {})",
        spread.max_idle_with_backlog,
        idle_bound(workers)
    );
    assert!(
        spread.max_searching <= spread.searching_cap,
        "{what}, {workers} workers, seed {seed}: {} searchers, over the cap of {}",
        spread.max_searching,
        spread.searching_cap
    );
}

#[test]
fn a_driver_turn_burst_reaches_every_sibling_of_16() {
    watchdog("a 256-task burst over 16 logical workers", || {
        for seed in 0..8 {
            let (n, spread) = chain_burst(16, seed);
            check("chain burst", 16, seed, n, &spread);
        }
    });
}

#[test]
fn a_driver_turn_burst_reaches_every_sibling_of_64() {
    watchdog("a 256-task burst over 64 logical workers", || {
        for seed in 0..4 {
            let (n, spread) = chain_burst(64, seed);
            check("chain burst", 64, seed, n, &spread);
        }
    });
}

/// 256 tasks woken by one timer (fired by the clock's advance, outside any worker: the
/// remote path) spread over every worker too.
#[test]
fn a_timer_burst_reaches_every_sibling() {
    watchdog("a timer burst over 16 and 64 logical workers", || {
        for (workers, seed) in [(16, 0), (16, 1), (64, 2)] {
            let rt = sim(workers, seed);
            let seen = Workers::default();
            rt.block_on({
                let seen = seen.clone();
                async move {
                    let at = runtime::time::Instant::now() + Duration::from_millis(5);
                    let hs: Vec<_> = (0..BURST)
                        .map(|_| {
                            let seen = seen.clone();
                            runtime::spawn(async move {
                                runtime::time::sleep_until(at).await;
                                for _ in 0..WORK {
                                    let w =
                                        ::runtime::runtime::worker_index().expect("on a worker");
                                    seen.lock().unwrap().insert(w);
                                    yield_now().await;
                                }
                            })
                        })
                        .collect();
                    for h in hs {
                        h.await.unwrap();
                    }
                }
            });
            let n = seen.lock().unwrap().len();
            check("timer burst", workers, seed, n, &rt.sim_spread());
        }
    });
}
