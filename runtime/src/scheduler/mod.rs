//! The two schedulers behind one handle type.
//!
//! `Handle` is the tasks' `task::Schedule` implementation and what `runtime::Handle`
//! wraps: an `Arc` of the multi-thread or current-thread scheduler state. A worker lends
//! its own to each task it runs; only a task that parks keeps a clone (for its wakers), so
//! a task that never parks never touches the `Arc`'s count.
//! `Context` is the per-thread state of a running scheduler (a worker's core, or the
//! current-thread core), published through `context::set_scheduler` so that a task woken
//! on its own worker goes to that worker's local queue with no synchronization.
//!
//! Each flavor decides where a task goes in one function, branching once on "does this
//! thread hold this runtime's core?": yes, its local queue; no, the global queue plus a
//! wake-up (multi_thread/worker.rs `Handle::schedule`, current_thread.rs
//! `Handle::schedule`). The parts both flavors share are small components, not a shared
//! trait: the core slot and the park dance around it (core_slot.rs), the deferred list of
//! yielded tasks (defer.rs), and the global queue's push-or-cancel, batch take, shutdown
//! drain and remote-spawn counter (inject.rs).

mod core_slot;
pub(crate) mod current_thread;
mod defer;
mod inject;
pub(crate) mod multi_thread;

use std::future::Future;

use shim::sync::Arc;
use task::{JoinHandle, Notified, SpawnMeta, Task};

use crate::driver::Driver;
use crate::observe::metrics::Snapshot;

mod task_sched;

pub(crate) use self::task_sched::TaskSched;

/// A task of this runtime, as queues hold it.
pub(crate) type RunTask = Notified<TaskSched>;

/// How a task reaches its scheduler: decides where it waits (a yield waits in the
/// deferred list) and what is counted (a spawn).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// A new task.
    Spawn,
    /// A task woken by someone (`task::Schedule::schedule`).
    Wake,
    /// A task that gave way while running: `yield_now`, a spent budget
    /// (`task::Schedule::yield_now` after `coop::note_yield`). Deferred.
    Yield,
    /// A task notified while running by someone else (`task::Schedule::yield_now`
    /// without a yield noted): the back of the run queue, never the LIFO slot.
    Requeue,
}

#[derive(Clone)]
pub(crate) enum Handle {
    MultiThread(Arc<multi_thread::Handle>),
    CurrentThread(Arc<current_thread::Handle>),
}

pub(crate) enum Context {
    MultiThread(multi_thread::Context),
    CurrentThread(current_thread::Context),
}

impl Handle {
    /// The yield cadence of a `block_on` thread's pre-park spin on this runtime
    /// (block_on.rs).
    pub(crate) fn block_on_yield_every(&self) -> u32 {
        match self {
            Handle::MultiThread(h) => h.block_on_yield_every,
            Handle::CurrentThread(_) => crate::block_on::BLOCK_ON_YIELD_EVERY,
        }
    }

