//! `Builder`: configures and builds a `Runtime` (tokio's names and defaults).
//!
//! Defaults: multi-thread with one worker per available core (or `TOKIO_WORKER_THREADS`,
//! else `RUNTIME_WORKER_THREADS`),
//! global queue checked about every 10 µs of work (multi-thread, tuned: 2 to 127 polls;
//! current-thread: every 31 ticks), driver polled every 61 ticks, LIFO slot on, no
//! drivers unless enabled, blocking pool up to 512 threads with a 10 s keep-alive.
//!
//! Here: the flavor, the threads, the scheduler's and the drivers' settings, and `build`.
//! The settings that only watch the runtime (stall callback, dump signal, thread hooks,
//! histograms) are in `builder/observe.rs`.

use std::fmt;
use std::io;
use std::time::Duration;

use shim::sync::Arc;

use crate::blocking;
use crate::driver::Driver;
use crate::runtime::{Flavor, Runtime};
use crate::scheduler::{self, current_thread, multi_thread};
use crate::threads::{Latch, Role, ThreadSpawner};
use crate::unhandled::{self, UnhandledPanic};

#[cfg(all(feature = "deterministic", not(loom)))]
mod deterministic;
mod observe;

/// Ticks between two non-blocking polls of the I/O driver by a busy scheduler thread.
const DEFAULT_EVENT_INTERVAL: u32 = 61;

/// Ticks between two looks at the global queue on the current-thread flavor (the
/// multi-thread flavor tunes its interval at run time).
const CURRENT_THREAD_GLOBAL_QUEUE_INTERVAL: u32 = 31;

/// Most blocking-pool threads alive at once.
const DEFAULT_MAX_BLOCKING_THREADS: usize = 512;

/// How long an idle blocking-pool thread waits for work before it exits.
const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Builds a [`Runtime`] with custom settings.
///
/// ```
/// use runtime::Builder;
///
/// let rt = Builder::new_multi_thread()
///     .worker_threads(2)
///     .thread_name("my-service-worker")
///     .enable_all()
///     .build()
///     .unwrap();
/// let answer = rt.block_on(async {
///     runtime::time::sleep(std::time::Duration::from_millis(1)).await;
///     runtime::spawn(async { 42 }).await.unwrap()
/// });
/// assert_eq!(answer, 42);
/// ```
///
/// Pick a flavor first: [`new_multi_thread`](Builder::new_multi_thread) (what
/// `#[runtime::main]` builds) runs tasks on a pool of worker threads that steal work from
/// each other; [`new_current_thread`](Builder::new_current_thread) runs every task on the
/// one thread that calls `block_on`. Then turn on the drivers the program needs
/// ([`enable_io`](Builder::enable_io) for sockets, [`enable_time`](Builder::enable_time)
/// for timers, or [`enable_all`](Builder::enable_all)): a runtime without them is
/// lighter, and an API that needs a missing driver panics, saying which to enable.
/// Everything else has tokio's defaults: one worker per CPU, a blocking pool of up to 512
/// threads kept 10 s when idle, the LIFO slot on. [`build`](Builder::build) starts the
/// worker threads (none for the current-thread flavor); the builder can build again.
pub struct Builder {
    kind: Kind,
    worker_threads: Option<usize>,
    thread_name: std::sync::Arc<dyn Fn() -> String + Send + Sync>,
    thread_stack_size: Option<usize>,
    global_queue_interval: Option<u32>,
    event_interval: u32,
    nevents: usize,
    /// `max_io_events_per_busy_tick` (None: `nevents`).
    nevents_busy: Option<usize>,
    disable_lifo_slot: bool,
    enable_io: bool,
    enable_time: bool,
    max_blocking_threads: usize,
    keep_alive: Duration,
    on_stall: Option<(Duration, crate::observe::hooks::StallCallback)>,
    telemetry: crate::observe::metrics::Telemetry,
    /// A signal that makes the runtime dump its tasks, and who receives the dump.
    #[cfg(not(loom))]
    dump_signal: Option<(i32, crate::observe::dump::DumpCallback)>,
    unhandled_panic: UnhandledPanic,
    rng_seed: Option<crate::rand::RngSeed>,
    hooks: crate::observe::hooks::Hooks,
    name: Option<String>,
    start_paused: bool,
    /// `deterministic`'s seed and options (builder/deterministic.rs).
    #[cfg(all(feature = "deterministic", not(loom)))]
    sim: Option<(u64, crate::sim::Options)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    MultiThread,
    CurrentThread,
}

