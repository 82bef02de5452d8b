//! The blocking pool behind `spawn_blocking`.
//!
//! A blocking closure becomes an ordinary task (a future that runs the closure in its
//! first poll) bound to the pool's own `OwnedTasks`, so it has the same `JoinHandle`,
//! panic capture and cancellation as any task. Its scheduler pushes it onto the pool's
//! FIFO; an idle pool thread takes it, or a new thread is started while fewer than
//! `max_threads` exist (so the queue grows only once the bound is reached). Idle threads
//! exit after `keep_alive`.
//!
//! Shutdown is defined, not raced: every closure spawned before shutdown began runs to
//! completion, whether a pool thread had already picked it up or it was still queued;
//! shutdown closes the pool's owned list first, so a closure spawned after that is
//! cancelled without running. Pool threads drain the queue before they exit; shutdown waits
//! for them (at most the timeout, if given: then the rest runs on in the background), and
//! never for the thread calling it when that is one of the pool's own (a runtime dropped
//! from its own `spawn_blocking`). Once they all left their loop it joins them (their
//! handles are kept by spawn number; a thread that leaves idle joins the one that left
//! before it), so after `drop(runtime)` no pool thread, its thread-locals or its stop hook
//! is still alive.
//!
//! For the shutdown report (`shutdown_report.rs`) and task dumps each pool thread owns a
//! `RunSlot`, made when the thread starts and listed in `Inner::slots` until it exits: its
//! kernel thread id, the task it runs now (its header address) and when that closure
//! began (0 while idle). Running a closure costs three plain stores and a clock read, no
//! allocation. A shutdown report reads the slots and names each running closure from the
//! pool's owned list by the task its slot shows (start read before and after the task, so
//! a slot that moved on meanwhile is not misnamed): no answer from the busy thread is
//! needed, so every running closure is named. A dump walks the pool's owned list (every closure spawned and not
//! finished: queued, or running) and gives a running one the elapsed time of the slot
//! that names it, read start, task, start again, so a slot that moved on meanwhile is
//! skipped.

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use shim::sync::{Arc, Condvar, Mutex};
use task::{JoinHandle, Notified, OwnedTasks, Schedule, SpawnMeta, Task};

/// A queued closure as the deterministic mode runs it: its task's header address, its
/// description (name, spawn location) and the job.
#[cfg(all(feature = "deterministic", not(loom)))]
pub(crate) type SimJob = (usize, String, Box<dyn FnOnce() + Send + 'static>);

/// Pool settings from the `Builder`.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) max_threads: usize,
    // Under loom idle pool threads wait without a timeout (the model has no clock).
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) keep_alive: Duration,
    pub(crate) thread_name: std::sync::Arc<dyn Fn() -> String + Send + Sync>,
    pub(crate) stack_size: Option<usize>,
    /// `on_thread_start` / `on_thread_stop` run on each pool thread.
    pub(crate) hooks: crate::observe::hooks::Hooks,
    /// The runtime's timer driver: a blocking task holds off paused time's auto-advance
    /// while it runs (see `time::clock`).
    #[cfg(not(loom))]
    pub(crate) clock: Option<std::sync::Arc<io_driver::Handle>>,
    /// The deterministic mode: no pool thread is started; closures wait in the queue for
    /// the stepper's blocking participant (`Spawner::sim_next`, sim/blocking.rs).
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) sim: bool,
}

/// Cheap handle to the pool.
#[derive(Clone)]
pub(crate) struct Spawner {
    inner: Arc<Inner>,
}

struct Inner {
    state: Mutex<State>,
    condvar: Condvar,
    /// Signalled when the last thread exits after shutdown.
    exited: Condvar,
    owned: OwnedTasks<BlockingSchedule>,
    config: Config,
    /// Set once the runtime exists, so pool threads can enter its context.
    runtime: Mutex<Option<crate::scheduler::Handle>>,
    /// Each live pool thread's slot (module docs).
    #[cfg(not(loom))]
    slots: std::sync::Mutex<Vec<std::sync::Arc<RunSlot>>>,
    /// Origin of the slots' start times.
    #[cfg(not(loom))]
    base: std::time::Instant,
}

/// What one pool thread runs now (module docs).
#[cfg(not(loom))]
#[derive(Default)]
struct RunSlot {
    tid: std::sync::atomic::AtomicI32,
    /// The running closure's task (its header address), stored before `since_ns`.
    task: std::sync::atomic::AtomicUsize,
    /// Nanoseconds after `Inner::base` (at least 1) when the running closure began; 0 idle.
    since_ns: std::sync::atomic::AtomicU64,
}

