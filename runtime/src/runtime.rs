//! The runtime: `Runtime` and, at tokio's paths (`runtime::runtime::Builder` is
//! `tokio::runtime::Builder` renamed), the types that build, enter and observe it. The
//! crate root re-exports the same items.
//!
//! `Runtime` owns the scheduler, its worker threads, the driver and the blocking pool.
//!
//! `block_on` runs a future on the calling thread: on the multi-thread flavor that thread
//! only polls the future (parking on its own parker between polls) while the workers run
//! the tasks; on the current-thread flavor it drives the scheduler itself.
//!
//! Dropping the runtime (or `shutdown_timeout`, `shutdown_background`) shuts it down, in
//! this order:
//! 1. Multi-thread: `Handle::close` (multi_thread/mod.rs) closes the monitor and both
//!    global queues, then unparks every worker. Each worker (`Context::shutdown`,
//!    worker.rs) cancels its share of the owned list, its own shard first; the last one out
//!    drains the global queues and every core's LIFO slot, deferred list and ring (the
//!    unbound tasks), then shuts the driver down (I/O fails, timers fire `TimerShutdown`).
//!    Current-thread: the thread that drops the runtime does the same for its one core.
//!    Every live future is dropped exactly once, on a runtime thread, inside the runtime's
//!    context.
//! 2. The shutdown waits for the `Latch` (threads.rs: workers, the monitor and handed-off
//!    threads, each counted in before it starts), then for the blocking pool (closures
//!    spawned before shutdown all run, later ones are cancelled; a pool thread dropping the
//!    runtime does not wait for itself), within `shutdown_timeout` when one is given;
//!    threads still busy after it are detached.
//! 3. Inside a runtime (a task, or `block_on`) a shutdown that would wait is refused: the
//!    runtime is shut down in the background, then the call panics.
//! 4. Past a non-zero timeout with work still held, `shutdown_report.rs` says who held it.

use std::future::Future;
use std::time::Duration;

use shim::sync::Arc;

use crate::context;

pub use crate::builder::Builder;
#[cfg(not(loom))]
pub use crate::handle::is_rt_shutdown_err;
pub use crate::handle::{EnterGuard, Handle, Id, RuntimeFlavor, TryCurrentError};
pub use crate::local_runtime::{LocalOptions, LocalRuntime};
pub use crate::observe::metrics::{
    HistogramConfiguration, InvalidHistogramConfiguration, LogHistogram, LogHistogramBuilder,
};
pub use crate::observe::runtime_metrics::RuntimeMetrics;
pub use crate::observe::shutdown_report::{
    InBlockInPlace, RunningClosure, ShutdownReport, StuckPoll,
};
pub use crate::rand::RngSeed;
use crate::scheduler::{self, current_thread, multi_thread};
use crate::threads::Latch;
pub use crate::unhandled::UnhandledPanic;

/// The index of the worker thread this is called on, if it is one: 0-based, as
/// [`RuntimeMetrics`]' per-worker methods (`worker_poll_count(i)`, ...) number the workers.
///
/// `None` outside a runtime's worker: on a plain thread, on a blocking-pool thread, and on
/// the thread that calls [`Runtime::block_on`] of a multi-thread runtime (it is not a
/// worker). A current-thread runtime (or a [`LocalRuntime`]) has one worker, index 0: the
/// thread that holds its scheduler core inside `block_on`; a thread in `block_on` that does
/// not hold the core (another thread does) gets `None`. A task can move between workers
/// at an `.await`, so the answer holds until the next one.
///
/// ```
/// let rt = runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
/// let index = rt.block_on(async { runtime::spawn(async { runtime::runtime::worker_index() }).await });
/// assert!(matches!(index.unwrap(), Some(0 | 1)));
/// assert_eq!(runtime::runtime::worker_index(), None);
/// ```
pub fn worker_index() -> Option<usize> {
    context::with_scheduler(|cx| match cx? {
        scheduler::Context::MultiThread(cx) => Some(cx.worker_index()),
        scheduler::Context::CurrentThread(_) => Some(0),
    })
}

/// The runtime: a scheduler, its threads, and its drivers.
pub struct Runtime {
    handle: Handle,
    flavor: Flavor,
    threads: Vec<shim::thread::JoinHandle<()>>,
    exited: Arc<Latch>,
    is_shut_down: bool,
    /// `Builder::rng_seed`'s generator: seeds each `block_on` thread (rand.rs).
    seeds: Option<Arc<crate::rand::SeedGenerator>>,
    /// The deterministic mode's stepper, which runs the workers (sim/stepper.rs).
    #[cfg(all(feature = "deterministic", not(loom)))]
    stepper: Option<parking_lot::Mutex<crate::sim::stepper::Stepper>>,
}

