//! Spawns 100,000 tasks across the workers and prints how many each worker ran.
//!
//! `cargo run --release -p examples --example many_tasks [TASKS]`; the worker count follows
//! `RUNTIME_WORKER_THREADS` (default: one per core). The per-worker figures come from
//! `Handle::metrics()`: polls, tasks stolen from siblings, parks.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[runtime::main]
async fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("TASKS must be a number"))
        .unwrap_or(100_000);
    let done = Arc::new(AtomicUsize::new(0));
    let start = std::time::Instant::now();
    // Spawn from a task so the burst starts on one worker and the others must steal.
    let d = done.clone();
    runtime::spawn(async move {
        let handles: Vec<_> = (0..n)
            .map(|_| {
                let d = d.clone();
                runtime::spawn(async move {
                    d.fetch_add(1, Ordering::Relaxed);
                })
            })
            .collect();
        for h in handles {
            h.await.expect("task failed");
        }
    })
    .await
    .expect("spawner failed");
    let elapsed = start.elapsed();
    assert_eq!(done.load(Ordering::Relaxed), n);

    let m = runtime::Handle::current().metrics();
    println!("{n} tasks on {} workers in {elapsed:?}", m.num_workers());
    println!("worker       polls   lifo_hits  stolen  steals  overflowed   parks");
    for (i, w) in m.workers().iter().enumerate() {
        println!(
            "{i:>6} {:>11} {:>11} {:>7} {:>7} {:>11} {:>7}",
            w.polls(),
            w.lifo_hits(),
            w.stolen_tasks(),
            w.steals(),
            w.overflowed_tasks(),
            w.parks()
        );
    }
}
