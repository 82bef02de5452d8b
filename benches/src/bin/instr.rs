//! `instr`: runs one workload a given number of times on one runtime, for instruction
//! counting under callgrind (`benches/scripts/compare.sh` does it).
//!
//! `instr <runtime|tokio|smol|smol_static|floor>
//! <workload> <N> [current|WORKERS]` (the workloads: spawn_many_local, chained_spawn,
//! spawn_many_remote_idle, spawn_many_remote_busy1/2, ping_pong, yield_many;
//! ping_pong_own_oneshot: ping_pong over the runtime's own oneshot (futures' for smol and
//! the floor); join_await: a task awaiting one child's join handle at a time, runtime and
//! tokio only) builds
//! the runtime (current-thread flavor unless a worker count is given), runs one warm-up
//! iteration, then N iterations, and prints the number of tasks
//! one iteration spawns. Everything outside the N iterations (build, warm-up, shutdown) is
//! the same for every N, so `(I(N2) - I(N1)) / ((N2 - N1) * tasks)` is the instruction cost
//! of one spawned task, start to finish, with no timing noise.

use std::process::ExitCode;

use benches::adapters::floor::Floor;
use benches::adapters::ours::{Ours, OursOneshot};
use benches::adapters::smol::{SmolExecutor, SmolStatic};
use benches::adapters::tokio_rt::{Tokio, TokioOneshot};
use benches::workloads::scheduler::{
    chained_spawn, join_await, ping_pong, ping_pong_with, spawn_many_local,
    spawn_many_remote_busy1, spawn_many_remote_busy2, spawn_many_remote_idle, yield_many,
    Iteration, BUSY2_SPAWN, CHAIN, NUM_JOINS, NUM_PINGS, NUM_SPAWN, YIELD_TASKS,
};
use benches::{AsyncSignal, Bench, BlockingSignal, Flavor, FuturesOneshot, Oneshot, Signal};

const USAGE: &str = "usage: instr <runtime|tokio|smol|smol_static|floor> \
                     <spawn_many_local|chained_spawn|spawn_many_remote_idle|spawn_many_remote_busy1|\
                     spawn_many_remote_busy2|ping_pong|ping_pong_own_oneshot|yield_many|join_await> \
                     <iterations> [current|WORKERS]";

/// Runs `workload` on `rt`; `O` is the runtime's own oneshot (`ping_pong_own_oneshot`).
fn run<B: Bench, S: Signal, O: Oneshot>(
    rt: B,
    workload: &str,
    iterations: usize,
) -> Result<usize, String> {
    let (f, tasks): (for<'a> fn(&'a B) -> Iteration<'a>, usize) = match workload {
        "spawn_many_local" => (spawn_many_local::<B, S>, NUM_SPAWN),
        // The root task plus the chain it starts.
        "chained_spawn" => (chained_spawn::<B, S>, CHAIN + 1),
        // Spawns from the bench thread (the remote path), awaited in `block_on`.
        "spawn_many_remote_idle" => (spawn_many_remote_idle::<B, S>, NUM_SPAWN),
        // The rest of the scheduler workloads, for wall-clock and CPU-time A/B runs (`time`,
        // `perf stat`): their counts are tasks spawned per iteration.
        "spawn_many_remote_busy1" => (spawn_many_remote_busy1::<B, S>, NUM_SPAWN),
        "spawn_many_remote_busy2" => (spawn_many_remote_busy2::<B, S>, BUSY2_SPAWN),
        // The root, and per ping a pinger and its partner.
        "ping_pong" => (ping_pong::<B, S>, 1 + 2 * NUM_PINGS),
        "ping_pong_own_oneshot" => (ping_pong_with::<B, S, O>, 1 + 2 * NUM_PINGS),
        "yield_many" => (yield_many::<B, S>, YIELD_TASKS),
        other => return Err(format!("unknown workload {other:?}")),
    };
    iterate(&rt, f, iterations);
    // Our runtime prints its counters here when RUNTIME_BENCH_METRICS=1 (warm-up included).
    rt.report(workload, iterations as u64 + 1);
    drop(rt);
    Ok(tasks)
}