pub(crate) enum Flavor {
    MultiThread(Arc<multi_thread::Handle>),
    CurrentThread(current_thread::CurrentThread),
}

impl Runtime {
    pub(crate) fn from_parts(
        handle: scheduler::Handle,
        flavor: Flavor,
        threads: Vec<shim::thread::JoinHandle<()>>,
        exited: Arc<Latch>,
    ) -> Runtime {
        Runtime {
            handle: Handle { inner: handle },
            flavor,
            threads,
            exited,
            is_shut_down: false,
            seeds: None,
            #[cfg(all(feature = "deterministic", not(loom)))]
            stepper: None,
        }
    }

    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn with_stepper(mut self, stepper: crate::sim::stepper::Stepper) -> Runtime {
        self.stepper = Some(parking_lot::Mutex::new(stepper));
        self
    }

    /// The hash of every scheduling event of this deterministic runtime so far (steps,
    /// polls, wakes, parks, timer advances, blocking closures; see [`crate::sim`]): equal
    /// for two runs of the same program with the same seed, and different, with high
    /// probability, for two runs that scheduled differently.
    ///
    /// # Panics
    /// When the runtime is not deterministic (`Builder::deterministic`).
    #[cfg(all(feature = "deterministic", not(loom)))]
    #[track_caller]
    pub fn trace_hash(&self) -> u64 {
        self.sim_stepper("trace_hash").lock().trace_hash()
    }

    /// How many events [`trace_hash`](Self::trace_hash) has folded in.
    ///
    /// # Panics
    /// When the runtime is not deterministic.
    #[cfg(all(feature = "deterministic", not(loom)))]
    #[track_caller]
    pub fn trace_events(&self) -> u64 {
        self.sim_stepper("trace_events").lock().trace_events()
    }

    /// How this deterministic run's pool spread its work so far: searchers against their
    /// cap, the longest stretch a worker slept beside a sibling's backlog, polls per
    /// worker ([`crate::sim::Spread`]).
    ///
    /// # Panics
    /// When the runtime is not deterministic.
    #[cfg(all(feature = "deterministic", not(loom)))]
    #[track_caller]
    pub fn sim_spread(&self) -> crate::sim::Spread {
        self.sim_stepper("sim_spread").lock().spread()
    }

    #[cfg(all(feature = "deterministic", not(loom)))]
    #[track_caller]
    fn sim_stepper(&self, what: &str) -> &parking_lot::Mutex<crate::sim::stepper::Stepper> {
        self.stepper.as_ref().unwrap_or_else(|| {
            panic!(
                "`Runtime::{what}` is for deterministic runtimes: build it with                  `Builder::deterministic(seed)`"
            )
        })
    }

    pub(crate) fn with_seeds(mut self, seeds: Option<Arc<crate::rand::SeedGenerator>>) -> Runtime {
        self.seeds = seeds;
        self
    }

    /// A multi-thread runtime with every driver enabled (what `#[runtime::main]` builds).
    pub fn new() -> std::io::Result<Runtime> {
        crate::Builder::new_multi_thread().enable_all().build()
    }

