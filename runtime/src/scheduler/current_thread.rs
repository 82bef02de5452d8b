//! The current-thread scheduler: one thread, the same task type, no stealing.
//!
//! The core (a local FIFO of tasks, the parker, counters) is taken by whichever thread
//! calls `block_on`; that thread alternates between polling the `block_on` future (when
//! its waker fired) and running up to `event_interval` tasks, then lets the driver
//! dispatch. Tasks woken on that thread go to the local FIFO without synchronization;
//! from other threads they go to the inject queue and unpark the core's thread (a syscall
//! only when it sleeps). A task that yields waits in `Core::defer` until the next driver
//! turn (after the current batch, at most `event_interval` tasks later), then joins the
//! back of the inject queue while remote work waits there, else the local FIFO: it runs
//! after everything that was runnable when it yielded. A second `block_on` caller waits
//! for the core while polling its own future. Shutdown cancels every live task on the
//! thread that drops the runtime.
//!
//! A batch (`Context::run_until`): every `global_queue_interval` ticks a batch of up to
//! `REMOTE_BATCH` remote tasks comes first, otherwise the local FIFO and, when it is empty,
//! a remote batch. Every arrival but `Arrival::Yield` joins the back of the local FIFO
//! (`Core::schedule_local`). After a batch the thread takes a driver turn without sleeping
//! (`park_yield`, then the deferred list's release), unless the batch ran out of tasks with
//! nothing deferred and the future not woken: then it parks (in the driver, when the
//! runtime has one).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::task::{Context as TaskContext, Poll, Wake, Waker};

use queue::Inject;
use shim::sync::atomic::{AtomicBool, Ordering};
use shim::sync::{Arc, Mutex};
use task::{JoinHandle, OwnedTasks, SpawnMeta};

use crate::block_on::ThreadWaiter;
use crate::blocking;
use crate::context;
use crate::coop;
use crate::driver::Driver;
use crate::observe::metrics::{self, Queued, Sampler, Snapshot, Stats};
use crate::park::{Parker, Unparker};
use crate::scheduler::core_slot::{park_reachable, with_core_slot, HoldsParker};
use crate::scheduler::defer::Defer;
use crate::scheduler::inject::{self, RemoteSpawns};
use crate::scheduler::{self, Arrival, RunTask};

/// Remote tasks taken from the inject queue under one lock.
const REMOTE_BATCH: usize = 128;

pub(crate) struct Handle {
    pub(crate) shared: Shared,
    pub(crate) driver: Arc<Driver>,
    pub(crate) blocking: blocking::Spawner,
    pub(crate) unhandled_panic: crate::unhandled::Policy,
    pub(crate) hooks: crate::observe::hooks::Hooks,
    pub(crate) name: Option<String>,
    /// The thread that built it, when it is a `LocalRuntime`'s (local_runtime.rs).
    pub(crate) local_owner: std::sync::OnceLock<std::thread::ThreadId>,
}

pub(crate) struct Shared {
    pub(crate) inject: Inject<RunTask>,
    /// Tasks spawned from outside the core's thread (inject.rs).
    remote_spawns: RemoteSpawns,
    pub(crate) owned: OwnedTasks<scheduler::TaskSched>,
    /// Set by the `block_on` future's waker. A wake happens-before the poll it causes: the
    /// waker's Release store is read by the run loop's Acquire swap (the only Acquire on
    /// it; see `Context::run_until`). Only the thread holding the core reads it.
    woken: AtomicBool,
    /// Wakes whoever holds the core.
    unpark: Unparker,
    global_queue_interval: u32,
    event_interval: u32,
    pub(crate) metrics: Box<[crossbeam_utils::CachePadded<metrics::Slot>]>,
    pub(crate) telemetry: metrics::Telemetry,
}

/// The runtime-owned part: the core, when no `block_on` holds it.
pub(crate) struct CurrentThread {
    core: Mutex<Option<Box<Core>>>,
    /// `block_on` callers waiting for the core.
    waiters: Mutex<Vec<Unparker>>,
}

