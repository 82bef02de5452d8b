//! One worker thread of the multi-thread scheduler.
//!
//! The worker owns a `Core` (its ring, LIFO slot, parker, counters). Each tick it runs the
//! next task: once `global_queue_interval` polls have passed since it last looked, a batch
//! of the global queue first (fairness; the interval is tuned so that this happens about
//! every `GLOBAL_QUEUE_LATENCY` of work), otherwise the LIFO slot, then the ring, then a
//! batch from the global queue. After a task it keeps running whatever that task put in the
//! LIFO slot, at most `MAX_LIFO_POLLS` in a row while its ring or deferred list holds
//! tasks (so two tasks ping-ponging cannot starve them; with nothing waiting there, up to
//! `MAX_LIFO_POLLS_ALONE`, so a chain of spawns is not handed to a searcher every fourth
//! link), and no further once the global queue has waited `GLOBAL_QUEUE_LATENCY` since
//! this worker last took from it: then the global batch goes ahead of the displaced task
//! (so a chain of long polls, each spawning the next, cannot keep remote spawns waiting;
//! the clock is read only while the global queue has work). Empty-handed it tries to become
//! a searcher and steal half a random sibling's ring, then a global batch; finding nothing
//! it parks (idle.rs decides who wakes whom). Every `event_interval` ticks it lets the
//! driver dispatch without sleeping, publishes its metrics and checks for shutdown.
//!
//! A task that wakes itself while running (`yield_now`, a spent coop budget) is *deferred*:
//! it waits in `Core::defer` until the ring and the global queue come up empty, so every other runnable task (remote spawns included) runs before it resumes.
//!
//! While a task runs, the core sits in `Context::core` so that a wake on this thread can
//! push to the local queue without synchronization (`try_schedule_local`).

use std::cell::RefCell;
use std::time::{Duration, Instant};

use queue::Local;
use shim::sync::Arc;
use task::JoinHandle;

use super::spin::{SpinPolicy, SPIN_PAUSES};
use super::stall::WorkerShared;
use super::{Config, Handle};
use crate::context;
use crate::coop;
use crate::metrics::Stats;
use crate::park::Parker;
use crate::scheduler::{self, RunTask};
use crate::util::FastRand;
use crossbeam_utils::CachePadded;

/// Polls of LIFO-slot tasks in a row before the ring gets a turn (when it holds tasks).
const MAX_LIFO_POLLS: u32 = 3;

/// The same when the ring and the deferred list are empty: nobody here waits, so only the
/// driver's turn (the tick must end now and then) bounds the streak.
const MAX_LIFO_POLLS_ALONE: u32 = 16;

/// How often a busy worker should look at the global queue, in time of work. Short: a
/// visit to an empty queue is one relaxed load, and tasks short enough to make many visits
/// per 10 µs hit `MAX_GQI` first; long polls (a 10 µs stall) get a visit after each.
const GLOBAL_QUEUE_LATENCY: Duration = Duration::from_micros(10);

/// Bounds of the tuned global queue interval, in polls.
const MIN_GQI: u32 = 2;
const MAX_GQI: u32 = 127;

/// The interval before anything was measured.
const DEFAULT_GQI: u32 = 61;

pub(crate) struct Core {
    index: usize,
    tick: u32,
    /// Whether a schedule from this worker goes to its LIFO slot (which lives in
    /// `Shared::workers`, where a sibling can take it while this worker is stuck).
    lifo_enabled: bool,
    /// Tasks that yielded; run once nothing else is runnable.
    defer: Vec<RunTask>,
    run_queue: Local<RunTask>,
    is_searching: bool,
    is_shutdown: bool,
    /// Whose turn it is on the next fairness visit: remote spawns, or overflowed tasks.
    spawns_turn: bool,
    park: Option<Parker>,
    rand: FastRand,
    global_queue_interval: u32,
    /// Polls (LIFO polls included) since the global queue was last looked at.
    since_global: u32,
    /// When this worker last took a batch from the global queue (None: never, or under
    /// loom, where the clock is not modelled).
    last_global: Option<Instant>,
    /// Tune `global_queue_interval` from measurements (not fixed by the user).
    tune_gqi: bool,
    /// Start and poll count of the current measurement window (None while parked).
    tune_window: Option<(Instant, u64)>,
    event_interval: u32,
    disable_lifo: bool,
    /// Pre-park spin rounds (`spin_rounds`).
    spin_rounds: u32,
    /// Recent idle episodes: whether a spin pays (spin.rs).
    spin: SpinPolicy,
    /// This worker's LIFO slot and poll stamp (`Shared::workers[index]`).
    me: std::sync::Arc<CachePadded<WorkerShared>>,
    stats: Stats,
}

