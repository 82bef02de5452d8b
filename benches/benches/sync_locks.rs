//! The lock workloads on multi-thread runtimes (`BENCH_WORKERS` workers,
//! default 4): each workload is a group whose functions are `runtime` (ours, on our
//! runtime), `tokio` (`tokio::sync` on tokio), `smol` (`async-lock` / `event-listener`
//! on smol's `Executor`) and `asynclock_on_ours` (`async-lock` / `event-listener` on our
//! runtime: the primitives compared on one scheduler). The workloads are in
//! `benches::workloads::sync_locks`.
//!
//! `sync/notify_waiters` also has `floor` and `floor_tokio`: the same loop over
//! `benches::workloads::notify_floor::SlotNotify`, the least a notify-all primitive can do, on our
//! runtime and on tokio's. What the scheduler and the bench's shared counter cost.

use benches::adapters::ours::Ours;
use benches::adapters::smol::SmolExecutor;
use benches::adapters::tokio_rt::Tokio;
use benches::harness::{bench, group};
use benches::workloads::notify_floor::notify_waiters_floor;
use benches::workloads::sync_locks::*;
use benches::{workers, Flavor};
use criterion::{criterion_group, criterion_main, Criterion};

/// One group: the three primitive families, each on its own runtime, and async-lock's on
/// ours.
macro_rules! workload {
    ($c:expr, $name:ident) => {{
        let flavor = Flavor::MultiThread(workers());
        let name = concat!("sync/", stringify!($name));
        let mut g = group($c, name, false);
        bench(
            &mut g,
            name,
            "runtime",
            Ours::new(flavor),
            $name::<Ours, OursKit>,
        );
        bench(
            &mut g,
            name,
            benches::adapters::tokio_rt::NAME,
            Tokio::new(flavor),
            $name::<Tokio, TokioKit>,
        );
        bench(
            &mut g,
            name,
            "smol",
            SmolExecutor::new(flavor),
            $name::<SmolExecutor, SmolKit>,
        );
        bench(
            &mut g,
            name,
            "asynclock_on_ours",
            Ours::new(flavor),
            $name::<Ours, SmolKit>,
        );
        workload!(@extra g, name, flavor, $name);
        g.finish();
    }};
    (@extra $g:ident, $group:ident, $flavor:ident, notify_waiters) => {
        bench(
            &mut $g,
            $group,
            "floor",
            Ours::new($flavor),
            notify_waiters_floor::<Ours>,
        );
        bench(
            &mut $g,
            $group,
            "floor_tokio",
            Tokio::new($flavor),
            notify_waiters_floor::<Tokio>,
        );
    };
    (@extra $g:ident, $group:ident, $flavor:ident, $other:ident) => {};
}

fn sync_locks(c: &mut Criterion) {
    workload!(c, semaphore_uncontended);
    workload!(c, semaphore_contended_1);
    workload!(c, semaphore_contended_n);
    workload!(c, mutex_contended);
    workload!(c, rwlock_read_uncontended);
    workload!(c, rwlock_read_contended);
    workload!(c, rwlock_write_held);
    workload!(c, notify_one);
    workload!(c, notify_waiters);
}

criterion_group!(benches, sync_locks);
criterion_main!(benches);
