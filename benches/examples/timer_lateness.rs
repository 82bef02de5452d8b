//! Timer lateness under load: N concurrent sleeps of 1 ms to 2 s (uniform, the same
//! pseudo-random durations for both runtimes) on a 2-worker runtime, ours and tokio's.
//! Each task records how late its sleep completed (`Instant::now() - deadline` when it
//! resumes: the timer's firing delay plus the time the woken task waited for a worker);
//! prints worst, p99.9, p99 and mean lateness, and how many fired early (must be 0).
//!
//! Usage: `cargo run --release -p benches --example timer_lateness [N] [WORKERS] [WHICH]`
//! (N defaults to 1,000,000, WORKERS to 2, WHICH to `both`; `ours` or `tokio` runs one).
//! `both` runs ours first in the same process, so tokio reuses memory ours faulted in: to
//! compare, run `ours` and `tokio` as separate processes, alternating, several rounds.
//! `LATENESS_DETAIL=1` adds the worst lateness per 50 ms window of deadlines, the deepest
//! global queue seen (sampled every ms) and, for ours, the workers' counters.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Lateness histogram in microseconds, 1 µs buckets up to 4 s (clamped).
struct Stats {
    start: Instant,
    /// Worst lateness (µs) per 50 ms window of deadlines (printed with `LATENESS_DETAIL=1`).
    windows: Vec<AtomicU64>,
    buckets: Vec<AtomicU64>,
    max_us: AtomicU64,
    sum_us: AtomicU64,
    early: AtomicU64,
}

const MAX_BUCKET_US: usize = 4_000_000;
const WINDOW_MS: u128 = 50;
const WINDOWS: usize = 200;

impl Stats {
    fn new() -> Stats {
        Stats {
            start: Instant::now(),
            windows: (0..WINDOWS).map(|_| AtomicU64::new(0)).collect(),
            buckets: (0..=MAX_BUCKET_US).map(|_| AtomicU64::new(0)).collect(),
            max_us: AtomicU64::new(0),
            sum_us: AtomicU64::new(0),
            early: AtomicU64::new(0),
        }
    }

    fn record(&self, deadline: Instant) {
        let now = Instant::now();
        if now < deadline {
            self.early.fetch_add(1, Relaxed);
            return;
        }
        let us = (now - deadline).as_micros() as u64;
        self.buckets[(us as usize).min(MAX_BUCKET_US)].fetch_add(1, Relaxed);
        self.max_us.fetch_max(us, Relaxed);
        let w = (deadline.saturating_duration_since(self.start).as_millis() / WINDOW_MS) as usize;
        self.windows[w.min(WINDOWS - 1)].fetch_max(us, Relaxed);
        self.sum_us.fetch_add(us, Relaxed);
    }

    fn report(&self, name: &str, n: usize, wall: Duration) {
        let quantile = |q: f64| {
            let target = ((n as f64) * q).ceil() as u64;
            let mut seen = 0;
            for (us, b) in self.buckets.iter().enumerate() {
                seen += b.load(Relaxed);
                if seen >= target {
                    return us as f64 / 1000.0;
                }
            }
            f64::NAN
        };
        println!(
            "{name:>6}: n={n} worst={:.1} ms p99.9={:.1} ms p99={:.1} ms mean={:.2} ms \
             early={} (wall {:.2} s)",
            self.max_us.load(Relaxed) as f64 / 1000.0,
            quantile(0.999),
            quantile(0.99),
            self.sum_us.load(Relaxed) as f64 / n as f64 / 1000.0,
            self.early.load(Relaxed),
            wall.as_secs_f64(),
        );
        if std::env::var_os("LATENESS_DETAIL").is_some() {
            let line: Vec<String> = self
                .windows
                .iter()
                .map(|w| w.load(Relaxed) / 1000)
                .enumerate()
                .filter(|&(_, ms)| ms > 0)
                .map(|(i, ms)| format!("{}:{ms}", i as u128 * WINDOW_MS))
                .collect();
            println!(
                "        worst ms by deadline window (start ms:worst): {}",
                line.join(" ")
            );
        }
    }
}