pub(crate) struct Core {
    tasks: VecDeque<RunTask>,
    /// Tasks that yielded; run once nothing else is runnable.
    defer: Defer<RunTask>,
    tick: u32,
    park: Option<Parker>,
    stats: Stats,
    /// Which polls are sampled (metrics/sampler.rs).
    sampler: Sampler,
    is_shutdown: bool,
}

/// The per-thread scheduler context while a thread drives the core.
pub(crate) struct Context {
    handle: Arc<Handle>,
    /// The same handle as tasks see it: lent to each task the core runs (`Notified::run`).
    sched: scheduler::TaskSched,
    core: RefCell<Option<Box<Core>>>,
}

// The builder's settings, one per argument, as the multi-thread flavor's `Config` holds them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn create(
    global_queue_interval: u32,
    event_interval: u32,
    driver: Arc<Driver>,
    blocking: blocking::Spawner,
    unhandled_panic: crate::unhandled::Policy,
    hooks: crate::observe::hooks::Hooks,
    name: Option<String>,
    telemetry: metrics::Telemetry,
) -> (Arc<Handle>, CurrentThread) {
    let park = Parker::new(driver.clone());
    let handle = Arc::new(Handle {
        shared: Shared {
            inject: Inject::new(),
            remote_spawns: RemoteSpawns::default(),
            owned: OwnedTasks::new(1),
            woken: AtomicBool::new(false),
            unpark: park.unparker(),
            global_queue_interval: global_queue_interval.max(1),
            event_interval: event_interval.max(1),
            metrics: metrics::slots(1, &telemetry),
            telemetry,
        },
        driver,
        blocking,
        unhandled_panic,
        hooks,
        name,
        local_owner: std::sync::OnceLock::new(),
    });
    let core = Box::new(Core {
        tasks: VecDeque::with_capacity(64),
        defer: Defer::with_capacity(16),
        tick: 0,
        park: Some(park),
        stats: Stats::new(),
        sampler: Sampler::new(&telemetry, 1, 1),
        is_shutdown: false,
    });
    let ct = CurrentThread {
        core: Mutex::new(Some(core)),
        waiters: Mutex::new(Vec::new()),
    };
    (handle, ct)
}

/// Runs `f` with the core when this thread runs `handle`'s core right now, else with
/// `None`. `try_borrow_mut`: a wake from code that holds the core (a task dropped at
/// shutdown whose future wakes another) must not panic; it gets `None` and takes the
/// global queue. `f(None)` runs with no borrow held.
/// `on`: the thread's scheduler context, as the caller read it (`context::with_scheduler`,
/// or with the handle in `context::with_spawn_site`).
#[inline(always)]
fn with_core_on<R>(
    on: Option<&scheduler::Context>,
    handle: &Arc<Handle>,
    f: impl FnOnce(Option<&mut Core>) -> R,
) -> R {
    match on {
        Some(scheduler::Context::CurrentThread(cx)) if Arc::ptr_eq(&cx.handle, handle) => {
            with_core_slot(&cx.core, f)
        }
        _ => f(None),
    }
}

impl Handle {
    /// Spawns from a thread running the scheduler context `on` (the caller read it).
    pub(crate) fn spawn<F>(
        me: &Arc<Handle>,
        future: F,
        meta: SpawnMeta,
        on: Option<&scheduler::Context>,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // No owned-list lock and no handle clone: the task joins the list, and takes a
        // handle, only if it ever parks (task's list.rs).
        let (join, notified) = me.shared.owned.spawn(future, meta);
        if let Some(task) = notified {
            Handle::schedule_on(me, task, Arrival::Spawn, on);
        }
        join
    }

    /// Where a task goes: on the thread that holds the core, its local queue; from
    /// anywhere else, the global queue and an unpark of the core's thread (a syscall only
    /// when it sleeps).
    #[inline(always)]
    pub(crate) fn schedule(me: &Arc<Handle>, task: RunTask, arrival: Arrival) {
        // The remote push runs after the scheduler context's closure: the wake path stays
        // as small as the local push alone.
        let remote = context::with_scheduler(|on| Handle::push_local(on, me, task, arrival));
        if let Some(task) = remote {
            Handle::push_remote(me, task, arrival);
        }
    }

