//! `instr`: runs one workload a given number of times on one runtime, for instruction
//! counting under callgrind (`benches/scripts/compare.sh` does it).
//!
//! `instr <runtime|tokio|smol|smol_static|floor>
//! <workload> <N> [current|WORKERS]` (the workloads: spawn_many_local, chained_spawn,
//! spawn_many_remote_idle, spawn_many_remote_busy1/2, ping_pong, yield_many) builds
//! the runtime (current-thread flavor unless a worker count is given), runs one warm-up
//! iteration, then N iterations, and prints the number of tasks
//! one iteration spawns. Everything outside the N iterations (build, warm-up, shutdown) is
//! the same for every N, so `(I(N2) - I(N1)) / ((N2 - N1) * tasks)` is the instruction cost
//! of one spawned task, start to finish, with no timing noise.

use std::process::ExitCode;

use benches::adapters::floor::Floor;
use benches::adapters::ours::Ours;
use benches::adapters::smol::{SmolExecutor, SmolStatic};
use benches::adapters::tokio_rt::Tokio;
use benches::workloads::scheduler::{
    chained_spawn, ping_pong, spawn_many_local, spawn_many_remote_busy1, spawn_many_remote_busy2,
    spawn_many_remote_idle, yield_many, Iteration, BUSY2_SPAWN, CHAIN, NUM_PINGS, NUM_SPAWN,
    YIELD_TASKS,
};
use benches::{AsyncSignal, Bench, BlockingSignal, Flavor, Signal};

const USAGE: &str = "usage: instr <runtime|tokio|smol|smol_static|floor> \
                     <spawn_many_local|chained_spawn|spawn_many_remote_idle|spawn_many_remote_busy1|\
                     spawn_many_remote_busy2|ping_pong|yield_many> <iterations> [current|WORKERS]";

fn run<B: Bench, S: Signal>(rt: B, workload: &str, iterations: usize) -> Result<usize, String> {
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
        "yield_many" => (yield_many::<B, S>, YIELD_TASKS),
        other => return Err(format!("unknown workload {other:?}")),
    };
    let mut iteration = f(&rt);
    iteration();
    for _ in 0..iterations {
        iteration();
    }
    drop(iteration);
    // Our runtime prints its counters here when RUNTIME_BENCH_METRICS=1 (warm-up included).
    rt.report(workload, iterations as u64 + 1);
    drop(rt);
    Ok(tasks)
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
        ("floor", Flavor::MultiThread(_)) => Err("the floor is single-threaded".to_string()),
        ("floor", _) => run::<Floor, AsyncSignal>(Floor::new(), w, iterations),
        ("runtime", Flavor::CurrentThread) => {
            run::<Ours, AsyncSignal>(Ours::new(flavor), w, iterations)
        }
        ("runtime", _) => run::<Ours, BlockingSignal>(Ours::new(flavor), w, iterations),
        ("tokio", Flavor::CurrentThread) => {
            run::<Tokio, AsyncSignal>(Tokio::new(flavor), w, iterations)
        }
        ("tokio", _) => run::<Tokio, BlockingSignal>(Tokio::new(flavor), w, iterations),
        ("smol", Flavor::CurrentThread) => {
            run::<SmolExecutor, AsyncSignal>(SmolExecutor::new(flavor), w, iterations)
        }
        ("smol", _) => {
            run::<SmolExecutor, BlockingSignal>(SmolExecutor::new(flavor), w, iterations)
        }
        ("smol_static", Flavor::CurrentThread) => {
            run::<SmolStatic, AsyncSignal>(SmolStatic::new(flavor), w, iterations)
        }
        ("smol_static", _) => {
            run::<SmolStatic, BlockingSignal>(SmolStatic::new(flavor), w, iterations)
        }
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