/// The per-thread scheduler context of a worker.
pub(crate) struct Context {
    handle: Arc<Handle>,
    /// The same handle as tasks see it: lent to each task this worker runs
    /// (`Notified::run`).
    sched: scheduler::Handle,
    index: usize,
    core: RefCell<Option<Box<Core>>>,
}

impl Core {
    pub(super) fn new(
        index: usize,
        run_queue: Local<RunTask>,
        park: Parker,
        config: &Config,
        spin_rounds: u32,
        me: std::sync::Arc<CachePadded<WorkerShared>>,
    ) -> Box<Core> {
        Box::new(Core {
            index,
            tick: 0,
            defer: Vec::with_capacity(64),
            lifo_enabled: !config.disable_lifo_slot,
            run_queue,
            is_searching: false,
            is_shutdown: false,
            spawns_turn: false,
            park: Some(park),
            rand: FastRand::new(index as u64 + 1),
            global_queue_interval: config.global_queue_interval.unwrap_or(DEFAULT_GQI).max(1),
            since_global: 0,
            last_global: None,
            // Not under loom: a clock read would make the models non-deterministic.
            tune_gqi: config.global_queue_interval.is_none() && !cfg!(loom),
            tune_window: None,
            event_interval: config.event_interval.max(1),
            disable_lifo: config.disable_lifo_slot,
            spin_rounds,
            spin: SpinPolicy::default(),
            me,
            stats: Stats::new(),
        })
    }
}

/// The worker thread's body.
pub(super) fn run(handle: Arc<Handle>, core: Box<Core>) {
    let _rt = context::enter_runtime();
    let _enter = context::enter(scheduler::Handle::MultiThread(handle.clone()));
    let index = core.index;
    let cx = scheduler::Context::MultiThread(Context {
        sched: scheduler::Handle::MultiThread(handle.clone()),
        handle,
        index,
        core: RefCell::new(None),
    });
    context::set_scheduler(&cx, || {
        let scheduler::Context::MultiThread(cx) = &cx else {
            unreachable!()
        };
        cx.run(core);
    });
}

/// The index of the current thread's worker, when it is a worker of `handle`.
pub(crate) fn current_index(handle: &Arc<Handle>) -> Option<usize> {
    context::with_scheduler(|cx| match cx {
        Some(scheduler::Context::MultiThread(cx)) if Arc::ptr_eq(&cx.handle, handle) => {
            Some(cx.index)
        }
        _ => None,
    })
}

/// Runs `f` with this thread's core when the thread is one of `handle`'s workers holding
/// it, else with `None`. `try_borrow_mut`: a wake from inside queue code (a task dropped on
/// a closed queue whose future wakes another) must not panic; it gets `None` and takes the
/// remote path. `f(None)` runs with no borrow held.
fn with_core<R>(handle: &Arc<Handle>, f: impl FnOnce(Option<&mut Core>) -> R) -> R {
    context::with_scheduler(|cx| match cx {
        Some(scheduler::Context::MultiThread(cx)) if Arc::ptr_eq(&cx.handle, handle) => {
            scheduler::with_core_slot(&cx.core, f)
        }
        _ => f(None),
    })
}

/// Pushes `task` onto the current worker's queue when this thread is a worker of `handle`
/// holding its core; gives the task back otherwise.
pub(super) fn try_schedule_local(
    handle: &Arc<Handle>,
    task: RunTask,
    is_yield: bool,
) -> Result<(), RunTask> {
    let notify = with_core(handle, |core| match core {
        Some(core) => Ok(core.schedule_local(handle, task, is_yield)),
        None => Err(task),
    })?;
    // After the core's borrow ended: notifying may run arbitrary wake-up code.
    if notify {
        handle.notify_parked();
    }
    Ok(())
}