/// Samples `depth()` every millisecond until `stop`; returns the deepest and when (ms).
fn sample_depth(
    depth: impl Fn() -> usize + Send + 'static,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<(usize, u128)> {
    let t = Instant::now();
    std::thread::spawn(move || {
        let mut max = (0, 0);
        while !stop.load(Relaxed) {
            let d = depth();
            if d > max.0 {
                max = (d, t.elapsed().as_millis());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        max
    })
}

fn detail() -> bool {
    std::env::var_os("LATENESS_DETAIL").is_some()
}

/// The sleep durations: 1 ms to 2 s, uniform, from a fixed xorshift seed.
fn durations(n: usize) -> Arc<Vec<Duration>> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    Arc::new(
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                Duration::from_micros(1_000 + x % 1_999_000)
            })
            .collect(),
    )
}

/// One sleeping task: `sleep` makes the runtime's sleep future for a deadline.
async fn sleeper<S, F>(d: Duration, stats: Arc<Stats>, sleep: S)
where
    S: Fn(Instant) -> F,
    F: Future<Output = ()>,
{
    let deadline = Instant::now() + d;
    sleep(deadline).await;
    stats.record(deadline);
}

fn run_ours(n: usize, workers: usize, ds: &Arc<Vec<Duration>>) {
    let rt = runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap();
    let stats = Arc::new(Stats::new());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let h = rt.handle().clone();
    let sampler =
        detail().then(|| sample_depth(move || h.metrics().global_queue_depth(), stop.clone()));
    let t = Instant::now();
    rt.block_on(async {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (d, stats) = (ds[i], stats.clone());
                runtime::spawn(sleeper(d, stats, |at| {
                    runtime::time::sleep_until(runtime::time::Instant::from_std(at))
                }))
            })
            .collect();
        for h in handles {
            h.await.unwrap();
        }
    });
    stats.report("ours", n, t.elapsed());
    stop.store(true, Relaxed);
    if let Some(s) = sampler {
        let (d, at) = s.join().unwrap();
        println!("        deepest global queue {d} at {at} ms");
    }
    if detail() {
        let m = rt.metrics();
        let sum = |f: fn(&runtime::WorkerMetrics) -> u64| m.workers().iter().map(f).sum::<u64>();
        println!(
            "        polls={} overflowed_tasks={} steals={} parks={}",
            sum(|w| w.polls()),
            sum(|w| w.overflowed_tasks()),
            sum(|w| w.steals()),
            sum(|w| w.parks())
        );
        for (i, w) in m.workers().iter().enumerate() {
            println!(
                "        worker {i}: polls={} local_schedules={} overflowed={} steals={} parks={}",
                w.polls(),
                w.local_schedules(),
                w.overflowed_tasks(),
                w.steals(),
                w.parks()
            );
        }
    }
}

fn run_tokio(n: usize, workers: usize, ds: &Arc<Vec<Duration>>) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap();
    let stats = Arc::new(Stats::new());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let h = rt.handle().clone();
    let sampler =
        detail().then(|| sample_depth(move || h.metrics().global_queue_depth(), stop.clone()));
    let t = Instant::now();
    rt.block_on(async {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (d, stats) = (ds[i], stats.clone());
                tokio::spawn(sleeper(d, stats, |at| {
                    tokio::time::sleep_until(tokio::time::Instant::from_std(at))
                }))
            })
            .collect();
        for h in handles {
            h.await.unwrap();
        }
    });
    stats.report("tokio", n, t.elapsed());
    stop.store(true, Relaxed);
    if let Some(s) = sampler {
        let (d, at) = s.join().unwrap();
        println!("        deepest global queue {d} at {at} ms");
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(1_000_000, |s| s.parse().expect("N"));
    let workers: usize = args.next().map_or(2, |s| s.parse().expect("WORKERS"));
    let which = args.next().unwrap_or_else(|| "both".into());
    let ds = durations(n);
    if which == "both" || which == "ours" {
        run_ours(n, workers, &ds);
    }
    if which == "both" || which == "tokio" {
        run_tokio(n, workers, &ds);
    }
}