struct State {
    queue: VecDeque<Notified<BlockingSchedule>>,
    num_threads: usize,
    num_idle: usize,
    num_notify: usize,
    shutdown: bool,
    /// The live threads' join handles, by spawn number: a shutdown joins them, so no
    /// pool thread (its thread-locals, its stop hook) outlives `drop(runtime)`.
    threads: BTreeMap<usize, shim::thread::JoinHandle<()>>,
    next_thread: usize,
    /// A thread that left idle before its handle was stored (it is then detached).
    left_early: Vec<usize>,
    /// The last thread that left idle: its successor joins it, the shutdown joins the
    /// last one, so the handles of idle exits never pile up.
    last_left: Option<shim::thread::JoinHandle<()>>,
}

#[derive(Clone)]
struct BlockingSchedule(Arc<Inner>);

impl Schedule for BlockingSchedule {
    fn schedule(&self, task: Notified<Self>) {
        Inner::push(&self.0, task);
    }

    fn release(&self, task: &Task<Self>) -> Option<Task<Self>> {
        self.0.owned.remove(task)
    }

    fn bind(&self, task: Task<Self>) -> Result<(), Task<Self>> {
        // Not reached: blocking tasks are bound at spawn (`spawn_bound`), since a queued
        // one must be cancellable through the list at shutdown.
        self.0.owned.bind(task, 0)
    }
}

/// A closure as a future that completes in its first poll.
struct BlockingTask<F>(Option<F>);

impl<F> Unpin for BlockingTask<F> {}

impl<F: FnOnce() -> R, R> Future for BlockingTask<F> {
    type Output = R;

    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<R> {
        let f = self
            .0
            .take()
            .expect("blocking task polled after completion");
        Poll::Ready(f())
    }
}

impl Spawner {
    /// Pool threads alive, those of them idle, and tasks queued (for `RuntimeMetrics`).
    pub(crate) fn counts(&self) -> (usize, usize, usize) {
        let state = self.inner.state.lock();
        (state.num_threads, state.num_idle, state.queue.len())
    }

