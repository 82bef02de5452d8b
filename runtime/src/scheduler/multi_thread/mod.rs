//! The multi-thread, work-stealing scheduler.
//!
//! N workers, each with a fixed-size `Local` ring, a LIFO slot and a `Parker`; two global
//! `Inject` queues (below); `Idle` accounting of searching/parked workers. This file is the shared
//! state (`Handle`, `Shared`), its construction, shutdown and metrics. `worker.rs` is the
//! per-thread loop and, next to the `Core` it works on, the one place that decides where
//! a spawned or woken task goes (`Handle::spawn`, `Handle::schedule`) and whom to
//! wake (`Handle::notify_parked`).
//!
//! Scheduling: on a worker of this runtime a woken/spawned task goes into that worker's
//! LIFO slot (the displaced occupant to the back of its ring; a yield waits in the
//! deferred list for the next driver turn, a task woken by another thread while it runs
//! goes to the back of the ring); from any other thread it goes to the global queue,
//! followed by a notify (a remote spawn raises the remote-spawn counter,
//! `scheduler/inject.rs`; a remote wake the `remote_wakes` hint that the park yields
//! read, idle/search.rs). No spawn takes an owned-list lock: a task joins the list at its first park, in the shard of
//! the worker that polled it (`scheduler::Handle::bind`; see task's list.rs), so a task
//! that never waits never touches the list. Shutdown drains cancel the unbound rest.
//! Notify wakes a parked worker only when nobody is searching (idle/word.rs). A task dump takes
//! the never-polled tasks of every worker's ring and LIFO slot to the global queue
//! (claim.rs).
//!
//! The two global queues: `inject` holds what arrives from outside the workers (remote
//! spawns and wakes); `overflow` holds what a full ring spills (half of it, plus the task
//! being pushed): work already under way, mostly tasks just woken on that worker (timers
//! fired by its driver, I/O). A worker that needs global work takes `overflow` first, so a
//! woken task never waits behind a backlog of remote spawns that have not started (with
//! one queue, a burst of remote spawns would delay every timer-woken task that spilt
//! behind it by the whole burst); its periodic fairness visits alternate between the two,
//! so neither can starve the other.

#[cfg(not(loom))]
mod claim;
pub(crate) mod idle;
#[cfg(not(loom))]
mod in_place;
#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod monitor;
#[cfg(all(feature = "deterministic", not(loom)))]
pub(crate) mod sim_workers;
mod worker;
pub(crate) mod worker_shared;

use crossbeam_utils::CachePadded;
use queue::{Inject, Steal};
use shim::sync::{Arc, Mutex};
use task::OwnedTasks;

use self::idle::{spin, Hints, Idle};
use self::monitor::Monitor;
use self::worker::Core;
#[cfg(all(feature = "deterministic", not(loom)))]
pub(crate) use self::worker::ObservePolls;
pub(crate) use self::worker::{current_index, hand_off_core, Context};
use self::worker_shared::WorkerShared;
use crate::blocking;
use crate::driver::Driver;
use crate::observe::hooks::StallCallback;
use crate::observe::metrics::{self, Snapshot};
use crate::park::{Parker, Unparker};
use crate::scheduler::inject::RemoteSpawns;
use crate::scheduler::{self, RunTask};
use crate::threads::ThreadSpawner;

/// Scheduler settings taken from the `Builder`.
#[derive(Clone, Debug)]
pub(crate) struct Config {
    /// Fixed by the user, or None: tuned from the measured mean tick time.
    pub(crate) global_queue_interval: Option<u32>,
    pub(crate) event_interval: u32,
    pub(crate) disable_lifo_slot: bool,
    /// The user's thread callbacks (park/unpark are called by the workers).
    pub(crate) hooks: crate::observe::hooks::Hooks,
    /// `Builder::name`.
    pub(crate) name: Option<String>,
    /// The histograms and their sampling (metrics/sampler.rs).
    pub(crate) telemetry: metrics::Telemetry,
}