    /// `schedule` from a thread running the scheduler context `on`.
    #[inline(always)]
    fn schedule_on(
        me: &Arc<Handle>,
        task: RunTask,
        arrival: Arrival,
        on: Option<&scheduler::Context>,
    ) {
        if let Some(task) = Handle::push_local(on, me, task, arrival) {
            Handle::push_remote(me, task, arrival);
        }
    }

    /// On the thread holding the core, into its local queue; else the task back.
    #[inline(always)]
    fn push_local(
        on: Option<&scheduler::Context>,
        me: &Arc<Handle>,
        task: RunTask,
        arrival: Arrival,
    ) -> Option<RunTask> {
        with_core_on(on, me, |core| match core {
            Some(core) => {
                core.schedule_local(task, arrival);
                None
            }
            None => Some(task),
        })
    }

    fn push_remote(me: &Arc<Handle>, task: RunTask, arrival: Arrival) {
        let spawned = (arrival == Arrival::Spawn).then_some(&me.shared.remote_spawns);
        if inject::push_remote(&me.shared.inject, task, spawned) {
            me.shared.unpark.unpark();
        }
    }

    pub(crate) fn metrics(&self) -> Snapshot {
        Snapshot {
            live_tasks: metrics::live_tasks(&self.shared.metrics, self.shared.remote_spawns.get()),
            remote_spawns: self.shared.remote_spawns.get(),
            global_queue_depth: self.shared.inject.len(),
            workers: self.shared.metrics.iter().map(|s| s.read()).collect(),
            // Filled in by `scheduler::Handle::metrics`.
            blocking_threads: 0,
            idle_blocking_threads: 0,
            blocking_queue_depth: 0,
        }
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.shared.inject.is_closed()
    }
}

/// Wakes the `block_on` future: flag plus unpark of the core's thread.
struct BlockOnWaker(Arc<Handle>);

impl Wake for BlockOnWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        // Release: pairs with the run loop's Acquire swap, so whatever the waking thread
        // did before the wake is seen by the poll it causes (loom:
        // `current_thread_block_on_wake_happens_before_poll`).
        self.0.shared.woken.store(true, Ordering::Release);
        self.0.shared.unpark.unpark();
    }
}

impl CurrentThread {
    /// Runs `future` to completion on this thread, driving the scheduler while it can.
    pub(crate) fn block_on<F: Future>(&self, handle: &Arc<Handle>, future: F) -> F::Output {
        let mut future = pin!(future);
        // Waiting for the core: poll our own future meanwhile (it may not need the core).
        let mut waiter: Option<ThreadWaiter> = None;
        let mut woken = true;
        loop {
            // loom-tests: take the core in its own statement. In `if let Some(core) =
            // self.core.lock().take()` the guard (a scrutinee temporary, edition 2021) lives to
            // the end of the `if let`, i.e. through the whole `block_on`, and `CoreGuard::drop`
            // re-locks `self.core` on the same thread: a self-deadlock (found by loom).
            let core = self.core.lock().take();
            if let Some(core) = core {
                return CoreGuard::new(self, handle, core).block_on(future);
            }
            let waiter = waiter.get_or_insert_with(ThreadWaiter::new);
            if woken {
                let mut cx = TaskContext::from_waker(waiter.waker());
                if let Poll::Ready(v) = coop::budget(|| future.as_mut().poll(&mut cx)) {
                    return v;
                }
            }
            self.waiters.lock().push(waiter.unparker());
            // Re-check after registering: the core may have come back in between.
            if self.core.lock().is_some() {
                continue;
            }
            waiter.park();
            woken = true;
        }
    }