    pub(crate) fn new(config: Config) -> Spawner {
        Spawner {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    num_threads: 0,
                    num_idle: 0,
                    num_notify: 0,
                    shutdown: false,
                    threads: BTreeMap::new(),
                    next_thread: 0,
                    left_early: Vec::new(),
                    last_left: None,
                }),
                condvar: Condvar::new(),
                exited: Condvar::new(),
                owned: OwnedTasks::new(1),
                config,
                runtime: Mutex::new(None),
                #[cfg(not(loom))]
                slots: std::sync::Mutex::new(Vec::new()),
                #[cfg(not(loom))]
                base: std::time::Instant::now(),
            }),
        }
    }

    pub(crate) fn set_runtime(&self, handle: crate::scheduler::Handle) {
        *self.inner.runtime.lock() = Some(handle);
    }

    /// Runs `f` on a pool thread.
    pub(crate) fn spawn_blocking<F, R>(&self, f: F, meta: SpawnMeta) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_inner(f, meta).0
    }

    /// As [`spawn_blocking`](Self::spawn_blocking), but `None` when the pool is shut down
    /// (tokio's `spawn_mandatory_blocking`): the closure is dropped unrun and the caller
    /// learns it at once, instead of from a cancelled `JoinHandle`.
    pub(crate) fn spawn_mandatory_blocking<F, R>(
        &self,
        f: F,
        meta: SpawnMeta,
    ) -> Option<JoinHandle<R>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        match self.spawn_inner(f, meta) {
            (join, true) => Some(join),
            (_, false) => None,
        }
    }

    /// The task's `JoinHandle`, and whether the pool took it (false: shut down, the task
    /// is cancelled).
    fn spawn_inner<F, R>(&self, f: F, meta: SpawnMeta) -> (JoinHandle<R>, bool)
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        #[cfg(not(loom))]
        let f = {
            let guard = crate::time::AutoAdvanceGuard::new(self.inner.config.clock.as_ref());
            // The guard outlives the run (`AutoAdvanceGuard::defer`): time may advance only
            // once the task's completion is published. Never run (cancelled), it is dropped
            // with the closure.
            struct Defer(Option<crate::time::AutoAdvanceGuard>);
            impl Drop for Defer {
                fn drop(&mut self) {
                    if let Some(guard) = self.0.take() {
                        guard.defer();
                    }
                }
            }
            move || {
                let _defer = Defer(Some(guard));
                f()
            }
        };
        let sched = BlockingSchedule(self.inner.clone());
        let (join, notified) = self
            .inner
            .owned
            .spawn_bound(BlockingTask(Some(f)), sched, 0, meta);
        let taken = notified.is_some();
        if let Some(task) = notified {
            Inner::push(&self.inner, task);
        }
        (join, taken)
    }

    /// Stops the pool: refuses new tasks, lets the pool threads run every queued one, and
    /// waits for them at most `timeout` (None: as long as they take). The calling thread is
    /// not waited for when it is one of the pool's. True when every thread waited for
    /// exited.
    pub(crate) fn shutdown(&self, timeout: Option<Duration>) -> bool {
        // First: a task spawned from here on is cancelled at once (spawn_bound on a closed
        // list), so every task that made it into the list is queued and will run.
        self.inner.owned.close();
        let mut state = self.inner.state.lock();
        if !state.shutdown {
            state.shutdown = true;
            self.inner.condvar.notify_all();
        }
        let own = usize::from(crate::context::is_blocking_pool(self.pool_id()));
        // A timeout past what `Instant` can represent (`Duration::MAX`) waits forever.
        #[cfg(not(loom))]
        let timeout = timeout.filter(|&t| std::time::Instant::now().checked_add(t).is_some());
        match timeout {
            None => {
                while state.num_threads > own {
                    self.inner.exited.wait(&mut state);
                }
            }
            #[cfg(not(loom))]
            Some(timeout) => {
                let deadline = std::time::Instant::now() + timeout;
                while state.num_threads > own {
                    let now = std::time::Instant::now();
                    if now >= deadline {
                        break;
                    }
                    self.inner.exited.wait_for(&mut state, deadline - now);
                }
            }
            #[cfg(loom)]
            Some(_) => {
                while state.num_threads > own {
                    self.inner.exited.wait(&mut state);
                }
            }
        }
        let done = state.num_threads <= own;
        // Every thread waited for has left its loop; joining them waits out their last
        // steps (thread-locals, the stop hook). Not after a timeout: those still running
        // stay detached.
        let handles: Vec<_> = if done {
            let mut handles: Vec<_> = std::mem::take(&mut state.threads).into_values().collect();
            handles.extend(state.last_left.take());
            handles
        } else {
            Vec::new()
        };
        drop(state);
        #[cfg(not(loom))]
        for handle in handles {
            // The caller's own thread (a shutdown from a pool thread) cannot be joined.
            if handle.thread().id() != std::thread::current().id() {
                let _ = handle.join();
            }
        }
        #[cfg(loom)]
        drop(handles);
        // Release the runtime handle: the handle may own this pool, so keeping it would
        // form a cycle. (Threads still running hold their own clone until they exit.)
        let runtime = self.inner.runtime.lock().take();
        drop(runtime);
        done
    }

    /// The deterministic mode's blocking participant: whether a closure is queued.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn sim_has_queued(&self) -> bool {
        !self.inner.state.lock().queue.is_empty()
    }

    /// The deterministic mode: takes the first queued closure as a job that runs it as a
    /// pool thread would (in the runtime's context, marked as this pool's thread), with
    /// its task's header address and spawn location.
    #[cfg(all(feature = "deterministic", not(loom)))]
    pub(crate) fn sim_next(&self) -> Option<SimJob> {
        let task = self.inner.state.lock().queue.pop_front()?;
        let addr = task.addr();
        let meta = task.meta();
        let what = match (meta.name(), meta.spawned_at()) {
            (Some(name), Some(at)) => format!("`{name}` spawned at {at}"),
            (None, Some(at)) => format!("spawned at {at}"),
            (Some(name), None) => format!("`{name}`"),
            (None, None) => "(no spawn location)".to_string(),
        };
        let me = self.inner.clone();
        let job = move || {
            let sched = BlockingSchedule(me.clone());
            crate::context::set_blocking_pool(Arc::as_ptr(&me).cast());
            let runtime = me.runtime.lock().clone();
            let _enter = runtime.map(crate::context::enter);
            task.run(&sched);
            crate::time::AutoAdvanceGuard::after_run();
        };
        Some((addr, what, Box::new(job)))
    }

    /// A snapshot of the pool threads' run slots (taken under the list's lock, read
    /// without it).
    #[cfg(not(loom))]
    fn slots(&self) -> Vec<std::sync::Arc<RunSlot>> {
        self.inner
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The closures running now, each with its task, and the number still queued.
    ///
    /// A running closure's slot names its task (header address); the pool's owned list
    /// (every closure spawned and not finished) holds that task's identity, so none of it
    /// needs the closure's thread: every running closure is named, however many there are.
    /// A slot whose start changed while it was read (its closure ended, another began) is
    /// re-read once, then reported without a name.
    #[cfg(not(loom))]
    pub(crate) fn report(&self) -> (Vec<crate::observe::shutdown_report::RunningClosure>, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        let queued = self.inner.state.lock().queue.len();
        let slots = self.slots();
        let mut metas = std::collections::HashMap::new();
        self.inner.owned.for_each_task(|view| {
            metas.insert(view.header().as_ptr() as usize, view.meta());
        });
        let now_ns = self.inner.base.elapsed().as_nanos() as u64;
        let running = slots
            .iter()
            .filter_map(|slot| {
                // Relaxed: labels for a report; `since` read before and after `task`
                // says whether the two belong together.
                let read = || {
                    let since = slot.since_ns.load(Relaxed);
                    let task = slot.task.load(Relaxed);
                    (since, task, slot.since_ns.load(Relaxed) == since)
                };
                let (since, task, steady) = match read() {
                    (_, _, false) => read(),
                    first => first,
                };
                (since != 0).then(|| {
                    let meta = if steady {
                        metas.get(&task).cloned()
                    } else {
                        None
                    };
                    let missing = match (&meta, steady) {
                        (Some(_), _) => None,
                        (None, true) => Some("its task had left the pool's list"),
                        (None, false) => Some("its thread moved on to another closure"),
                    };
                    crate::observe::shutdown_report::RunningClosure {
                        task: meta,
                        running_for: Duration::from_nanos(now_ns.saturating_sub(since)),
                        missing,
                    }
                })
            })
            .collect();
        (running, queued)
    }

    /// Every closure spawned and not finished, for a task dump: queued, or running (with
    /// how long, when its slot shows it; module docs).
    #[cfg(not(loom))]
    pub(crate) fn dump(&self) -> Vec<crate::observe::dump::BlockingDump> {
        use std::sync::atomic::Ordering::Relaxed;
        let slots = self.slots();
        let now_ns = self.inner.base.elapsed().as_nanos() as u64;
        let started: std::collections::HashMap<usize, u64> = slots
            .iter()
            .filter_map(|slot| {
                // Relaxed: labels for a report; a slot that changed between the two reads
                // of its start is skipped.
                let since = slot.since_ns.load(Relaxed);
                let task = slot.task.load(Relaxed);
                (since != 0 && slot.since_ns.load(Relaxed) == since).then_some((task, since))
            })
            .collect();
        let mut out = Vec::new();
        self.inner.owned.for_each_task(|view| {
            let running = view.state() == task::TaskState::Running;
            let since = started.get(&(view.header().as_ptr() as usize));
            out.push(crate::observe::dump::BlockingDump {
                meta: view.meta(),
                running,
                running_for: since
                    .filter(|_| running)
                    .map(|&s| Duration::from_nanos(now_ns.saturating_sub(s))),
            });
        });
        out.sort_by_key(|b| b.meta.id());
        out
    }

    /// This pool's identity, as the threads' context records it.
    pub(crate) fn pool_id(&self) -> *const () {
        Arc::as_ptr(&self.inner).cast()
    }
}

