//! `Builder::deterministic`: a runtime that is a pure function of a seed (see `sim/`).
//!
//! The build differs from the threaded one in what it does not start: no worker thread,
//! no monitor, no blocking-pool thread. The cores go to the stepper (sim/stepper.rs),
//! which the `Runtime` owns and runs from `block_on` and at shutdown. The clock is the
//! driver's, frozen at its origin; the driver has one timer wheel (the firing order of
//! due timers is then their deadlines' and insertion order, whatever the machine). What
//! the threaded build tunes from the machine is fixed: 4 workers unless set (2 would hide
//! the many-worker paths, the CPU count would make the run depend on the machine), the
//! global queue interval 31 unless set (the threaded default tunes it from measured poll
//! times), no spin before parking (it decides by the clock). `select!`'s and
//! `RngSeed`'s draws come from the seed unless `rng_seed` set one.

use std::io;

use shim::sync::Arc;

use super::{Builder, Kind};
use crate::blocking;
use crate::driver::Driver;
use crate::runtime::{Flavor, Runtime};
use crate::scheduler::{self, multi_thread};
use crate::sim::{Options, Sim, Strategy};
use crate::threads::{Latch, ThreadSpawner};
use crate::unhandled;

/// Logical workers of a deterministic multi-thread runtime when `worker_threads` is unset.
const DEFAULT_SIM_WORKERS: usize = 4;

/// The global queue interval of a deterministic runtime when unset (tokio's default).
const DEFAULT_SIM_GLOBAL_QUEUE_INTERVAL: u32 = 31;

impl Builder {
    /// Makes the runtime deterministic: the same seed gives the same run, step for step
    /// (the same [`Runtime::trace_hash`]), on any machine. Needs the `deterministic`
    /// feature.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// fn run(seed: u64) -> (Vec<u32>, u64) {
    ///     let rt = runtime::Builder::new_multi_thread()
    ///         .worker_threads(4)
    ///         .enable_all()
    ///         .deterministic(seed)
    ///         .build()
    ///         .unwrap();
    ///     let order = rt.block_on(async {
    ///         let (tx, mut rx) = runtime::sync::mpsc::unbounded_channel();
    ///         for i in 0..8 {
    ///             let tx = tx.clone();
    ///             runtime::spawn(async move {
    ///                 runtime::time::sleep(Duration::from_millis(10)).await;
    ///                 tx.send(i).unwrap();
    ///             });
    ///         }
    ///         drop(tx);
    ///         let mut order = Vec::new();
    ///         while let Some(i) = rx.recv().await {
    ///             order.push(i);
    ///         }
    ///         order
    ///     });
    ///     (order, rt.trace_hash())
    /// }
    ///
    /// assert_eq!(run(7), run(7));
    /// ```
    ///
    /// The workers are logical: the real scheduler (its queues, LIFO slot, stealing and
    /// parking) stepped one decision at a time on the thread that calls `block_on`, at
    /// seeded choices; parked workers take no step until notified. Time is virtual: it
    /// starts at a fixed epoch and jumps to the next timer when nothing can run, so an
    /// hour of `sleep` costs nothing. Blocking closures (`spawn_blocking`, `fs`,
    /// `block_in_place`) run one at a time at a seeded point; one that waits on a task
    /// is reported within a second. A run where nothing can run and nothing is due
    /// panics (deadlock) with the seed and a task dump. Tasks run only inside
    /// `block_on` and at shutdown.
    ///
    /// The threaded settings that depend on the machine are fixed: 4 workers unless
    /// [`worker_threads`](Builder::worker_threads) says otherwise (1 on
    /// `new_current_thread()`, which gives a one-worker runtime of this kind that reports
    /// the current-thread flavor and refuses `block_in_place` as that flavor does), a
    /// global queue interval of 31 unless set.
    pub fn deterministic(&mut self, seed: u64) -> &mut Self {
        self.sim = Some((seed, self.sim.map_or_else(Options::default, |s| s.1)));
        self
    }

    /// [`deterministic`](Builder::deterministic) with `options` (the strategy and the
    /// perturbation knobs; `RUNTIME_SIM_STRATEGY` overrides the strategy).
    pub fn deterministic_options(&mut self, seed: u64, options: Options) -> &mut Self {
        self.sim = Some((seed, options));
        self
    }

    /// The deterministic build (module docs).
    pub(super) fn build_sim(&mut self, seed: u64, options: Options) -> io::Result<Runtime> {
        let options = options.or_env();
        let rng_seed = self
            .rng_seed
            .clone()
            .unwrap_or_else(|| crate::rand::RngSeed::from_bytes(&seed.to_le_bytes()));
        let seeds = Some(Arc::new(crate::rand::SeedGenerator::new(&rng_seed)));
        let driver = Arc::new(Driver::with_timer_shards(
            self.enable_io,
            self.enable_time,
            self.nevents,
            1,
        )?);
        let time = driver.time_handle_opt().cloned();
        if let Some(time) = &time {
            crate::time::note_paused();
            time.pause_at_origin()
                .expect("a new driver's clock was never paused");
        }
        let blocking = blocking::Spawner::new(blocking::Config {
            max_threads: self.max_blocking_threads,
            keep_alive: self.keep_alive,
            thread_name: self.thread_name.clone(),
            stack_size: self.thread_stack_size,
            hooks: self.hooks.clone(),
            clock: time.clone(),
            sim: true,
        });
        let n = match self.kind {
            Kind::CurrentThread => 1,
            Kind::MultiThread => self.worker_threads.unwrap_or(DEFAULT_SIM_WORKERS),
        };
        let config = multi_thread::Config {
            global_queue_interval: Some(
                self.global_queue_interval
                    .unwrap_or(DEFAULT_SIM_GLOBAL_QUEUE_INTERVAL),
            ),
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
            None,
            unhandled::policy(
                self.unhandled_panic,
                crate::scheduler::Handle::close_current_multi_thread,
            ),
            spawner,
        );
        let current_thread = matches!(self.kind, Kind::CurrentThread);
        let sim = std::sync::Arc::new(Sim::new(seed, options, time, current_thread));
        if handle.sim.set(sim.clone()).is_err() {
            unreachable!("a new handle has no deterministic state");
        }
        let sched = scheduler::Handle::MultiThread(handle.clone());
        blocking.set_runtime(sched.clone());
        // Exploration off fixes the steal-victim draws too: one order for every seed.
        let sched_seed = if options.strategy == Strategy::Fixed {
            0
        } else {
            seed
        };
        let workers = multi_thread::sim_workers::SimWorkers::new(&handle, launch, sched_seed);
        let stepper = crate::sim::stepper::Stepper::new(sim, handle.clone(), workers);
        Ok(Runtime::from_parts(
            sched,
            Flavor::MultiThread(handle),
            Vec::new(),
            Arc::new(Latch::new()),
        )
        .with_seeds(seeds)
        .with_stepper(stepper))
    }
}
