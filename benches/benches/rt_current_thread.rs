//! The scheduler workloads (tokio's own) on single-threaded runtimes: ours and tokio's `current_thread`
//! flavors, smol's executors run by the bench thread itself (`block_on(ex.run(..))`), and
//! the floor. Everything runs inside `block_on` on the bench thread, so tasks signal it
//! through an async counter (blocking in a std channel would deadlock), and the busy
//! workloads' background tasks run without the 10 us stall (see `workloads`).

use benches::adapters::floor::Floor;
use benches::adapters::ours::Ours;
use benches::adapters::smol::{SmolExecutor, SmolStatic};
use benches::adapters::tokio_rt::Tokio;
use benches::harness::{bench, group, own_oneshot_group};
use benches::workloads::scheduler::*;
use benches::{AsyncSignal, Flavor};
use criterion::{criterion_group, criterion_main, Criterion};

/// One group: every runtime, the floor included (one thread serves every workload here).
macro_rules! workload {
    ($c:expr, $name:ident, slow: $slow:expr) => {{
        let flavor = Flavor::CurrentThread;
        let name = concat!("current_thread/", stringify!($name));
        let mut g = group($c, name, $slow);
        bench(
            &mut g,
            name,
            "runtime",
            Ours::new(flavor),
            $name::<Ours, AsyncSignal>,
        );
        bench(
            &mut g,
            name,
            benches::adapters::tokio_rt::NAME,
            Tokio::new(flavor),
            $name::<Tokio, AsyncSignal>,
        );
        bench(
            &mut g,
            name,
            "smol",
            SmolExecutor::new(flavor),
            $name::<SmolExecutor, AsyncSignal>,
        );
        bench(
            &mut g,
            name,
            "smol_static",
            SmolStatic::new(flavor),
            $name::<SmolStatic, AsyncSignal>,
        );
        bench(
            &mut g,
            name,
            "floor",
            Floor::new(),
            $name::<Floor, AsyncSignal>,
        );
        g.finish();
    }};
}

fn current_thread(c: &mut Criterion) {
    workload!(c, spawn_many_local, slow: false);
    workload!(c, spawn_many_remote_idle, slow: false);
    workload!(c, spawn_many_remote_busy1, slow: true);
    workload!(c, spawn_many_remote_busy2, slow: true);
    workload!(c, ping_pong, slow: false);
    own_oneshot_group::<AsyncSignal>(c, Flavor::CurrentThread);
    workload!(c, yield_many, slow: false);
    workload!(c, chained_spawn, slow: false);
}

criterion_group!(benches, current_thread);
criterion_main!(benches);
