//! Criterion glue shared by both bench files: group settings, one function per runtime
//! (runtime built once, before criterion calls the routine; dropped after the function),
//! iteration counting, and the `RUNTIME_BENCH_METRICS=1` print of our runtime's counters.
//!
//! Groups sample in `Flat` mode: every sample runs the same number of iterations, so
//! millisecond-long iterations fit a short `--measurement-time` (criterion's default
//! linear mode needs n(n+1)/2 iterations for n samples).

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode};

use crate::adapters::ours::{Ours, OursOneshot};
use crate::adapters::tokio_rt::{Tokio, TokioOneshot};
use crate::workloads::scheduler::{ping_pong_with, Iteration};
use crate::{Bench, Flavor, Signal};

/// True when `RUNTIME_BENCH_METRICS=1`.
pub fn metrics_enabled() -> bool {
    std::env::var("RUNTIME_BENCH_METRICS").is_ok_and(|v| v.trim() == "1")
}

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
    bench(&mut g, name, "tokio", Tokio::new(flavor), tokio);
    g.finish();
}

/// The counter columns of [`format_metrics`]' table, in order (then `busy_ms`).
pub const METRICS_COLUMNS: [&str; 12] = [
    "polls",
    "lifo_hits",
    "local_sch",
    "spawned",
    "completed",
    "overflow",
    "ovf_tasks",
    "steals",
    "stolen",
    "parks",
    "unparks",
    "noop_unp",
];

/// What [`format_metrics`] prints, as plain numbers: taken from a `RuntimeMetrics`
/// (`MetricsTable::from`), or written out by a test.
#[derive(Debug, Clone, Default)]
pub struct MetricsTable {
    pub num_workers: usize,
    pub live_tasks: usize,
    pub global_queue_depth: usize,
    /// Per worker: the counters in [`METRICS_COLUMNS`] order, and the busy time.
    pub workers: Vec<([u64; 12], Duration)>,
}

impl From<&runtime::RuntimeMetrics> for MetricsTable {
    fn from(m: &runtime::RuntimeMetrics) -> MetricsTable {
        let row = |w: &runtime::WorkerMetrics| {
            let counts = [
                w.polls(),
                w.lifo_hits(),
                w.local_schedules(),
                w.spawned(),
                w.completed(),
                w.overflows(),
                w.overflowed_tasks(),
                w.steals(),
                w.stolen_tasks(),
                w.parks(),
                w.unparks(),
                w.noop_unparks(),
            ];
            (counts, w.busy())
        };
        MetricsTable {
            num_workers: m.num_workers(),
            live_tasks: m.num_alive_tasks(),
            global_queue_depth: m.global_queue_depth(),
            workers: m.workers().iter().map(row).collect(),
        }
    }
}

/// Our runtime's counters as a table: totals and per iteration.
pub fn format_metrics(group: &str, iterations: u64, m: &runtime::RuntimeMetrics) -> String {
    format_metrics_table(group, iterations, &MetricsTable::from(m))
}

/// [`format_metrics`] from plain numbers.
pub fn format_metrics_table(group: &str, iterations: u64, m: &MetricsTable) -> String {
    use std::fmt::Write;
    let per = |v: u64| {
        if iterations == 0 {
            0.0
        } else {
            v as f64 / iterations as f64
        }
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "runtime metrics, {group}: {} worker(s), {iterations} iterations (warm-up included), \
         live_tasks {}, global_queue_depth {}; counts per iteration:",
        m.num_workers, m.live_tasks, m.global_queue_depth
    );
    let c = &METRICS_COLUMNS;
    let _ = writeln!(
        s,
        "  {:>6} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}",
        "worker",
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        c[5],
        c[6],
        c[7],
        c[8],
        c[9],
        c[10],
        c[11],
        "busy_ms"
    );
    let row = |s: &mut String, name: &str, c: [u64; 12], busy: Duration| {
        let _ = writeln!(
            s,
            "  {:>6} {:>10.1} {:>10.1} {:>10.1} {:>9.1} {:>9.1} {:>9.2} {:>9.1} {:>8.2} {:>8.1} {:>8.2} {:>8.2} {:>8.2} {:>9.3}",
            name,
            per(c[0]),
            per(c[1]),
            per(c[2]),
            per(c[3]),
            per(c[4]),
            per(c[5]),
            per(c[6]),
            per(c[7]),
            per(c[8]),
            per(c[9]),
            per(c[10]),
            per(c[11]),
            if iterations == 0 {
                0.0
            } else {
                busy.as_secs_f64() * 1e3 / iterations as f64
            },
        );
    };
    let mut total = [0u64; 12];
    let mut busy_total = Duration::ZERO;
    for (i, &(counts, busy)) in m.workers.iter().enumerate() {
        row(&mut s, &i.to_string(), counts, busy);
        for (t, v) in total.iter_mut().zip(counts) {
            *t += v;
        }
        busy_total += busy;
    }
    if m.workers.len() > 1 {
        row(&mut s, "all", total, busy_total);
    }
    s
}