/// A pool thread's listing in `Inner::slots`, removed when the thread leaves.
#[cfg(not(loom))]
struct SlotGuard {
    slot: std::sync::Arc<RunSlot>,
    inner: Arc<Inner>,
}

#[cfg(not(loom))]
impl SlotGuard {
    fn register(me: &Arc<Inner>) -> SlotGuard {
        let slot = std::sync::Arc::new(RunSlot::default());
        slot.tid.store(
            crate::observe::stack_capture::current_tid(),
            std::sync::atomic::Ordering::Relaxed,
        );
        me.slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(slot.clone());
        SlotGuard {
            slot,
            inner: me.clone(),
        }
    }

    /// The closure of task `task` (its header address) starts: its start, at least 1 (0
    /// means idle).
    #[inline]
    fn begin(&self, me: &Inner, task: usize) {
        let ns = (me.base.elapsed().as_nanos() as u64).max(1);
        self.slot
            .task
            .store(task, std::sync::atomic::Ordering::Relaxed);
        self.slot
            .since_ns
            .store(ns, std::sync::atomic::Ordering::Relaxed);
    }

    #[inline]
    fn end(&self) {
        self.slot
            .since_ns
            .store(0, std::sync::atomic::Ordering::Relaxed);
    }
}

#[cfg(not(loom))]
impl Drop for SlotGuard {
    fn drop(&mut self) {
        let mut slots = self.inner.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.retain(|s| !std::sync::Arc::ptr_eq(s, &self.slot));
    }
}