/// `join_await` (the root and its children), on a runtime whose join handle is `Send`.
fn run_join<B: Bench, S: Signal>(rt: B, iterations: usize) -> Result<usize, String>
where
    <B::Spawner as benches::Spawner>::Join<usize>: Send,
{
    iterate(&rt, join_await::<B, S>, iterations);
    rt.report("join_await", iterations as u64 + 1);
    drop(rt);
    Ok(1 + NUM_JOINS)
}

/// One warm-up iteration of `f` on `rt`, then `iterations` more.
fn iterate<B: Bench>(rt: &B, f: for<'a> fn(&'a B) -> Iteration<'a>, iterations: usize) {
    let mut iteration = f(rt);
    iteration();
    for _ in 0..iterations {
        iteration();
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 || args.len() > 4 {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let Ok(iterations) = args[2].parse::<usize>() else {
        eprintln!("{USAGE}\niterations must be a number, got {:?}", args[2]);
        return ExitCode::from(2);
    };
    let flavor = match args.get(3).map(String::as_str) {
        None | Some("current") | Some("0") => Flavor::CurrentThread,
        Some(n) => match n.parse::<usize>() {
            Ok(n) if n > 0 => Flavor::MultiThread(n),
            _ => {
                eprintln!("{USAGE}\nworkers must be `current` or a positive number, got {n:?}");
                return ExitCode::from(2);
            }
        },
    };
    let w = args[1].as_str();
    let result = match (args[0].as_str(), flavor) {
        ("runtime", Flavor::CurrentThread) if w == "join_await" => {
            run_join::<Ours, AsyncSignal>(Ours::new(flavor), iterations)
        }
        ("runtime", _) if w == "join_await" => {
            run_join::<Ours, BlockingSignal>(Ours::new(flavor), iterations)
        }
        ("tokio", Flavor::CurrentThread) if w == "join_await" => {
            run_join::<Tokio, AsyncSignal>(Tokio::new(flavor), iterations)
        }
        ("tokio", _) if w == "join_await" => {
            run_join::<Tokio, BlockingSignal>(Tokio::new(flavor), iterations)
        }
        ("floor", Flavor::MultiThread(_)) => Err("the floor is single-threaded".to_string()),
        ("floor", _) => run::<Floor, AsyncSignal, FuturesOneshot>(Floor::new(), w, iterations),
        ("runtime", Flavor::CurrentThread) => {
            run::<Ours, AsyncSignal, OursOneshot>(Ours::new(flavor), w, iterations)
        }
        ("runtime", _) => {
            run::<Ours, BlockingSignal, OursOneshot>(Ours::new(flavor), w, iterations)
        }
        ("tokio", Flavor::CurrentThread) => {
            run::<Tokio, AsyncSignal, TokioOneshot>(Tokio::new(flavor), w, iterations)
        }
        ("tokio", _) => {
            run::<Tokio, BlockingSignal, TokioOneshot>(Tokio::new(flavor), w, iterations)
        }
        ("smol", Flavor::CurrentThread) => run::<SmolExecutor, AsyncSignal, FuturesOneshot>(
            SmolExecutor::new(flavor),
            w,
            iterations,
        ),
        ("smol", _) => run::<SmolExecutor, BlockingSignal, FuturesOneshot>(
            SmolExecutor::new(flavor),
            w,
            iterations,
        ),
        ("smol_static", Flavor::CurrentThread) => {
            run::<SmolStatic, AsyncSignal, FuturesOneshot>(SmolStatic::new(flavor), w, iterations)
        }
        ("smol_static", _) => run::<SmolStatic, BlockingSignal, FuturesOneshot>(
            SmolStatic::new(flavor),
            w,
            iterations,
        ),
        (other, _) => Err(format!("unknown runtime {other:?}")),
    };
    match result {
        Ok(tasks) => {
            println!("tasks_per_iteration {tasks}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{USAGE}\n{e}");
            ExitCode::from(2)
        }
    }
}
