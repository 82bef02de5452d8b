//! Virtual time in the deterministic mode: the clock starts at a fixed epoch and jumps to
//! the next timer when nothing can run, so hours of `sleep` cost nothing, every timer
//! fires at its deadline, and `Instant::now()` is the virtual clock on every flavor.
//!
//! Each run is bounded by the watchdog; nothing here measures speed (the benches do).
#![cfg(all(feature = "deterministic", not(loom)))]

#[macro_use]
mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use runtime::time::{interval, sleep, sleep_until, timeout, Instant, MissedTickBehavior};
use runtime::Builder;
use support::*;

fn sim(seed: u64, workers: usize) -> runtime::Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .deterministic(seed)
        .build()
        .unwrap()
}

#[test]
fn hours_of_sleep_are_virtual() {
    watchdog("a three-hour sleep", || {
        let rt = sim(1, 4);
        let (start, end) = rt.block_on(async {
            let start = Instant::now();
            sleep(Duration::from_secs(3 * 3600)).await;
            (start, Instant::now())
        });
        assert_eq!(end - start, Duration::from_secs(3 * 3600));
    });
}

#[test]
fn timeout_fires_at_its_deadline() {
    watchdog("a timeout in virtual time", || {
        let rt = sim(2, 4);
        rt.block_on(async {
            let start = Instant::now();
            let r = timeout(Duration::from_secs(600), std::future::pending::<()>()).await;
            assert!(r.is_err());
            assert_eq!(start.elapsed(), Duration::from_secs(600));
            let r = timeout(Duration::from_secs(600), sleep(Duration::from_secs(5))).await;
            assert!(r.is_ok());
            assert_eq!(start.elapsed(), Duration::from_secs(605));
        });
    });
}

#[test]
fn every_timer_fires_at_its_deadline_over_thirty_days() {
    watchdog(
        "10,000 timers and an hourly interval over 30 virtual days",
        || {
            const DAY: u64 = 24 * 3600;
            let rt = sim(3, 4);
            let late = Arc::new(Mutex::new(Vec::new()));
            let fired = rt.block_on({
                let late = late.clone();
                async move {
                    let origin = Instant::now();
                    let mut handles = Vec::new();
                    for i in 0..10_000u64 {
                        let late = late.clone();
                        // Spread over 30 days, with many sharing one deadline.
                        let at = origin + Duration::from_secs((i * 7919) % (30 * DAY) / 60 * 60);
                        handles.push(runtime::spawn(async move {
                            sleep_until(at).await;
                            let now = Instant::now();
                            if now != at {
                                late.lock().unwrap().push((i, now - at));
                            }
                        }));
                    }
                    let ticker = runtime::spawn(async move {
                        let mut tick = interval(Duration::from_secs(3600));
                        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
                        let mut ticks = 0u64;
                        loop {
                            let at = tick.tick().await;
                            assert_eq!(at, origin + Duration::from_secs(3600 * ticks));
                            assert_eq!(Instant::now(), at, "tick {ticks} fired late");
                            ticks += 1;
                            if ticks == 30 * 24 + 1 {
                                return ticks;
                            }
                        }
                    });
                    for h in handles {
                        h.await.unwrap();
                    }
                    ticker.await.unwrap()
                }
            });
            assert_eq!(fired, 721);
            let late = late.lock().unwrap();
            assert!(
                late.is_empty(),
                "{} timers fired late, e.g. {:?}",
                late.len(),
                &late[..late.len().min(5)]
            );
        },
    );
}

#[test]
fn same_deadline_ties_replay() {
    watchdog("timers sharing one deadline", || {
        let run = |seed| {
            let rt = sim(seed, 4);
            let order = Arc::new(Mutex::new(Vec::new()));
            rt.block_on({
                let order = order.clone();
                async move {
                    let at = Instant::now() + Duration::from_secs(1);
                    let hs: Vec<_> = (0..32)
                        .map(|i| {
                            let order = order.clone();
                            runtime::spawn(async move {
                                sleep_until(at).await;
                                order.lock().unwrap().push(i);
                            })
                        })
                        .collect();
                    for h in hs {
                        h.await.unwrap();
                    }
                }
            });
            let v = order.lock().unwrap().clone();
            (v, rt.trace_hash())
        };
        for seed in 0..10 {
            assert_eq!(run(seed), run(seed), "seed {seed}");
        }
    });
}

#[test]
fn current_thread_flavor_has_virtual_time() {
    watchdog("a current-thread deterministic runtime's clock", || {
        let rt = Builder::new_current_thread()
            .enable_all()
            .deterministic(5)
            .build()
            .unwrap();
        let elapsed = rt.block_on(async {
            let start = Instant::now();
            let a = runtime::spawn(sleep(Duration::from_secs(86_400)));
            sleep(Duration::from_secs(3600)).await;
            a.await.unwrap();
            start.elapsed()
        });
        assert_eq!(elapsed, Duration::from_secs(86_400));
    });
}

#[test]
fn the_epoch_is_fixed() {
    watchdog("two runtimes' clocks", || {
        // Each runtime's clock starts at its own epoch; time read inside one run depends
        // only on the run, not on when it started.
        let read = || {
            let rt = sim(7, 2);
            rt.block_on(async {
                let start = Instant::now();
                sleep(Duration::from_millis(1500)).await;
                start.elapsed()
            })
        };
        assert_eq!(read(), read());
        assert_eq!(read(), Duration::from_millis(1500));
    });
}
