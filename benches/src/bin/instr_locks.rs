//! `instr_locks`: runs one lock workload (`benches::workloads::sync_locks`) a given number
//! of times on the current-thread flavor of our runtime, with our primitives, tokio's (on
//! tokio) or async-lock's (on ours), for instruction counting under callgrind:
//! `(I(N2) - I(N1)) / ((N2 - N1) * ops)` is the cost of one lock cycle with no timing noise.
//!
//! `instr_locks <runtime|tokio|asynclock_on_ours> <mutex_handoff|semaphore_uncontended|
//! rwlock_read_uncontended> <N> [WORKERS]`; prints the lock cycles one iteration makes.
//! With `WORKERS` the multi-thread flavor runs instead (for `perf stat`; instruction
//! counts then depend on timing).

use std::process::ExitCode;

use benches::adapters::ours::Ours;
use benches::adapters::tokio_rt::Tokio;
use benches::workloads::scheduler::Iteration;
use benches::workloads::sync_locks::*;
use benches::{Bench, Flavor};

const USAGE: &str = "usage: instr_locks <runtime|tokio|asynclock_on_ours> \
                     <mutex_handoff|semaphore_uncontended|rwlock_read_uncontended> \
                     <iterations> [workers]";

/// Runs `iterations + 1` iterations (the first warms up) on `rt`, then drops it.
fn run<B: Bench>(rt: B, f: for<'a> fn(&'a B) -> Iteration<'a>, iterations: usize) {
    let mut iteration = f(&rt);
    for _ in 0..=iterations {
        iteration();
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
    let ops = match args[1].as_str() {
        "mutex_handoff" => CONTENDED_TASKS * OPS_PER_TASK,
        _ => UNCONTENDED_OPS,
    };
    match (args[0].as_str(), args[1].as_str()) {
        ("runtime", "mutex_handoff") => {
            run(Ours::new(f), mutex_handoff::<Ours, OursKit>, iterations)
        }
        ("runtime", "semaphore_uncontended") => run(
            Ours::new(f),
            semaphore_uncontended::<Ours, OursKit>,
            iterations,
        ),
        ("runtime", "rwlock_read_uncontended") => run(
            Ours::new(f),
            rwlock_read_uncontended::<Ours, OursKit>,
            iterations,
        ),
        ("tokio", "mutex_handoff") => {
            run(Tokio::new(f), mutex_handoff::<Tokio, TokioKit>, iterations)
        }
        ("tokio", "semaphore_uncontended") => run(
            Tokio::new(f),
            semaphore_uncontended::<Tokio, TokioKit>,
            iterations,
        ),
        ("tokio", "rwlock_read_uncontended") => run(
            Tokio::new(f),
            rwlock_read_uncontended::<Tokio, TokioKit>,
            iterations,
        ),
        ("asynclock_on_ours", "mutex_handoff") => {
            run(Ours::new(f), mutex_handoff::<Ours, SmolKit>, iterations)
        }
        ("asynclock_on_ours", "semaphore_uncontended") => run(
            Ours::new(f),
            semaphore_uncontended::<Ours, SmolKit>,
            iterations,
        ),
        ("asynclock_on_ours", "rwlock_read_uncontended") => run(
            Ours::new(f),
            rwlock_read_uncontended::<Ours, SmolKit>,
            iterations,
        ),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    if iterations == 0 {
        println!("{ops}");
    }
    ExitCode::SUCCESS
}
