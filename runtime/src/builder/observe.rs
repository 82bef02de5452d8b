//! The `Builder` settings that watch a running runtime rather than shape it: the stall
//! callback, the dump signal, the thread hooks (start, stop, park, unpark) and the
//! scheduler histograms. Each only records what it is given in the builder; `build` hands
//! it to the monitor (stalls), the signal watcher (dumps), every thread the runtime starts
//! (hooks) and the workers' samplers (histograms). None of them changes where a task runs
//! or when.

use std::time::Duration;

use crate::observe::hooks::Stall;

use super::Builder;

impl Builder {
    /// Calls `callback` when a task's poll has kept a worker busy for `threshold`: once per
    /// such poll, on the runtime's monitor thread, while the poll is still running (so a
    /// service can log which worker is stuck, and for how long). Multi-thread flavor only
    /// (ignored by the current-thread flavor, whose only thread is the one stuck).
    ///
    /// The [`Stall`] names the worker, the time in the poll, the task (its id, name and
    /// spawn location) and carries the stuck thread's native backtrace. Both are taken by
    /// the stuck thread itself: the monitor sends it a signal (a real-time signal, taken
    /// only if nothing else in the process handles it; Linux only, elsewhere the report
    /// says it has no frames), at most once per stuck poll and at most 20 times a second
    /// in the process, and waits up to 50 ms for its answer. No signal is sent while no
    /// poll passes the threshold. The frames are symbolized when the report is first
    /// formatted, on the thread that formats it (the first time, reading the binary's
    /// debug info takes a while: keep the `Stall` and format it elsewhere if the
    /// monitor must stay quick).
    ///
    /// The monitor looks every millisecond: a threshold below that acts as 1 ms, and the
    /// call comes up to a millisecond late. Keep the callback short (log, bump a counter):
    /// while it runs the monitor does not rescue other workers' tasks. With no callback a
    /// stuck worker is still visible in `Runtime::metrics()` (see `WorkerMetrics::
    /// current_poll_since`, `long_polls`, `longest_poll`).
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::time::Duration;
    ///
    /// let (tx, rx) = mpsc::channel();
    /// let tx = std::sync::Mutex::new(tx);
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .on_stall(Duration::from_millis(5), move |stall| {
    ///         let _ = tx.lock().unwrap().send(stall.worker);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async {
    ///     runtime::spawn(async move {
    ///         // A blocking call inside a task (what `spawn_blocking` is for): the worker
    ///         // is stuck until the monitor reports it.
    ///         rx.recv_timeout(Duration::from_secs(10)).expect("the stall was reported");
    ///     })
    ///     .await
    ///     .unwrap();
    /// });
    /// ```
    pub fn on_stall<F>(&mut self, threshold: Duration, callback: F) -> &mut Self
    where
        F: Fn(&Stall) + Send + Sync + 'static,
    {
        self.on_stall = Some((threshold, std::sync::Arc::new(callback)));
        self
    }

    /// Prints a task dump ([`Handle::dump`](crate::Handle::dump)) to stderr each time the
    /// process receives `signal` (e.g. `libc::SIGUSR1`): `kill -USR1 <pid>` shows what
    /// every task waits on, also when every worker is stuck. The handler only writes a
    /// byte; a thread of the runtime's own (`runtime-dump`) takes the dump. `build` fails
    /// for a signal that cannot be handled (`SIGKILL`, `SIGSTOP`, ...).
    ///
    /// ```
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .enable_all()
    ///     .dump_on_signal(libc::SIGUSR1)
    ///     .build()
    ///     .unwrap();
    /// ```
    #[cfg(not(loom))]
    pub fn dump_on_signal(&mut self, signal: i32) -> &mut Self {
        self.on_dump_signal(signal, |dump| eprintln!("{dump}"))
    }

    /// As [`dump_on_signal`](Builder::dump_on_signal), handing each dump to `callback`
    /// (on the `runtime-dump` thread) instead of printing it.
    #[cfg(not(loom))]
    pub fn on_dump_signal<F>(&mut self, signal: i32, callback: F) -> &mut Self
    where
        F: Fn(&crate::observe::dump::Dump) + Send + Sync + 'static,
    {
        self.dump_signal = Some((signal, std::sync::Arc::new(callback)));
        self
    }

    /// Calls `f` first thing on every thread the runtime starts: its worker threads and
    /// its blocking-pool threads (a current-thread runtime starts only the latter).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let s = started.clone();
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .worker_threads(2)
    ///     .on_thread_start(move || {
    ///         s.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(rt); // joins the workers
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn on_thread_start<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.hooks.thread_start = Some(std::sync::Arc::new(f));
        self
    }

    /// Calls `f` last thing on every thread the runtime started, as it exits (workers at
    /// shutdown, blocking-pool threads at shutdown or after their keep-alive).
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let stopped = Arc::new(AtomicUsize::new(0));
    /// let s = stopped.clone();
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .worker_threads(3)
    ///     .on_thread_stop(move || {
    ///         s.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// drop(rt);
    /// assert_eq!(stopped.load(Ordering::SeqCst), 3);
    /// ```
    pub fn on_thread_stop<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.hooks.thread_stop = Some(std::sync::Arc::new(f));
        self
    }