/// Aligned to 128 bytes so that, inside its `Arc`, the reference counts (written when a
/// task first parks and when a task that parked is freed) sit on their own cache lines,
/// apart from the read-mostly fields below.
#[repr(align(128))]
pub(crate) struct Handle {
    pub(crate) shared: Shared,
    /// How often a `block_on` thread waiting on this runtime yields its CPU while it
    /// spins before parking (every `n`th spin round; block_on.rs).
    pub(crate) block_on_yield_every: u32,
    pub(crate) driver: Arc<Driver>,
    pub(crate) blocking: blocking::Spawner,
    /// The monitor thread's state (monitor.rs).
    monitor: Monitor,
    pub(crate) unhandled_panic: crate::unhandled::Policy,
    pub(crate) hooks: crate::observe::hooks::Hooks,
    pub(crate) name: Option<String>,
    /// Starts the thread a worker's core is handed to by `task::block_in_place`.
    spawner: ThreadSpawner,
    /// The threads inside `block_in_place`, for the shutdown report (in_place.rs).
    #[cfg(not(loom))]
    pub(crate) in_place: in_place::InPlace,
    /// The deterministic mode's shared state, when this runtime runs in it (sim/).
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) sim: std::sync::OnceLock<std::sync::Arc<crate::sim::Sim>>,
}

pub(crate) struct Shared {
    remotes: Box<[Remote]>,
    /// Each worker's LIFO slot and poll stamp, one padded line each (worker_shared.rs); each
    /// worker's core holds its own too (no indexing on its hot path).
    workers: Box<[std::sync::Arc<CachePadded<WorkerShared<RunTask>>>]>,
    /// Padded: written by every remote push and global-queue pop; the read-mostly
    /// neighbours (the owned list's id and shards, `remotes`) must not share its line.
    pub(crate) inject: CachePadded<Inject<RunTask>>,
    /// Tasks spawned from outside the workers (scheduler/inject.rs); padded inside.
    remote_spawns: RemoteSpawns,
    /// What workers' full rings spilled: work under way (woken tasks, most often), taken
    /// before `inject` except on every other fairness visit (module docs). Padded: written
    /// by overflowing workers and by global-queue pops.
    pub(crate) overflow: CachePadded<Inject<RunTask>>,
    /// Padded: written by searching/parking transitions.
    idle: CachePadded<Idle>,
    /// The one pre-park spinner's token (idle/spin.rs); padded, taken once per idle episode.
    spinner: CachePadded<spin::SpinToken>,
    /// Whether a `block_on` caller is polling, and the remote-wake count: the idle
    /// policy's hints (idle/mod.rs), each padded.
    hints: Hints,
    pub(crate) owned: OwnedTasks<scheduler::TaskSched>,
    // Boxed: the cores travel as `Box<Core>` through the worker loop; no reallocation here.
    #[allow(clippy::vec_box)]
    shutdown_cores: Mutex<Vec<Box<Core>>>,
    pub(crate) metrics: Box<[CachePadded<metrics::Slot>]>,
    pub(crate) telemetry: metrics::Telemetry,
}

/// What other threads may do to a worker: steal from it, wake it.
struct Remote {
    steal: Steal<RunTask>,
    unpark: Unparker,
}

/// A worker ready to be started on its own thread.
pub(crate) struct Launch {
    handle: Arc<Handle>,
    core: Box<Core>,
}

