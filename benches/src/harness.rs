//! Criterion glue shared by both bench files: group settings, one function per runtime
//! (runtime built once, before criterion calls the routine; dropped after the function),
//! iteration counting; after each function the runtime reports (`Bench::report`: ours prints
//! its counters under `RUNTIME_BENCH_METRICS=1`, metrics.rs).
//!
//! Groups sample in `Flat` mode: every sample runs the same number of iterations, so
//! millisecond-long iterations fit a short `--measurement-time` (criterion's default
//! linear mode needs n(n+1)/2 iterations for n samples).

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode};

use crate::adapters::ours::{Ours, OursOneshot};
use crate::adapters::tokio_rt::{Tokio, TokioOneshot};
use crate::workloads::scheduler::{ping_pong_with, Iteration};
use crate::{Bench, Flavor, Signal};

/// Opens a group with the settings every workload uses. `slow` groups (iterations that
/// can take tens of milliseconds) get criterion's minimum of 10 samples.
pub fn group<'a>(c: &'a mut Criterion, name: &str, slow: bool) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sampling_mode(SamplingMode::Flat);
    if slow {
        g.sample_size(10);
    }
    g
}

/// Benchmarks `workload` on `rt` as function `id` of group `group` (the name is only for
/// the metrics print), then lets `rt` report (if criterion ran it) and drops it.
pub fn bench<B: Bench>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    group: &str,
    id: &str,
    rt: B,
    workload: for<'a> fn(&'a B) -> Iteration<'a>,
) {
    let mut iterations = 0u64;
    {
        let mut iteration = workload(&rt);
        g.bench_function(id, |b| {
            b.iter(|| {
                iterations += 1;
                iteration()
            })
        });
    }
    // Zero iterations: criterion's filter skipped this function.
    if iterations > 0 {
        rt.report(group, iterations);
    }
}

/// The group `<flavor>/ping_pong_own_oneshot`: `ping_pong` over each runtime's own oneshot
/// channel, ours (`runtime::sync::oneshot`) and tokio's (smol has none).
pub fn own_oneshot_group<S: Signal>(c: &mut Criterion, flavor: Flavor) {
    let name = match flavor {
        Flavor::MultiThread(_) => "multi_thread/ping_pong_own_oneshot",
        Flavor::CurrentThread => "current_thread/ping_pong_own_oneshot",
    };
    let mut g = group(c, name, false);
    let ours = ping_pong_with::<Ours, S, OursOneshot>;
    bench(&mut g, name, "runtime", Ours::new(flavor), ours);
    let tokio = ping_pong_with::<Tokio, S, TokioOneshot>;
    bench(
        &mut g,
        name,
        crate::adapters::tokio_rt::NAME,
        Tokio::new(flavor),
        tokio,
    );
    g.finish();
}