/// Spawns from one of `handle`'s workers holding its core: `make(true)` allocates the task,
/// which goes into this worker's LIFO slot and counts as this worker's spawn. Elsewhere
/// gives back `make(false)` for the caller to queue remotely. (`make` does not re-enter
/// the scheduler under the borrow: a spawn cancelled on a closed list wakes through
/// `with_core`'s `try_borrow_mut`, which then fails.)
#[allow(clippy::type_complexity)]
pub(super) fn try_spawn_local<T>(
    handle: &Arc<Handle>,
    make: impl FnOnce(bool) -> (JoinHandle<T>, Option<RunTask>),
) -> Result<JoinHandle<T>, (JoinHandle<T>, Option<RunTask>)> {
    let (join, notify) = with_core(handle, |core| match core {
        Some(core) => {
            let (join, task) = make(true);
            let notify = task.is_some_and(|task| {
                core.stats.m.spawned += 1;
                core.schedule_local(handle, task, false)
            });
            Ok((join, notify))
        }
        None => Err(make(false)),
    })?;
    if notify {
        handle.notify_parked();
    }
    Ok(join)
}

impl Context {
    fn run(&self, mut core: Box<Core>) {
        while !core.is_shutdown {
            core.tick = core.tick.wrapping_add(1);
            if core.tick.is_multiple_of(core.event_interval) {
                core = self.maintenance(core);
                if core.is_shutdown {
                    break;
                }
            }
            if let Some(task) = core.next_task(&self.handle) {
                core = self.run_task(task, core);
                continue;
            }
            if !core.defer.is_empty() {
                // Ring and global queue are empty: the yielders' turn. (No steal: this worker
                // has work of its own; the driver still gets its turn every event_interval.)
                core.flush_defer(&self.handle);
                continue;
            }
            if let Some(task) = core.steal_work(&self.handle) {
                core = self.run_task(task, core);
                continue;
            }
            if let Some(task) = core.spin_for_work(&self.handle) {
                core = self.run_task(task, core);
                continue;
            }
            core = self.park(core);
        }
        self.shutdown(core);
    }

    fn run_task(&self, task: RunTask, mut core: Box<Core>) -> Box<Core> {
        core.transition_from_searching(&self.handle);
        core.lifo_enabled = !core.disable_lifo;
        core.stats.m.polls += 1;
        core.since_global += 1;
        let me = &self.handle.shared.workers[self.index];
        let mut polls = core.stats.m.polls;
        *self.core.borrow_mut() = Some(core);
        coop::budget(|| {
            // The stamps are plain stores to this worker's own line (stall.rs): the
            // monitor finds a poll that lasts a tick, and lets siblings rescue our tasks.
            me.begin_poll(polls);
            let mut completed = task.run(&self.sched);
            me.end_poll(polls);
            let mut lifo_polls = 0;
            loop {
                let mut core = self
                    .core
                    .borrow_mut()
                    .take()
                    .expect("worker core lost during a poll");
                core.stats.m.completed += u64::from(completed);
                let Some(task) = me.lifo.take() else {
                    return core;
                };
                // The cap gives waiting tasks a turn. With none waiting here (ring and
                // deferred list empty) the streak goes on longer: pushing the task to the
                // ring would only hand it to a searcher (a cross-core hop for a chain of
                // spawns) for no one's benefit. Still bounded, so the tick ends and the
                // driver gets its turn (`event_interval`).
                let limit = if core.run_queue.is_empty() && core.defer.is_empty() {
                    MAX_LIFO_POLLS_ALONE
                } else {
                    MAX_LIFO_POLLS
                };
                let capped = lifo_polls >= limit || !coop::has_budget_remaining();
                // Only looked at while the streak may go on: one load fewer per capped end.
                let global_due = !capped && core.global_due(&self.handle);
                if capped || global_due {
                    // Give the ring a turn; later schedules this tick go to the back too.
                    core.lifo_enabled = false;
                    if global_due {
                        // The global queue's turn: its batch goes ahead of the displaced
                        // task, so a chain of long polls runs behind the remote spawns
                        // that arrived meanwhile, not in front of them.
                        core.since_global = 0;
                        if let Some(first) = core.next_global_batch(&self.handle, true) {
                            core.push_back(first, &self.handle);
                        }
                    }
                    core.push_back(task, &self.handle);
                    return core;
                }
                lifo_polls += 1;
                core.stats.m.polls += 1;
                core.since_global += 1;
                core.stats.m.lifo_hits += 1;
                polls = core.stats.m.polls;
                *self.core.borrow_mut() = Some(core);
                me.begin_poll(polls);
                completed = task.run(&self.sched);
                me.end_poll(polls);
            }
        })
    }