impl Inner {
    fn push(me: &Arc<Inner>, task: Notified<BlockingSchedule>) {
        // Also after shutdown began: the task was spawned before (it is in the closed list),
        // so it runs; a thread is woken or started for it as usual, and drains the queue
        // before it exits.
        let mut state = me.state.lock();
        state.queue.push_back(task);
        #[cfg(all(feature = "deterministic", not(loom)))]
        if me.config.sim {
            return;
        }
        if state.num_idle > 0 {
            state.num_idle -= 1;
            state.num_notify += 1;
            me.condvar.notify_one();
        } else if state.num_threads < me.config.max_threads {
            state.num_threads += 1;
            let number = state.next_thread;
            state.next_thread += 1;
            drop(state);
            match Inner::spawn_thread(me, number) {
                Ok(handle) => {
                    let mut state = me.state.lock();
                    if let Some(at) = state.left_early.iter().position(|&n| n == number) {
                        state.left_early.swap_remove(at);
                    } else {
                        state.threads.insert(number, handle);
                    }
                }
                Err(e) => {
                    // The task stays queued for an existing thread; if there is none it
                    // would never run, so report the failure loudly rather than hang.
                    let mut state = me.state.lock();
                    state.num_threads -= 1;
                    if state.num_threads == 0 {
                        panic!("failed to spawn a blocking-pool thread: {e}");
                    }
                }
            }
        }
    }

    fn spawn_thread(
        me: &Arc<Inner>,
        number: usize,
    ) -> std::io::Result<shim::thread::JoinHandle<()>> {
        let name = (me.config.thread_name)();
        let stack_size = me.config.stack_size;
        let me = me.clone();
        shim::thread::spawn_named(name, stack_size, move || {
            let _thread = me.config.hooks.enter_thread();
            Inner::run(me.clone(), number)
        })
    }

    fn run(me: Arc<Inner>, number: usize) {
        // Lent to each task run here (they hold their own clone too: bound at spawn).
        let sched = BlockingSchedule(me.clone());
        crate::context::set_blocking_pool(Arc::as_ptr(&me).cast());
        let runtime = me.runtime.lock().clone();
        let _enter = runtime.map(crate::context::enter);
        #[cfg(not(loom))]
        let slot = SlotGuard::register(&me);
        let mut state = me.state.lock();
        'outer: loop {
            while let Some(task) = state.queue.pop_front() {
                drop(state);
                #[cfg(not(loom))]
                slot.begin(&me, task.addr());
                task.run(&sched);
                #[cfg(not(loom))]
                slot.end();
                #[cfg(not(loom))]
                crate::time::AutoAdvanceGuard::after_run();
                state = me.state.lock();
            }
            if state.shutdown {
                break;
            }
            state.num_idle += 1;
            loop {
                #[cfg(not(loom))]
                let timed_out = me.condvar.wait_for(&mut state, me.config.keep_alive);
                #[cfg(loom)]
                let timed_out = {
                    me.condvar.wait(&mut state);
                    false
                };
                if state.num_notify > 0 {
                    state.num_notify -= 1;
                    continue 'outer;
                }
                if state.shutdown {
                    state.num_idle -= 1;
                    break 'outer;
                }
                if timed_out {
                    // Idle too long: leave, unless work raced in.
                    state.num_idle -= 1;
                    if state.queue.is_empty() {
                        break 'outer;
                    }
                    continue 'outer;
                }
            }
        }
        state.num_threads -= 1;
        let mut previous = None;
        if state.shutdown {
            // The shutdown may wait for all threads, or for all but its own; it joins
            // this one.
            me.exited.notify_all();
        } else {
            // Left idle: this thread's handle becomes the last one left, and the one it
            // replaces (a thread that has left its loop) is joined here.
            match state.threads.remove(&number) {
                Some(handle) => previous = state.last_left.replace(handle),
                None => state.left_early.push(number),
            }
        }
        drop(state);
        if let Some(previous) = previous {
            let _ = previous.join();
        }
    }
}