    pub(crate) fn spawn<F>(&self, future: F, meta: SpawnMeta) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let mut future = Some(future);
        crate::context::with_scheduler(|on| self.spawn_from(future.take().expect("once"), meta, on))
    }

    /// `spawn` from a thread running the scheduler context `on` (None: no scheduler), as
    /// the caller read it from the thread's context: a local spawn finds its core there
    /// without a second look at the thread-local.
    #[inline(always)]
    pub(crate) fn spawn_from<F>(
        &self,
        future: F,
        meta: SpawnMeta,
        on: Option<&Context>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        if self.unhandled_panic().is_some() {
            return self.spawn_shutdown_on_panic(future, meta, on);
        }
        self.spawn_inner(future, meta, on)
    }

    /// `spawn` under `UnhandledPanic::ShutdownRuntime`: out of line, so the common path
    /// stays as small as it was.
    #[cold]
    #[inline(never)]
    fn spawn_shutdown_on_panic<F>(
        &self,
        future: F,
        meta: SpawnMeta,
        on: Option<&Context>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let state = self.unhandled_panic().clone().expect("checked by spawn");
        self.spawn_inner(
            crate::unhandled::ShutdownOnPanic::new(future, state),
            meta,
            on,
        )
    }

    /// The runtime's unhandled-panic policy (`None`: `UnhandledPanic::Ignore`).
    pub(crate) fn unhandled_panic(&self) -> &crate::unhandled::Policy {
        match self {
            Handle::MultiThread(h) => &h.unhandled_panic,
            Handle::CurrentThread(h) => &h.unhandled_panic,
        }
    }

    #[inline(always)]
    fn spawn_inner<F>(
        &self,
        future: F,
        meta: SpawnMeta,
        on: Option<&Context>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        match self {
            Handle::MultiThread(h) => multi_thread::Handle::spawn(h, future, meta, on),
            Handle::CurrentThread(h) => current_thread::Handle::spawn(h, future, meta, on),
        }
    }

    /// The current runtime's driver, or a panic naming `what` and where it must be called
    /// from.
    #[cfg(not(loom))]
    #[track_caller]
    pub(crate) fn current_driver(what: &str) -> Arc<Driver> {
        match crate::context::with_handle(|h| h.map(|h| h.driver().clone())) {
            Some(driver) => driver,
            None => panic!(
                "{}: {what} {}",
                crate::misuse::NO_REACTOR,
                crate::misuse::OUTSIDE_RUNTIME_SUFFIX
            ),
        }
    }

    /// The current runtime's I/O driver handle (for `runtime::net`).
    ///
    /// # Panics
    /// Outside a runtime, or on a runtime built without `Builder::enable_io()`.
    #[cfg(not(loom))]
    #[track_caller]
    pub(crate) fn current_io() -> Arc<io_driver::Handle> {
        Handle::current_driver("a `runtime::net` socket function")
            .io_handle()
            .clone()
    }

    /// The current runtime's timer driver handle (for `runtime::time`).
    ///
    /// # Panics
    /// Outside a runtime, or on a runtime built without `Builder::enable_time()`.
    #[cfg(not(loom))]
    #[track_caller]
    pub(crate) fn current_time() -> Arc<io_driver::Handle> {
        Handle::current_driver("a `runtime::time` function")
            .time_handle()
            .clone()
    }

    /// The current runtime's clock (paused or real), or the real time outside a runtime or
    /// on one without a timer driver.
    #[cfg(not(loom))]
    pub(crate) fn clock_now() -> std::time::Instant {
        if !crate::time::any_paused() {
            return std::time::Instant::now();
        }
        if let Some(now) = crate::context::with_handle(|h| {
            h.and_then(|h| h.driver().time_handle_opt().map(|t| t.now()))
        }) {
            return now;
        }
        std::time::Instant::now()
    }

    /// Begins the shutdown of the current multi-thread runtime, if there is one (its
    /// workers stop, its tasks are cancelled): the close hook of
    /// `UnhandledPanic::ShutdownRuntime`. A current-thread runtime stops when its owner,
    /// whose `block_on` then panics, drops it.
    pub(crate) fn close_current_multi_thread() {
        crate::context::with_handle(|h| {
            if let Some(Handle::MultiThread(h)) = h {
                h.close();
            }
        });
    }

    // Its callers (net, time) are not built under loom.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn driver(&self) -> &Arc<Driver> {
        match self {
            Handle::MultiThread(h) => &h.driver,
            Handle::CurrentThread(h) => &h.driver,
        }
    }

    /// The deterministic mode's state, when this runtime runs in it.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn sim(&self) -> Option<&std::sync::Arc<crate::sim::Sim>> {
        match self {
            Handle::MultiThread(h) => h.sim.get(),
            Handle::CurrentThread(_) => None,
        }
    }

    /// Without the `deterministic` feature no runtime runs in the mode.
    #[cfg(not(all(feature = "deterministic", not(loom))))]
    #[allow(dead_code)]
    pub(crate) fn sim(&self) -> Option<&std::sync::Arc<std::convert::Infallible>> {
        None
    }

    pub(crate) fn blocking(&self) -> &crate::blocking::Spawner {
        match self {
            Handle::MultiThread(h) => &h.blocking,
            Handle::CurrentThread(h) => &h.blocking,
        }
    }

    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            Handle::MultiThread(h) => h.name.as_deref(),
            Handle::CurrentThread(h) => h.name.as_deref(),
        }
    }

    /// The owned list's id: unique per runtime in the process.
    pub(crate) fn id(&self) -> u64 {
        match self {
            Handle::MultiThread(h) => h.shared.owned.id(),
            Handle::CurrentThread(h) => h.shared.owned.id(),
        }
    }

    pub(crate) fn num_workers(&self) -> usize {
        match self {
            Handle::MultiThread(h) => h.num_workers(),
            Handle::CurrentThread(_) => 1,
        }
    }

    /// The histogram settings the runtime was built with.
    pub(crate) fn telemetry(&self) -> &crate::observe::metrics::Telemetry {
        match self {
            Handle::MultiThread(h) => &h.shared.telemetry,
            Handle::CurrentThread(h) => &h.shared.telemetry,
        }
    }

    /// The workers' published metrics, one slot each.
    pub(crate) fn metric_slots(
        &self,
    ) -> &[crossbeam_utils::CachePadded<crate::observe::metrics::Slot>] {
        match self {
            Handle::MultiThread(h) => &h.shared.metrics,
            Handle::CurrentThread(h) => &h.shared.metrics,
        }
    }

    /// The counters as they read now.
    pub(crate) fn metrics_now(&self) -> Snapshot {
        let mut m = match self {
            Handle::MultiThread(h) => h.metrics(),
            Handle::CurrentThread(h) => h.metrics(),
        };
        (
            m.blocking_threads,
            m.idle_blocking_threads,
            m.blocking_queue_depth,
        ) = self.blocking().counts();
        m
    }
}

