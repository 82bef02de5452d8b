//! Reproducer for the `spawn_many_remote_busy{1,2}` gap: remote spawns into a runtime whose
//! workers are kept busy by tasks that `yield_now` in a loop. Prints how long 1,000 remote
//! empty tasks take to complete, and how many polls the workers made meanwhile, ours beside
//! tokio. Usage: `cargo run --release -p benches --example remote_starvation [WORKERS]`.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn stall() {
    let t = Instant::now();
    while t.elapsed() < Duration::from_micros(10) {
        std::thread::yield_now();
    }
}

fn main() {
    let workers: usize = std::env::args().nth(1).map_or(2, |s| s.parse().expect("WORKERS"));
    let remote = 1_000;

    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    for _ in 0..2 * workers {
        let stop = stop.clone();
        rt.spawn(async move {
            while !stop.load(Relaxed) {
                runtime::task::yield_now().await;
                stall();
            }
        });
    }
    std::thread::sleep(Duration::from_millis(50));
    let polls = |m: runtime::RuntimeMetrics| m.workers.iter().map(|w| w.polls).sum::<u64>();
    let before = polls(rt.metrics());
    let t = Instant::now();
    let handles: Vec<_> = (0..remote).map(|_| rt.spawn(async {})).collect();
    rt.block_on(async {
        for h in handles {
            h.await.unwrap();
        }
    });
    let ours = t.elapsed();
    let after = polls(rt.metrics());
    stop.store(true, Relaxed);
    drop(rt);
    println!(
        "ours:  {remote} remote tasks behind {} yielding loops on {workers} workers: {ours:?} \
         (~{} worker polls, ~{:.0} per remote task; counters as last published)",
        2 * workers,
        after - before,
        (after - before) as f64 / remote as f64
    );

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    for _ in 0..2 * workers {
        let stop = stop.clone();
        rt.spawn(async move {
            while !stop.load(Relaxed) {
                tokio::task::yield_now().await;
                stall();
            }
        });
    }
    std::thread::sleep(Duration::from_millis(50));
    let t = Instant::now();
    let handles: Vec<_> = (0..remote).map(|_| rt.spawn(async {})).collect();
    rt.block_on(async {
        for h in handles {
            h.await.unwrap();
        }
    });
    println!("tokio: the same: {:?}", t.elapsed());
    stop.store(true, Relaxed);
}
