//! The scheduler workloads (tokio's own) on multi-thread runtimes (`BENCH_WORKERS` workers, default 4):
//! each workload is a group whose functions are `runtime` (ours), `tokio`, `smol`
//! (async-executor's `Executor` on N threads), `smol_static` (its `StaticExecutor`) and,
//! where one thread can serve the workload, `floor`. Tasks signal the bench thread through
//! a std `sync_channel` (as tokio's benches do); the floor, having no other thread, through
//! an async counter.

use benches::adapters::floor::Floor;
use benches::adapters::ours::Ours;
use benches::adapters::smol::{SmolExecutor, SmolStatic};
use benches::adapters::tokio_rt::Tokio;
use benches::harness::{bench, group, own_oneshot_group};
use benches::workloads::remote_threads::*;
use benches::workloads::scheduler::*;
use benches::{workers, AsyncSignal, BlockingSignal, Flavor};
use criterion::{criterion_group, criterion_main, Criterion};

/// One group: the four multi-thread runtimes, plus the floor when `floor` is given.
macro_rules! workload {
    ($c:expr, $name:ident, slow: $slow:expr $(, $floor:ident)?) => {{
        let flavor = Flavor::MultiThread(workers());
        let name = concat!("multi_thread/", stringify!($name));
        let mut g = group($c, name, $slow);
        bench(&mut g, name, "runtime", Ours::new(flavor), $name::<Ours, BlockingSignal>);
        bench(&mut g, name, benches::adapters::tokio_rt::NAME, Tokio::new(flavor), $name::<Tokio, BlockingSignal>);
        bench(&mut g, name, "smol", SmolExecutor::new(flavor), $name::<SmolExecutor, BlockingSignal>);
        bench(&mut g, name, "smol_static", SmolStatic::new(flavor), $name::<SmolStatic, BlockingSignal>);
        $(
            let _ = stringify!($floor);
            bench(&mut g, name, "floor", Floor::new(), $name::<Floor, AsyncSignal>);
        )?
        g.finish();
    }};
}

fn multi_thread(c: &mut Criterion) {
    workload!(c, spawn_many_local, slow: false, floor);
    workload!(c, spawn_many_remote_idle, slow: false);
    workload!(c, spawn_many_remote_busy1, slow: false);
    workload!(c, spawn_many_remote_busy2, slow: true);
    workload!(c, spawn_remote_threads_1, slow: false);
    workload!(c, spawn_remote_threads_4, slow: false);
    workload!(c, spawn_remote_threads_16, slow: false);
    workload!(c, spawn_remote_threads_64, slow: false);
    workload!(c, ping_pong, slow: false, floor);
    own_oneshot_group::<BlockingSignal>(c, Flavor::MultiThread(workers()));
    workload!(c, yield_many, slow: false, floor);
    workload!(c, chained_spawn, slow: false, floor);
}

criterion_group!(benches, multi_thread);
criterion_main!(benches);