/// Builds the scheduler: the handle plus one `Launch` per worker.
pub(crate) fn create(
    num_workers: usize,
    config: Config,
    driver: Arc<Driver>,
    blocking: blocking::Spawner,
    on_stall: Option<(std::time::Duration, StallCallback)>,
    unhandled_panic: crate::unhandled::Policy,
    spawner: ThreadSpawner,
) -> (Arc<Handle>, Vec<Launch>) {
    // Read once: `available_parallelism` reads cgroup files. Under loom a fixed 2 (the CI
    // machine's count): a model must explore the same policy whatever machine runs it, and
    // the ~20 system calls of the read cost a sixth of a small model's execution.
    #[cfg(not(loom))]
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    #[cfg(loom)]
    let cpus = 2;
    let spin_rounds = spin::spin_rounds(num_workers, cpus);
    let park_yields = spin::park_yields(num_workers, cpus);
    let mut remotes = Vec::with_capacity(num_workers);
    let mut cores = Vec::with_capacity(num_workers);
    let workers: Vec<_> = (0..num_workers)
        .map(|_| std::sync::Arc::new(CachePadded::new(WorkerShared::new())))
        .collect();
    for (index, me) in workers.iter().enumerate() {
        let (steal, local) = queue::local();
        let park = Parker::new(driver.clone());
        remotes.push(Remote {
            steal,
            unpark: park.unparker(),
        });
        cores.push(Core::new(
            index,
            local,
            park,
            &config,
            spin_rounds,
            park_yields,
            me.clone(),
        ));
    }
    let handle = Arc::new(Handle {
        block_on_yield_every: crate::block_on::yield_every(num_workers, cpus),
        shared: Shared {
            remotes: remotes.into_boxed_slice(),
            workers: workers.into_boxed_slice(),
            inject: CachePadded::new(Inject::new()),
            remote_spawns: RemoteSpawns::default(),
            overflow: CachePadded::new(Inject::new()),
            idle: CachePadded::new(Idle::new(num_workers)),
            spinner: CachePadded::new(spin::SpinToken::default()),
            hints: Hints::new(park_yields > 0, cpus),
            owned: OwnedTasks::new(num_workers),
            shutdown_cores: Mutex::new(Vec::with_capacity(num_workers)),
            metrics: metrics::slots(num_workers, &config.telemetry),
            telemetry: config.telemetry,
        },
        driver,
        blocking,
        monitor: Monitor::new(num_workers, on_stall),
        unhandled_panic,
        hooks: config.hooks,
        name: config.name,
        spawner,
        #[cfg(not(loom))]
        in_place: Default::default(),
        #[cfg(all(feature = "deterministic", not(loom)))]
        sim: std::sync::OnceLock::new(),
    });
    let launch = cores
        .into_iter()
        .map(|core| Launch {
            handle: handle.clone(),
            core,
        })
        .collect();
    (handle, launch)
}

impl Launch {
    /// Runs the worker loop on the calling thread until shutdown.
    pub(crate) fn run(self) {
        worker::run(self.handle, self.core);
    }
}

/// Runs the monitor (monitor.rs) on the calling thread until shutdown.
#[cfg(not(loom))]
pub(crate) fn run_monitor(handle: Arc<Handle>) {
    monitor::run(&handle);
}

impl Shared {
    /// Whether either global queue (overflow, remote spawns) holds tasks.
    pub(crate) fn has_global_work(&self) -> bool {
        !self.overflow.is_empty() || !self.inject.is_empty()
    }
}

impl Handle {
    /// The idle policy's hints (idle/mod.rs): what a `block_on` caller and the wake path
    /// tell the workers.
    pub(crate) fn hints(&self) -> &Hints {
        &self.shared.hints
    }

    /// Fewer workers unparked than CPUs: a `block_on` thread may spin without taking a
    /// CPU from a worker (block_on.rs).
    pub(crate) fn block_on_cpu_free(&self) -> bool {
        self.shared.hints.block_on_cpu_free(&self.shared.idle)
    }

    /// Begins shutdown: closes the global queues and wakes every worker. Idempotent.
    pub(crate) fn close(&self) {
        self.monitor.close();
        self.shared.overflow.close();
        if self.shared.inject.close() {
            for remote in self.shared.remotes.iter() {
                remote.unpark.unpark();
            }
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.shared.inject.is_closed()
    }

    pub(crate) fn metrics(&self) -> Snapshot {
        Snapshot {
            live_tasks: metrics::live_tasks(&self.shared.metrics, self.shared.remote_spawns.get()),
            remote_spawns: self.shared.remote_spawns.get(),
            global_queue_depth: self.shared.inject.len() + self.shared.overflow.len(),
            workers: self
                .shared
                .metrics
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let mut m = s.read();
                    let seq = self.shared.workers[i].poll_seq();
                    self.monitor.published[i].fill(seq, self.monitor.base, &mut m);
                    m
                })
                .collect(),
            // Filled in by `scheduler::Handle::metrics`.
            blocking_threads: 0,
            idle_blocking_threads: 0,
            blocking_queue_depth: 0,
        }
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.shared.remotes.len()
    }
}