    /// Shuts down: cancels every live task on this thread, drains the queues, stops the
    /// driver. If a `block_on` holds the core right now, it is stopped when it returns it.
    pub(crate) fn shutdown(&self, handle: &Arc<Handle>) {
        handle.shared.inject.close();
        let Some(core) = self.core.lock().take() else {
            return;
        };
        let cx = scheduler::Context::CurrentThread(Context {
            handle: handle.clone(),
            sched: scheduler::TaskSched::new(&scheduler::Handle::CurrentThread(handle.clone())),
            core: RefCell::new(Some(core)),
        });
        let cancelled = context::set_scheduler(&cx, || {
            let _enter = context::enter(scheduler::Handle::CurrentThread(handle.clone()));
            handle.shared.owned.close_and_shutdown_all(0)
        });
        let scheduler::Context::CurrentThread(cx) = cx else {
            unreachable!()
        };
        let mut core = cx.core.into_inner().expect("core present");
        core.is_shutdown = true;
        core.stats.counts.completed += cancelled as u64;
        // Bound tasks were cancelled through the list and only lose this reference; the
        // unbound ones (spawned, never parked) are cancelled here.
        let mut queued: Vec<RunTask> = core.tasks.drain(..).collect();
        core.defer.flush(|task| queued.push(task));
        for task in queued {
            core.stats.counts.completed += u64::from(task.shutdown());
        }
        core.stats.counts.completed += inject::cancel_all(&handle.shared.inject);
        handle.driver.shutdown();
        core.stats.submit(&handle.shared.metrics[0]);
        *self.core.lock() = Some(core);
    }
}

/// Holds the core for one `block_on`, inside the scheduler context through which that
/// thread's tasks reach it, and hands it back to the runtime when `block_on` ends by any
/// path: a return, or a panic (of the future, or a refused nested `block_on`) whose unwind
/// drops the guard. While user code runs (the future's poll, a task's) the core sits in
/// the context's slot, never in a local, so the unwind always finds it there.
struct CoreGuard<'a> {
    ct: &'a CurrentThread,
    cx: scheduler::Context,
}

impl Drop for CoreGuard<'_> {
    fn drop(&mut self) {
        let scheduler::Context::CurrentThread(cx) = &self.cx else {
            unreachable!()
        };
        // No borrow is outstanding: every borrow of the slot ends before user code runs.
        let core = cx
            .core
            .try_borrow_mut()
            .ok()
            .and_then(|mut slot| slot.take());
        if let Some(core) = core {
            *self.ct.core.lock() = Some(core);
            for waiter in self.ct.waiters.lock().drain(..) {
                waiter.unpark();
            }
        }
    }
}

impl<'a> CoreGuard<'a> {
    fn new(ct: &'a CurrentThread, handle: &Arc<Handle>, core: Box<Core>) -> CoreGuard<'a> {
        CoreGuard {
            ct,
            cx: scheduler::Context::CurrentThread(Context {
                handle: handle.clone(),
                sched: scheduler::TaskSched::new(&scheduler::Handle::CurrentThread(handle.clone())),
                core: RefCell::new(Some(core)),
            }),
        }
    }

    fn block_on<F: Future>(self, mut future: std::pin::Pin<&mut F>) -> F::Output {
        let out = context::set_scheduler(&self.cx, || {
            let scheduler::Context::CurrentThread(cx) = &self.cx else {
                unreachable!()
            };
            cx.run_until(&mut future)
        });
        match out {
            Some(v) => v,
            None => panic!("{}", crate::misuse::BLOCK_ON_AFTER_SHUTDOWN),
        }
    }
}

impl Context {
    fn take_core(&self) -> Box<Core> {
        self.core.borrow_mut().take().expect("core present")
    }

    fn put_core(&self, core: Box<Core>) {
        *self.core.borrow_mut() = Some(core);
    }

