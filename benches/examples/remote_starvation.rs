//! Reproducer for the `spawn_many_remote_busy{1,2}` gap: remote spawns into a runtime whose
//! workers are kept busy by 2 x workers tasks looping `yield_now` + a 10 us stall (the
//! busy1 workload, by hand). Prints, for a few rounds, how long 10,000 remote empty tasks
//! take to complete and how many polls our workers made meanwhile, then tokio's times.
//! Usage: `cargo run --release -p benches --example remote_starvation [WORKERS]`.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

const REMOTE: usize = 10_000;
const ROUNDS: usize = 3;

fn stall() {
    let t = Instant::now();
    while t.elapsed() < Duration::from_micros(10) {
        std::thread::yield_now();
    }
}

fn polls(m: runtime::RuntimeMetrics) -> u64 {
    m.workers().iter().map(|w| w.polls()).sum()
}

fn main() {
    let workers: usize = std::env::args()
        .nth(1)
        .map_or(2, |s| s.parse().expect("WORKERS"));

    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    for _ in 0..2 * workers {
        let stop = stop.clone();
        drop(rt.spawn(async move {
            while !stop.load(Relaxed) {
                runtime::task::yield_now().await;
                stall();
            }
        }));
    }
    for round in 0..ROUNDS {
        let before = polls(rt.metrics());
        let t = Instant::now();
        let handles: Vec<_> = (0..REMOTE).map(|_| rt.spawn(async {})).collect();
        rt.block_on(async {
            for h in handles {
                h.await.unwrap();
            }
        });
        let took = t.elapsed();
        let polled = polls(rt.metrics()) - before;
        println!(
            "ours  round {round}: {REMOTE} remote tasks, {} yielding loops, {workers} workers: \
             {took:?}; {polled} worker polls meanwhile (as last published)",
            2 * workers
        );
    }
    stop.store(true, Relaxed);
    drop(rt);

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
    for round in 0..ROUNDS {
        let t = Instant::now();
        let handles: Vec<_> = (0..REMOTE).map(|_| rt.spawn(async {})).collect();
        rt.block_on(async {
            for h in handles {
                h.await.unwrap();
            }
        });
        println!("tokio round {round}: the same: {:?}", t.elapsed());
    }
    stop.store(true, Relaxed);
}