    /// Periodic work: let the driver dispatch ready I/O and timers, publish metrics,
    /// notice shutdown.
    fn maintenance(&self, mut core: Box<Core>) -> Box<Core> {
        let mut park = core.park.take().expect("parker present");
        *self.core.borrow_mut() = Some(core);
        park.park_timeout_zero();
        let mut core = self.core.borrow_mut().take().expect("core present");
        core.park = Some(park);
        core.stats.submit(&self.handle.shared.metrics[core.index]);
        core.is_shutdown = self.handle.is_closed();
        core.tune_global_queue_interval();
        core
    }

    fn park(&self, mut core: Box<Core>) -> Box<Core> {
        if core.transition_to_parked(&self.handle) {
            self.handle.shared.workers[self.index].idle();
            while !core.is_shutdown {
                core.stats.check_noop();
                core.stats.about_to_park();
                core.stats.submit(&self.handle.shared.metrics[core.index]);
                let mut park = core.park.take().expect("parker present");
                // The core stays reachable while parked: tasks woken by the driver on this
                // thread land in our own queue.
                *self.core.borrow_mut() = Some(core);
                self.handle.hooks.before_park();
                park.park();
                self.handle.hooks.after_unpark();
                core = self.core.borrow_mut().take().expect("core present");
                core.park = Some(park);
                core.stats.unparked();
                core.stats.mark_unpark_polls();
                // Parked time is not work: restart the measurement.
                core.tune_window = None;
                core.is_shutdown = self.handle.is_closed();
                if core.transition_from_parked(&self.handle) {
                    core.spin.end_idle();
                    // After the idle-count change above (monitor.rs: no lost wake-up).
                    self.handle.monitor.worker_unparked();
                    break;
                }
            }
        }
        if core.should_notify_others() {
            self.handle.notify_parked();
        }
        core
    }

    fn shutdown(&self, mut core: Box<Core>) {
        // Cancel live tasks on this worker's thread, starting with its own shard.
        core.stats.m.completed +=
            self.handle.shared.owned.close_and_shutdown_all(core.index) as u64;
        core.stats.submit(&self.handle.shared.metrics[core.index]);
        let mut cores = self.handle.shared.shutdown_cores.lock();
        cores.push(core);
        if cores.len() < self.handle.num_workers() {
            return;
        }
        // The last worker out drains every queue, after every worker stopped polling (so
        // nothing is queued behind the drain). Bound tasks were cancelled through the
        // closed list and only lose this reference; an unbound one (spawned, never parked)
        // is cancelled here. Not under `shutdown_cores`: a future's drop may wake others.
        let mut drained: Vec<Box<Core>> = cores.drain(..).collect();
        drop(cores);
        // Remote spawns never taken count (`claim_remote`) on this worker's core, so
        // `live_tasks` reads 0 once the runtime is down.
        let own = drained.last_mut().expect("this worker's core");
        while let Some(task) =
            (self.handle.shared.overflow.pop()).or_else(|| self.handle.shared.inject.pop())
        {
            own.stats.m.spawned += u64::from(task.claim_remote());
            own.stats.m.completed += u64::from(task.shutdown());
        }
        for core in drained.iter_mut() {
            let lifo = self.handle.shared.workers[core.index].lifo.steal();
            let mut tasks: Vec<RunTask> = lifo.into_iter().collect();
            tasks.append(&mut core.defer);
            while let Some(task) = core.run_queue.pop() {
                tasks.push(task);
            }
            for task in tasks {
                core.stats.m.completed += u64::from(task.shutdown());
            }
            core.stats.submit(&self.handle.shared.metrics[core.index]);
        }
        drop(drained);
        self.handle.driver.shutdown();
    }
}

impl Core {
    /// Pushes a task from this worker. True when a parked sibling should be notified
    /// (the task landed where it can be stolen).
    fn schedule_local(&mut self, handle: &Handle, task: RunTask, is_yield: bool) -> bool {
        self.stats.m.local_schedules += 1;
        if is_yield {
            self.defer.push(task);
            return false;
        }
        let stealable = if !self.lifo_enabled {
            self.push_back(task, handle);
            true
        } else {
            // A LIFO push alone wakes nobody (only a displaced task, now in the ring,
            // does); the monitor wakes a sibling if this worker then gets stuck.
            match self.me.lifo.push(task) {
                Some(prev) => {
                    self.push_back(prev, handle);
                    true
                }
                None => false,
            }
        };
        // While parked (`park` taken) the worker is about to run these itself.
        stealable && self.park.is_some()
    }