    fn run_until<F: Future>(&self, future: &mut std::pin::Pin<&mut F>) -> Option<F::Output> {
        let handle = &self.handle;
        let waker = Waker::from(std::sync::Arc::new(BlockOnWaker(handle.clone())));
        let mut cx = TaskContext::from_waker(&waker);
        // The future is polled first, before any task. Relaxed: only this thread (the core's
        // holder) reads `woken`, so this store reaches the swap below by program order and
        // publishes nothing to anyone.
        handle.shared.woken.store(true, Ordering::Relaxed);
        loop {
            // Acquire: pairs with the waker's Release store (a wake happens-before the poll
            // it causes). No Release: the false written here is read only by this thread's
            // own load below; the wakers only store.
            if handle.shared.woken.swap(false, Ordering::Acquire) {
                if let Poll::Ready(v) = coop::budget(|| future.as_mut().poll(&mut cx)) {
                    // Publish the counters as the core leaves this `block_on` (it may sit
                    // unused until the next one).
                    let core = self.take_core();
                    core.stats.submit(&handle.shared.metrics[0]);
                    self.put_core(core);
                    return Some(v);
                }
            }
            let mut core = self.take_core();
            let mut ran_out = false;
            let mut left = handle.shared.event_interval;
            'batch: while left > 0 {
                // The polls before the sampler's next due one run with no check of their
                // own (metrics/sampler.rs): the check is once per stretch, here.
                let plain = core.sampler.polls_before_due(core.stats.counts.polls, left);
                for _ in 0..plain {
                    let task = match core.next_tick(handle) {
                        Tick::Task(task) => task,
                        Tick::Empty => {
                            ran_out = true;
                            break 'batch;
                        }
                        Tick::Shutdown => {
                            self.put_core(core);
                            return None;
                        }
                    };
                    self.put_core(core);
                    let completed = coop::budget(|| task.run(&self.sched));
                    core = self.take_core();
                    core.stats.counts.completed += u64::from(completed);
                }
                left -= plain;
                if left == 0 {
                    break;
                }
                left -= 1;
                match core.next_tick(handle) {
                    Tick::Task(task) => core = self.run_sampled(core, task),
                    Tick::Empty => {
                        ran_out = true;
                        break;
                    }
                    Tick::Shutdown => {
                        self.put_core(core);
                        return None;
                    }
                }
            }
            // Relaxed: only decides whether to park. A true read here is read again by the
            // swap at the top of the loop (only this thread writes false), whose Acquire
            // orders the wake before the poll; a false one parks, and the wake's unpark
            // ends the park.
            if ran_out && core.defer.is_empty() && !handle.shared.woken.load(Ordering::Relaxed) {
                // Nothing is queued: a pending mark is of a task that will not run here.
                core.sampler.clear();
                core = self.park(core);
            } else {
                // The driver's turn after every batch, before the yielders resume, and
                // before a `block_on` future that woke itself is polled again: a future
                // spinning on `yield_now` still sees its socket or timer fire. The yielders
                // come back after at most one batch however busy the queue is.
                core = self.park_yield(core);
                core.flush_defer(&handle.shared.inject);
            }
            self.put_core(core);
        }
    }

    /// Runs a task whose poll reached the sampler's due count (metrics/sampler.rs): a
    /// marked task's turn, or a sample, which is timed and marks the task it queued last.
    #[cold]
    #[inline(never)]
    fn run_sampled(&self, mut core: Box<Core>, task: RunTask) -> Box<Core> {
        let slot = &self.handle.shared.metrics[0];
        let polls = core.stats.counts.polls;
        let start = core
            .sampler
            .begin(polls, metrics::address_of(&task), false, slot);
        let queued_before = core.tasks.len();
        self.put_core(core);
        let completed = coop::budget(|| task.run(&self.sched));
        let mut core = self.take_core();
        if let Some(start) = start {
            let Core { sampler, tasks, .. } = &mut *core;
            sampler.end_sample(polls, start, slot, || {
                // Only the scheduler loop pops `tasks`: growth is this poll's pushes.
                let last = tasks.back().filter(|_| tasks.len() > queued_before)?;
                Some(Queued::Fifo {
                    addr: metrics::address_of(last),
                    ahead: tasks.len() as u64 - 1,
                })
            });
        }
        core.stats.counts.completed += u64::from(completed);
        core
    }

