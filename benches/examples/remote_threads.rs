//! The `spawn_remote_threads_K` workload (benches/src/workloads/remote_threads.rs) run a
//! fixed number of iterations on one runtime, for `strace -f -c` and `perf stat`: with
//! the iteration count fixed, a syscall total divided by `ITERS x 10,000` is syscalls per
//! remote spawn. Prints the median iteration time as well (a noisy figure on a shared box).
//! Usage: `cargo run --release -p benches --example remote_threads -- RUNTIME K [ITERS]`,
//! RUNTIME one of `ours`, `tokio`, `smol`, `smol_static`; workers from `BENCH_WORKERS`.

use std::time::Instant;

use benches::adapters::ours::Ours;
use benches::adapters::smol::{SmolExecutor, SmolStatic};
use benches::adapters::tokio_rt::Tokio;
use benches::workloads::remote_threads::spawn_remote_threads;
use benches::{workers, Bench, BlockingSignal, Flavor};

fn run<B: Bench>(rt: &B, k: usize, iters: usize) {
    let mut iteration = spawn_remote_threads::<B, BlockingSignal>(rt, k);
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        let t = Instant::now();
        iteration();
        times.push(t.elapsed());
    }
    drop(iteration);
    times.sort();
    println!(
        "{iters} iterations of 10,000 spawns from {k} threads: median {:?}, min {:?}, p90 {:?}, p99 {:?}, max {:?}",
        times[iters / 2],
        times[0],
        times[iters * 9 / 10],
        times[iters * 99 / 100],
        times[iters - 1]
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args
        .next()
        .expect("RUNTIME: ours, tokio, smol or smol_static");
    let k: usize = args
        .next()
        .map_or(16, |s| s.parse().expect("K: a thread count"));
    let iters: usize = args
        .next()
        .map_or(50, |s| s.parse().expect("ITERS: a count"));
    let flavor = Flavor::MultiThread(workers());
    match which.as_str() {
        "ours" => run(&Ours::new(flavor), k, iters),
        "tokio" => run(&Tokio::new(flavor), k, iters),
        "smol" => run(&SmolExecutor::new(flavor), k, iters),
        "smol_static" => run(&SmolStatic::new(flavor), k, iters),
        other => panic!("unknown runtime {other:?}: ours, tokio, smol or smol_static"),
    }
}
