//! `join_set`: spawn 10,000 trivial tasks into a `JoinSet` from inside a task and join
//! them all (benches/src/workloads/join_set.rs), ours beside tokio, on the multi-thread flavor
//! (`BENCH_WORKERS` workers, default 4) and on current_thread. Groups:
//! `multi_thread/join_set` and `current_thread/join_set`, functions `runtime` and `tokio`.

use benches::harness::group;
use benches::workloads::join_set::{ours_join_set, ours_runtime, tokio_join_set, tokio_runtime};
use benches::{workers, Flavor};
use criterion::{criterion_group, criterion_main, Criterion};

fn join_set(c: &mut Criterion) {
    for (name, flavor) in [
        ("multi_thread/join_set", Flavor::MultiThread(workers())),
        ("current_thread/join_set", Flavor::CurrentThread),
    ] {
        let mut g = group(c, name, false);
        let ours = ours_runtime(flavor);
        g.bench_function("runtime", |b| b.iter(|| ours_join_set(&ours)));
        drop(ours);
        let tokio = tokio_runtime(flavor);
        g.bench_function("tokio", |b| b.iter(|| tokio_join_set(&tokio)));
        drop(tokio);
        g.finish();
    }
}

criterion_group!(benches, join_set);
criterion_main!(benches);