/// What a task asks of its scheduler (`task::Schedule`, implemented by `TaskSched`, the
/// one-word form of this handle that tasks keep).
impl Handle {
    fn schedule(&self, task: RunTask) {
        match self {
            Handle::MultiThread(h) => multi_thread::Handle::schedule(h, task, Arrival::Wake),
            Handle::CurrentThread(h) => current_thread::Handle::schedule(h, task, Arrival::Wake),
        }
    }

    fn release(&self, task: &Task<TaskSched>) -> Option<Task<TaskSched>> {
        match self {
            Handle::MultiThread(h) => h.shared.owned.remove(task),
            Handle::CurrentThread(h) => h.shared.owned.remove(task),
        }
    }

    fn bind(&self, task: Task<TaskSched>) -> Result<(), Task<TaskSched>> {
        match self {
            // Into the polling worker's own shard: its lock is uncontended, and the task's
            // completion will most likely release it there too.
            Handle::MultiThread(h) => {
                let shard = multi_thread::current_index(h).unwrap_or(0);
                h.shared.owned.bind(task, shard)
            }
            Handle::CurrentThread(h) => h.shared.owned.bind(task, 0),
        }
    }

    /// The task was notified while it ran: a yield when it asked to give way
    /// (`coop::note_yield`), deferred; otherwise someone woke it meanwhile, and it goes to
    /// the back of the run queue (tokio's rule), where a sibling may take it.
    fn yield_now(&self, task: RunTask) {
        let arrival = if crate::coop::take_yield() {
            Arrival::Yield
        } else {
            Arrival::Requeue
        };
        match self {
            Handle::MultiThread(h) => multi_thread::Handle::schedule(h, task, arrival),
            Handle::CurrentThread(h) => current_thread::Handle::schedule(h, task, arrival),
        }
    }
}

impl crate::block_on::BlockOnPool for Handle {
    /// Whether a `block_on` thread may spin on this runtime without taking a CPU from a
    /// worker: on the multi-thread flavor, fewer workers unparked than CPUs (block_on.rs).
    fn cpu_free(&self) -> bool {
        match self {
            Handle::MultiThread(h) => h.block_on_cpu_free(),
            // The thread waits for the core, whose holder is the only one running tasks.
            Handle::CurrentThread(_) => true,
        }
    }

    fn set_polling(&self, polling: bool) {
        if let Handle::MultiThread(h) = self {
            h.hints().set_block_on_polling(polling);
        }
    }
}