    fn push_back(&mut self, task: RunTask, handle: &Handle) {
        let moved = self.run_queue.push_back(task, &handle.shared.overflow);
        if moved > 0 {
            self.stats.m.overflows += 1;
            self.stats.m.overflowed_tasks += moved as u64;
        }
    }

    /// Whether the global queue has work that waited long enough to cut a LIFO streak:
    /// `global_queue_interval` polls, or (tuned runtimes) `GLOBAL_QUEUE_LATENCY` since
    /// this worker last took from it. The clock is read only when the queue has work.
    fn global_due(&self, handle: &Handle) -> bool {
        if !handle.shared.has_global_work() {
            return false;
        }
        if self.since_global >= self.global_queue_interval {
            return true;
        }
        self.tune_gqi
            && self
                .last_global
                .is_none_or(|t| t.elapsed() >= GLOBAL_QUEUE_LATENCY)
    }

    fn next_task(&mut self, handle: &Handle) -> Option<RunTask> {
        if self.since_global >= self.global_queue_interval {
            self.since_global = 0;
            // Fairness: a share of the global queue first, now and then, however busy we
            // are. A batch (not one task) so a burst of remote spawns drains in a few visits.
            if let Some(task) = self.next_global_batch(handle, true) {
                return Some(task);
            }
            return self.next_local_task();
        }
        if let Some(task) = self.next_local_task() {
            return Some(task);
        }
        self.next_global_batch(handle, false)
    }

    /// Sets the global queue interval so a busy worker visits the global queue about every
    /// `GLOBAL_QUEUE_LATENCY` of polling: one clock read per maintenance (every
    /// `event_interval` ticks), dividing the window's time by its polls.
    fn tune_global_queue_interval(&mut self) {
        if !self.tune_gqi {
            return;
        }
        let now = Instant::now();
        let polls = self.stats.m.polls;
        if let Some((start, polls_then)) = self.tune_window {
            let n = u32::try_from(polls - polls_then).unwrap_or(u32::MAX).max(1);
            let per_poll = now.saturating_duration_since(start) / n;
            let interval = if per_poll.is_zero() {
                MAX_GQI
            } else {
                (GLOBAL_QUEUE_LATENCY.as_nanos() / per_poll.as_nanos()).min(u128::from(MAX_GQI))
                    as u32
            };
            self.global_queue_interval = interval.clamp(MIN_GQI, MAX_GQI);
        }
        self.tune_window = Some((now, polls));
    }

    fn next_local_task(&mut self) -> Option<RunTask> {
        self.me.lifo.take().or_else(|| self.run_queue.pop())
    }

    /// Takes a fair share of a global queue into the ring and returns the first task: the
    /// overflow queue (work under way) first, then the remote one; on a fairness visit
    /// (`fair`) the two take turns at going first, so neither starves the other.
    fn next_global_batch(&mut self, handle: &Handle, fair: bool) -> Option<RunTask> {
        let shared = &handle.shared;
        let spawns_first = fair && {
            self.spawns_turn = !self.spawns_turn;
            self.spawns_turn
        };
        let (first, second) = if spawns_first {
            (&shared.inject, &shared.overflow)
        } else {
            (&shared.overflow, &shared.inject)
        };
        let inject: &queue::Inject<RunTask> = if !first.is_empty() {
            first
        } else if !second.is_empty() {
            second
        } else {
            return None;
        };
        if self.tune_gqi {
            self.last_global = Some(Instant::now());
        }
        // Up to seven eighths of the ring, less what it holds (slack for the task a LIFO
        // streak displaces, for local spawns): a deep global queue drains in few visits,
        // so a worker whose polls are long (it visits between them) serves a remote burst
        // with few interruptions.
        let room = (queue::CAPACITY * 7 / 8).saturating_sub(self.run_queue.len());
        let share = inject.len() / handle.num_workers() + 1;
        let n = share.min(room).max(1);
        let mut batch = inject.pop_n(n);
        let first = batch.next()?;
        // A remote spawn counts as this worker's (`live_tasks`) from here.
        let mut claimed = u64::from(first.claim_remote());
        for task in batch {
            claimed += u64::from(task.claim_remote());
            self.push_back(task, handle);
        }
        self.stats.m.spawned += claimed;
        Some(first)
    }

