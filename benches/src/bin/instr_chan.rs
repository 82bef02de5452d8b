//! `instr_chan`: runs one channel workload (`benches::workloads::chan`) a given number of times on the
//! current-thread flavor of one runtime with its own ecosystem's channel, for instruction
//! counting under callgrind: `(I(N2) - I(N1)) / ((N2 - N1) * messages)` is the cost of one
//! message, send to receive, with no timing noise.
//!
//! `instr_chan <runtime|tokio|smol> <uncontended_bounded|uncontended_unbounded|full_ping|
//! contention_bounded|contention_unbounded|watch_fanout|watch_fanout_100|broadcast_fanout|
//! broadcast_fanout_100|notify_one_local|notify_waiters_local> <N> [WORKERS]`; prints the
//! messages one iteration moves (a fan-out: values times receivers; a `Notify` workload:
//! the wake-ups it counts, `sync_locks::NOTIFY_ITERS`, the last call's extra wake-ups
//! aside). With `WORKERS` the multi-thread
//! flavor runs instead (for `strace -c -f` or `perf stat`: syscalls and parks per message
//! cross threads there, and instruction counts then depend on timing).

use std::process::ExitCode;

use benches::adapters::ours::Ours;
use benches::adapters::smol::SmolExecutor;
use benches::adapters::tokio_rt::Tokio;
use benches::workloads::chan::*;
use benches::workloads::scheduler::Iteration;
use benches::workloads::sync_locks::{
    notify_one_local, notify_waiters_local, OursKit, TokioKit, NOTIFY_ITERS,
};
use benches::{Bench, Flavor};

const USAGE: &str = "usage: instr_chan <runtime|tokio|smol> \
                     <uncontended_bounded|uncontended_unbounded|full_ping|contention_bounded|\
                     contention_unbounded|watch_fanout|watch_fanout_100|broadcast_fanout|\
                     broadcast_fanout_100|notify_one_local|notify_waiters_local> <iterations> [workers]";

/// Runs `iterations + 1` iterations (the first warms up) on `rt`, then drops it.
fn run<B: Bench>(rt: B, f: for<'a> fn(&'a B) -> Iteration<'a>, iterations: usize) {
    run_on(&rt, f, iterations);
}

fn run_on<B: Bench>(rt: &B, f: for<'a> fn(&'a B) -> Iteration<'a>, iterations: usize) {
    let mut iteration = f(rt);
    for _ in 0..=iterations {
        iteration();
    }
}

