//! How fast the deterministic mode runs (figures for benches/RESULTS.md): trace events per
//! second on one core, a timeout-heavy test's virtual time against its wall time, and 30
//! virtual days of 10,000 timers plus an hourly interval.
//!
//! `cargo run --release -p runtime --features deterministic --example sim_speed`

use std::time::{Duration, Instant as WallInstant};

use runtime::time::{interval, sleep, sleep_until, timeout, Instant};
use runtime::Builder;

fn sim(seed: u64) -> runtime::Runtime {
    Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .deterministic(seed)
        .build()
        .unwrap()
}

/// Many racing tasks over channels and yields: trace events per wall second.
fn events_per_second() -> (u64, f64) {
    let rt = sim(1);
    let start = WallInstant::now();
    rt.block_on(async {
        let (tx, mut rx) = runtime::sync::mpsc::channel::<u64>(64);
        for i in 0..2_000u64 {
            let tx = tx.clone();
            runtime::spawn(async move {
                for j in 0..20 {
                    runtime::task::yield_now().await;
                    tx.send(i * j).await.unwrap();
                }
            });
        }
        drop(tx);
        while rx.recv().await.is_some() {}
    });
    let wall = start.elapsed().as_secs_f64();
    let events = rt.trace_events();
    (events, events as f64 / wall)
}

/// A timeout-heavy test: 100 tasks, each 200 rounds of a request that times out after
/// 30 s or answers after a seeded-looking delay.
fn timeout_heavy() -> (Duration, Duration) {
    let rt = sim(2);
    let start = WallInstant::now();
    let virtual_time = rt.block_on(async {
        let t0 = Instant::now();
        let hs: Vec<_> = (0..100u64)
            .map(|i| {
                runtime::spawn(async move {
                    for r in 0..200u64 {
                        let delay = Duration::from_secs((i * 7 + r * 13) % 45);
                        let _ = timeout(Duration::from_secs(30), sleep(delay)).await;
                    }
                })
            })
            .collect();
        for h in hs {
            h.await.unwrap();
        }
        t0.elapsed()
    });
    (virtual_time, start.elapsed())
}

/// 30 virtual days: 10,000 timers spread over them plus an hourly interval.
fn thirty_days() -> Duration {
    let rt = sim(3);
    let start = WallInstant::now();
    rt.block_on(async {
        let origin = Instant::now();
        let day = 86_400u64;
        let hs: Vec<_> = (0..10_000u64)
            .map(|i| {
                let at = origin + Duration::from_secs((i * 7919) % (30 * day));
                runtime::spawn(async move {
                    sleep_until(at).await;
                    assert!(Instant::now() >= at);
                })
            })
            .collect();
        let mut hourly = interval(Duration::from_secs(3600));
        for _ in 0..=30 * 24 {
            hourly.tick().await;
        }
        for h in hs {
            h.await.unwrap();
        }
    });
    start.elapsed()
}

fn main() {
    let (events, rate) = events_per_second();
    println!(
        "events: {events} trace events at {:.0} per second on one core",
        rate
    );
    let (virt, wall) = timeout_heavy();
    println!(
        "timeout-heavy: {:.1} h of virtual time in {:.3} s of wall time ({:.0}x real time)",
        virt.as_secs_f64() / 3600.0,
        wall.as_secs_f64(),
        virt.as_secs_f64() / wall.as_secs_f64()
    );
    println!(
        "30 virtual days of 10,000 timers and an hourly interval: {:.3} s",
        thirty_days().as_secs_f64()
    );
}