    /// Calls `f` on a worker (or the current-thread runtime's `block_on` thread) right
    /// before it blocks for lack of work.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let parks = Arc::new(AtomicUsize::new(0));
    /// let p = parks.clone();
    /// let rt = runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .on_thread_park(move || {
    ///         p.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async { runtime::time::sleep(std::time::Duration::from_millis(5)).await });
    /// assert!(parks.load(Ordering::SeqCst) >= 1);
    /// ```
    pub fn on_thread_park<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.hooks.thread_park = Some(std::sync::Arc::new(f));
        self
    }

    /// Calls `f` on a worker (or the current-thread runtime's `block_on` thread) right
    /// after it wakes up from a park.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    ///
    /// let unparks = Arc::new(AtomicUsize::new(0));
    /// let u = unparks.clone();
    /// let rt = runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .on_thread_unpark(move || {
    ///         u.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async { runtime::time::sleep(std::time::Duration::from_millis(5)).await });
    /// assert!(unparks.load(Ordering::SeqCst) >= 1);
    /// ```
    pub fn on_thread_unpark<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.hooks.thread_unpark = Some(std::sync::Arc::new(f));
        self
    }

    /// Records poll times in a per-worker histogram (the default here; tokio's is off):
    /// read through `RuntimeMetrics::poll_time_histogram_bucket_count`. Polls are
    /// sampled (see [`metrics_histogram_sample_interval`](Self::metrics_histogram_sample_interval)).
    pub fn enable_metrics_poll_time_histogram(&mut self) -> &mut Self {
        if self.telemetry.poll_time.is_none() {
            self.telemetry.poll_time = Some(crate::HistogramConfiguration::default());
        }
        self
    }

    /// Records no poll times: the workers never read the clock for them.
    pub fn disable_metrics_poll_time_histogram(&mut self) -> &mut Self {
        self.telemetry.poll_time = None;
        self
    }

    /// The poll-time histogram's buckets (default: `LogHistogram::default()`, 100 ns to
    /// about 68.7 s at 25% error); enables the histogram.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = runtime::Builder::new_multi_thread()
    ///     .worker_threads(1)
    ///     .metrics_poll_time_histogram_configuration(runtime::HistogramConfiguration::linear(
    ///         Duration::from_micros(50),
    ///         20,
    ///     ))
    ///     .build()
    ///     .unwrap();
    /// let m = rt.metrics();
    /// assert_eq!(m.poll_time_histogram_num_buckets(), 20);
    /// assert_eq!(
    ///     m.poll_time_histogram_bucket_range(1),
    ///     Duration::from_micros(50)..Duration::from_micros(100)
    /// );
    /// ```
    pub fn metrics_poll_time_histogram_configuration(
        &mut self,
        configuration: crate::HistogramConfiguration,
    ) -> &mut Self {
        self.telemetry.poll_time = Some(configuration);
        self
    }

    /// Records schedule latencies in a per-worker histogram (the default): for a task
    /// that a sampled poll spawned or woke on its worker, the wait from the end of that
    /// poll to the task's own poll. Sampled with the poll times (see
    /// [`metrics_histogram_sample_interval`](Self::metrics_histogram_sample_interval));
    /// read through `RuntimeMetrics::schedule_latency_histogram_bucket_count`.
    pub fn enable_metrics_schedule_latency_histogram(&mut self) -> &mut Self {
        if self.telemetry.schedule_latency.is_none() {
            self.telemetry.schedule_latency = Some(crate::HistogramConfiguration::default());
        }
        self
    }

    /// Records no schedule latencies: no task is followed, no clock read for them.
    pub fn disable_metrics_schedule_latency_histogram(&mut self) -> &mut Self {
        self.telemetry.schedule_latency = None;
        self
    }

    /// The schedule-latency histogram's buckets (default as for poll times); enables it.
    pub fn metrics_schedule_latency_histogram_configuration(
        &mut self,
        configuration: crate::HistogramConfiguration,
    ) -> &mut Self {
        self.telemetry.schedule_latency = Some(configuration);
        self
    }

    /// How sparsely both histograms sample (default 256): about one poll in `n`, at
    /// random intervals averaging `n`, is timed, and the task it spawned or woke last on
    /// its worker has its wait to its own poll measured (one such task at a time per
    /// worker). The histograms count samples. `1` times every poll, at the cost of two
    /// clock reads per poll.
    ///
    /// # Panics
    /// When `n` is 0 (to record nothing, disable the histograms instead).
    #[track_caller]
    pub fn metrics_histogram_sample_interval(&mut self, n: u32) -> &mut Self {
        assert!(
            n > 0,
            "Builder::metrics_histogram_sample_interval: n must be at least 1 (1 measures \
             every poll); to measure nothing, call disable_metrics_poll_time_histogram and \
             disable_metrics_schedule_latency_histogram"
        );
        self.telemetry.sample_interval = n;
        self
    }
}