    /// Runs `future` to completion on the current thread, entering the runtime's context
    /// so that `spawn`, sockets and timers inside it use this runtime.
    ///
    /// ```
    /// use runtime::Runtime;
    ///
    /// let rt = Runtime::new().unwrap();
    /// // The bridge from synchronous code (`main`, a test, a thread) into async code.
    /// let len = rt.block_on(async {
    ///     let (tx, rx) = runtime::sync::oneshot::channel();
    ///     runtime::spawn(async move { tx.send("from a task").unwrap() });
    ///     rx.await.unwrap().len()
    /// });
    /// assert_eq!(len, 11);
    /// ```
    ///
    /// The thread blocks until the future completes, and sleeps while it cannot progress.
    /// On a multi-thread runtime the calling thread only polls `future`: the tasks it
    /// spawns run on the worker threads. On a current-thread runtime the calling thread
    /// *is* the scheduler: spawned tasks run only inside `block_on` (here or on another
    /// thread calling it at the same time), and stop when it returns, to resume at the
    /// next call. Several threads may call `block_on` on one runtime at once.
    ///
    /// # Panics
    /// When called from inside a runtime (a task, or another `block_on`): `.await` the
    /// future there instead. A panic of `future` itself propagates out of `block_on`
    /// (a spawned task's panic goes to its `JoinHandle` instead, unless
    /// [`Builder::unhandled_panic`](crate::Builder::unhandled_panic) says otherwise).
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        // A current-thread `block_on` drives the core: `block_in_place` may not block it.
        let drives_core = matches!(self.flavor, Flavor::CurrentThread(_));
        let _rt = context::enter_runtime(!drives_core);
        let _enter = context::enter(self.handle.inner.clone());
        let future =
            crate::unhandled::BlockOnGuard::new(self.handle.inner.unhandled_panic(), future);
        let _seed = crate::rand::enter(self.seeds.as_deref());
        #[cfg(all(feature = "deterministic", not(loom)))]
        if let Some(stepper) = &self.stepper {
            let Some(mut stepper) = stepper.try_lock() else {
                panic!(
                    "a deterministic runtime runs one `block_on` at a time (another thread                      is in one): join the futures into one `block_on`"
                );
            };
            return stepper.block_on(future);
        }
        match (&self.flavor, &self.handle.inner) {
            (Flavor::CurrentThread(ct), scheduler::Handle::CurrentThread(h)) => {
                ct.block_on(h, future)
            }
            (_, handle) => crate::block_on::block_on(future, handle.block_on_yield_every(), handle),
        }
    }

    /// Spawns a task onto this runtime.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> crate::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Runs `f` on the blocking pool.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> crate::task::JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.handle.spawn_blocking(f)
    }

    /// A handle to this runtime, usable from any thread.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Makes this runtime the current one on this thread until the guard drops.
    pub fn enter(&self) -> EnterGuard<'_> {
        self.handle.enter()
    }

    /// A live view of the runtime's counters (each method reads them at the call).
    pub fn metrics(&self) -> RuntimeMetrics {
        self.handle.metrics()
    }

    /// Shuts down, waiting at most `timeout` for the worker threads and the blocking pool.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = runtime::Runtime::new().unwrap();
    /// let done = rt.spawn_blocking(|| std::thread::sleep(Duration::from_millis(10)));
    /// drop(done);
    /// // Returns once the closure ran, or after 10 s at most.
    /// rt.shutdown_timeout(Duration::from_secs(10));
    /// ```
    ///
    /// What happens to the work, in order:
    /// - Tasks (`spawn`) run until their current poll returns, then are cancelled: each
    ///   live future is dropped exactly once, on a runtime thread, inside the runtime's
    ///   context (`Handle::current()` works in its `Drop`).
    /// - Blocking closures (`spawn_blocking`) are never cancelled once spawned: every
    ///   closure spawned before this call runs to completion, whether a pool thread had
    ///   picked it up or it was still queued. One spawned after this call began is
    ///   cancelled without running (its `JoinHandle` resolves to a cancelled `JoinError`).
    /// - The wait: this call returns once every worker and pool thread has exited, or when
    ///   `timeout` has passed, whichever comes first. Threads still busy then (a task stuck
    ///   in a poll, blocking closures still running or still queued) are detached and
    ///   finish in the background; nothing is cancelled because the timeout expired.
    ///
    /// # Panics
    /// Inside a runtime (a task, or `block_on`) with a non-zero `timeout`: waiting there
    /// would block a thread that drives asynchronous tasks. The runtime is shut down in the
    /// background before the panic. Use [`shutdown_background`](Self::shutdown_background)
    /// there.
    ///
    /// When `timeout` (non-zero) passes with work still held, this prints to stderr who
    /// held it (the [`ShutdownReport`] of [`shutdown_timeout_report`](Self::shutdown_timeout_report)):
    /// the tasks that had not yielded and the blocking closures still running. A shutdown
    /// that finishes in time prints nothing.
    pub fn shutdown_timeout(mut self, timeout: Duration) {
        let report = self.shutdown(Some(timeout), timeout > Duration::ZERO);
        if !report.is_empty() {
            eprintln!("{report}");
        }
    }

    /// As [`shutdown_timeout`](Self::shutdown_timeout), returning what held the shutdown
    /// past `timeout` instead of printing it (an empty report when it finished in time).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let rt = runtime::Runtime::new().unwrap();
    /// rt.spawn(async {});
    /// let report = rt.shutdown_timeout_report(Duration::from_secs(10));
    /// assert!(report.is_empty(), "{report}");
    /// ```
    ///
    /// Each task stuck in a poll is listed with its worker, its identity and the time in
    /// that poll; each blocking closure still running with its identity and how long it
    /// has run; closures still queued are counted; each task still inside
    /// [`block_in_place`](crate::task::block_in_place) with its identity and how long since
    /// it began. The identities of the first two are asked of the
    /// threads running them (a signal each, Linux only; elsewhere the entries say they
    /// have none), only once the deadline has passed: the report adds up to 50 ms to it.
    ///
    /// # Panics
    /// As `shutdown_timeout`.
    pub fn shutdown_timeout_report(mut self, timeout: Duration) -> ShutdownReport {
        self.shutdown(Some(timeout), true)
    }

    /// Shuts down without waiting for any thread to finish: `shutdown_timeout` with a zero
    /// timeout. This is how to drop a runtime from asynchronous context (a task, or
    /// `block_on`), where dropping it panics.
    ///
    /// ```
    /// let outer = runtime::Builder::new_current_thread().build().unwrap();
    /// outer.block_on(async {
    ///     let inner = runtime::Runtime::new().unwrap();
    ///     inner.shutdown_background(); // `drop(inner)` here would panic
    /// });
    /// ```
    pub fn shutdown_background(mut self) {
        self.shutdown(Some(Duration::ZERO), false);
    }

    /// Shuts down (module docs); with `report`, says what still held it when `timeout`
    /// passed (shutdown_report.rs).
    fn shutdown(&mut self, timeout: Option<Duration>, report: bool) -> ShutdownReport {
        let mut held = ShutdownReport {
            timeout: timeout.unwrap_or_default(),
            ..ShutdownReport::default()
        };
        if self.is_shut_down {
            return held;
        }
        self.is_shut_down = true;
        // Waiting on a thread that drives asynchronous tasks could deadlock (on a worker of
        // this very runtime it waits for itself): refuse, but only after shutting down in
        // the background, so the runtime still stops.
        let refused = timeout != Some(Duration::ZERO) && context::in_runtime();
        let timeout = if refused {
            Some(Duration::ZERO)
        } else {
            timeout
        };
        // Futures dropped on this thread (a current-thread runtime's tasks, queued ones)
        // see this runtime as the current one. (A no-op while the thread's thread-locals
        // are being destroyed: a runtime kept in a `thread_local!`.)
        let enter = context::enter(self.handle.inner.clone());
        let start = std::time::Instant::now();
        let report = report && !refused;
        match (&self.flavor, &self.handle.inner) {
            (Flavor::CurrentThread(ct), scheduler::Handle::CurrentThread(h)) => ct.shutdown(h),
            (Flavor::MultiThread(h), _) => {
                h.close();
                #[cfg(all(feature = "deterministic", not(loom)))]
                if let Some(stepper) = &self.stepper {
                    stepper.lock().shutdown();
                }
                if self.exited.wait(timeout) {
                    for t in self.threads.drain(..) {
                        let _ = t.join();
                    }
                } else {
                    // Detach: a worker stuck in a task's poll must not block us.
                    self.threads.clear();
                    if report {
                        held.stuck_polls = multi_thread::monitor::stuck_polls(h, start);
                        #[cfg(not(loom))]
                        {
                            held.in_block_in_place = h.in_place.report();
                        }
                    }
                }
            }
            _ => unreachable!("flavor and handle disagree"),
        }
        let left = timeout.map(|t| t.saturating_sub(start.elapsed()));
        let pool = self.handle.inner.blocking();
        if !pool.shutdown(left) && report {
            #[cfg(not(loom))]
            {
                (held.running_closures, held.queued_closures) = pool.report();
            }
        }
        drop(enter);
        if refused && !std::thread::panicking() {
            // A `&'static str` payload, as tokio's: code that downcasts it keeps working.
            std::panic::panic_any(crate::misuse::DROP_RUNTIME_IN_ASYNC_CONTEXT);
        }
        held
    }
}