    fn steal_work(&mut self, handle: &Handle) -> Option<RunTask> {
        if !self.transition_to_searching(handle) {
            return None;
        }
        let remotes = &handle.shared.remotes;
        let n = remotes.len();
        let start = self.rand.below(n as u32) as usize;
        for i in 0..n {
            let victim = (start + i) % n;
            if victim == self.index {
                continue;
            }
            let before = self.run_queue.len();
            if let Some(task) = remotes[victim].steal.steal_into(&mut self.run_queue) {
                self.stats.m.steals += 1;
                self.stats.m.stolen_tasks += (self.run_queue.len() - before + 1) as u64;
                return Some(task);
            }
            // A sibling stuck in a long poll: the task it put in its LIFO slot (a child it
            // spawned, a task it woke) would wait for the whole poll.
            if let Some(task) = handle.shared.workers[victim].steal_lifo() {
                self.stats.m.steals += 1;
                self.stats.m.stolen_tasks += 1;
                return Some(task);
            }
        }
        self.next_global_batch(handle, false)
    }

    /// Briefly waits for work to show up, as a searcher only (at most half the workers),
    /// so a worker does not park just before the next task arrives.
    /// Only while recent idle episodes were short, and one spinner at a time (spin.rs).
    fn spin_for_work(&mut self, handle: &Handle) -> Option<RunTask> {
        self.spin.begin_idle();
        if !self.is_searching || !self.spin.worth_spinning() {
            return None;
        }
        let token = &handle.shared.spinner;
        if !token.acquire() {
            return None;
        }
        let mut found = None;
        for _ in 0..self.spin_rounds {
            for _ in 0..SPIN_PAUSES {
                shim::hint::spin_loop();
            }
            let visible = handle.shared.has_global_work()
                || handle.shared.remotes.iter().any(|r| !r.steal.is_empty())
                || handle.stuck_lifo_pending();
            if visible {
                if let Some(task) = self.steal_work(handle) {
                    found = Some(task);
                    break;
                }
            }
        }
        token.release();
        self.spin.spun(found.is_some());
        if found.is_some() {
            self.spin.end_idle();
        }
        found
    }

    fn transition_to_searching(&mut self, handle: &Handle) -> bool {
        if !self.is_searching {
            self.is_searching = handle.shared.idle.transition_worker_to_searching();
        }
        self.is_searching
    }

    /// Found work: stop searching; the last searcher to stop wakes another worker.
    fn transition_from_searching(&mut self, handle: &Handle) {
        if !self.is_searching {
            return;
        }
        self.is_searching = false;
        if handle.shared.idle.transition_worker_from_searching() {
            handle.notify_parked();
        }
    }

    /// Moves the deferred (yielded) tasks to the back of the ring, in yield order.
    fn flush_defer(&mut self, handle: &Handle) {
        let mut defer = std::mem::take(&mut self.defer);
        for task in defer.drain(..) {
            self.push_back(task, handle);
        }
        // Keep the allocation for the next round.
        self.defer = defer;
    }

    fn has_tasks(&self) -> bool {
        !self.me.lifo.is_empty() || !self.run_queue.is_empty() || !self.defer.is_empty()
    }

    fn should_notify_others(&self) -> bool {
        // A searcher will notify when it finds work; otherwise, more than one runnable
        // task here means a sibling could take some.
        !self.is_searching && usize::from(!self.me.lifo.is_empty()) + self.run_queue.len() > 1
    }

    /// False when there is still work here; otherwise registers as parked.
    fn transition_to_parked(&mut self, handle: &Handle) -> bool {
        if self.has_tasks() {
            return false;
        }
        // No searcher left behind us: nobody else would see work pushed meanwhile.
        let must_recheck = handle
            .shared
            .idle
            .transition_worker_to_parked(self.index, self.is_searching);
        self.is_searching = false;
        if must_recheck {
            handle.notify_if_work_pending();
        }
        true
    }

    /// After a wake-up: true when the worker should run again.
    fn transition_from_parked(&mut self, handle: &Handle) -> bool {
        if self.has_tasks() {
            // Woken with work of its own (e.g. the driver dispatched here): unpark as a
            // non-searcher unless someone already counted us as a notified searcher.
            self.is_searching = !handle.shared.idle.unpark_worker_by_id(self.index);
            return true;
        }
        if handle.shared.idle.is_parked(self.index) {
            // Nobody notified us (spurious, or driver events for other threads).
            return false;
        }
        // Notified: `worker_to_notify` counted us as searching.
        self.is_searching = true;
        true
    }
}
