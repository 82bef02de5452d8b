//! Tasks that wait for one another by yielding: one holder task sets a flag at its first
//! poll and yields until `WRITERS` writer tasks, spawned beside it from outside the
//! runtime, have seen the flag; each writer yields until it sees it. The shape of
//! `rwlock_write_held`'s set-up (benches/src/workloads/sync_locks.rs) without the lock.
//! Prints the median and p90 iteration times and, for the slowest iteration, when the
//! holder was first polled and how many times the writers yielded before they saw the
//! flag: a holder first polled late while writers yield thousands of times means it sat
//! where the yielding worker did not look.
//! Usage: `cargo run --release -p benches --example yield_handoff -- ours|tokio [ITERS]`,
//! workers from `BENCH_WORKERS` (default 2 here).

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

const WRITERS: usize = 16;

/// One iteration's figures: total, the holder's first poll, the writers' yields.
struct Figures {
    total_us: u128,
    holder_first_poll_us: usize,
    max_writer_yields: usize,
}

/// A spawned task's join, run on the calling thread.
type Join = Box<dyn FnOnce() + Send>;

fn iteration<S, Y, F>(spawn: &S, yield_now: Y) -> Figures
where
    S: Fn(std::pin::Pin<Box<dyn Future<Output = ()> + Send>>) -> Join,
    Y: Fn() -> F + Clone + Send + Sync + 'static,
    F: Future<Output = ()> + Send + 'static,
{
    let start = Instant::now();
    // Relaxed: flags and counters read between yields; nothing else is published.
    let held = Arc::new(AtomicUsize::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    let max_yields = Arc::new(AtomicUsize::new(0));
    let holder = {
        let (held, started, y) = (held.clone(), started.clone(), yield_now.clone());
        spawn(Box::pin(async move {
            held.store(start.elapsed().as_micros() as usize + 1, Relaxed);
            while started.load(Relaxed) < WRITERS {
                y().await;
            }
        }))
    };
    let writers: Vec<_> = (0..WRITERS)
        .map(|_| {
            let (held, started, max_yields, y) = (
                held.clone(),
                started.clone(),
                max_yields.clone(),
                yield_now.clone(),
            );
            spawn(Box::pin(async move {
                let mut yields = 0;
                while held.load(Relaxed) == 0 {
                    yields += 1;
                    y().await;
                }
                max_yields.fetch_max(yields, Relaxed);
                started.fetch_add(1, Relaxed);
            }))
        })
        .collect();
    holder();
    for w in writers {
        w();
    }
    Figures {
        total_us: start.elapsed().as_micros(),
        holder_first_poll_us: held.load(Relaxed) - 1,
        max_writer_yields: max_yields.load(Relaxed),
    }
}

fn report(name: &str, mut figures: Vec<Figures>) {
    figures.sort_by_key(|f| f.total_us);
    let n = figures.len();
    let worst = &figures[n - 1];
    println!(
        "{name}: {n} iterations, median {} us, p90 {} us; slowest {} us: holder first polled at {} us, a writer yielded {} times first",
        figures[n / 2].total_us,
        figures[n * 9 / 10].total_us,
        worst.total_us,
        worst.holder_first_poll_us,
        worst.max_writer_yields
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "ours".into());
    let iters: usize = args.next().and_then(|v| v.parse().ok()).unwrap_or(200);
    let workers: usize = std::env::var("BENCH_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    match which.as_str() {
        "ours" => {
            let rt = runtime::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .build()
                .expect("runtime");
            let spawn = |f: std::pin::Pin<Box<dyn Future<Output = ()> + Send>>| {
                let h = rt.spawn(f);
                let handle = rt.handle().clone();
                Box::new(move || handle.block_on(h).expect("task")) as Join
            };
            let figures = (0..iters)
                .map(|_| iteration(&spawn, runtime::task::yield_now))
                .collect();
            report("ours", figures);
        }
        "tokio" => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(workers)
                .build()
                .expect("runtime");
            let spawn = |f: std::pin::Pin<Box<dyn Future<Output = ()> + Send>>| {
                let h = rt.spawn(f);
                let handle = rt.handle().clone();
                Box::new(move || handle.block_on(h).expect("task")) as Join
            };
            let figures = (0..iters)
                .map(|_| iteration(&spawn, tokio::task::yield_now))
                .collect();
            report("tokio", figures);
        }
        other => {
            eprintln!("unknown runtime {other:?}: ours or tokio");
            std::process::exit(2);
        }
    }
}