#[cfg(not(loom))]
impl Runtime {
    /// A dump of this runtime's tasks: [`Handle::dump`](crate::Handle::dump).
    pub fn dump(&self) -> crate::observe::dump::Dump {
        self.handle().dump()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown(None, false);
    }
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::Builder;

    fn cpus() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    #[test]
    fn block_on_yields_every_round_when_workers_fill_the_cpus() {
        let rt = Builder::new_multi_thread()
            .worker_threads(cpus())
            .build()
            .unwrap();
        assert_eq!(rt.handle.inner.block_on_yield_every(), 1);
        // Still correct: the spin ends on the wake-up and block_on returns the output.
        let h = rt.spawn(async { 7 });
        assert_eq!(rt.block_on(h).unwrap(), 7);
    }

    #[test]
    fn block_on_yields_now_and_then_when_a_cpu_is_free() {
        let rt = Builder::new_current_thread().build().unwrap();
        assert_eq!(
            rt.handle.inner.block_on_yield_every(),
            crate::block_on::BLOCK_ON_YIELD_EVERY
        );
        if cpus() > 1 {
            let rt = Builder::new_multi_thread()
                .worker_threads(cpus() - 1)
                .build()
                .unwrap();
            assert_eq!(
                rt.handle.inner.block_on_yield_every(),
                crate::block_on::BLOCK_ON_YIELD_EVERY
            );
        }
    }
}