impl Builder {
    /// A multi-thread, work-stealing runtime.
    ///
    /// ```
    /// let rt = runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    /// let on_a_worker = rt.block_on(async {
    ///     runtime::spawn(async { std::thread::current().name().map(String::from) })
    ///         .await
    ///         .unwrap()
    /// });
    /// assert_eq!(on_a_worker.as_deref(), Some("runtime-worker"));
    /// ```
    ///
    /// Each worker thread owns a run queue; a worker with nothing to run steals half of a
    /// busy sibling's queue, so the load spreads without a central lock. `block_on` only
    /// polls the future it is given; spawned tasks run on the workers, in parallel.
    pub fn new_multi_thread() -> Builder {
        Builder::new(Kind::MultiThread)
    }

    /// A runtime that runs every task on the thread calling `block_on`.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread().build().unwrap();
    /// let here = std::thread::current().id();
    /// let ran_on = rt.block_on(async {
    ///     runtime::spawn(async { std::thread::current().id() }).await.unwrap()
    /// });
    /// assert_eq!(ran_on, here);
    /// ```
    ///
    /// No thread is started: tasks run only while some thread is inside
    /// [`Runtime::block_on`], in the order they became runnable. The lightest flavor (no
    /// cross-thread synchronization on the task path), and the default of
    /// `#[runtime::test]`; a task that blocks stalls all the others.
    pub fn new_current_thread() -> Builder {
        Builder::new(Kind::CurrentThread)
    }

    fn new(kind: Kind) -> Builder {
        Builder {
            kind,
            worker_threads: None,
            thread_name: std::sync::Arc::new(|| "runtime-worker".to_string()),
            thread_stack_size: None,
            global_queue_interval: None,
            event_interval: DEFAULT_EVENT_INTERVAL,
            nevents: io_events_default(),
            nevents_busy: None,
            disable_lifo_slot: false,
            start_paused: false,
            enable_io: false,
            enable_time: false,
            max_blocking_threads: DEFAULT_MAX_BLOCKING_THREADS,
            keep_alive: DEFAULT_KEEP_ALIVE,
            on_stall: None,
            telemetry: crate::observe::metrics::Telemetry::default(),
            #[cfg(not(loom))]
            dump_signal: None,
            unhandled_panic: UnhandledPanic::Ignore,
            rng_seed: None,
            hooks: crate::observe::hooks::Hooks::default(),
            name: None,
            #[cfg(all(feature = "deterministic", not(loom)))]
            sim: None,
        }
    }

    /// Worker threads of a multi-thread runtime (default: available parallelism, or the
    /// `TOKIO_WORKER_THREADS`, else `RUNTIME_WORKER_THREADS` environment variable). Ignored
    /// by the current-thread flavor.
    ///
    /// ```
    /// let rt = runtime::Builder::new_multi_thread().worker_threads(3).build().unwrap();
    /// assert_eq!(rt.metrics().num_workers(), 3);
    /// ```
    ///
    /// More workers than CPUs buy nothing for CPU-bound tasks; blocking work goes to the
    /// blocking pool (`spawn_blocking`), which has its own threads, not to extra workers.
    ///
    /// # Panics
    /// When `n` is 0.
    #[track_caller]
    pub fn worker_threads(&mut self, n: usize) -> &mut Self {
        assert!(
            n > 0,
            "Worker threads cannot be set to 0 (worker_threads must be at least 1)"
        );
        self.worker_threads = Some(n);
        self
    }

    /// Name of the runtime's threads.
    pub fn thread_name(&mut self, name: impl Into<String>) -> &mut Self {
        let name = name.into();
        self.thread_name = std::sync::Arc::new(move || name.clone());
        self
    }