    fn park(&self, mut core: Box<Core>) -> Box<Core> {
        core.stats.check_noop();
        core.stats.about_to_park();
        core.stats.submit(&self.handle.shared.metrics[0]);
        // The user's hooks run with the core out of its slot: a task they wake takes the
        // remote path, whose unpark ends the park below (it would otherwise sit in the
        // queue of a thread about to sleep).
        self.handle.hooks.before_park();
        // A hook that made work (woke the `block_on` future, or a task: that one lands in
        // the inject queue) means no sleep, but still a turn of the driver: a runtime driven
        // by short `block_on` calls whose hook wakes each one must see its timers and I/O
        // fire (tokio#8212). Asked only after a hook ran: without one, work pushed now by
        // another thread ends the park through its unpark (a non-sleeping turn here would
        // spin while that push completes). Relaxed: as the load in `run_until`; the swap
        // there orders.
        let shared = &self.handle.shared;
        let work = self.handle.hooks.has_before_park()
            && (shared.woken.load(Ordering::Relaxed) || !shared.inject.is_empty());
        let park = if work {
            Parker::park_timeout_zero
        } else {
            Parker::park
        };
        let mut core = park_reachable(&self.core, core, park);
        self.handle.hooks.after_unpark();
        core.stats.unparked();
        core.stats.mark_unpark_polls();
        core
    }

    /// Between batches of tasks: let the driver dispatch without sleeping.
    fn park_yield(&self, core: Box<Core>) -> Box<Core> {
        core.stats.submit(&self.handle.shared.metrics[0]);
        park_reachable(&self.core, core, Parker::park_timeout_zero)
    }
}

impl HoldsParker for Core {
    fn parker(&mut self) -> &mut Option<Parker> {
        &mut self.park
    }
}

/// What a tick of the batch found.
enum Tick {
    Task(RunTask),
    /// No task queued, here or on the global queue.
    Empty,
    /// The runtime is shutting down.
    Shutdown,
}

impl Core {
    /// Queues a task woken or spawned on the core's thread: a yield waits in `defer`
    /// for the next driver turn, anything else joins the back of the queue.
    #[inline]
    fn schedule_local(&mut self, task: RunTask, arrival: Arrival) {
        self.stats.counts.local_schedules += 1;
        match arrival {
            Arrival::Yield => self.defer.push(task),
            Arrival::Spawn => {
                self.stats.counts.spawned += 1;
                self.tasks.push_back(task);
            }
            Arrival::Wake | Arrival::Requeue => self.tasks.push_back(task),
        }
    }

    /// One tick of a batch: the next task to poll, counted as a poll.
    #[inline(always)]
    fn next_tick(&mut self, handle: &Handle) -> Tick {
        if self.is_shutdown || handle.is_closed() {
            return Tick::Shutdown;
        }
        self.tick = self.tick.wrapping_add(1);
        let Some(task) = self.next_task(handle) else {
            return Tick::Empty;
        };
        self.stats.counts.polls += 1;
        Tick::Task(task)
    }

    fn next_task(&mut self, handle: &Handle) -> Option<RunTask> {
        if self
            .tick
            .is_multiple_of(handle.shared.global_queue_interval)
        {
            // Fairness: a batch of remote tasks first, behind which the local ones continue.
            self.next_remote_batch(handle)
                .or_else(|| self.tasks.pop_front())
        } else {
            // Local FIFO empty: take a batch of remote tasks under one lock.
            self.tasks
                .pop_front()
                .or_else(|| self.next_remote_batch(handle))
        }
    }

    /// Takes up to `REMOTE_BATCH` tasks off the global queue: runs the first, queues the
    /// rest.
    /// Releases the yielders, in yield order, behind everything runnable when they
    /// yielded: to the back of the inject queue while it holds remote work (the local
    /// FIFO takes it a batch at a time, so a yielder queued locally would overtake the
    /// rest), otherwise to the back of the local FIFO.
    fn flush_defer(&mut self, inject: &Inject<RunTask>) {
        if !inject.is_empty() {
            // Refused once closed: shutdown cancels what the local FIFO holds.
            if let Err(refused) = inject.push_batch(self.defer.drain()) {
                self.tasks.extend(refused);
            }
            return;
        }
        let Core { tasks, defer, .. } = self;
        defer.flush(|task| tasks.push_back(task));
    }

    fn next_remote_batch(&mut self, handle: &Handle) -> Option<RunTask> {
        inject::take_batch(&handle.shared.inject, REMOTE_BATCH, |task| {
            self.tasks.push_back(task)
        })
    }
}
