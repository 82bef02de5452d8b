//! Our runtime's counters as a table, printed after each bench function when
//! `RUNTIME_BENCH_METRICS=1` (by `adapters::ours`, and by the instrumented binaries):
//! totals and per-iteration counts per worker, from a `RuntimeMetrics` or from plain numbers.

use std::time::Duration;

/// True when `RUNTIME_BENCH_METRICS=1`.
pub fn metrics_enabled() -> bool {
    std::env::var("RUNTIME_BENCH_METRICS").is_ok_and(|v| v.trim() == "1")
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