    /// A function naming each new runtime thread.
    pub fn thread_name_fn<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        self.thread_name = std::sync::Arc::new(f);
        self
    }

    /// Stack size of the runtime's threads.
    pub fn thread_stack_size(&mut self, size: usize) -> &mut Self {
        self.thread_stack_size = Some(size);
        self
    }

    /// Polls between two checks of the global queue by a busy worker (on the current-thread
    /// flavor: ticks). By default the multi-thread flavor tunes it at run time so that a
    /// busy worker looks about every 10 µs of work (2 to 127 polls); the current-thread
    /// flavor uses 31.
    ///
    /// # Panics
    /// When `n` is 0.
    #[track_caller]
    pub fn global_queue_interval(&mut self, n: u32) -> &mut Self {
        assert!(n > 0, "global_queue_interval must be greater than 0");
        self.global_queue_interval = Some(n);
        self
    }

    /// Ticks between two non-blocking polls of the I/O driver by a busy worker (default 61).
    ///
    /// # Panics
    /// When `n` is 0.
    #[track_caller]
    pub fn event_interval(&mut self, n: u32) -> &mut Self {
        assert!(n > 0, "event_interval must be greater than 0");
        self.event_interval = n;
        self
    }

    /// The most I/O readiness events one poll of the driver dispatches (default 1024);
    /// more stay pending for the next poll.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread()
    ///     .enable_io()
    ///     .max_io_events_per_tick(1024)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    ///
    /// # Panics
    /// When `capacity` is 0.
    #[track_caller]
    pub fn max_io_events_per_tick(&mut self, capacity: usize) -> &mut Self {
        assert!(capacity > 0, "max_io_events_per_tick must be non-zero");
        self.nevents = capacity;
        self
    }

    /// The most I/O readiness events a poll of the driver that does not wait dispatches
    /// (tokio's): a thread that polls while it still has tasks to run (between batches, or
    /// with a timer already due) takes this many and leaves the rest in the kernel, so a
    /// burst of events cannot flood its queue. A thread about to sleep still takes up to
    /// [`max_io_events_per_tick`](Self::max_io_events_per_tick). Default: that same value.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread()
    ///     .enable_io()
    ///     .max_io_events_per_tick(128)
    ///     .max_io_events_per_busy_tick(8)
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    ///
    /// # Panics
    /// When `capacity` is 0.
    #[track_caller]
    pub fn max_io_events_per_busy_tick(&mut self, capacity: usize) -> &mut Self {
        assert!(capacity > 0, "max_io_events_per_busy_tick must be non-zero");
        self.nevents_busy = Some(capacity);
        self
    }

    /// Turns off the LIFO slot: woken tasks always go to the back of the local queue.
    pub fn disable_lifo_slot(&mut self) -> &mut Self {
        self.disable_lifo_slot = true;
        self
    }

    /// Enables the I/O and timer drivers.
    ///
    /// ```
    /// use runtime::time::{timeout, Duration};
    ///
    /// let rt = runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// rt.block_on(async {
    ///     let listener = runtime::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    ///     // Nobody connects: the timer driver ends the wait.
    ///     assert!(timeout(Duration::from_millis(10), listener.accept()).await.is_err());
    /// });
    /// ```
    ///
    /// The drivers cost their setup (an epoll instance, a timer wheel) and nothing on the
    /// task path: an idle worker parks in the driver, waiting for readiness events with the
    /// next timer's deadline as its timeout.
    pub fn enable_all(&mut self) -> &mut Self {
        self.enable_io().enable_time()
    }

    /// Enables the I/O driver (sockets).
    pub fn enable_io(&mut self) -> &mut Self {
        self.enable_io = true;
        self
    }

    /// Enables the timer driver (`time::sleep` and friends).
    pub fn enable_time(&mut self) -> &mut Self {
        self.enable_time = true;
        self
    }

    /// Starts the runtime's clock paused, as if [`time::pause`](crate::time::pause) were
    /// called first thing: time then moves only when every task is idle (to the next
    /// timer) or through [`time::advance`](crate::time::advance). Current-thread runtimes
    /// only, with the timer driver enabled.
    ///
    /// ```
    /// use runtime::time::{sleep, Duration, Instant};
    ///
    /// let rt = runtime::Builder::new_current_thread()
    ///     .enable_time()
    ///     .start_paused(true)
    ///     .build()
    ///     .unwrap();
    /// rt.block_on(async {
    ///     let start = Instant::now();
    ///     sleep(Duration::from_secs(3600)).await; // returns at once in real time
    ///     assert!(start.elapsed() >= Duration::from_secs(3600));
    /// });
    /// ```
    ///
    /// # Panics
    /// `build` panics when this is set on a multi-thread builder or without
    /// `enable_time()`.
    pub fn start_paused(&mut self, start_paused: bool) -> &mut Self {
        self.start_paused = start_paused;
        self
    }

    /// Upper bound on blocking-pool threads (default 512).
    ///
    /// # Panics
    /// When `n` is 0.
    #[track_caller]
    pub fn max_blocking_threads(&mut self, n: usize) -> &mut Self {
        assert!(
            n > 0,
            "Max blocking threads cannot be set to 0 (max_blocking_threads must be at least 1)"
        );
        self.max_blocking_threads = n;
        self
    }

    /// How long an idle blocking-pool thread waits for work before exiting (default 10 s).
    pub fn thread_keep_alive(&mut self, d: Duration) -> &mut Self {
        self.keep_alive = d;
        self
    }

    /// What the runtime does when a spawned task panics (default:
    /// [`UnhandledPanic::Ignore`], the panic goes to the task's `JoinHandle`). With
    /// [`UnhandledPanic::ShutdownRuntime`] the first panicking task shuts the runtime down
    /// and every `block_on` on it panics with that task's panic message.
    ///
    /// ```
    /// use runtime::{Builder, UnhandledPanic};
    ///
    /// let rt = Builder::new_current_thread()
    ///     .unhandled_panic(UnhandledPanic::ShutdownRuntime)
    ///     .build()
    ///     .unwrap();
    /// let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
    ///     rt.block_on(async {
    ///         let _ = runtime::spawn(async { panic!("boom") }).await;
    ///     })
    /// }));
    /// assert!(r.is_err());
    /// ```
    pub fn unhandled_panic(&mut self, behavior: UnhandledPanic) -> &mut Self {
        self.unhandled_panic = behavior;
        self
    }

    /// Seeds the random choices the runtime makes for its tasks (`select!`'s branch
    /// order), so that a test on a current-thread runtime makes the same choices every run.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread()
    ///     .rng_seed(runtime::RngSeed::from_bytes(b"42"))
    ///     .build()
    ///     .unwrap();
    /// # drop(rt);
    /// ```
    pub fn rng_seed(&mut self, seed: crate::rand::RngSeed) -> &mut Self {
        self.rng_seed = Some(seed);
        self
    }

    /// Names the runtime (see [`Handle::name`](crate::Handle::name)); the threads keep
    /// their own names ([`thread_name`](Self::thread_name)).
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread().name("ingest").build().unwrap();
    /// assert_eq!(rt.handle().name(), Some("ingest"));
    /// ```
    ///
    /// # Panics
    ///
    /// When `name` is empty or only whitespace.
    #[track_caller]
    pub fn name(&mut self, name: impl Into<String>) -> &mut Self {
        let name = name.into();
        assert!(
            !name.trim().is_empty(),
            "runtime name shouldn't be empty: give `Builder::name` a visible name"
        );
        self.name = Some(name);
        self
    }

    #[track_caller]
    fn pause_clock(&self, driver: &Driver) {
        assert!(
            self.kind == Kind::CurrentThread,
            "{}",
            crate::misuse::START_PAUSED_MULTI_THREAD
        );
        #[cfg(not(loom))]
        {
            let Some(time) = driver.time_handle_opt() else {
                panic!("{}", crate::misuse::START_PAUSED_NO_TIMER);
            };
            crate::time::note_paused();
            time.pause().expect("a new clock is running");
        }
        #[cfg(loom)]
        let _ = driver;
    }

    /// Builds the runtime (starting its worker threads).
    ///
    /// ```
    /// fn main() -> std::io::Result<()> {
    ///     let rt = runtime::Builder::new_multi_thread().enable_all().build()?;
    ///     rt.block_on(async { println!("hello from the runtime") });
    ///     Ok(())
    /// }
    /// ```
    ///
    /// Fails when the I/O driver cannot be created or a worker thread cannot be spawned
    /// (the error of `epoll_create` or `thread::spawn`). The builder is left as it was, so
    /// one builder can build several runtimes with the same settings.
    pub fn build(&mut self) -> io::Result<Runtime> {
        let rt = self.build_runtime()?;
        #[cfg(not(loom))]
        if let Some((signal, callback)) = &self.dump_signal {
            crate::observe::dump::watch_signal(*signal, &rt.handle().inner, callback.clone())?;
        }
        Ok(rt)
    }

    fn build_runtime(&mut self) -> io::Result<Runtime> {
        #[cfg(all(feature = "deterministic", not(loom)))]
        if let Some((seed, options)) = self.sim {
            return self.build_sim(seed, options);
        }
        let seeds = self
            .rng_seed
            .as_ref()
            .map(|s| Arc::new(crate::rand::SeedGenerator::new(s)));
        let driver = Arc::new(Driver::new(self.enable_io, self.enable_time, self.nevents)?);
        if let Some(busy) = self.nevents_busy {
            driver.set_busy_events(busy);
        }
        if self.start_paused {
            self.pause_clock(&driver);
        }
        let blocking = blocking::Spawner::new(blocking::Config {
            max_threads: self.max_blocking_threads,
            keep_alive: self.keep_alive,
            thread_name: self.thread_name.clone(),
            stack_size: self.thread_stack_size,
            hooks: self.hooks.clone(),
            #[cfg(not(loom))]
            clock: driver.time_handle_opt().cloned(),
            #[cfg(all(feature = "deterministic", not(loom)))]
            sim: false,
        });
        match self.kind {
            Kind::CurrentThread => {
                let (handle, ct) = current_thread::create(
                    self.global_queue_interval
                        .unwrap_or(CURRENT_THREAD_GLOBAL_QUEUE_INTERVAL),
                    self.event_interval,
                    driver,
                    blocking.clone(),
                    unhandled::policy(
                        self.unhandled_panic,
                        crate::scheduler::Handle::close_current_multi_thread,
                    ),
                    self.hooks.clone(),
                    self.name.clone(),
                    self.telemetry,
                );
                let handle = scheduler::Handle::CurrentThread(handle);
                blocking.set_runtime(handle.clone());
                Ok(Runtime::from_parts(
                    handle,
                    Flavor::CurrentThread(ct),
                    Vec::new(),
                    Arc::new(Latch::new()),
                )
                .with_seeds(seeds))
            }
            Kind::MultiThread => {
                let n = self.worker_threads.unwrap_or_else(default_worker_threads);
                let config = multi_thread::Config {
                    global_queue_interval: self.global_queue_interval,
                    event_interval: self.event_interval,
                    disable_lifo_slot: self.disable_lifo_slot,
                    hooks: self.hooks.clone(),
                    name: self.name.clone(),
                    telemetry: self.telemetry,
                };
                let spawner = ThreadSpawner {
                    name: self.thread_name.clone(),
                    stack_size: self.thread_stack_size,
                    hooks: self.hooks.clone(),
                    seeds: seeds.clone(),
                    latch: Arc::new(Latch::new()),
                };
                let (handle, launch) = multi_thread::create(
                    n,
                    config,
                    driver,
                    blocking.clone(),
                    self.on_stall.clone(),
                    unhandled::policy(
                        self.unhandled_panic,
                        crate::scheduler::Handle::close_current_multi_thread,
                    ),
                    spawner.clone(),
                );
                let sched = scheduler::Handle::MultiThread(handle.clone());
                blocking.set_runtime(sched.clone());
                let mut threads = Vec::with_capacity(n + 1);
                // Each thread's body and role: the user's thread hooks and the RNG seeds are
                // for the workers, not for the runtime's own monitor.
                let mut bodies: Vec<(Role, Box<dyn FnOnce() + Send>)> = Vec::with_capacity(n + 1);
                for worker in launch {
                    bodies.push((Role::Worker, Box::new(move || worker.run())));
                }
                // The monitor: rescues work from stuck workers, keeps the driver attended.
                // Not under loom (no clock in the models).
                #[cfg(not(loom))]
                {
                    let handle = handle.clone();
                    bodies.push((
                        Role::Helper,
                        Box::new(move || multi_thread::run_monitor(handle)),
                    ));
                }
                spawner.count_in(bodies.len());
                for (role, body) in bodies {
                    match spawner.spawn_counted(role, body) {
                        Ok(t) => threads.push(t),
                        Err(e) => {
                            handle.close();
                            for t in threads {
                                let _ = t.join();
                            }
                            return Err(e);
                        }
                    }
                }
                let exited = spawner.latch;
                Ok(
                    Runtime::from_parts(sched, Flavor::MultiThread(handle), threads, exited)
                        .with_seeds(seeds),
                )
            }
        }
    }
}