/// [`run`] on our runtime; with `RUNTIME_BENCH_METRICS=1` also prints its counters.
fn run_ours(flavor: Flavor, f: for<'a> fn(&'a Ours) -> Iteration<'a>, iterations: usize) {
    let rt = Ours::new(flavor);
    run_on(&rt, f, iterations);
    if benches::metrics::metrics_enabled() {
        // Idle workers publish their counters when they park.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let n = iterations as u64 + 1;
        eprint!(
            "{}",
            benches::metrics::format_metrics("instr_chan", n, &rt.metrics())
        );
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(iterations) = args.get(2).and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let f = match args.get(3).map(|w| w.parse::<usize>()) {
        None => Flavor::CurrentThread,
        Some(Ok(n)) if n > 0 => Flavor::MultiThread(n),
        Some(_) => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match (args[0].as_str(), args[1].as_str()) {
        ("runtime", "uncontended_bounded") => {
            run_ours(f, mpsc_uncontended::<Ours, OursBounded>, iterations)
        }
        ("runtime", "uncontended_unbounded") => {
            run_ours(f, mpsc_uncontended::<Ours, OursUnbounded>, iterations)
        }
        ("runtime", "full_ping") => run_ours(f, mpsc_full_ping::<Ours, OursBounded>, iterations),
        ("runtime", "contention_bounded") => {
            run_ours(f, mpsc_contention::<Ours, OursBounded>, iterations)
        }
        ("runtime", "contention_unbounded") => {
            run_ours(f, mpsc_contention::<Ours, OursUnbounded>, iterations)
        }
        ("runtime", "watch_fanout_100") => {
            run_ours(f, watch_fanout_100::<Ours, OursWatch>, iterations)
        }
        ("runtime", "broadcast_fanout_100") => {
            run_ours(f, broadcast_fanout_100::<Ours, OursBroadcast>, iterations)
        }
        ("runtime", "watch_fanout") => run_ours(f, watch_fanout::<Ours, OursWatch>, iterations),
        ("runtime", "broadcast_fanout") => {
            run_ours(f, broadcast_fanout::<Ours, OursBroadcast>, iterations)
        }
        ("runtime", "notify_one_local") => {
            run_ours(f, notify_one_local::<Ours, OursKit>, iterations)
        }
        ("runtime", "notify_waiters_local") => {
            run_ours(f, notify_waiters_local::<Ours, OursKit>, iterations)
        }
        ("tokio", "watch_fanout") => {
            run(Tokio::new(f), watch_fanout::<Tokio, TokioWatch>, iterations)
        }
        ("tokio", "broadcast_fanout") => run(
            Tokio::new(f),
            broadcast_fanout::<Tokio, TokioBroadcast>,
            iterations,
        ),
        ("tokio", "notify_one_local") => run(
            Tokio::new(f),
            notify_one_local::<Tokio, TokioKit>,
            iterations,
        ),
        ("tokio", "notify_waiters_local") => run(
            Tokio::new(f),
            notify_waiters_local::<Tokio, TokioKit>,
            iterations,
        ),
        ("tokio", "watch_fanout_100") => run(
            Tokio::new(f),
            watch_fanout_100::<Tokio, TokioWatch>,
            iterations,
        ),
        ("tokio", "broadcast_fanout_100") => run(
            Tokio::new(f),
            broadcast_fanout_100::<Tokio, TokioBroadcast>,
            iterations,
        ),
        ("tokio", "uncontended_bounded") => run(
            Tokio::new(f),
            mpsc_uncontended::<Tokio, TokioBounded>,
            iterations,
        ),
        ("tokio", "uncontended_unbounded") => run(
            Tokio::new(f),
            mpsc_uncontended::<Tokio, TokioUnbounded>,
            iterations,
        ),
        ("tokio", "contention_bounded") => run(
            Tokio::new(f),
            mpsc_contention::<Tokio, TokioBounded>,
            iterations,
        ),
        ("tokio", "contention_unbounded") => run(
            Tokio::new(f),
            mpsc_contention::<Tokio, TokioUnbounded>,
            iterations,
        ),
        ("tokio", "full_ping") => run(
            Tokio::new(f),
            mpsc_full_ping::<Tokio, TokioBounded>,
            iterations,
        ),
        ("smol", "uncontended_bounded") => run(
            SmolExecutor::new(f),
            mpsc_uncontended::<SmolExecutor, AsyncChannelBounded>,
            iterations,
        ),
        ("smol", "uncontended_unbounded") => run(
            SmolExecutor::new(f),
            mpsc_uncontended::<SmolExecutor, AsyncChannelUnbounded>,
            iterations,
        ),
        ("smol", "full_ping") => run(
            SmolExecutor::new(f),
            mpsc_full_ping::<SmolExecutor, AsyncChannelBounded>,
            iterations,
        ),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    let messages = if args[1].starts_with("contention") {
        PRODUCERS * MESSAGES
    } else if args[1].ends_with("fanout_100") {
        RECEIVERS_100 * UPDATES_100
    } else if args[1].ends_with("fanout") {
        RECEIVERS * UPDATES
    } else if args[1].starts_with("notify") {
        NOTIFY_ITERS
    } else {
        MESSAGES
    };
    println!("{messages}");
    ExitCode::SUCCESS
}