impl Builder {
    /// Builds a [`LocalRuntime`](crate::LocalRuntime): a current-thread runtime that also
    /// runs `!Send` tasks (`spawn_local` works anywhere on it) and cannot leave its thread.
    ///
    /// ```
    /// let rt = runtime::Builder::new_current_thread()
    ///     .build_local(runtime::LocalOptions::default())
    ///     .unwrap();
    /// assert_eq!(rt.block_on(async { 3 }), 3);
    /// ```
    ///
    /// # Panics
    /// On a multi-thread builder: a local runtime is a current-thread one (use
    /// `Builder::new_current_thread()`).
    #[track_caller]
    pub fn build_local(&mut self, options: crate::LocalOptions) -> io::Result<crate::LocalRuntime> {
        let _ = options;
        assert!(
            self.kind == Kind::CurrentThread,
            "{}",
            crate::misuse::BUILD_LOCAL_NOT_CURRENT_THREAD
        );
        Ok(crate::LocalRuntime::from_runtime(self.build()?))
    }
}

/// The worker count when `worker_threads` was not called: `TOKIO_WORKER_THREADS` (so a
/// tokio deployment's setting carries over), else `RUNTIME_WORKER_THREADS`, else one per
/// available core. A set variable that is not a positive integer is a panic that names it.
fn default_worker_threads() -> usize {
    for var in ["TOKIO_WORKER_THREADS", "RUNTIME_WORKER_THREADS"] {
        if let Ok(s) = std::env::var(var) {
            match s.trim().parse::<usize>() {
                Ok(n) if n > 0 => return n,
                _ => panic!("{var} must be a positive integer, got {s:?}"),
            }
        }
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("kind", &self.kind)
            .field("worker_threads", &self.worker_threads)
            .field("global_queue_interval", &self.global_queue_interval)
            .field("event_interval", &self.event_interval)
            .field("max_io_events_per_tick", &self.nevents)
            .field("max_io_events_per_busy_tick", &self.nevents_busy)
            .field("disable_lifo_slot", &self.disable_lifo_slot)
            .field("enable_io", &self.enable_io)
            .field("enable_time", &self.enable_time)
            .field("max_blocking_threads", &self.max_blocking_threads)
            .field("on_stall", &self.on_stall.as_ref().map(|(t, _)| t))
            .field("telemetry", &self.telemetry)
            .field("unhandled_panic", &self.unhandled_panic)
            .finish()
    }
}

/// tokio's default for [`Builder::max_io_events_per_tick`].
fn io_events_default() -> usize {
    #[cfg(not(loom))]
    {
        io_driver::EVENTS_CAPACITY
    }
    #[cfg(loom)]
    {
        1024
    }
}
